#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What `objpatch report` costs per traced call and per text line (goal:
# text at most 50 ns per line to a file, on bench/runtime/calls.c): one recording of calls.c
# (`objpatch record`), formatted as text, JSON, folded stacks and --summary
# into a file (text also to /dev/null: the formatting without the file
# system's part).
# ns per call = (median CPU time - median CPU time of the same report on a
# recording of `calls 0`) / traced calls: the start-up and the reading of
# the modules cancel out.  CPU time is user + system, from
# bench/runtime/runit.c; the configurations alternate, repetition by
# repetition.  With FMT_OLD=PATH, another objpatch binary (an older build)
# is measured the same way in the same run, alternating with this one.
# If valgrind is installed, callgrind's exact instruction counts per call
# (undisturbed by other work on the machine) on a small recording too.
#
# Prints a Markdown section and puts it into BENCH_RUNTIME_RESULTS (default
# bench/RESULTS-runtime.md; empty: not written) between its
# <!-- format --> markers, or at the end; bench/runtime.sh writes the rest
# of that file.  About a minute with the defaults.
#
# Environment: BENCH_DIR (default build/bench); FMT_ITERS (iterations of
# calls.c, 5 calls each, default 400000); FMT_REPS (default 7); FMT_OLD;
# FMT_OLD_LABEL (what FMT_OLD is, for the table; default its path);
# FMT_CG_ITERS (iterations for callgrind, default 20000; 0: none); CC
# (default gcc); RT_MAKE=0 takes build/ as it is (no `make all`).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

out=${BENCH_DIR:-$top/build/bench}/format
ITERS=${FMT_ITERS:-400000}
REPS=${FMT_REPS:-7}
CG_ITERS=${FMT_CG_ITERS:-20000}
OLD=${FMT_OLD:-}
OLD_LABEL=${FMT_OLD_LABEL:-$OLD}
CC=${CC:-gcc}
PG=(-pg)
[ "$(uname -m)" != x86_64 ] || PG=(-pg -mfentry)
die() { echo "format.sh: $*" >&2; exit 1; }
. bench/results.sh

[ "${RT_MAKE:-1}" = 0 ] || make -s all
[ -x build/objpatch ] && [ -f build/libobjpatch.so ] || die "build/objpatch or build/libobjpatch.so is missing (make)"
[ -z "$OLD" ] || [ -x "$OLD" ] || die "FMT_OLD=$OLD: not an executable: give the path of another objpatch binary"
rm -rf "$out"
mkdir -p "$out/tools"
# Copies, so that a rebuild of build/ during the run cannot mix versions.
cp build/objpatch build/recordmcount "$out/tools/"
cp -L build/libobjpatch.so "$out/tools/libobjpatch.so"
new=$out/tools/objpatch
[ -z "$OLD" ] || cp "$OLD" "$out/tools/objpatch-old"
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

cc -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$out/runit" bench/runtime/runit.c
"$CC" -O2 -g "${PG[@]}" -c bench/runtime/calls.c -o "$out/calls.o"
"$out/tools/recordmcount" --mode=user "$out/calls.o"
"$CC" -o "$out/calls" "$out/calls.o"
"$new" record --output "$out/calls.raw" -- "$out/calls" "$ITERS" > "$out/calls.log"
"$new" record --output "$out/zero.raw" -- "$out/calls" 0 > /dev/null
calls=$(grep -o 'traced_calls=[0-9]*' "$out/calls.log" | cut -d= -f2)
[ -n "$calls" ] || die "calls $ITERS printed no traced_calls= (see $out/calls.log)"
# The text lines of those calls (a caller's call takes two, a leaf's one), less the 0-iteration recording's.
lines=$(( $("$new" report "$out/calls.raw" | wc -l) - $("$new" report "$out/zero.raw" | wc -l) ))

# The configurations: TOOL FORMAT SINK
cfgs=("new text file" "new text null" "new json file" "new folded file" "new summary file")
[ -z "$OLD" ] || cfgs+=("old text file" "old text null" "old json file" "old folded file" "old summary file")
# run CFG REC: CPU ns of one report of REC
run() {
	local tool fmt sink bin dest
	read -r tool fmt sink <<< "$1"
	bin=$new
	[ "$tool" = new ] || bin=$out/tools/objpatch-old
	dest=$out/trace.out
	[ "$sink" = file ] || dest=/dev/null
	# --summary is an analysis, not a --format
	if [ "$fmt" = summary ]; then set -- --summary "$2"; else set -- --format "$fmt" "$2"; fi
	"$out/runit" -o "$dest" -- "$bin" report "$@" | cut -f2
	rm -f "$out/trace.out"
}
for ((r = 0; r < REPS; r++)); do
	for c in "${cfgs[@]}"; do
		key=${c// /.}
		run "$c" "$out/calls.raw" >> "$out/$key.n"
		run "$c" "$out/zero.raw" >> "$out/$key.0"
	done
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
per_call() { awk -v a="$(median "$1.n")" -v b="$(median "$1.0")" -v n="$calls" 'BEGIN { printf "%.1f", (a - b) / n }'; }
per_line() { awk -v a="$(median "$1.n")" -v b="$(median "$1.0")" -v n="$lines" 'BEGIN { printf "%.1f", (a - b) / n }'; }
ms() { awk -v a="$(median "$1")" 'BEGIN { printf "%.1f", a / 1e6 }'; }

# callgrind: instructions per traced call to /dev/null, text, folded and --summary
cg_line=""
if [ "$CG_ITERS" != 0 ] && command -v valgrind > /dev/null; then
	"$new" record --output "$out/cg.raw" -- "$out/calls" "$CG_ITERS" > "$out/cg.log"
	cg_calls=$(grep -o 'traced_calls=[0-9]*' "$out/cg.log" | cut -d= -f2)
	# ir BIN REC [OPTION...]: instructions of one report
	ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" report -o /dev/null "${@:3}" "$2" 2>&1 |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
	cg() { awk -v a="$(ir "$1" "$out/cg.raw" "${@:2}")" -v b="$(ir "$1" "$out/zero.raw" "${@:2}")" -v n="$cg_calls" \
		'BEGIN { printf "%.0f", (a - b) / n }'; }
	# cg_all BIN: "text N, folded N, summary N"
	cg_all() { echo "text $(cg "$1"), folded $(cg "$1" --format folded), summary $(cg "$1" --summary)"; }
	cg_line="Instructions per traced call (callgrind, exact; \`calls $CG_ITERS\`, to /dev/null, less the 0-iteration recording's): **$(cg_all "$new")**"
	[ -z "$OLD" ] || cg_line+="; the older binary $(cg_all "$out/tools/objpatch-old")"
	cg_line+="."
fi

section=$(
	echo "<!-- format -->"
	echo "## 4. Formatting a recording (\`objpatch report\`)"
	echo
	echo "Written by \`bench/format.sh\` (\`make bench-runtime\` runs it after bench/runtime.sh), started $started, commit $(git rev-parse --short HEAD 2> /dev/null || echo '?'); load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg). The machine may be shared: CPU times are noisy, the instruction counts are not."
	echo
	echo "\`calls $ITERS\` recorded by \`objpatch record\` ($calls traced calls, $(du -m "$out/calls.raw" | cut -f1) MiB), then \`objpatch report --format FMT RECORDING\` (summary: \`--summary\`) with its standard output to a file (or /dev/null), $REPS repetitions alternating. *ns per call* = (median CPU time - median CPU time of the same report of a \`calls 0\` recording) / traced calls; *ns per line* the same over the $lines text lines those calls make (a caller's call two lines, a leaf's one). **Goal of the issue: text at most 50 ns per line, to a file.**"
	echo
	echo "| objpatch | format | output | CPU (median) | CPU, \`calls 0\` | **ns per call (CPU)** | **ns per line** |"
	echo "|---|---|---|---|---|---|---|"
	for c in "${cfgs[@]}"; do
		read -r tool fmt sink <<< "$c"
		key=${c// /.}
		label="this build"
		[ "$tool" = new ] || label="\`FMT_OLD\`: $OLD_LABEL"
		echo "| $label | $fmt | $([ "$sink" = file ] && echo file || echo /dev/null) | $(ms "$out/$key.n") ms | $(ms "$out/$key.0") ms | **$(per_call "$out/$key")** | $([ "$fmt" = text ] && echo "**$(per_line "$out/$key")**" || echo -) |"
	done
	echo
	[ -z "$cg_line" ] || { echo "$cg_line"; echo; }
	echo "Command: \`FMT_ITERS=$ITERS FMT_REPS=$REPS FMT_CG_ITERS=$CG_ITERS${OLD:+ FMT_OLD=$OLD} bench/format.sh\`; calls.c built \`$CC -O2 -g ${PG[*]} -c\`, \`recordmcount --mode=user\`, linked without -pg."
	echo "<!-- /format -->"
)
echo "$section"
echo "$section" > "$out/format.md"
results_put format "$out/format.md" "${BENCH_RUNTIME_RESULTS-$top/bench/RESULTS-runtime.md}"
