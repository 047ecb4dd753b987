#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What typed arguments cost, on bench/runtime/args2.c (one
# function of two integers, called N times), x86_64:
#  - `objpatch record --args` against `objpatch record`: the cost --args adds
#    per traced call (goal: at most 15 ns);
#  - `objpatch record` of this tree against `objpatch record` of the runtime
#    as it was before arguments existed (ARGS_BASE_REV, built here): what
#    their code costs a trace that does not ask for them (goal: nothing);
#  - uftrace record, without and with its -a (arguments from DWARF), for
#    scale.
# Timed: CPU time (user + system of every process, runit.c), the
# configurations alternating, medians; ns per call = (median - median of
# the build without -pg) / calls.  Also exact: callgrind's instructions per
# traced call of the three objpatch configurations (every process, the
# difference between two iteration counts, so no fixed cost is in it).
# Writes the `args` section of BENCH_RUNTIME_RESULTS (default
# bench/RESULTS-runtime.md; empty: not written) and BENCH_DIR/args/args.md.
#
# Environment: BENCH_DIR (default build/bench); ARGS_REPS (default 9);
# ARGS_ITERS (default 1000000); ARGS_CG_ITERS (callgrind's two runs: N and
# 2N, default 20000; 0: no callgrind); ARGS_BASE_REV (default 5556c8f, the
# last commit before arguments); CC (default gcc).  About 3 minutes on 2
# cores, plus a minute the first time to build the base revision.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. bench/results.sh

out=${BENCH_DIR:-$top/build/bench}/args
REPS=${ARGS_REPS:-9}
ITERS=${ARGS_ITERS:-1000000}
CG_ITERS=${ARGS_CG_ITERS:-20000}
BASE_REV=${ARGS_BASE_REV:-5556c8f}
CC=${CC:-gcc}
results=${BENCH_RUNTIME_RESULTS-$top/bench/RESULTS-runtime.md}
die() { echo "args.sh: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "the goal is stated for x86_64 (this is $(uname -m))"
uftrace=$(command -v uftrace) || die "uftrace is not installed (scripts/deps.sh installs it)"
[ -x build/objpatch ] && [ -f build/libobjpatch.so ] && [ -x build/recordmcount ] || die "build/ is not built (make)"
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$out/new" "$out/tmp"
rm -f "$out"/*.tsv "$out"/*.log
# Copies of the tools, so a rebuild of build/ during the run mixes nothing.
cp build/objpatch build/libobjpatch.so "$out/new/"

# The runtime before arguments: built once per revision, from git's copy.
base=$out/base-$BASE_REV
if [ ! -x "$base/build/objpatch" ] || [ ! -f "$base/build/libobjpatch.so" ]; then
	rm -rf "$base"
	mkdir -p "$base"
	git archive "$BASE_REV" | tar -x -C "$base" || die "cannot read revision $BASE_REV"
	echo "args.sh: building objpatch at $BASE_REV" >&2
	make -C "$base" -s -j"$(nproc)" build/objpatch build/libobjpatch.so > "$out/base-build.log" 2>&1 ||
		die "building $BASE_REV failed (see $out/base-build.log)"
fi

# The program: without -pg (the baseline) and with -pg -mfentry, our tables added.
cc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$out/runit" bench/runtime/runit.c
"$CC" -O2 -g -o "$out/args2-nopg" bench/runtime/args2.c
"$CC" -O2 -g -pg -mfentry -c bench/runtime/args2.c -o "$out/args2.o"
build/recordmcount --mode=user "$out/args2.o"
"$CC" -o "$out/args2" "$out/args2.o"

# Before anything is timed: --args shows the arguments, and only with it.
"$out/new/objpatch" record --args -o "$out/tmp/probe.raw" -- "$out/args2" 3 > /dev/null 2>&1 &&
	"$out/new/objpatch" report "$out/tmp/probe.raw" > "$out/tmp/probe.txt" 2>&1 ||
	die "objpatch record --args failed (see $out/tmp/probe.txt)"
grep -q 'add2(a=2, b=0)' "$out/tmp/probe.txt" || die "objpatch record --args did not show add2(a=2, b=0) (see $out/tmp/probe.txt)"
"$base/build/objpatch" record -o "$out/tmp/probe.raw" -- "$out/args2" 3 > /dev/null 2>&1 ||
	die "$BASE_REV's objpatch record failed"

# cmd CFG ITERS: sets CMD, runit's arguments for one configuration
cmd() {
	local raw=$out/tmp/$1.raw
	case $1 in
	base) CMD=(-- "$out/args2-nopg" "$2") ;;
	before) CMD=(-- "$base/build/objpatch" record -o "$raw" -- "$out/args2" "$2") ;;
	record) CMD=(-- "$out/new/objpatch" record -o "$raw" -- "$out/args2" "$2") ;;
	args) CMD=(-- "$out/new/objpatch" record --args -o "$raw" -- "$out/args2" "$2") ;;
	uft) CMD=(-- "$uftrace" record --no-libcall --no-event -d "$out/tmp/uft.data" "$out/args2" "$2") ;;
	uftA) CMD=(-- "$uftrace" record --no-libcall --no-event -a -d "$out/tmp/uftA.data" "$out/args2" "$2") ;;
	esac
}
CFGS=(base before record args uft uftA)
declare -A LABEL=(
	[base]="no -pg build (baseline)"
	[before]="\`objpatch record\` at $BASE_REV (before arguments)"
	[record]="\`objpatch record\` (this tree, no --args)"
	[args]="\`objpatch record --args\`"
	[uft]="\`uftrace record\`"
	[uftA]="\`uftrace record -a\` (arguments from DWARF)"
)
echo "args.sh: ${CFGS[*]}, $ITERS iterations, $REPS repetitions" >&2
for ((rep = 0; rep < REPS; rep++)); do
	for ((i = 0; i < ${#CFGS[@]}; i++)); do
		cfg=${CFGS[(i + rep) % ${#CFGS[@]}]}
		cmd "$cfg" "$ITERS"
		line=$("$out/runit" "${CMD[@]}" 2>> "$out/$cfg.log") || die "$cfg: runit failed (see $out/$cfg.log)"
		[ "$(cut -f5 <<< "$line")" = 0 ] || die "$cfg: exit status $(cut -f5 <<< "$line") (see $out/$cfg.log)"
		echo "$line" >> "$out/$cfg.tsv"
		rm -rf "$out/tmp/$cfg.raw" "$out/tmp/$cfg.data" "$out/tmp/$cfg.data.old"
	done
done
calls=$((ITERS + 1))
# median CFG FIELD: the median of a column of CFG's runs (2: CPU ns)
median() { cut -f"$2" "$out/$1.tsv" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base_cpu=$(median base 2)
per_call() { awk -v t="$(median "$1" 2)" -v b="$base_cpu" -v n="$calls" 'BEGIN { printf "%.1f", (t - b) / n }'; }
declare -A NS
for cfg in "${CFGS[@]}"; do NS[$cfg]=$(per_call "$cfg"); done
diff_ns() { awk -v a="${NS[$1]}" -v b="${NS[$2]}" 'BEGIN { printf "%+.1f", a - b }'; }

# callgrind: every process's instructions, at N and 2N iterations.
cg_line=""
if [ "$CG_ITERS" -gt 0 ] && command -v valgrind > /dev/null; then
	ir() {
		cmd "$1" "$2"
		valgrind --tool=callgrind --trace-children=yes --smc-check=all --callgrind-out-file=/dev/null \
			"${CMD[@]:1}" 2>&1 > /dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
	}
	declare -A IR
	for cfg in before record args; do
		a=$(ir "$cfg" "$CG_ITERS")
		b=$(ir "$cfg" $((CG_ITERS * 2)))
		IR[$cfg]=$(awk -v a="$a" -v b="$b" -v n="$CG_ITERS" 'BEGIN { printf "%.1f", (b - a) / n }')
	done
	cg_line="Instructions per traced call (callgrind, exact: every process, \`args2 $((CG_ITERS * 2))\` less \`args2 $CG_ITERS\`): before arguments **${IR[before]}**, this tree without --args **${IR[record]}**, with --args **${IR[args]}**."
fi

goal() { awk -v d="$1" -v g="$2" 'BEGIN { print (d <= g) ? "met" : "not met" }'; }
added=$(diff_ns args record)
{
	echo "<!-- args -->"
	echo "## 6. Typed arguments (bench/args.sh)"
	echo
	echo "Written by \`bench/args.sh\`, started $started, commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'); load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg). \`ARGS_REPS=$REPS ARGS_ITERS=$ITERS ARGS_CG_ITERS=$CG_ITERS ARGS_BASE_REV=$BASE_REV bench/args.sh\`."
	echo
	echo "\`args2 $ITERS\` (bench/runtime/args2.c): $calls traced calls of \`int add2(int a, int b)\` (and main), built \`$CC -O2 -g -pg -mfentry\`, \`recordmcount --mode=user\`. CPU time (user + system, every process), configurations alternating, medians of $REPS; ns per call = (median - the no -pg build's) / calls."
	echo
	echo "| configuration | CPU (median) | ns per call (CPU) |"
	echo "|---|---|---|"
	for cfg in "${CFGS[@]}"; do
		printf '| %s | %.1f ms | %s |\n' "${LABEL[$cfg]}" "$(awk -v t="$(median "$cfg" 2)" 'BEGIN { print t / 1e6 }')" \
			"$([ "$cfg" = base ] && echo - || echo "${NS[$cfg]}")"
	done
	echo
	echo "- **--args adds $added ns per call** (\`record --args\` less \`record\`): goal at most +15 ns, $(goal "$added" 15)."
	echo "- Without --args, this tree against the runtime before arguments: $(diff_ns record before) ns per call (timed; the noise of this machine is a few ns)."
	echo "- uftrace's -a adds $(diff_ns uftA uft) ns per call."
	[ -z "$cg_line" ] || echo "- $cg_line"
	echo "<!-- /args -->"
} > "$out/args.md"
cat "$out/args.md"
results_put args "$out/args.md" "$results"
