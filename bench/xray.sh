#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The runtime's cost per traced call against LLVM XRay, the anchor of the
# recording goal (our recording per call on calls.c at most XRay FDR mode's,
# measured in the same run), with uftrace beside them.  The same sources and
# call counts for every tool, bench/runtime/calls.c and bench/runtime/fib.c:
#   - XRay: clang -O2 -fxray-instrument -fxray-instruction-threshold=1 (every
#     function gets sleds), linked with -fxray-instrument and
#     bench/runtime/xray-fdr.c (starts FDR mode, which does not start on its
#     own); against the same source built clang -O2.  Sleds unpatched
#     (patch_premain=false); basic mode; FDR mode; every call kept
#     (func_duration_threshold_us=0, FDR buffers large enough for the whole
#     run, grace_period_ms=0).  XRay reads the TSC only when it can read its
#     frequency from sysfs; where it cannot (this kind of VM), it calls
#     clock_gettime at every entry and exit instead: basic and FDR are run
#     with bench/runtime/xray-tsc.c preloaded to give it the frequency
#     (measured), FDR also as it runs here without it.
#   - uftrace record, as bench/runtime.sh runs it (with and without -R), and
#     ours, `objpatch record`, on the gcc -O2 -g -pg -mfentry build with our
#     tables (bench/runtime.sh's), against the same source built gcc -O2 -g.
#   - End to end to text: XRay's log through `llvm-xray convert --symbolize
#     --output-format=yaml`, uftrace record -R + replay, objpatch record +
#     report, and objpatch run; each formatting step timed with runit too.
#   - The clock floor (bench/runtime/clock.c) in the same run.
# CPU = user + system time of every process of a run (bench/runtime/runit.c),
# medians over the repetitions, configurations alternating.  Every recording
# is checked once (repetition 1): the calls it holds, counted in its text,
# must be the calls the program made.  Writes a Markdown report to
# BENCH_DIR/xray/xray.md and to BENCH_XRAY_RESULTS (default
# bench/RESULTS-xray.md; empty: not written).  With the defaults it takes
# about 6 minutes on 2 cores and needs about 3 GB of disk in BENCH_DIR for
# trace files and text (deleted as it goes).
#
# Environment: BENCH_DIR (default build/bench); BENCH_REPS (repetitions of the
# recording runs, default 5); XR_E2E_REPS (repetitions of the formatting
# steps, default 3); XR_CALLS (iterations of calls.c, 5 calls each, default
# 1000000); XR_FIB (N of fib N, default 27); CLANG (default clang-14, else
# clang); XR_PERF=0 skips the perf profile; XR_MAKE=0 takes build/ as it is.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

die() { echo "xray.sh: $*" >&2; exit 1; }
[ $# = 0 ] || { echo "usage: bench/xray.sh (settings in the environment)" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || die "needs x86_64 (XRay's TSC shim and -mfentry builds); this is $(uname -m)"

out=${BENCH_DIR:-$top/build/bench}/xray
res=$out/results
bld=$out/build
tmp=$out/tmp
REPS=${BENCH_REPS:-5}
E2E_REPS=${XR_E2E_REPS:-3}
[ "$E2E_REPS" -ge 1 ] || E2E_REPS=1
[ "$E2E_REPS" -le "$REPS" ] || E2E_REPS=$REPS
CALLS_ITERS=${XR_CALLS:-1000000}
FIB_N=${XR_FIB:-27}
CLANG=${CLANG:-$(command -v clang-14 || command -v clang || true)}
CC=gcc
CFLAGS=(-O2 -g)
PG=(-pg -mfentry)
XCFLAGS=(-O2)
XRAY=(-fxray-instrument -fxray-instruction-threshold=1)
started=$(date +%s)
date_started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
invocation="BENCH_REPS=$REPS XR_E2E_REPS=$E2E_REPS XR_CALLS=$CALLS_ITERS XR_FIB=$FIB_N CLANG=${CLANG##*/} bench/xray.sh"

# ---- what it needs, each missing piece named on one line
if [ -z "$CLANG" ] || [ ! -x "$CLANG" ]; then die "clang is not installed (apt-get install clang-14): XRay needs it"; fi
rtdir=$("$CLANG" -print-resource-dir)/lib/linux
for m in xray xray-basic xray-fdr; do
	[ -f "$rtdir/libclang_rt.$m-x86_64.a" ] || die "XRay's runtime $rtdir/libclang_rt.$m-x86_64.a is missing (apt-get install libclang-rt-14-dev)"
done
llvm_xray=$(command -v llvm-xray || command -v llvm-xray-14 || true)
[ -n "$llvm_xray" ] || die "llvm-xray is not installed (apt-get install llvm-14): XRay's logs cannot be read"
uftrace=$(command -v uftrace || true)
[ -n "$uftrace" ] || die "uftrace is not installed (scripts/deps.sh installs it)"
[ "${XR_MAKE:-1}" = 0 ] || make -s all
for f in build/recordmcount build/objpatch build/libobjpatch.so; do [ -f "$f" ] || die "$f is missing (make)"; done

# shellcheck source=bench/runtime/lib.sh
. bench/runtime/lib.sh
rm -rf "$res" "$tmp" "$bld"
mkdir -p "$res" "$bld/tools" "$tmp"
# A copy of the tools, so that a rebuild of build/ during the run cannot mix versions.
cp build/recordmcount build/objpatch build/libobjpatch.so "$bld/tools/"
rmc=$bld/tools/recordmcount
objpatch=$bld/tools/objpatch
b() { echo "${*//$top\//}" >> "$res/build-commands"; "$@"; }

# ---- builds
runit=$bld/runit
b cc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$runit" bench/runtime/runit.c
b cc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$bld/clock" bench/runtime/clock.c
b cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$bld/xray-tsc.so" bench/runtime/xray-tsc.c -ldl
b cc -O2 -Wall -Wextra -Werror -DXRAY_TSC_MAIN -o "$bld/xray-tsc-khz" bench/runtime/xray-tsc.c
b "$CLANG" -O2 -Wall -Wextra -Werror -c -o "$bld/xray-fdr.o" bench/runtime/xray-fdr.c
PROGS=(calls fib)
for p in "${PROGS[@]}"; do
	s=bench/runtime/$p.c
	b "$CC" "${CFLAGS[@]}" -c "$s" -o "$bld/$p-gcc.o"
	b "$CC" -o "$bld/$p-gcc" "$bld/$p-gcc.o"
	b "$CC" "${CFLAGS[@]}" "${PG[@]}" -c "$s" -o "$bld/$p-pg.o"
	b "$rmc" --mode=user "$bld/$p-pg.o"
	b "$CC" -o "$bld/$p-pg" "$bld/$p-pg.o"
	b "$CLANG" "${XCFLAGS[@]}" -c "$s" -o "$bld/$p-clang.o"
	b "$CLANG" -o "$bld/$p-clang" "$bld/$p-clang.o"
	b "$CLANG" "${XCFLAGS[@]}" "${XRAY[@]}" -c "$s" -o "$bld/$p-xray.o"
	b "$CLANG" -fxray-instrument -o "$bld/$p-xray" "$bld/$p-xray.o" "$bld/xray-fdr.o"
done
tsc_khz=$("$bld/xray-tsc-khz")
clock_line=$("$bld/clock" 20000000)
rdtsc=${clock_line#rdtsc_ns=}; rdtsc=${rdtsc%% *}
cgt=${clock_line#*clock_gettime_ns=}; cgt=${cgt%% *}
rdtscp=${clock_line#*rdtscp_ns=}; rdtscp=${rdtscp%% *}
# What XRay says of the TSC when it starts logging (verbosity=1), without the shim
mkdir -p "$tmp/probe"
xray_probe=$(XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1 xray_logfile_base=$tmp/probe/xray-log." "$bld/calls-xray" 0 2>&1 > /dev/null |
	grep -i -e frequency -e rdtscp -e emulat | sed 's/^==[0-9]*==//' | sort -u | paste -sd' ' || true)
rm -rf "$tmp/probe"

# ---- configurations
declare -A ARGS=([calls]=$CALLS_ITERS [fib]=$FIB_N) ARGS0=([calls]=0 [fib]=1)
declare -A UF_RETVAL=(
	[calls]='ret_int@retval/i32 ret_ptr@retval/x ret_sum@retval/i64 main@retval/i32'
	[fib]='fib@retval/i64 main@retval/i32'
)
UF_COMMON=(record --no-libcall --no-event)
# XRay's settings: every call kept (the default threshold, 5 us, drops short
# calls); FDR buffers for the whole run (FDR drops what does not fit: 16
# bytes a call, and some metadata, in 1 MiB buffers); no grace period before
# the flush (it only sleeps); the log in a directory of its own
XR_BASIC_OPTS="func_duration_threshold_us=0"
xr_fdr_opts() { echo "func_duration_threshold_us=0 grace_period_ms=0 buffer_size=1048576 buffer_max=$(($1 * 20 / 1048576 + 16))"; }
xr_opts() { echo "patch_premain=true xray_mode=$1 verbosity=0 xray_logfile_base=$tmp/$2.d/xray-log."; }
TSC=(-e "LD_PRELOAD=$bld/xray-tsc.so" -e "XRAY_TSC_KHZ=$tsc_khz")
declare -A TC
# cfg_cmd PROG CFG ARG: sets CMD (runit arguments) for a configuration
cfg_cmd() {
	local p=$1 c=$2 a=$3 s
	local -a ufr=()
	for s in ${UF_RETVAL[$p]}; do ufr+=(-R "$s"); done
	rm -rf "$tmp/$c.d" "$tmp/$c.data" "$tmp/$c.data.old" "$tmp/$c.raw" "$tmp/$c.txt" "$tmp/post.txt"
	mkdir -p "$tmp/$c.d"
	case $c in
	cbase) CMD=(-- "$bld/$p-clang" "$a") ;;
	xnop) CMD=(-e "XRAY_OPTIONS=patch_premain=false verbosity=0" -- "$bld/$p-xray" "$a") ;;
	xbasic) CMD=("${TSC[@]}" -e "XRAY_OPTIONS=$(xr_opts xray-basic "$c")" -e "XRAY_BASIC_OPTIONS=$XR_BASIC_OPTS" -- "$bld/$p-xray" "$a") ;;
	xfdr) CMD=("${TSC[@]}" -e "XRAY_OPTIONS=$(xr_opts xray-fdr "$c")" -e "XRAY_FDR_OPTIONS=$(xr_fdr_opts "${TC[$p]}")" -- "$bld/$p-xray" "$a") ;;
	xfdrE) CMD=(-e "XRAY_OPTIONS=$(xr_opts xray-fdr "$c")" -e "XRAY_FDR_OPTIONS=$(xr_fdr_opts "${TC[$p]}")" -- "$bld/$p-xray" "$a") ;;
	gbase) CMD=(-- "$bld/$p-gcc" "$a") ;;
	uft) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$tmp/$c.data" "$bld/$p-pg" "$a") ;;
	uftR) CMD=(-- "$uftrace" "${UF_COMMON[@]}" -d "$tmp/$c.data" "${ufr[@]}" "$bld/$p-pg" "$a") ;;
	oursR) CMD=(-- "$objpatch" record --output "$tmp/$c.raw" -- "$bld/$p-pg" "$a") ;;
	ours) CMD=(-- "$objpatch" run --output "$tmp/$c.txt" -- "$bld/$p-pg" "$a") ;;
	esac
}
# xlog CFG: the one log file that XRay wrote for the configuration's run
xlog() {
	local f
	f=("$tmp/$1.d"/xray-log.*)
	if [ ${#f[@]} != 1 ] || [ ! -f "${f[0]}" ]; then die "$1: not one XRay log in $tmp/$1.d"; fi
	echo "${f[0]}"
}
# post_cmd PROG CFG: sets CMD to the configuration's formatting step (text to a file), if it has one
post_cmd() {
	case $2 in
	xbasic | xfdr) CMD=(-o "$tmp/post.txt" -- "$llvm_xray" convert --symbolize --instr_map="$bld/$1-xray" --output-format=yaml "$(xlog "$2")") ;;
	uftR) CMD=(-o "$tmp/post.txt" -- "$uftrace" replay -d "$tmp/uftR.data" --no-pager) ;;
	oursR) CMD=(-o "$tmp/post.txt" -- "$objpatch" report "$tmp/oursR.raw") ;;
	*) return 1 ;;
	esac
}
# Counting calls in text: XRay's YAML has one record per entry and one per
# exit ("kind: function-enter", "kind: function-exit" or
# "function-tail-exit"), a call is an entry with its exit; ours writes
# "NAME();" or "NAME() {" once per call, uftrace also "NAME() = VALUE;".
xr_count() { LC_ALL=C awk '/kind: function-enter/ { e++ } /kind: function-(tail-)?exit/ { x++ } END { print (e == x) ? e + 0 : "entries " e + 0 " exits " x + 0 }' "$1"; }
count_calls() { LC_ALL=C grep -c -F -e '();' -e '() {' "$1" || true; }
uf_count_calls() { LC_ALL=C grep -c -F -e '();' -e '() {' -e '() = ' "$1" || true; }
# check PROG CFG: what the configuration recorded (repetition 1): calls, bytes, first lines
check() {
	local p=$1 c=$2 o=$res/check.$1.$2 f
	case $c in
	xbasic | xfdr)
		f=$(xlog "$c"); du -b "$f" | cut -f1 > "$o.bytes"
		xr_count "$tmp/post.txt" > "$o.calls"; du -b "$tmp/post.txt" | cut -f1 > "$o.textbytes"
		sed -n '/^records:/,$p' "$tmp/post.txt" | sed -n 2,7p > "$o.head" ;;
	xfdrE)
		f=$(xlog "$c"); du -b "$f" | cut -f1 > "$o.bytes"
		"$llvm_xray" convert --instr_map="$bld/$p-xray" --output-format=yaml "$f" > "$tmp/check.yaml"
		xr_count "$tmp/check.yaml" > "$o.calls"; rm -f "$tmp/check.yaml" ;;
	uft)
		du -sb "$tmp/$c.data" | cut -f1 > "$o.bytes"
		"$uftrace" report -d "$tmp/$c.data" --no-pager 2> /dev/null |
			awk '$NF ~ /^[A-Za-z_]/ && $(NF-1) ~ /^[0-9]+$/ { s += $(NF-1) } END { print s + 0 }' > "$o.calls" ;;
	uftR)
		du -sb "$tmp/$c.data" | cut -f1 > "$o.bytes"
		uf_count_calls "$tmp/post.txt" > "$o.calls"; du -b "$tmp/post.txt" | cut -f1 > "$o.textbytes"
		head -6 "$tmp/post.txt" > "$o.head" ;;
	oursR)
		du -b "$tmp/$c.raw" | cut -f1 > "$o.bytes"
		count_calls "$tmp/post.txt" > "$o.calls"; du -b "$tmp/post.txt" | cut -f1 > "$o.textbytes"
		head -6 "$tmp/post.txt" > "$o.head" ;;
	ours)
		count_calls "$tmp/$c.txt" > "$o.calls"; du -b "$tmp/$c.txt" | cut -f1 > "$o.textbytes" ;;
	esac
}

# The traced calls of each program, from its result line; XRay's build
# must make the same calls as gcc's.
for p in "${PROGS[@]}"; do
	TC[$p]=$(result <("$bld/$p-gcc" "${ARGS[$p]}") traced_calls)
	[ "$(result <("$bld/$p-clang" "${ARGS[$p]}") traced_calls)" = "${TC[$p]}" ] || die "$p: clang's build reports other calls than gcc's"
done
CFGS="cbase xnop xbasic xfdr xfdrE gbase uft uftR oursR ours"
echo "xray.sh: ${PROGS[*]} (calls ${ARGS[calls]}: ${TC[calls]} calls; fib ${ARGS[fib]}: ${TC[fib]} calls), $CFGS, $REPS repetitions (formatting $E2E_REPS)" >&2
for rep in $(seq 1 "$REPS"); do
	for p in "${PROGS[@]}"; do
		# shellcheck disable=SC2046,SC2086 # a list of words
		for c in $(rotate $CFGS); do
			cfg_cmd "$p" "$c" "${ARGS0[$p]}"
			run_one "$p.$c.0" "${CMD[@]}"
			cfg_cmd "$p" "$c" "${ARGS[$p]}"
			run_one "$p.$c" "${CMD[@]}"
			if [ "$rep" -le "$E2E_REPS" ] && post_cmd "$p" "$c"; then
				run_one "$p.${c}post" "${CMD[@]}"
			fi
			[ "$rep" != 1 ] || check "$p" "$c"
			rm -rf "$tmp/$c.d" "$tmp/$c.data" "$tmp/$c.data.old" "$tmp/$c.raw" "$tmp/$c.txt" "$tmp/post.txt"
		done
	done
	echo "xray.sh: repetition $rep done ($(($(date +%s) - started)) s)" >&2
done

# ---- where the time goes: perf's profile of XRay FDR and ours on calls.c
perf=$(command -v perf || true)
prof=""
if [ "${XR_PERF:-1}" != 0 ] && [ -n "$perf" ]; then
	for c in xfdr oursR; do
		cfg_cmd calls "$c" "${ARGS[calls]}"
		env_args=()
		set -- "${CMD[@]}"
		while [ "$1" = -e ]; do env_args+=("$2"); shift 2; done
		shift
		if env "${env_args[@]}" "$perf" record -q -e cpu-clock -F 4999 -o "$tmp/perf.$c" -- "$@" > /dev/null 2> "$res/perf.$c.log"; then
			"$perf" report -i "$tmp/perf.$c" --stdio -F overhead,period,dso,sym --percent-limit 2 2> /dev/null |
				grep -v -e '^#' -e '^$' | sed -E 's/( +-)+ *$//; s/ +$//; s/ {2,}/  /g' | head -10 > "$res/perf.$c.txt" || true
			# The hottest instructions of its two hottest functions, each with the one before it
			for sym in $(sed -nE 's/.*\[\.\] ([^ ]+).*/\1/p' "$res/perf.$c.txt" | head -2); do
				echo "$sym:"
				"$perf" annotate -i "$tmp/perf.$c" --stdio -s "$sym" 2> /dev/null |
					grep -B1 -E '^ +([1-9][0-9]|[5-9])\.[0-9]+ :' | grep -v '^--' | sed -E 's/ +$//; s/\t/ /g' | cut -c1-110
			done > "$res/perf.$c.annotate" || true
			prof+=" $c"
		fi
		rm -rf "$tmp/$c.d" "$tmp/$c.raw" "$tmp/perf.$c"
	done
fi
rm -rf "$tmp"

# ---- report
set +o pipefail
declare -A BASE=([cbase]=cbase [xnop]=cbase [xbasic]=cbase [xfdr]=cbase [xfdrE]=cbase [gbase]=gbase [uft]=gbase [uftR]=gbase [oursR]=gbase [ours]=gbase)
per_call() { calc "($(col "$1.$2" "$3") - $(col "$1.${BASE[$2]}" "$3")) / ${TC[$1]}" "%.1f"; }	# per_call PROG CFG FIELD
marginal() {	# the same without the fixed costs (each configuration's run of ARGS0 subtracted)
	calc "(($(col "$1.$2" 2) - $(col "$1.$2.0" 2)) - ($(col "$1.${BASE[$2]}" 2) - $(col "$1.${BASE[$2]}.0" 2))) / ${TC[$1]}" "%.1f"
}
label() {
	case $1 in
	cbase) echo "clang -O2 build (XRay's baseline)" ;;
	xnop) echo "XRay build, sleds not patched (\`patch_premain=false\`)" ;;
	xbasic) echo "**XRay basic mode** (TSC)" ;;
	xfdr) echo "**XRay FDR mode** (TSC)" ;;
	xfdrE) echo "XRay FDR mode as it runs here (emulated TSC: clock_gettime)" ;;
	gbase) echo "gcc -O2 -g build (baseline of uftrace and ours)" ;;
	uft) echo "\`uftrace record\`: entry + exit" ;;
	uftR) echo "\`uftrace record -R ...\`: entry + exit + return values" ;;
	oursR) echo "**\`objpatch record\`**: entry + exit + return values" ;;
	ours) echo "\`objpatch run\`: recorded and formatted as text in the process" ;;
	esac
}
checked() {	# checked PROG CFG: calls its recording shows
	local f=$res/check.$1.$2.calls
	if [ ! -f "$f" ]; then echo "-"
	elif [ "$(cat "$f")" = "${TC[$1]}" ]; then echo "$(cat "$f") (all)"
	else echo "**$(cat "$f") of ${TC[$1]}**"; fi
}
bytes_of() {	# bytes_of PROG CFG KIND: "X MiB, Y bytes per call" of its recording (bytes) or text (textbytes)
	local f=$res/check.$1.$2.$3
	[ -f "$f" ] || { echo "-"; return; }
	echo "$(mib "$(cat "$f")"), $(calc "$(cat "$f") / ${TC[$1]}" "%.1f")"
}
rec_table() {	# rec_table PROG
	local p=$1 c
	echo "| configuration | CPU | wall | max RSS | **ns per call (CPU)** | ns per call (wall) | marginal ns (CPU) | calls in the recording | recording: size, **bytes per call** |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for c in cbase xnop xbasic xfdr xfdrE gbase uft uftR oursR; do
		echo -n "| $(label "$c") | $(ms "$(col "$p.$c" 2)") ms | $(ms "$(col "$p.$c" 1)") ms | $(calc "$(col "$p.$c" 4) / 1024" "%.0f") MiB | "
		case $c in
		cbase | gbase) echo "- | - | - | - | - |" ;;
		*) echo "**$(per_call "$p" "$c" 2)** | $(per_call "$p" "$c" 1) | $(marginal "$p" "$c") | $(checked "$p" "$c") | $(bytes_of "$p" "$c" bytes) |" ;;
		esac
	done
	echo
}
e2e_row() {	# e2e_row PROG CFG LABEL: recording + formatting step, medians added
	local p=$1 c=$2 cpu wall
	if [ "$c" = ours ]; then
		cpu=$(col "$p.ours" 2); wall=$(col "$p.ours" 1)
		echo "| $3 | $(ms "$cpu") ms | $(ms "$wall") ms | **$(per_call "$p" ours 2)** | $(per_call "$p" ours 1) | - | $(checked "$p" ours) | $(bytes_of "$p" ours textbytes) |"
		return
	fi
	cpu=$(calc "$(col "$p.$c" 2) + $(col "$p.${c}post" 2)" "%.0f"); wall=$(calc "$(col "$p.$c" 1) + $(col "$p.${c}post" 1)" "%.0f")
	echo "| $3 | $(ms "$cpu") ms | $(ms "$wall") ms | **$(calc "($cpu - $(col "$p.${BASE[$c]}" 2)) / ${TC[$p]}" "%.1f")** | $(calc "($wall - $(col "$p.${BASE[$c]}" 1)) / ${TC[$p]}" "%.1f") | $(ms "$(col "$p.${c}post" 2)") ms, $(calc "$(col "$p.${c}post" 2) / ${TC[$p]}" "%.1f") ns per call | $(checked "$p" "$c") | $(bytes_of "$p" "$c" textbytes) |"
}
e2e_table() {
	local p=$1
	echo "| pipeline | CPU | wall | **ns per call (CPU)** | ns per call (wall) | formatting step alone (CPU) | calls in the text | text: size, bytes per call |"
	echo "|---|---|---|---|---|---|---|---|"
	e2e_row "$p" xbasic "XRay basic + \`llvm-xray convert --symbolize --output-format=yaml\`"
	e2e_row "$p" xfdr "XRay FDR + \`llvm-xray convert --symbolize --output-format=yaml\`"
	e2e_row "$p" uftR "\`uftrace record -R ...\` + \`uftrace replay\`"
	e2e_row "$p" oursR "\`objpatch record\` + \`objpatch report\`"
	e2e_row "$p" ours "\`objpatch run\` (text written in the process)"
	echo
}
# clock_share CFG: "P N": P % of the profile's samples, N ns of CPU per call
# (the sampled period, ns for cpu-clock), on the instruction after an rdtsc
# or rdtscp (skid) in its annotated functions
clock_share() {
	awk -v calls="${TC[calls]}" '
		FNR == NR { if (match($0, /\[[.k]\] [^ ]+/)) { f = substr($0, RSTART + 4, RLENGTH - 4); pct[f] = $1 + 0; per[f] = $2 + 0 }; next }
		/^[^ ].*:$/ { f = substr($0, 1, length($0) - 1); next }
		after { s += ($1 + 0) * pct[f] / 100; n += ($1 + 0) * per[f] / 100; after = 0 }
		/ rdtscp?$/ { after = 1 }
		END { printf "%.0f %.1f", s, n / calls }' "$res/perf.$1.txt" "$res/perf.$1.annotate"
}
verdict() { awk -v c="$1" 'BEGIN { print (c) ? "met" : "**not met**" }'; }
goal() {	# goal PROG FDR-CFG: ours against XRay FDR, per call, CPU
	local o x
	o=$(per_call "$1" oursR 2); x=$(per_call "$1" "$2" 2)
	echo "$(calc "$o / $x" "%.2f")x ($o vs $x ns)"
}

{
	echo "# Benchmark: the runtime against LLVM XRay"
	echo
	echo "Written by \`bench/xray.sh\`; every number below was measured by that run."
	echo
	echo "## Setup"
	echo
	echo "- Date: started $date_started, finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'); benchmark run time $(($(date +%s) - started)) s"
	echo "- Commit: $(git rev-parse HEAD 2> /dev/null || echo unknown) ($(git describe --always --dirty 2> /dev/null || echo unknown)$([ -z "$(git status --porcelain 2> /dev/null)" ] || echo "; the working tree had uncommitted changes"))"
	echo "- Machine: $(uname -srm), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) cores, clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2> /dev/null || echo '?'); load average before the run: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)"
	echo "- Invocation (every setting, defaults included): \`$invocation\`"
	echo "- Compilers: $("$CLANG" --version | head -1) for XRay (\`${XCFLAGS[*]} ${XRAY[*]}\`: sleds in every function; linked \`-fxray-instrument\` with compiler-rt's XRay runtime, \`$rtdir/libclang_rt.xray{,-basic,-fdr}-x86_64.a\`, and bench/runtime/xray-fdr.c); $("$CC" --version | head -1) for uftrace and ours (\`${CFLAGS[*]} ${PG[*]}\`, \`build/recordmcount --mode=user\`, linked without -pg: bench/runtime.sh's build). Each tool's cost is taken against the same source built by its compiler without instrumentation (clang \`${XCFLAGS[*]}\`, gcc \`${CFLAGS[*]}\`)."
	echo "- XRay (llvm-xray: $("$llvm_xray" --version 2>&1 | grep -i -m1 version | sed 's/^ *//')): basic mode \`XRAY_OPTIONS=\"$(xr_opts xray-basic DIR | sed "s|$tmp/DIR.d/|DIR/|")\" XRAY_BASIC_OPTIONS=\"$XR_BASIC_OPTS\"\`; FDR mode \`XRAY_OPTIONS=\"$(xr_opts xray-fdr DIR | sed "s|$tmp/DIR.d/|DIR/|")\" XRAY_FDR_OPTIONS=\"$(xr_fdr_opts "${TC[calls]}")\"\` on calls.c (buffer_max scaled to the calls). \`func_duration_threshold_us=0\`: the default (5 us) drops every shorter call. FDR keeps its records in memory and writes them at the end; it drops what does not fit in buffer_size x buffer_max, hence buffers for the whole run (16 bytes a call). FDR does not start on its own: bench/runtime/xray-fdr.c (uninstrumented, in every XRay build, idle unless \`xray_mode=xray-fdr\`) calls \`__xray_log_init_mode\` and \`__xray_patch\` before main and \`__xray_log_finalize\` + \`__xray_log_flushLog\` after it. \`grace_period_ms=0\`: the default makes the flush sleep 100 ms first (wall time only)."
	echo "- XRay's clock: XRay reads the TSC (rdtscp) only when it can read the TSC's frequency from \`/sys/devices/system/cpu/cpu0/tsc_freq_khz\` or cpufreq; here its start-up says: \`${xray_probe:-nothing}\`. Without them it calls \`clock_gettime(CLOCK_REALTIME)\` at every entry and exit. So that XRay is measured at its best, the basic and FDR rows preload bench/runtime/xray-tsc.c, which answers that open() with the TSC's frequency measured against CLOCK_MONOTONIC ($tsc_khz kHz); the *emulated TSC* row is FDR as it runs here out of the box."
	echo "- uftrace: $("$uftrace" --version 2>&1 | head -1) (Debian $(dpkg-query -W -f='${Version}' uftrace 2>/dev/null || echo '?')), \`uftrace ${UF_COMMON[*]} [-R FUNC@retval/FMT ...] -d DIR PROG\` as bench/runtime.sh runs it; \`uftrace replay -d DIR\` formats it."
	echo "- Ours: \`build/objpatch record --output FILE -- PROG\` (raw recording: entry and exit times and the typed return value of every call), \`build/objpatch report FILE\` formats it; \`build/objpatch run --output FILE -- PROG\` records and formats in the process."
	echo "- Times: every run by \`bench/runtime/runit.c\` (posix_spawn + wait4): *CPU* is user + system time of every process of the run, *wall* the elapsed time; medians over $REPS repetitions of the recordings, $E2E_REPS of the formatting steps, the configurations alternating their order. *ns per call* = (median - median of the tool's baseline build) / traced calls; *marginal* subtracts each configuration's run on a near-empty input first (\`calls ${ARGS0[calls]}\`, \`fib ${ARGS0[fib]}\`), removing fixed costs (start-up, symbol files); *max RSS* the largest resident set of a process of the run. Recordings and text go to files under \`$(realpath --relative-to="$top" "$out")/tmp\`, deleted between runs (not timed). *Calls in the recording* are counted on repetition 1 in the tool's text of it (XRay: \`llvm-xray convert\` YAML, an entry and an exit per call; uftrace without -R: \`uftrace report\`); every call made must be there. *Bytes per call*: the recording's size on disk (XRay's log file, uftrace's data directory, our raw file) / traced calls."
	echo
	echo "## The clock floor"
	echo
	echo "\`bench/runtime/clock.c\` in this run: \`$clock_line\` (CPU ns per read, the fastest of 5 passes of 20 M reads). Our runtime reads the TSC at every entry and every exit: **2 x rdtsc = $(calc "2 * $rdtsc" "%.1f") ns** of every traced call are the clock's; XRay with the TSC reads it with rdtscp at every entry and exit, **2 x rdtscp = $(calc "2 * $rdtscp" "%.1f") ns**, and with the emulated TSC calls clock_gettime instead, 2 x clock_gettime = $(calc "2 * $cgt" "%.1f") ns (CLOCK_MONOTONIC measured; XRay reads CLOCK_REALTIME, the same vDSO path)."
	echo
	for p in "${PROGS[@]}"; do
		case $p in
		calls) echo "## calls.c: empty functions"; echo; echo "\`calls ${ARGS[calls]}\` (bench/runtime/calls.c): ${TC[calls]} traced calls (int, void, pointer and a non-leaf long function in a loop; and main)." ;;
		fib) echo "## fib.c: recursion"; echo; echo "\`fib ${ARGS[fib]}\` (bench/runtime/fib.c): ${TC[fib]} traced calls, every one returning a long (main an int)." ;;
		esac
		echo
		echo "### Recording"
		echo
		rec_table "$p"
		echo "**Goal of the issue, our recording per call at most XRay FDR's** (\`objpatch record\` against FDR mode with the TSC, CPU, whole run): ours / XRay FDR = $(goal "$p" xfdr), $(verdict "$(calc "$(per_call "$p" oursR 2) <= $(per_call "$p" xfdr 2)" "%d")"). Against FDR as it runs here (emulated TSC): $(goal "$p" xfdrE). Against basic mode: $(calc "$(per_call "$p" oursR 2) / $(per_call "$p" xbasic 2)" "%.2f")x. Marginal (fixed costs removed), ours against FDR with the TSC: $(marginal "$p" oursR) vs $(marginal "$p" xfdr) ns."
		echo
		echo "### End to end, up to a text trace on disk"
		echo
		echo "The recording's median plus its formatting step's median (the formatting step run on the recording just made, its text written to a file)."
		echo
		e2e_table "$p"
		if [ "$p" = calls ]; then
			for c in xfdr uftR oursR; do
				[ -s "$res/check.$p.$c.head" ] || continue
				echo "First lines of the text of $(label "$c" | tr -d '*'):"
				echo
				echo '```'
				cut -c1-160 "$res/check.$p.$c.head"
				echo '```'
				echo
			done
		fi
	done
	echo "## What each records"
	echo
	echo "- XRay basic mode: a 32-byte record per entry and per exit (function id, TSC, CPU, thread id; basic mode's \`XRayRecord\`), written to the log by each thread in blocks; no arguments, no return values (XRay can log the first argument of functions marked \`xray_log_args\`, not used here)."
	echo "- XRay FDR mode: an 8-byte record per entry and per exit (function id, entry/exit, 32-bit TSC delta), 16-byte metadata records when a buffer starts, the CPU changes or the delta overflows; kept in memory, written at the end. No return values. Its text (llvm-xray convert) carries function names and times only."
	echo "- uftrace: entry and exit records (16 bytes each, more with -R's return values), through its recorder; symbol and map files."
	echo "- Ours: entry and exit times and, for every non-void function, its return value typed from the prototype table (int, pointer, long here); the text shows durations and \`ret=VALUE\`."
	echo
	echo "So XRay FDR records less per call than ours (no values) in fewer bytes; the goal compares the cost of recording a call as each tool defines it."
	echo
	echo "## Notes"
	echo
	echo "- XRay's cost per call here is that of its default trampoline and handler; the rdtscp reads account for part of it (the profile below), the rest of its handler being mostly memory fences (\`mfence\`) and atomic instructions (the recursion guard's \`xchg\`, the buffer's \`lock add\`) with the thread-local lookups around them (\`pthread_getspecific\`), and the trampoline's saving of every argument register (\`__xray_FunctionEntry\`)."
	echo "- Without bench/runtime/xray-tsc.c, XRay here uses clock_gettime (the *emulated TSC* row): XRay as a user of this VM would get it. Both rows are shown; the goal is judged against the faster."
	echo "- XRay's baseline is clang's build, ours and uftrace's gcc's; the two take $(for p in "${PROGS[@]}"; do echo -n "$(ms "$(col "$p.cbase" 2)") and $(ms "$(col "$p.gbase" 2)") ms of CPU on $p.c, "; done)against the hundreds that the tracers add."
	echo "- \`llvm-xray account\` (LLVM 14) reports \"exit with an empty stack\" errors on FDR logs of a few million records even where \`llvm-xray convert\` shows every entry and exit, correctly nested and in time order; the calls are therefore counted in convert's YAML, and account is not used."
	echo "- The machine is shared (the load averages above): wall times suffer most; CPU times are the measure of the goal."
	echo
	if [ -n "$prof" ]; then
		echo "## Where the time goes (perf, calls.c)"
		echo
		echo "\`perf record -e cpu-clock -F 4999\` of one run of each (\`calls ${ARGS[calls]}\`, the same commands as above), \`perf report -F overhead,period,dso,sym\` (share of the samples, sampled CPU time in ns; entries of 2% and more); then \`perf annotate\` of its two hottest functions, the instructions with 5% of the function's samples or more, each after the instruction before it. A sample lands on the instruction after the one that held the CPU (skid): the figure after an \`rdtsc\` or \`rdtscp\` is the clock read's, after an \`mfence\` the fence's. perf's hardware counters are not available on this machine (a VM), so no cycles or instructions."
		echo
		for c in $prof; do
			read -r share share_ns <<< "$(clock_share "$c")"
			echo "$(label "$c" | tr -d '*'): at least $share% of the samples are on its clock reads (rdtsc/rdtscp in its two hottest functions): $share_ns ns of CPU per call in this profiled run (the sampled time on them / calls); its cost per call in the tables above: $(per_call calls "$c" 2) ns."
			echo
			echo '```'
			cat "$res/perf.$c.txt"
			echo
			cat "$res/perf.$c.annotate"
			echo '```'
			echo
		done
	fi
	echo "## Commands"
	echo
	echo "Paths relative to the repository's top directory (build/bench/xray/build/tools holds copies of build/'s recordmcount, objpatch and libobjpatch.so). Builds:"
	echo
	echo '```'
	cat "$res/build-commands"
	echo '```'
	echo
	echo "Measured runs, each started by \`build/bench/xray/build/runit [-e VAR=VALUE]... [-o FILE] -- COMMAND\` (shown as \`VAR=VALUE... COMMAND [> FILE]\`; the log file names end in a random suffix chosen by XRay), one line per result file in \`$(realpath --relative-to="$top" "$res")\`:"
	echo
	echo '```'
	awk -F'\t' '{ printf "%-18s %s\n", $1, $2 }' "$res/commands.tsv"
	echo '```'
} | tee "$out/xray.md"
results_md=${BENCH_XRAY_RESULTS-$top/bench/RESULTS-xray.md}
[ -z "$results_md" ] || { cp "$out/xray.md" "$results_md" && echo "xray.sh: wrote $results_md" >&2; }
