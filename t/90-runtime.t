#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The tracing runtime end to end: testdata/runtime/rt_test.c + rt_cxx.cc
# (every class of return value, recursion, longjmp, a signal handler, a C++
# exception with a destructor on the way, 4 threads, fork) built the way
# users build: objects compiled with -pg, `recordmcount --mode=user [--nop]`,
# linked WITHOUT -pg into a PIE, stripped (names and types come from the
# tables, not from debug info).  Each build
#  - runs untraced first: its own checks must pass (the hook is glibc's or a NOP);
#  - runs under `objpatch run --format text|json|folded|perfetto`, and
#    testdata/runtime/check_trace.py checks the trace against the values
#    written by hand in rt_expect.txt, its shape, the threads and the
#    forked child's trace.
# Builds: gcc and clang, x86_64, each as -pg, -pg -mfentry, -pg with
# --nop and -fpatchable-function-entry=5 (other machines, under qemu-user: t/95-rt-*.t).  Then rt_toggle.c,
# linked with libobjpatch.a: 10,000 objpatch_enable/disable("*") while 8
# threads call traced functions; its trace must be well-formed too.
# A missing runtime (build/libobjpatch.so, `objpatch run`, libobjpatch.a) is
# a failure, not a skip.  About 30 s on 2 cores.
. "$(dirname "$0")/rt-lib.sh"

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is implemented and tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi
[ -e "$TOP/build/libobjpatch.so" ] || diag "build/libobjpatch.so does not exist: every traced run fails"

x86_64_variant() {	# x86_64_variant CC CXX NAME RMC-FLAGS [CFLAGS...]
	local cc=$1 cxx=$2 name=$3 rmc=$4 label dir fmt
	shift 4
	label="$cc $name" dir=$T_TMP/$cc-$name
	if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null; then
		skip "[$label] $cc or $cxx is not installed"
		return
	fi
	build "$label" "$dir" "$cc" "$cxx" strip "$rmc" "$@" || return
	stripped "$label" "$dir/prog" readelf
	untraced "$label" "$dir/prog"
	for fmt in "${FORMATS[@]}"; do
		traced "$label" "$dir" "$fmt" "$OBJPATCH" run --output "$dir/trace.$fmt" --format "$fmt" -- "$dir/prog"
	done
}

for cc in gcc clang; do
	cxx=g++
	[ "$cc" = clang ] && cxx=clang++
	x86_64_variant "$cc" "$cxx" pg ""
	x86_64_variant "$cc" "$cxx" fentry "" -mfentry
	x86_64_variant "$cc" "$cxx" nop --nop
done
# -fpatchable-function-entry=5 pads (gcc's five 0x90s joined into one NOP
# at start-up), stripped like the others: no symbol says where a pad's
# function starts, so the pad is taken to start it.
PG_CFLAGS=("${CFLAGS[@]}")
CFLAGS=(-O2 -g -fpatchable-function-entry=5 -fno-omit-frame-pointer)
x86_64_variant gcc g++ pads ""
x86_64_variant clang clang++ pads ""
CFLAGS=("${PG_CFLAGS[@]}")

# Tail calls (a function jumping to another keeps the hooked return
# address for it): every form and compiler.
tail_check gcc-pg gcc - -pg
tail_check gcc-fentry gcc - -pg -mfentry
tail_check clang-pg clang - -pg
tail_check clang-fentry clang - -pg -mfentry

# Shared libraries: one linked to the program, one dlopen()ed after
# start-up; and a shadow stack shallower than the program's recursion.
dl_test() {
	local label=dlopen dir=$T_TMP/dl status n
	mkdir -p "$dir"
	compile_ok "[$label]" gcc "${WARN[@]}" "${CFLAGS[@]}" -fPIC -DDIRECT -c "$RT/rt_lib.c" -o "$dir/direct.o" &&
	compile_ok "[$label]" gcc "${WARN[@]}" "${CFLAGS[@]}" -fPIC -c "$RT/rt_lib.c" -o "$dir/loaded.o" &&
	compile_ok "[$label]" gcc "${WARN[@]}" "${CFLAGS[@]}" -c "$RT/rt_dl.c" -o "$dir/dl.o" &&
	compile_ok "[$label] recordmcount --mode=user" "$RMC" --mode=user "$dir/direct.o" "$dir/loaded.o" "$dir/dl.o" &&
	compile_ok "[$label]" gcc -shared -o "$dir/librt_direct.so" "$dir/direct.o" &&
	compile_ok "[$label]" gcc -shared -o "$dir/librt_loaded.so" "$dir/loaded.o" &&
	compile_ok "[$label]" gcc -o "$dir/rt_dl" "$dir/dl.o" -L"$dir" -lrt_direct -Wl,-rpath,"$dir" -ldl || return
	timeout 60 "$OBJPATCH" run --output "$dir/trace.text" -- "$dir/rt_dl" "$dir/librt_loaded.so" \
		> "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] traced: exit 0, the program's checks pass" "$status" "$dir/out"
	check_trace "$label" text "$RT/rt_dl_expect.txt" "$dir/trace.text"
	n=$(grep -c 'dl_recurse' "$dir/trace.text")
	is "$n" 21 "[$label] dl_recurse(10): 11 frames, 10 opening and closing lines and a leaf"
	timeout 60 "$OBJPATCH" run --depth 4 --output "$dir/shallow.text" -- "$dir/rt_dl" "$dir/librt_loaded.so" \
		> "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] --depth 4: exit 0, the program's checks pass" "$status" "$dir/out"
	check_trace "$label --depth 4" text "$RT/rt_dl_expect.txt" "$dir/shallow.text"
	grep -q '^objpatch: 8 calls not traced (shadow stack full at depth 4)$' "$dir/err"
	ok $? "[$label] --depth 4: main and 3 levels of dl_recurse traced, the 8 deeper calls counted"
	[ -s "$dir/err" ] && diag "$(head -5 "$dir/err")"
}
dl_test

# objpatch record, then objpatch report: the same trace in two steps; then
# what report says of files that are not recordings.
report_test() {
	local label="gcc pg: record + report" dir=$T_TMP/gcc-pg status
	[ -x "$dir/prog" ] || { ok 1 "[$label] no gcc pg build to record"; return; }
	record_report "gcc pg" "$dir"
	printf 'not a recording\n' > "$dir/bad.data"
	"$OBJPATCH" report "$dir/bad.data" > /dev/null 2> "$dir/err.bad"
	status=$?
	[ "$status" = 1 ] && grep -q "bad.data: offset 0: not an objpatch recording" "$dir/err.bad"
	ok $? "[$label] a file that is not a recording: exit 1 and one line naming it"
	head -c 200 "$dir/rec.data" > "$dir/cut.data"
	"$OBJPATCH" report "$dir/cut.data" > /dev/null 2> "$dir/err.cut"
	status=$?
	[ "$status" = 1 ] && grep -qE "cut.data: offset [0-9]+: truncated record" "$dir/err.cut"
	ok $? "[$label] a truncated recording: exit 1 and one line naming it and the record's offset"
}
report_test

# rt_toggle: the runtime linked in (libobjpatch.a), switched by its API.
toggle_test() {
	local dir=$T_TMP/toggle label=toggle fmt status out
	mkdir -p "$dir"
	compile_ok "[$label]" gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -I"$TOP/objpatch/lib" -I"$TOP" \
		-c "$RT/rt_toggle.c" -o "$dir/rt_toggle.o" || return
	if ! out=$("$RMC" --mode=user --nop "$dir/rt_toggle.o" 2>&1); then
		ok 1 "[$label] recordmcount --mode=user --nop"
		diag "$out"
		return
	fi
	compile_ok "[$label] link with build/libobjpatch.a" gcc -pie -o "$dir/rt_toggle" "$dir/rt_toggle.o" \
		"$TOP/build/libobjpatch.a" -pthread -lelf -ldl || return
	ok 0 "[$label] builds, linked with build/libobjpatch.a"
	for fmt in text json; do
		rm -f "$dir/trace.$fmt"
		OBJPATCH_OUTPUT=$dir/trace.$fmt OBJPATCH_FORMAT=$fmt timeout 60 "$dir/rt_toggle" \
			> "$dir/out.$fmt" 2> "$dir/err.$fmt"
		status=$?
		program_ok "[$label] ($fmt) 10,000 enable/disable(\"*\") with 8 threads calling: exit 0, checks pass" \
			"$status" "$dir/out.$fmt"
		grep -q '^# ' "$dir/out.$fmt" && diag "[$label] $(grep '^# ' "$dir/out.$fmt" | sed 's/^# //')"
		[ -s "$dir/err.$fmt" ] && diag "[$label] stderr ($fmt):" "$(head -20 "$dir/err.$fmt")"
		check_trace "$label" "$fmt" "$RT/rt_toggle_expect.txt" "$dir/trace.$fmt"
	done
	# Buffers too small for the run: events are dropped and counted, and a
	# call whose exit was dropped is closed as "lost", never left open.
	# No writer thread (OBJPATCH_FLUSH_MS=0): nothing frees them before exit.
	for fmt in text json; do
		rm -f "$dir/small.$fmt"
		OBJPATCH_FLUSH_MS=0 OBJPATCH_BUFFER_MB=1 OBJPATCH_OUTPUT=$dir/small.$fmt OBJPATCH_FORMAT=$fmt timeout 60 \
			"$dir/rt_toggle" > "$dir/out.small" 2> "$dir/err.small"
		status=$?
		program_ok "[$label] ($fmt) with OBJPATCH_BUFFER_MB=1: exit 0, checks pass" "$status" "$dir/out.small"
		grep -q 'events lost (trace buffers full)' "$dir/err.small"
		ok $? "[$label] ($fmt) with OBJPATCH_BUFFER_MB=1: the lost events are reported"
		check_trace "$label small buffers" "$fmt" "$RT/rt_toggle_expect.txt" "$dir/small.$fmt"
	done
}
toggle_test

done_testing
