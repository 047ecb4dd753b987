#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Where the time goes (the profile behind every goal
# sets that is not met): perf's samples of the three steps a user runs on
# bench/runtime/calls.c, each on its own, and what one clock read costs.
#   objpatch record --output FILE -- ./calls N    the recording alone
#   objpatch report --output FILE RECORDING       its formatting as text
#   objpatch run --output FILE -- ./calls N       both, in the process
# `perf record` (user and kernel, every thread, no call graphs), then
# `perf report --sort dso,sym`: the symbols above PROFILE_MIN percent of the
# samples.  Percentages are of each step's own samples; the machine may be
# shared, which changes how long a step takes more than where it spends it.
#
# Writes its section of bench/RESULTS-runtime.md between the profile
# markers (appended when they are missing; PROFILE_RESULTS names another
# file, empty: none).  Environment: PROFILE_CALLS (calls.c iterations, 5
# calls each, default 2000000), PROFILE_MIN (default 1.5).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

ITERS=${PROFILE_CALLS:-2000000}
MIN=${PROFILE_MIN:-1.5}
out=$top/build/bench/profile
results=${PROFILE_RESULTS-$top/bench/RESULTS-runtime.md}
objpatch=$top/build/objpatch
rmc=$top/build/recordmcount
die() { echo "bench/profile.sh: $*" >&2; exit 1; }
. bench/results.sh
for t in "$objpatch" "$rmc"; do [ -x "$t" ] || die "$t is missing: run make first"; done
command -v perf > /dev/null || die "perf is missing: run scripts/deps.sh (linux-perf)"
rm -rf "$out"
mkdir -p "$out"

gcc -O2 -g -pg -mfentry -c bench/runtime/calls.c -o "$out/calls.o"
"$rmc" --mode=user "$out/calls.o"
gcc -o "$out/calls" "$out/calls.o"
gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o "$out/clock" bench/runtime/clock.c

# profile NAME CMD...: perf's top symbols of CMD, as Markdown rows
profile() {
	local name=$1
	shift
	perf record -q -o "$out/$name.perf" -- "$@" > /dev/null 2> "$out/$name.err" ||
		die "$name: $* failed (see $out/$name.err)"
	perf report -q -i "$out/$name.perf" --no-children --sort dso,sym 2> /dev/null |
		awk -v min="$MIN" '{ p = $1; sub(/%/, "", p) } p + 0 >= min {
			dso = $2; sym = ""; for (i = 4; i <= NF; i++) sym = sym (i > 4 ? " " : "") $i
			printf "| %s | %s | `%s` |\n", $1, dso, sym }' > "$out/$name.md"
	perf report -q -i "$out/$name.perf" --no-children --sort dso 2> /dev/null |
		awk 'NF >= 2 && $1 ~ /%$/ { printf "%s%s %s", n++ ? "; " : "", $2, $1 }' > "$out/$name.dso"
}

start=$(date -u '+%Y-%m-%d %H:%M:%S')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
clock_line=$("$out/clock" 20000000)
profile record "$objpatch" record --output "$out/rec.data" -- "$out/calls" "$ITERS"
profile report "$objpatch" report --output "$out/report.txt" "$out/rec.data"
profile run "$objpatch" run --output "$out/run.txt" -- "$out/calls" "$ITERS"
rm -f "$out/rec.data" "$out/report.txt" "$out/run.txt"

section() {
	echo "<!-- profile -->"
	echo "## 5. Where the time goes (bench/profile.sh)"
	echo
	echo "Started $start UTC, finished $(date -u '+%Y-%m-%d %H:%M:%S') UTC; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); load average before: $load0 (the machine may be shared). \`calls $ITERS\` ($((ITERS * 5 + 1)) traced calls) built \`gcc -O2 -g -pg -mfentry\`, \`recordmcount --mode=user\`; each step under \`perf record\` (user and kernel, every thread), \`perf report --no-children --sort dso,sym\`: the symbols with at least $MIN% of the step's samples."
	echo
	echo "One clock read (\`bench/runtime/clock.c\`, the fastest of 5 passes of 20 M reads, CPU time): \`$clock_line\`. The runtime reads the TSC at every entry and every exit."
	for step in record report run; do
		echo
		case $step in
		record) echo "### \`objpatch record\`: the recording alone" ;;
		report) echo "### \`objpatch report\` to a text file: the formatting alone" ;;
		run) echo "### \`objpatch run\` to a text file: recording and formatting in the process (its writer thread)" ;;
		esac
		echo
		echo "By file: $(cat "$out/$step.dso")."
		echo
		echo "| samples | file | symbol |"
		echo "|---:|---|---|"
		cat "$out/$step.md"
	done
	echo "<!-- /profile -->"
}
section > "$out/profile.md"
cat "$out/profile.md"
results_put profile "$out/profile.md" "$results"
