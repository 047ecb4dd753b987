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
# 100 s on the idle 2-core machine (164 s the first time): not in make check; run by make
# check-i386-system.
. "$(dirname "$0")/rt-lib.sh"

SYS=$T_TMP/sys
if ! command -v qemu-system-i386 > /dev/null; then
	skip "qemu-system-i386 is not installed (apt-get install qemu-system-x86)"
	done_testing
	exit
fi
start=$(date +%s)
# I386_SYSTEM_DIR=DIR: the results of an earlier `scripts/i386-system.sh DIR`
# checked again without a new boot.
if [ -n "${I386_SYSTEM_DIR:-}" ]; then
	SYS=$I386_SYSTEM_DIR
	[ -s "$SYS/results/uname" ] > "$T_TMP/script.err" 2>&1
	status=$?
else
	"$TOP/scripts/i386-system.sh" "$SYS" > "$T_TMP/script.out" 2> "$T_TMP/script.err"
	status=$?
fi
if [ "$status" = 2 ]; then
	skip "scripts/i386-system.sh: $(tail -1 "$T_TMP/script.err")"
	done_testing
	exit
fi
ok "$status" "scripts/i386-system.sh built, booted the i386 guest and got its results back ($(($(date +%s) - start)) s)"
if [ "$status" != 0 ]; then
	diag "$(cat "$T_TMP/script.err")" "console:" "$(tail -30 "$SYS/console.log" 2> /dev/null)"
	done_testing
	exit
fi
R=$SYS/results
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

# attach: the i386 objpatch into an i386 process (t/97-attach.t's scenario).
d=$R/attach label="i386-system attach"
is "$(grep -c . "$d/load.status")" 20 "[$label] 20 loads were tried"
is "$(sort -u "$d/load.status")" 0 "[$label] ... every one status 0"
is "$(grep -cE '^objpatch attach: [0-9]+: /opt/objpatch/libobjpatch\.so loaded, dormant \(handle 0x[0-9a-f]+, by thread [0-9]+\)$' "$d/loads")" 20 \
	"[$label] ... one line each: loaded, dormant"
tid=$(cat "$d/reader")
is "$(cat "$d/reader.status")" 0 "[$label] a load by the thread blocked in read(): status 0"
grep -qE "^objpatch attach: [0-9]+: /opt/objpatch/libobjpatch\.so loaded, dormant \(handle 0x[0-9a-f]+, by thread $tid\)\$" "$d/reader.load"
ok $? "[$label] ... one line, which says that thread ($tid) did it"
is "$(cat "$d/loads" "$d/reader.load" | grep -o 'handle 0x[0-9a-f]*' | sort -u | wc -l)" 1 "[$label] every load gave the one handle"
[ -s "$d/maps" ]
ok $? "[$label] /proc/PID/maps holds libobjpatch.so"
is "$(cat "$d/threads.after")" "$(cat "$d/threads.before")" "[$label] dormant: the runtime started no thread"
is "$(cat "$d/reader.syscall")" 3 "[$label] the reader is back in read() (i386's system call 3)"
is "$(cat "$d/status")" 7 "[$label] the program exits with its own status"
is "$(grep -c 'ran, all right' "$d/target.out")" 4 "[$label] every worker's results were right"
grep -q '^wrong' "$d/target.out"
ok $((! $?)) "[$label] every sleep was whole and without error"
is "$(grep '^read:' "$d/target.out")" "read: line after the loads" "[$label] the interrupted read() returned the line written after"
is "$(cat "$d/target.err")" "" "[$label] dormant: nothing on the program's standard error"

# attach tracing: objpatch attach PID's session in the i386 guest
# (t/98-attach-trace.t's "traced"), with -pg sites and with pads.
for name in attach-trace attach-trace-pads; do
	d=$R/$name label="i386-system $name"
	is "$(cat "$d/attach.status")" 0 "[$label] attach --filter add_pair --filter 'par*' --duration 0.5: status 0"
	[ "$(cat "$d/attach.status")" = 0 ] || diag "[$label] objpatch said:" "$(head -5 "$d/attach.err")"
	names=$(python3 -c 'import json, sys
print(" ".join(sorted({e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") in ("B", "E", "X")})))' \
		"$d/trace.json" 2>&1)
	is "$names" "add_pair parity" "[$label] the trace holds the filtered functions, only"
	# The workers' arguments vary: values by their form (the program checks the rest).
	printf '%s\n' 'add_pair ~^[0-9]+$' 'parity ~^"(odd|even)"$' > "$T_TMP/attach-trace.expect"
	check_trace "$label" json "$T_TMP/attach-trace.expect" "$d/trace.json"
	is "$(cat "$d/threads.after")" "$(cat "$d/threads.before")" "[$label] detached: the runtime's session thread is gone"
	is "$(cat "$d/status")" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'rounds, all right' "$d/target.out")" 3 "[$label] every worker's results were right"
	grep '^wrong' "$d/target.out" | head -3 | while read -r l; do diag "$l"; done
	is "$(cat "$d/target.err")" "" "[$label] nothing on the program's standard error"
done

done_testing
