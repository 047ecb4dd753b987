#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The i386 runtime on a real i386 kernel (scripts/i386-system.sh: Debian's
# 686 kernel under qemu-system-i386, TCG, an initramfs with the programs,
# the cross libc and an i386 objpatch): what t/95-rt-i386.t, t/96-args.t
# and t/97-attach.t run under qemu-user or skip (this machine's kernel runs
# no i386 program), checked here with the same checkers and expectation
# files.  In the guest:
#  - rt_test + rt_cxx, gcc -pg (PIE), -pg -mfentry, --nop, clang --nop,
#    untraced and traced by objpatch run in every format (fork, 4 threads);
#  - rt_i386.c (x87, regparm/fastcall, realigned frames) and rt_tail.c
#    (tail calls) in the same builds;
#  - args.c, gcc -pg and -pg -mfentry, objpatch run --args in text and
#    JSON, and stripped;
#  - rt_test + rt_cxx and rt_i386.c with -fpatchable-function-entry=5
#    pads (gcc's and clang's), which the runtime joins into one NOP as it
#    starts alone: qemu-user hides the thread count, so only here;
#  - rt_toggle: 10,000 enable/disable("*") while 8 threads call, through
#    the int3 protocol on a real kernel (qemu-user's goes through mprotect
#    windows), with -pg sites and with pads;
#  - objpatch attach --inject-only into target.c running: 20 loads, one by
#    the thread blocked in read(), the target going on as before;
#  - objpatch attach PID tracing testdata/attach/traced.c (-pg, --nop; and
#    pads, joined while attach holds every thread) for 0.5 s with two
#    filters: those functions only, their values, the session's thread
#    gone, the target's checks and status right.
# About 2 minutes on the idle 2-core machine: not in make check; run by
# make check-i386-system.
. "$(dirname "$0")/i386-system-lib.sh"

SYS=$T_TMP/sys
# I386_SYSTEM_DIR=DIR: the results of an earlier `scripts/i386-system.sh DIR`
# checked again without a new boot.
i386_system "${I386_SYSTEM_DIR:-}" "$SYS" 686 || { done_testing; exit; }
is "$(cat "$R/uname")" i686 "the guest's kernel is i386's (uname -m)"

# status_ok LABEL DIR WHICH: the program's checks passed (out.WHICH, status.WHICH).
status_ok() {
	program_ok "$1" "$(cat "$2/status.$3" 2> /dev/null || echo 255)" "$2/out.$3"
	[ -s "$2/err.$3" ] && diag "[$1] stderr:" "$(head -10 "$2/err.$3")"
}

export RT_EXPECT=$RT/rt_expect_i386.txt
for name in pg fentry nop clang pads-gcc pads-clang; do
	d=$R/rt-$name label="i386-system rt $name"
	status_ok "[$label] untraced, its checks pass" "$d" untraced
	[ ! -s "$d/err.untraced" ]
	ok $? "[$label] untraced, nothing on stderr"
	for fmt in "${FORMATS[@]}"; do
		status_ok "[$label] traced ($fmt): exit 0, the program's checks pass" "$d" "$fmt"
		threads=(--require-threads 4)
		[ "$fmt" = folded ] && threads=()
		check_trace "$label" "$fmt" "$RT_EXPECT" "$d/trace.$fmt" --require-fork "${threads[@]}"
	done
done

for name in pg fentry nop clang pads; do
	d=$R/i386-$name label="i386-system rt_i386 $name"
	status_ok "[$label] untraced, its checks pass" "$d" untraced
	status_ok "[$label] traced: exit 0, the program's checks pass" "$d" text
	check_trace "$label" text "$RT/rt_i386_expect.txt" "$d/trace.text"
done

for name in gcc fentry clang; do
	d=$R/tail-$name label="i386-system tail calls $name"
	status_ok "[$label] untraced, its checks pass" "$d" untraced
	status_ok "[$label] traced: exit 0, the program's checks pass" "$d" text
	check_trace "$label" text "$RT/rt_tail_expect.txt" "$d/trace.text"
done

ARGS=(python3 "$TOP/testdata/args/check_args.py" "$TOP/testdata/args/expect.txt")
for name in pg fentry; do
	d=$R/args-$name label="i386-system args $name"
	for fmt in text json; do
		is "$(cat "$d/status.$fmt")" 0 "[$label] objpatch run --args --format $fmt: status 0"
		out=$("${ARGS[@]}" "$fmt" "$d/t.$fmt" 2>&1)
		ok $? "[$label] $fmt: every argument of every call as expected"
		[ -z "$out" ] || diag "$out"
	done
	out=$("${ARGS[@]}" text "$d/s.text" 2>&1)
	ok $? "[$label] stripped: the same"
	[ -z "$out" ] || diag "$out"
done

for name in toggle toggle-pads; do
	d=$R/$name label="i386-system $name"
	status_ok "[$label] 10,000 enable/disable(\"*\") with 8 threads calling: exit 0, checks pass" "$d" text
	grep -q '^# ' "$d/out.text" && diag "[$label] $(grep '^# ' "$d/out.text" | sed 's/^# //')"
	check_trace "$label" text "$RT/rt_toggle_expect.txt" "$d/trace.text"
done

# attach: the i386 objpatch into an i386 process (t/97-attach.t's
# scenario), and its sessions, with -pg sites and with pads.
attach_loads_ok "$R/attach" "i386-system attach"
for name in attach-trace attach-trace-pads; do
	attach_session_ok "$R/$name" "i386-system $name"
done

done_testing
