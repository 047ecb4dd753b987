#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The cost of NOP'd sites (goal: within 2% of the build without
# -pg), measured over random code layouts.
#
# Why: adding a NOP to every function moves every later function and loop.
# On this machine where a hot loop lands against a 32- or 64-byte boundary
# alone swings bench/runtime/work.c by -6% to +12% (one build compared with
# another, both without any instrumentation, only -falign-functions
# changed), more than the effect being measured.  One build against one
# build therefore measures a layout, not a NOP.  As Stabilizer (Curtsinger
# and Berger, ASPLOS 2013) does at run time, this measures the same program
# in many random layouts and averages: each layout draws a random function
# order, a random padding before the first function (0-63 bytes) and a
# random environment size (so the stack moves too); the baseline and every
# instrumented build of that layout are linked with the same order and
# padding and run with the same environment, their order alternating.
#
# Builds: the baseline (no -pg), the -pg build with our tables (`--mode=user`)
# and the same with the sites NOP'd at build time (`--nop`), all from one
# object each, compiled with -ffunction-sections and linked by lld with
# --symbol-ordering-file (both only to choose the layout: the code is the
# code gcc generates).  Configurations: the --nop build alone; the -pg build
# with the runtime preloaded and a filter that matches nothing (it NOPs every
# site at start-up: the issue's configuration); the --nop build with the
# runtime.  Overhead of a configuration in a layout = its median CPU time /
# the baseline's median in that layout - 1; the report gives the mean over
# layouts with a 95% confidence interval (Student's t), the median, and every
# layout's figure.
#
#   bench/layout.sh      writes bench/RESULTS-layout.md (BENCH_LAYOUT_RESULTS,
#                        empty: not written) and build/bench/layout/layout.md
#
# Environment: LAYOUTS (default 20), LAYOUT_REPS (runs per configuration per
# layout, default 5), RT_WORK_NOP_ITERS (default 250000), RT_NOP_ITERS (calls.c,
# default 20000000), CC (default gcc), RT_CFLAGS (default -O2 -g), RT_PG
# (default -pg -mfentry on x86_64, -pg elsewhere), LAYOUT_SEED (default 1),
# RT_MAKE=0 takes build/ as it is.  About 4 minutes with the defaults.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

LAYOUTS=${LAYOUTS:-20}
REPS=${LAYOUT_REPS:-5}
WORK_ITERS=${RT_WORK_NOP_ITERS:-250000}
CALLS_ITERS=${RT_NOP_ITERS:-20000000}
SEED=${LAYOUT_SEED:-1}
CC=${CC:-gcc}
read -ra CFLAGS <<< "${RT_CFLAGS:--O2 -g}"
if [ -n "${RT_PG:-}" ]; then
	read -ra PG <<< "$RT_PG"
elif [ "$(uname -m)" = x86_64 ]; then
	PG=(-pg -mfentry)
else
	PG=(-pg)
fi
NOMATCH=objpatch_bench_matches_nothing
out=$top/build/bench/layout
res=$out/results
bld=$out/build
invocation="LAYOUTS=$LAYOUTS LAYOUT_REPS=$REPS RT_WORK_NOP_ITERS=$WORK_ITERS RT_NOP_ITERS=$CALLS_ITERS LAYOUT_SEED=$SEED CC=$CC RT_CFLAGS=\"${CFLAGS[*]}\" RT_PG=\"${PG[*]}\" bench/layout.sh"
die() { echo "layout.sh: $*" >&2; exit 1; }

command -v ld.lld > /dev/null || die "ld.lld is missing (scripts/deps.sh installs lld): it places the functions in a chosen order"
[ "${RT_MAKE:-1}" = 0 ] || make -s all
started=$(date +%s)
date_started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rm -rf "$res" "$bld"
mkdir -p "$res" "$bld/tools"
# A copy of the tools, so that a rebuild of build/ during the run cannot mix versions.
cp build/recordmcount build/libobjpatch.so "$bld/tools/"
rmc=$bld/tools/recordmcount
lib=$bld/tools/libobjpatch.so
runit=$bld/runit
cc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$runit" bench/runtime/runit.c

# ---- objects: one per program and kind, every layout links them
declare -A ITERS=([work]=$WORK_ITERS [calls]=$CALLS_ITERS) FUNCS
for p in work calls; do
	"$CC" "${CFLAGS[@]}" -ffunction-sections -c "bench/runtime/$p.c" -o "$bld/$p-base.o"
	"$CC" "${CFLAGS[@]}" "${PG[@]}" -ffunction-sections -c "bench/runtime/$p.c" -o "$bld/$p-pg.o"
	cp "$bld/$p-pg.o" "$bld/$p-nop.o"
	"$rmc" --mode=user "$bld/$p-pg.o"
	"$rmc" --mode=user --nop "$bld/$p-nop.o"
	# every function of the program: the symbols of its text sections
	FUNCS[$p]=$(nm --defined-only "$bld/$p-base.o" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u | tr '\n' ' ')
done

# Reproducible random choices: layout L of seed S draws from "S.L.WHAT".
rand_below() { python3 -c 'import random, sys; print(random.Random(sys.argv[1]).randrange(int(sys.argv[2])))' "$1" "$2"; }
shuffled() { python3 -c 'import random, sys; w = sys.stdin.read().split(); random.Random(sys.argv[1]).shuffle(w); print("\n".join(w))' "$1"; }

# layout L: links PROG-{base,pg,nop}.L with layout L's order and padding
make_layout() {
	local l=$1 p pad k
	pad=$(rand_below "$SEED.$l.pad" 64)
	echo "$pad" > "$bld/pad.$l"
	printf '// SPDX-License-Identifier: GPL-2.0-only\n__attribute__((used, section(".text.layout_pad"))) void layout_pad(void) { __asm__(".fill %d, 1, 0x90"); }\n' \
		"$pad" > "$bld/pad.$l.c"
	cc -O2 -c "$bld/pad.$l.c" -o "$bld/pad.$l.o"
	for p in work calls; do
		{ echo layout_pad; shuffled "$SEED.$l.order.$p" <<< "${FUNCS[$p]}"; } > "$bld/$p.order.$l"
		for k in base pg nop; do
			"$CC" -fuse-ld=lld -Wl,--symbol-ordering-file="$bld/$p.order.$l" -Wl,--no-warn-symbol-ordering \
				-o "$bld/$p-$k.$l" "$bld/pad.$l.o" "$bld/$p-$k.o"
		done
	done
}

cfg_cmd() {	# cfg_cmd PROG CFG LAYOUT: sets CMD (runit arguments)
	local p=$1 l=$3 n=${ITERS[$1]} envpad
	envpad="LAYOUT_ENV_PAD=$(head -c "$(cat "$bld/envpad.$l")" /dev/zero | tr '\0' x)"
	case $2 in
	base) CMD=(-e "$envpad" -- "$bld/$p-base.$l" "$n") ;;
	nopbuild) CMD=(-e "$envpad" -- "$bld/$p-nop.$l" "$n") ;;
	ours) CMD=(-e "$envpad" -e "LD_PRELOAD=$lib" -e "OBJPATCH_FILTER=$NOMATCH" -- "$bld/$p-pg.$l" "$n") ;;
	oursnop) CMD=(-e "$envpad" -e "LD_PRELOAD=$lib" -e "OBJPATCH_FILTER=$NOMATCH" -- "$bld/$p-nop.$l" "$n") ;;
	esac
}
cfgs=(base nopbuild ours oursnop)
echo "layout.sh: $LAYOUTS layouts x ${cfgs[*]} x $REPS runs, work $WORK_ITERS and calls $CALLS_ITERS iterations" >&2
for ((l = 1; l <= LAYOUTS; l++)); do
	make_layout "$l"
	rand_below "$SEED.$l.env" 4096 > "$bld/envpad.$l"
	for ((r = 0; r < REPS; r++)); do
		for p in work calls; do
			for ((i = 0; i < ${#cfgs[@]}; i++)); do
				c=${cfgs[(i + r + l) % ${#cfgs[@]}]}
				cfg_cmd "$p" "$c" "$l"
				line=$("$runit" "${CMD[@]}" 2>> "$res/$p.$c.log") || die "$p $c layout $l: runit failed (see $res/$p.$c.log)"
				[ "$(cut -f5 <<< "$line")" = 0 ] || die "$p $c layout $l: exit status $(cut -f5 <<< "$line") (see $res/$p.$c.log)"
				printf '%s\t%s\t%s\t%s\n' "$p" "$c" "$l" "$(cut -f2 <<< "$line")" >> "$res/cpu.tsv"
			done
		done
	done
	echo "layout.sh: layout $l of $LAYOUTS done" >&2
done
# Every site really NOP'd in the runtime configurations: the programs ran to
# completion with the -pg build's sites set by the runtime (its statistics line).
env LD_PRELOAD="$lib" OBJPATCH_FILTER="$NOMATCH" OBJPATCH_STATS=1 "$bld/work-pg.1" 1 > /dev/null 2> "$res/stats.log"
stats=$(grep -o 'objpatch: [0-9]* sites in [0-9]* modules, [0-9]* patched' "$res/stats.log" || true)
[ -n "$stats" ] || die "the runtime printed no statistics line (see $res/stats.log)"
finished=$(date +%s)

# ---- report
report=$out/layout.md
python3 - "$res/cpu.tsv" > "$res/figures.md" 2> "$res/goal" << 'PY'
import statistics as st, sys
# Student's t, two-sided 95%, by degrees of freedom (beyond 30: 2.0)
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
       11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 16: 2.12, 17: 2.11, 18: 2.10, 19: 2.09,
       20: 2.09, 21: 2.08, 22: 2.07, 23: 2.07, 24: 2.06, 25: 2.06, 26: 2.06, 27: 2.05, 28: 2.05,
       29: 2.05, 30: 2.04}
runs = {}
for line in open(sys.argv[1]):
    p, c, l, cpu = line.split()
    runs.setdefault((p, c, int(l)), []).append(int(cpu))
layouts = sorted({k[2] for k in runs})
labels = {"nopbuild": "`recordmcount --nop` build alone (NOPs written at build time)",
          "ours": "-pg build, runtime preloaded, filter matching nothing (it NOPs every site)",
          "oursnop": "`--nop` build, runtime preloaded, filter matching nothing"}
for p in ("work", "calls"):
    base = {l: st.median(runs[(p, "base", l)]) for l in layouts}
    print(f"### {p}.c\n")
    print(f"Baseline (no -pg), median CPU time over layouts: {st.median(base.values()) / 1e6:.1f} ms "
          f"(fastest layout {min(base.values()) / 1e6:.1f}, slowest {max(base.values()) / 1e6:.1f}).\n")
    print("| configuration | **mean overhead (CPU)** | 95% confidence interval | median | fewest / most | every layout |")
    print("|---|---|---|---|---|---|")
    for c in ("nopbuild", "ours", "oursnop"):
        o = [st.median(runs[(p, c, l)]) / base[l] - 1 for l in layouts]
        m = st.mean(o)
        h = T95.get(len(o) - 1, 2.0) * st.stdev(o) / len(o) ** 0.5 if len(o) > 1 else float("nan")
        print(f"| {labels[c]} | **{m * 100:+.2f}%** | {(m - h) * 100:+.2f}% .. {(m + h) * 100:+.2f}% | "
              f"{st.median(o) * 100:+.2f}% | {min(o) * 100:+.1f}% / {max(o) * 100:+.1f}% | "
              + " ".join(f"{x * 100:+.1f}" for x in o) + " |")
        if c == "ours":
            print(f"GOAL {p} {m * 100:.2f} {(m - h) * 100:.2f} {(m + h) * 100:.2f}", file=sys.stderr)
    print()
PY
read -r _ _ wm wlo whi < <(grep '^GOAL work ' "$res/goal")
read -r _ _ cm clo chi < <(grep '^GOAL calls ' "$res/goal")
verdict() { awk -v v="$1" 'BEGIN { print (v <= 2) ? "met" : "**not met**" }'; }
{
	echo "# Benchmark: NOP'd sites over random code layouts"
	echo
	echo "Written by \`bench/layout.sh\`; every number below was measured by that run. The method and why it is needed are in the script's header: one build against one build measures where the hot loops land, which moves the time by more than the NOPs do."
	echo
	echo "## Setup"
	echo
	echo "- Date: started $date_started, run time $((finished - started)) s"
	echo "- Commit: $(git rev-parse HEAD 2> /dev/null || echo unknown)$(git diff --quiet HEAD 2> /dev/null || echo ' (with uncommitted changes)')"
	echo "- Machine: $(uname -sr) $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores; load average before the run: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)"
	echo "- Invocation (every setting, defaults included): \`$invocation\`"
	echo "- Compiler: $("$CC" --version | head -1); objects \`$CC ${CFLAGS[*]} [${PG[*]}] -ffunction-sections -c\`, tables by \`recordmcount --mode=user [--nop]\`, linked by \`$CC -fuse-ld=lld -Wl,--symbol-ordering-file=ORDER\` ($(ld.lld --version | head -1)); the runtime's start-up line on one layout: $stats"
	echo "- $LAYOUTS layouts, $REPS runs per configuration per layout, configurations alternating; *CPU* is user + system time from wait4 (\`bench/runtime/runit.c\`), fixed costs (loading the runtime, setting the sites) included. Programs: \`work $WORK_ITERS\` (bench/runtime/work.c) and \`calls $CALLS_ITERS\` (bench/runtime/calls.c, empty functions: the worst case)."
	echo
	echo "## Overhead against the build without -pg, same layout"
	echo
	cat "$res/figures.md"
	echo "**Goal of the issue, within 2% of the build without -pg** (runtime preloaded, every site NOP'd), on work.c: mean over layouts $(printf '%+.2f' "$wm")%, 95% confidence interval $(printf '%+.2f' "$wlo")% .. $(printf '%+.2f' "$whi")%: $(verdict "$wm") on the mean$( [ "$(verdict "$whi")" = met ] && echo ', and on the upper end of the interval' || echo ', not on the upper end of the interval')."
	echo
	echo "Worst case, calls.c: mean $(printf '%+.2f' "$cm")% ($(printf '%+.2f' "$clo")% .. $(printf '%+.2f' "$chi")%)."
} > "$report"
cat "$report"
dest=${BENCH_LAYOUT_RESULTS-bench/RESULTS-layout.md}
[ -z "$dest" ] || cp "$report" "$dest"
