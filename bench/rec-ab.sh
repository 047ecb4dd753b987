#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The recording's cost per traced call, two builds side by side: `objpatch
# record` of bench/runtime/calls.c (gcc -O2 -g -pg -mfentry, recordmcount
# --mode=user, as bench/runtime.sh and bench/xray.sh build it) by the
# objpatch of build directory OLD and of NEW, alternating (OLD, NEW, then
# NEW, OLD, ...), with the same source built gcc -O2 -g as the baseline.
# For a change to the recording path: both builds run in the same minutes
# of a shared machine, so its load weighs on both alike.
#
#   bench/rec-ab.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# Times by bench/runtime/runit.c: CPU = user + system of every process of
# the run; medians over AB_REPS runs (default 11).  ns per call = (median -
# the baseline's median) / traced calls, the CPU's and its system part's.
# Also callgrind's instructions per traced call of each build (the traced
# process, AB_CG_CALLS iterations, default 100000; AB_CG=0 skips it):
# exact, where the times are noisy.  Environment: AB_CALLS (calls.c
# iterations, 5 calls each, default 1000000), AB_DIR (default
# build/bench/rec-ab).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "bench/rec-ab.sh: $*" >&2; exit 1; }
[ $# = 2 ] || { echo "usage: bench/rec-ab.sh OLD_BUILD_DIR NEW_BUILD_DIR" >&2; exit 2; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
for b in "$old" "$new"; do [ -x "$b/objpatch" ] || die "$b/objpatch is missing"; done
REPS=${AB_REPS:-11}
ITERS=${AB_CALLS:-1000000}
CG_ITERS=${AB_CG_CALLS:-100000}
out=${AB_DIR:-$top/build/bench/rec-ab}
rm -rf "$out"
mkdir -p "$out"
cd "$out"

gcc -O2 -std=gnu11 -Wall -Wextra -Werror -o runit "$top/bench/runtime/runit.c"
gcc -O2 -g -o calls-base "$top/bench/runtime/calls.c"
gcc -O2 -g -pg -mfentry -c "$top/bench/runtime/calls.c" -o calls.o
"$new/recordmcount" --mode=user calls.o
gcc -o calls calls.o
calls=$(./calls-base "$ITERS" | sed -n 's/.*traced_calls=\([0-9]*\).*/\1/p')

# run NAME CMD...: one timed run, its line appended to NAME.txt
run() {
	local name=$1
	shift
	./runit -- "$@" >> "$name.txt" 2> /dev/null || die "$name: $* failed"
	rm -f rec.data
}
start=$(date -u '+%Y-%m-%d %H:%M:%S')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 0; i < REPS; i++)); do
	run base ./calls-base "$ITERS"
	if ((i % 2 == 0)); then order="old new"; else order="new old"; fi
	for w in $order; do
		b=$old
		[ "$w" = new ] && b=$new
		run "$w" "$b/objpatch" record --output rec.data -- ./calls "$ITERS"
	done
done

# median FILE COLUMN
median() { cut -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base_cpu=$(median base.txt 2) base_sys=$(median base.txt 3)

# instructions PATH_TO_BUILD: callgrind's Ir of the traced process per traced call
instructions() {
	[ "${AB_CG:-1}" != 0 ] && command -v valgrind > /dev/null || { echo -; return; }
	rm -f cg.*
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/cg.%p" \
		"$1/objpatch" record --output rec.data -- ./calls "$CG_ITERS" > cg.log 2>&1 || die "callgrind of $1 failed"
	rm -f rec.data
	# The traced program's process runs ./calls; objpatch's own is small.
	awk '/Command: .*\/calls /{ split($1, p, "=="); pid = p[2] } /I +refs:/ { split($1, p, "=="); ir[p[2]] = $4 }
		END { gsub(/,/, "", ir[pid]); print ir[pid] }' cg.log |
		awk -v n="$CG_ITERS" '{ printf "%.0f", $1 / (n * 5 + 1) }'
}

{
	echo "Started $start UTC, finished $(date -u '+%Y-%m-%d %H:%M:%S') UTC; load average before: $load0 (the machine may be shared)."
	echo "\`calls $ITERS\` ($calls traced calls), $REPS runs of each build alternating; CPU = user + system (runit), medians; baseline (gcc -O2 -g build) $(awk -v c="$base_cpu" 'BEGIN { printf "%.1f ms", c / 1e6 }')."
	echo
	echo "| build | CPU | **ns per call (CPU)** | of it system | instructions per call (callgrind, \`calls $CG_ITERS\`) |"
	echo "|---|---:|---:|---:|---:|"
	for w in old new; do
		b=$old
		[ "$w" = new ] && b=$new
		cpu=$(median $w.txt 2) sys=$(median $w.txt 3)
		awk -v w="$w" -v b="$b" -v c="$cpu" -v s="$sys" -v bc="$base_cpu" -v bs="$base_sys" -v n="$calls" -v ir="$(instructions "$b")" \
			'BEGIN { printf "| %s (`%s`) | %.1f ms | **%.1f** | %.1f | %s |\n", w, b, c / 1e6, (c - bc) / n, (s - bs) / n, ir }'
	done
} | tee report.md
