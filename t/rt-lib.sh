# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime tests' helpers (t/90-runtime.t, t/95-rt-*.t): build
# testdata/runtime/rt_test.c + rt_cxx.cc the way users build, run it
# untraced and traced, and check the trace with check_trace.py.
# t/95-rt-MACHINE.t runs the same on another machine under qemu-user with
# build/MACHINE/libobjpatch.so: cross_variant and toggle_cross below.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RT=$TOP/testdata/runtime
OBJPATCH=$TOP/build/objpatch
CHECK=(python3 "$RT/check_trace.py")
WARN=(-Wall -Wextra -Werror)
CFLAGS=(-O2 -g -pg -fno-omit-frame-pointer)
FORMATS=(text json folded perfetto)
CC_TARGET=()	# extra flags for the C compiler only (clang --target=...)

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
	# RT_LDFLAGS: more link flags (MIPS non-PIC objects: -no-pie, which comes last and wins).
	# shellcheck disable=SC2086
	compile_ok "[$label] link" "$cxx" -pie ${RT_LDFLAGS:-} -o "$dir/prog" "$dir/rt_test.o" "$dir/rt_cxx.o" -pthread || return 1
	# The link as it was made: a -no-pie in RT_LDFLAGS wins over -pie.
	local linked=PIE
	case " ${RT_LDFLAGS:-} " in *" -no-pie "*) linked="not PIE" ;; esac
	if [ "$strip" = - ]; then
		ok 0 "[$label] builds: ${CFLAGS[*]} $* objects, recordmcount --mode=user${rmc:+ $rmc}, $linked, symbols kept"
		return
	fi
	compile_ok "[$label] strip" "$strip" "$dir/prog" || return 1
	ok 0 "[$label] builds: ${CFLAGS[*]} $* objects, recordmcount --mode=user${rmc:+ $rmc}, $linked, linked without them, stripped"
}

# stripped LABEL PROG READELF: no symbols, no DWARF, but the tables are there.
stripped() {
	local label=$1 prog=$2 readelf=$3 secs
	secs=$("$readelf" -SW "$prog" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p')
	if grep -qE '^(\.symtab|\.debug_.*)$' <<< "$secs" || ! grep -qE '^(__(mcount|fentry)_rel|__patchable_function_entries)$' <<< "$secs"; then
		ok 1 "[$label] stripped: no .symtab, no .debug_*, a site table (__mcount_rel, __fentry_rel or the pads')"
		diag "sections: $(tr '\n' ' ' <<< "$secs")"
	else
		ok 0 "[$label] stripped: no .symtab, no .debug_*, a site table (__mcount_rel, __fentry_rel or the pads')"
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
# rt_expect_with LINE...: rt_expect.txt (x86_64's values) with the line of
# each LINE's NAME replaced by LINE, what this machine's ABI gives instead
# (a struct it returns where the runtime does not look), exported as
# RT_EXPECT for the variants that follow.
rt_expect_with() {
	local file=$T_TMP/rt_expect.with.txt line
	cp "$RT/rt_expect.txt" "$file"
	for line in "$@"; do
		if ! grep -q "^${line%% *} " "$file"; then
			echo "Bail out! rt_expect_with: rt_expect.txt has no line for ${line%% *}"
			exit 1
		fi
		LINE=$line awk '$1 == substr(ENVIRON["LINE"], 1, index(ENVIRON["LINE"], " ") - 1) { print ENVIRON["LINE"]; next } { print }' \
			"$file" > "$file.new" && mv "$file.new" "$file"
	done
	export RT_EXPECT=$file
}

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
	rm -f "$trace" "$dir"/trace.*."$fmt"
	timeout 60 "$@" > "$dir/out.$fmt" 2> "$dir/err.$fmt"
	status=$?
	program_ok "[$label] traced ($fmt): exit 0, the program's checks pass" "$status" "$dir/out.$fmt"
	if [ -s "$dir/err.$fmt" ]; then
		diag "[$label] stderr ($fmt):" "$(head -20 "$dir/err.$fmt")"
	fi
	local threads=(--require-threads 4)
	[ "$fmt" = folded ] && threads=()	# folded stacks merge the threads
	# RT_EXPECT: a machine's own copy where its ABI legitimately differs (t/95-rt-s390x.t).
	check_trace "$label" "$fmt" "${RT_EXPECT:-$RT/rt_expect.txt}" "$trace" --require-fork "${threads[@]}"
}

# calls TRACE...: the calls of text traces, one line per thread (its lines
# without tid and duration, long hex numbers masked: addresses differ from
# run to run), sorted: what two runs of one program have in common.
calls() {
	awk '/^#/ { next }
	     { tid = $1; line = substr($0, index($0, "|  ") + 3)
	       gsub(/0x[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/, "0x?", line)
	       seen[tid] = seen[tid] line "\t" }
	     END { for (t in seen) print seen[t] }' "$@" | sort
}

# record_report LABEL DIR: DIR/prog recorded by `objpatch record` (a
# program for another machine runs under qemu-user with that machine's
# runtime, which writes the recording in its byte order), then formatted by
# this machine's `objpatch report`, which links no runtime, in every format:
# checked like the traces `objpatch run` wrote (DIR/trace.FMT), and the
# same calls, thread by thread, as its text trace.
record_report() {
	local label="$1: record + report" dir=$2 fmt status f run_text report_text
	rm -f "$dir"/rec*.data "$dir/report."*
	timeout 120 "$OBJPATCH" record --output "$dir/rec.data" -- "$dir/prog" > "$dir/out.rec" 2> "$dir/err.rec"
	status=$?
	program_ok "[$label] objpatch record: exit 0, the program's checks pass" "$status" "$dir/out.rec"
	for fmt in "${FORMATS[@]}"; do
		local threads=(--require-threads 4)
		[ "$fmt" = folded ] && threads=()
		# The forked child's recording (rec.PID.data) is reported beside the
		# parent's, named as run names it (report.PID.FMT).
		for f in "$dir"/rec*.data; do
			local pid=${f#"$dir/rec"}
			"$OBJPATCH" report --format "$fmt" --output "$dir/report${pid%.data}.$fmt" "$f"
		done
		check_trace "$label" "$fmt" "${RT_EXPECT:-$RT/rt_expect.txt}" "$dir/report.$fmt" --require-fork "${threads[@]}"
	done
	if [ ! -s "$dir/trace.text" ]; then
		ok 1 "[$label] no text trace of objpatch run to compare with"
		return
	fi
	run_text=$(calls "$dir"/trace*.text)
	report_text=$(calls "$dir"/report*.text)
	[ -n "$report_text" ] && [ "$run_text" = "$report_text" ]
	ok $? "[$label] the report's text has the calls and values of objpatch run's, thread by thread"
	[ "$run_text" = "$report_text" ] || diag "$(diff <(tr '\t' '\n' <<< "$run_text") <(tr '\t' '\n' <<< "$report_text") | head -20)"
}

# guest_root QEMU TRIPLE: the root qemu-QEMU runs that machine's programs
# in, as `objpatch run` picks it: $OBJPATCH_ROOT_QEMU (a machine whose libc
# is not Debian's cross package: sh4's, scripts/toolchain-sh4.sh), else
# /usr/TRIPLE.
guest_root() {
	local v=OBJPATCH_ROOT_$1
	echo "${!v:-/usr/$2}"
}

# cross_variant QEMU TRIPLE CC CXX NAME RMC-FLAGS [CFLAGS...]: rt_test + rt_cxx for
# another machine (KEEP_SYMBOLS=1: not stripped, for compiler-made tables,
# which the runtime reads with the symbols; REPORT=1: record_report too).
# `objpatch run` sees a program for that machine and
# starts it under qemu-QEMU with build/QEMU/libobjpatch.so preloaded in the
# guest (never in qemu itself).  CC may be clang: it gets --target=TRIPLE.
cross_variant() {
	local q=$1 p=$2 cc=$3 cxx=$4 name=$5 rmc=$6 sysroot
	sysroot=$(guest_root "$1" "$2")
	local label="$1 $3 $5" dir=$T_TMP/$1-$3-$5 lib=$TOP/build/$1/libobjpatch.so fmt tool status
	local target=()
	shift 6
	[ "$cc" = clang ] && target=(--target=$p)
	for tool in $p-gcc $p-strip $p-readelf qemu-$q "$cc" "$cxx"; do
		if ! command -v "$tool" >/dev/null; then
			skip "[$label] $tool is not installed (scripts/deps.sh)"
			return
		fi
	done
	CC_TARGET=("${target[@]}")
	build "$label" "$dir" "$cc" "$cxx" "$(if [ -n "${KEEP_SYMBOLS:-}" ]; then echo -; else echo $p-strip; fi)" "$rmc" "$@"
	status=$?
	CC_TARGET=()
	[ "$status" = 0 ] || return
	[ -n "${KEEP_SYMBOLS:-}" ] || stripped "$label" "$dir/prog" $p-readelf
	untraced "$label" qemu-$q -L "$sysroot" "$dir/prog"
	if [ ! -e "$lib" ]; then
		ok 1 "[$label] traced runs: build/$q/libobjpatch.so was not built"
		return
	fi
	for fmt in "${FORMATS[@]}"; do
		traced "$label" "$dir" "$fmt" "$OBJPATCH" run --output "$dir/trace.$fmt" --format "$fmt" -- "$dir/prog"
	done
	[ -z "${REPORT:-}" ] || record_report "$label" "$dir"
}

# toggle_cross QEMU TRIPLE [CFLAGS...]: rt_toggle.c linked with
# build/QEMU/libobjpatch.a, 10,000 objpatch_enable/disable("*") while 8
# threads call traced functions, under qemu-user.  On the store machines
# every change goes through an mprotect window, and the threads fault into
# it and wait.
toggle_cross() {
	local q=$1 p=$2 rmc=${TOGGLE_RMC---nop} label dir status tool
	local lib=$TOP/build/$1/libobjpatch.a
	shift 2
	# Sites as --nop leaves them, or the calls (TOGGLE_RMC=""); CFLAGS too.
	label="toggle $q ${rmc:-calls}${*:+ $*}"
	dir=$T_TMP/toggle-$q
	[ "$rmc" = --nop ] || dir+=-calls
	[ $# -eq 0 ] || dir+=$(printf '%s' "$*" | tr -c 'a-zA-Z0-9' '_')
	for tool in $p-gcc qemu-$q; do
		command -v "$tool" >/dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	[ -e "$lib" ] || { ok 1 "[$label] build/$q/libobjpatch.a was not built"; return; }
	mkdir -p "$dir"
	compile_ok "[$label]" $p-gcc -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" "$@" -pthread -I"$TOP/objpatch/lib" -I"$TOP" \
		-c "$RT/rt_toggle.c" -o "$dir/rt_toggle.o" &&
	# shellcheck disable=SC2086
	compile_ok "[$label] recordmcount --mode=user $rmc" "$RMC" --mode=user $rmc "$dir/rt_toggle.o" &&
	# shellcheck disable=SC2086
	compile_ok "[$label] link with build/$q/libobjpatch.a" $p-gcc -pie ${RT_LDFLAGS:-} -o "$dir/rt_toggle" \
		"$dir/rt_toggle.o" "$lib" -pthread -lelf -ldl || return
	OBJPATCH_OUTPUT=$dir/trace.text timeout 300 qemu-$q -L "$(guest_root $q $p)" "$dir/rt_toggle" \
		> "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] 10,000 enable/disable(\"*\") with 8 threads calling: exit 0, checks pass" \
		"$status" "$dir/out"
	grep -q '^# ' "$dir/out" && diag "[$label] $(grep '^# ' "$dir/out" | sed 's/^# //')"
	[ -s "$dir/err" ] && diag "[$label] stderr:" "$(head -20 "$dir/err")"
	check_trace "$label" text "$RT/rt_toggle_expect.txt" "$dir/trace.text"
}

# tail_check LABEL CC RUN [CFLAGS...]: rt_tail.c (tail calls between traced
# functions) built with CC and CFLAGS, `recordmcount --mode=user $TAIL_RMC`, run
# untraced by RUN (`-` natively, else e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu")
# and traced by `objpatch run` (which starts qemu itself), the trace
# checked against rt_tail_expect.txt.
tail_check() {
	local label="$1 tail calls" cc=$2 run=$3 dir=$T_TMP/tail-$1 status
	shift 3
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	compile_ok "[$label]" $cc -std=gnu11 "${WARN[@]}" -O2 -g -fno-omit-frame-pointer "$@" -I"$RT" \
		-c "$RT/rt_tail.c" -o "$dir/rt_tail.o" &&
	# shellcheck disable=SC2086
	compile_ok "[$label] recordmcount --mode=user ${TAIL_RMC:-}" "$RMC" --mode=user ${TAIL_RMC:-} "$dir/rt_tail.o" &&
	# shellcheck disable=SC2086
	compile_ok "[$label] link" $cc -pie ${RT_LDFLAGS:-} -o "$dir/rt_tail" "$dir/rt_tail.o" || return
	if [ "$run" = - ]; then
		timeout 60 "$dir/rt_tail" > "$dir/out" 2>&1
	else
		# shellcheck disable=SC2086
		timeout 60 $run "$dir/rt_tail" > "$dir/out" 2>&1
	fi
	program_ok "[$label] runs untraced, its checks pass" $? "$dir/out"
	timeout 120 "$OBJPATCH" run --output "$dir/trace.text" -- "$dir/rt_tail" > "$dir/out" 2> "$dir/err"
	status=$?
	program_ok "[$label] traced: exit 0, the program's checks pass" "$status" "$dir/out"
	[ -s "$dir/err" ] && diag "[$label] stderr:" "$(head -5 "$dir/err")"
	check_trace "$label" text "$RT/rt_tail_expect.txt" "$dir/trace.text"
}

# own_values QEMU TRIPLE CC SOURCE EXPECT: a machine's own program of
# return values (testdata/runtime/SOURCE: the conventions that machine
# has and others do not) built with CC -pg, recorded, stripped, run
# untraced and traced under qemu-QEMU; check_trace.py reads the values
# against EXPECT.
own_values() {
	local q=$1 p=$2 cc=$3 src=$4 expect=$5 label="$1 own $3" dir=$T_TMP/$1-own-$3 target=() tool
	[ "$cc" = clang ] && target=(--target=$p)
	for tool in "$cc" $p-gcc $p-strip qemu-$q; do
		command -v "$tool" >/dev/null || { skip "[$label] $tool is not installed"; return; }
	done
	mkdir -p "$dir"
	compile_ok "[$label] $src" "$cc" "${target[@]}" -std=gnu11 "${WARN[@]}" "${CFLAGS[@]}" -I"$RT" \
		-c "$RT/$src" -o "$dir/own.o" &&
	compile_ok "[$label] recordmcount --mode=user" "$RMC" --mode=user "$dir/own.o" &&
	# shellcheck disable=SC2086
	compile_ok "[$label] link" $p-gcc -pie ${RT_LDFLAGS:-} -o "$dir/own" "$dir/own.o" &&
	compile_ok "[$label] strip" $p-strip "$dir/own" || return
	timeout 60 qemu-$q -L "$(guest_root $q $p)" "$dir/own" > "$dir/out.untraced" 2>&1
	program_ok "[$label] untraced: exit 0, the program's checks pass" $? "$dir/out.untraced"
	timeout 60 "$OBJPATCH" run --output "$dir/trace.text" -- "$dir/own" > "$dir/out.traced" 2> "$dir/err.traced"
	program_ok "[$label] traced: exit 0, the program's checks pass" $? "$dir/out.traced"
	[ -s "$dir/err.traced" ] && diag "[$label] stderr:" "$(head -20 "$dir/err.traced")"
	check_trace "$label" text "$expect" "$dir/trace.text"
}

# mips_suite QEMU TRIPLE NOPIC-LDFLAGS [REPORT]: what each MIPS file runs
# (their headers say why): cross_variant with gcc -pg (REPORT=1: also
# recorded under qemu and reported here), clang, non-PIC as is and after
# --nop (linked with NOPIC-LDFLAGS), PIE after --nop, -mlong-calls after
# --nop; rt_mips.c (the return conventions byte order changes: binary128
# in $f0:$f2, a float in a register's low half, long long in v0:v1, n64's
# small structs, which o32 has none of) with gcc and clang; the 10,000
# live toggles; tail calls (rt_tail.c: clang cannot build it for MIPS,
# its KEEP() of a double asks for a GPR).
mips_suite() {
	local q=$1 p=$2 expect=$RT/rt_mips_expect.txt
	REPORT=${4:-} cross_variant $q $p $p-gcc $p-g++ pg ""
	# clang compiles the C part; the cross g++ (which also links) the C++ part.
	cross_variant $q $p clang $p-g++ clang ""
	RT_LDFLAGS=$3
	cross_variant $q $p $p-gcc $p-g++ nopic "" -fno-pic -mno-abicalls
	cross_variant $q $p $p-gcc $p-g++ nopic-nop --nop -fno-pic -mno-abicalls
	RT_LDFLAGS=
	cross_variant $q $p $p-gcc $p-g++ pg-nop --nop
	cross_variant $q $p $p-gcc $p-g++ longcalls-nop --nop -mlong-calls
	if [[ $q != mips64* ]]; then
		grep -v '^mips_struct' "$expect" > "$T_TMP/rt_mips_expect_o32.txt"
		expect=$T_TMP/rt_mips_expect_o32.txt
	fi
	own_values $q $p $p-gcc rt_mips.c "$expect"
	own_values $q $p clang rt_mips.c "$expect"
	toggle_cross $q $p
	tail_check $q-gcc $p-gcc "qemu-$q -L /usr/$p" -pg
}
