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
#  - runs under `objpatch run --format text|json|folded`, and
#    testdata/runtime/check_trace.py checks the trace against the values
#    written by hand in rt_expect.txt, its shape, the threads and the
#    forked child's trace.
# Builds: gcc and clang, x86_64, each as -pg, -pg -mfentry and -pg with
# --nop; aarch64 (gcc -pg, under qemu-user, with build/aarch64/libobjpatch.so:
# skipped with the reason until that exists).  Then rt_toggle.c, linked with
# libobjpatch.a: 10,000 objpatch_enable/disable("*") while 8 threads call
# traced functions, on x86_64 and on AArch64 under qemu-user; its trace must
# be well-formed too.
# A missing runtime (build/libobjpatch.so, `objpatch run`, libobjpatch.a) is
# a failure, not a skip.  About 30 s on 2 cores.
. "$(dirname "$0")/lib.sh"

RT=$TOP/testdata/runtime
OBJPATCH=$TOP/build/objpatch
CHECK=(python3 "$RT/check_trace.py")
WARN=(-Wall -Wextra -Werror)
CFLAGS=(-O2 -g -pg -fno-omit-frame-pointer)
FORMATS=(text json folded)
CC_TARGET=()	# extra flags for the C compiler only (clang --target=...)

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is implemented and tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi
[ -e "$TOP/build/libobjpatch.so" ] || diag "build/libobjpatch.so does not exist: every traced run fails"

# build LABEL DIR CC CXX STRIP RMC-FLAGS [CFLAGS...]: compile, record, link
# without -pg, strip; one test.  Leaves DIR/prog.
build() {
	local label=$1 dir=$2 cc=$3 cxx=$4 strip=$5 rmc=$6 out
	shift 6
	mkdir -p "$dir"
	compile_ok "[$label]" "$cc" "${CC_TARGET[@]}" -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" "$@" -c "$RT/rt_test.c" -o "$dir/rt_test.o" &&
	compile_ok "[$label]" "$cxx" "${WARN[@]}" "${CFLAGS[@]}" "$@" -c "$RT/rt_cxx.cc" -o "$dir/rt_cxx.o" || return 1
	# shellcheck disable=SC2086
	if ! out=$("$RMC" --mode=user $rmc "$dir/rt_test.o" "$dir/rt_cxx.o" 2>&1); then
		ok 1 "[$label] recordmcount --mode=user${rmc:+ $rmc}"
		diag "$out"
		return 1
	fi
	compile_ok "[$label] link" "$cxx" -pie -o "$dir/prog" "$dir/rt_test.o" "$dir/rt_cxx.o" -pthread &&
	compile_ok "[$label] strip" "$strip" "$dir/prog" || return 1
	ok 0 "[$label] builds: -pg objects, recordmcount --mode=user${rmc:+ $rmc}, PIE linked without -pg, stripped"
}

# stripped LABEL PROG READELF: no symbols, no DWARF, but the tables are there.
stripped() {
	local label=$1 prog=$2 readelf=$3 secs
	secs=$("$readelf" -SW "$prog" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p')
	if grep -qE '^(\.symtab|\.debug_.*)$' <<< "$secs" || ! grep -qE '^__(mcount|fentry)_rel$' <<< "$secs"; then
		ok 1 "[$label] stripped: no .symtab, no .debug_*, a __mcount_rel or __fentry_rel table"
		diag "sections: $(tr '\n' ' ' <<< "$secs")"
	else
		ok 0 "[$label] stripped: no .symtab, no .debug_*, a __mcount_rel or __fentry_rel table"
	fi
}

# program_ok LABEL STATUS STDOUT-FILE: the program's own checks passed.
program_ok() {
	local label=$1 status=$2 out=$3
	if [ "$status" -eq 0 ] && grep -qx 'done' "$out" && ! grep -q '^not ok' "$out"; then
		ok 0 "$label"
	else
		ok 1 "$label"
		if [ "$status" -gt 128 ]; then
			diag "killed by signal $((status - 128)) ($(kill -l $((status - 128)) 2>/dev/null))"
		else
			diag "exit status $status$([ "$status" -eq 124 ] && echo ' (timed out)')"
		fi
		diag "$(grep -v '^ok' "$out" | head -20)"
	fi
}

# untraced LABEL RUNNER...: runs as built; nothing on stderr.
untraced() {
	local label=$1 status
	shift
	timeout 60 "$@" > "$T_TMP/out" 2> "$T_TMP/err"
	status=$?
	program_ok "[$label] runs untraced, its checks pass" "$status" "$T_TMP/out"
	[ ! -s "$T_TMP/err" ]
	ok $? "[$label] untraced, nothing on stderr"
	[ -s "$T_TMP/err" ] && diag "$(head -20 "$T_TMP/err")"
}

# check_trace LABEL FORMAT EXPECT TRACE ARGS...: check_trace.py's verdict as one test.
check_trace() {
	local label=$1 fmt=$2 expect=$3 trace=$4 out
	shift 4
	if out=$("${CHECK[@]}" --format "$fmt" --expect "$expect" "$trace" "$@" 2>&1); then
		ok 0 "[$label] check_trace.py --format $fmt: $(grep -c '^ok' <<< "$out") checks pass"
	else
		ok 1 "[$label] check_trace.py --format $fmt"
		diag "$(grep -v '^ok' <<< "$out" | head -60)"
	fi
}

# traced LABEL DIR FORMAT RUNNER...: run under the runtime (RUNNER sets it
# up), then check the program's results and the trace.
traced() {
	local label=$1 dir=$2 fmt=$3 status trace
	shift 3
	trace=$dir/trace.$fmt
	rm -f "$trace" "$trace".*
	timeout 60 "$@" > "$dir/out.$fmt" 2> "$dir/err.$fmt"
	status=$?
	program_ok "[$label] traced ($fmt): exit 0, the program's checks pass" "$status" "$dir/out.$fmt"
	if [ -s "$dir/err.$fmt" ]; then
		diag "[$label] stderr ($fmt):" "$(head -20 "$dir/err.$fmt")"
	fi
	local threads=(--require-threads 4)
	[ "$fmt" = folded ] && threads=()	# folded stacks merge the threads
	check_trace "$label" "$fmt" "$RT/rt_expect.txt" "$trace" --require-fork "${threads[@]}"
}

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

# aarch64 under qemu-user: `objpatch run` sees a program for another
# machine and starts it under qemu-aarch64 with build/aarch64/libobjpatch.so
# preloaded in the guest (never in qemu itself).
aarch64_variant() {	# aarch64_variant CC CXX NAME RMC-FLAGS
	local p=aarch64-linux-gnu cc=$1 cxx=$2 name=$3 rmc=$4 sysroot=/usr/aarch64-linux-gnu
	local label="aarch64 $1 $3" dir=$T_TMP/aarch64-$1-$3 lib=$TOP/build/aarch64/libobjpatch.so fmt tool status
	local target=()
	[ "$cc" = clang ] && target=(--target=$p)
	for tool in $p-gcc $p-g++ $p-strip $p-readelf qemu-aarch64 "$cc"; do
		if ! command -v "$tool" >/dev/null; then
			skip "[$label] $tool is not installed (scripts/deps.sh)"
			return
		fi
	done
	CC_TARGET=("${target[@]}")
	build "$label" "$dir" "$cc" "$cxx" $p-strip "$rmc"
	status=$?
	CC_TARGET=()
	[ "$status" = 0 ] || return
	stripped "$label" "$dir/prog" $p-readelf
	untraced "$label" qemu-aarch64 -L "$sysroot" "$dir/prog"
	if [ ! -e "$lib" ]; then
		ok 1 "[$label] traced runs: build/aarch64/libobjpatch.so was not built"
		return
	fi
	for fmt in "${FORMATS[@]}"; do
		traced "$label" "$dir" "$fmt" "$OBJPATCH" run --output "$dir/trace.$fmt" --format "$fmt" -- "$dir/prog"
	done
}
aarch64_variant aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ pg ""
# clang compiles the C part; the cross g++ (which also links) the C++ part.
aarch64_variant clang aarch64-linux-gnu-g++ nop --nop

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

# objpatch record, then objpatch report: the same trace in two steps.
record_report() {
	local label="gcc pg: record + report" dir=$T_TMP/gcc-pg fmt status
	[ -x "$dir/prog" ] || { ok 1 "[$label] no gcc pg build to record"; return; }
	rm -f "$dir/rec.data"*
	timeout 60 "$OBJPATCH" record --output "$dir/rec.data" -- "$dir/prog" > "$dir/out.rec" 2> "$dir/err.rec"
	status=$?
	program_ok "[$label] objpatch record: exit 0, the program's checks pass" "$status" "$dir/out.rec"
	for fmt in "${FORMATS[@]}"; do
		local threads=(--require-threads 4) f
		[ "$fmt" = folded ] && threads=()
		# The forked child's recording is reported beside the parent's, as run writes it.
		for f in "$dir/rec.data"*; do
			"$OBJPATCH" report --format "$fmt" --output "$dir/report.$fmt${f#"$dir/rec.data"}" "$f"
		done
		check_trace "$label" "$fmt" "$RT/rt_expect.txt" "$dir/report.$fmt" --require-fork "${threads[@]}"
	done
	printf 'not a recording\n' > "$dir/bad.data"
	"$OBJPATCH" report "$dir/bad.data" > /dev/null 2> "$dir/err.bad"
	status=$?
	[ "$status" = 1 ] && grep -q "bad.data: not an objpatch recording" "$dir/err.bad"
	ok $? "[$label] a file that is not a recording: exit 1 and one line naming it"
	head -c 200 "$dir/rec.data" > "$dir/cut.data"
	"$OBJPATCH" report "$dir/cut.data" > /dev/null 2> "$dir/err.cut"
	status=$?
	[ "$status" = 1 ] && grep -q "cut.data: truncated" "$dir/err.cut"
	ok $? "[$label] a truncated recording: exit 1 and one line naming it"
}
record_report

# rt_toggle: the runtime linked in (libobjpatch.a), switched by its API.
toggle_test() {
	local dir=$T_TMP/toggle label=toggle fmt status out
	mkdir -p "$dir"
	compile_ok "[$label]" gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -I"$TOP/objpatch" \
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
	for fmt in text json; do
		rm -f "$dir/small.$fmt"
		OBJPATCH_BUFFER_MB=1 OBJPATCH_OUTPUT=$dir/small.$fmt OBJPATCH_FORMAT=$fmt timeout 60 \
			"$dir/rt_toggle" > "$dir/out.small" 2> "$dir/err.small"
		status=$?
		program_ok "[$label] ($fmt) with OBJPATCH_BUFFER_MB=1: exit 0, checks pass" "$status" "$dir/out.small"
		grep -q 'events lost (trace buffers full)' "$dir/err.small"
		ok $? "[$label] ($fmt) with OBJPATCH_BUFFER_MB=1: the lost events are reported"
		check_trace "$label small buffers" "$fmt" "$RT/rt_toggle_expect.txt" "$dir/small.$fmt"
	done
}
toggle_test

# The same 10,000 toggles on AArch64 under qemu-user: there every change goes
# through an mprotect window, and the 8 threads fault into it and wait.
toggle_aarch64() {
	local p=aarch64-linux-gnu label="toggle aarch64" dir=$T_TMP/toggle-aarch64 status
	local lib=$TOP/build/aarch64/libobjpatch.a
	for tool in $p-gcc qemu-aarch64; do
		command -v "$tool" >/dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	[ -e "$lib" ] || { ok 1 "[$label] build/aarch64/libobjpatch.a was not built"; return; }
	mkdir -p "$dir"
	compile_ok "[$label]" $p-gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -pthread -I"$TOP/objpatch" \
		-c "$RT/rt_toggle.c" -o "$dir/rt_toggle.o" &&
	compile_ok "[$label] recordmcount --mode=user --nop" "$RMC" --mode=user --nop "$dir/rt_toggle.o" &&
	compile_ok "[$label] link with build/aarch64/libobjpatch.a" $p-gcc -pie -o "$dir/rt_toggle" \
		"$dir/rt_toggle.o" "$lib" -pthread -lelf -ldl || return
	OBJPATCH_OUTPUT=$dir/trace.text timeout 120 qemu-aarch64 -L /usr/$p "$dir/rt_toggle" \
		> "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] 10,000 enable/disable(\"*\") with 8 threads calling: exit 0, checks pass" \
		"$status" "$dir/out"
	grep -q '^# ' "$dir/out" && diag "[$label] $(grep '^# ' "$dir/out" | sed 's/^# //')"
	check_trace "$label" text "$RT/rt_toggle_expect.txt" "$dir/trace.text"
}
toggle_aarch64

done_testing
