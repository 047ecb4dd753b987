#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How long objpatch attach holds a process (idle
# latency while attaching, as redis-cli --latency sees it; goal: under
# 10 ms, the first attach included).  The target is bench/runtime/stall.c
# built with objpatch-cc: a worker calls a traced function in a loop and
# keeps the longest gap between two iterations; a second build links in
# HOLD_MANY functions of bench/runtime/gen-many.pl (each a recorded site),
# to see how the hold grows with the sites.  Per build, HOLD_TARGETS fresh
# processes, each attached HOLD_ATTACHES times in a row
# (`objpatch attach -v -F '*' -F '!step' --duration 0.2 PID`: every site
# patched but the loop's step(), none called, so that no trace is formatted
# on the cores the loop shares): the first attach of a process
# loads the runtime (dlopen), the later ones reuse it.  Measured, per attach:
#  - the hold as attach -v prints it (first seize to last detach), and its
#    steps (stop, pick, mmap, dlopen, find runtime, objpatch_attach_start, let go);
#  - the target's longest gap over the whole attach (hold, patching by the
#    session's thread, the session's end), against a window of the same
#    length with no attach just before it (what the machine's other work
#    costs the loop);
#  - objpatch's CPU time (user + system, bench/timeit.c).
# Medians and maxima; a Markdown report on standard output, also written to
# BENCH_DIR/attach-hold/attach-hold.md and into HOLD_RESULTS (default
# bench/RESULTS-attach.md; empty: not written).  About a minute on 2 cores.
#
# Environment: BENCH_DIR (default build/bench); HOLD_TARGETS (default 5);
# HOLD_ATTACHES (default 3); HOLD_MANY (functions of the big build, default
# 5000); HOLD_DURATION (seconds each session traces, default 0.2);
# HOLD_OBJPATCH (the objpatch to measure, default build/objpatch: another
# tree's, for a before-and-after; its runtime is the one beside it);
# HOLD_NICE (e.g. -10, as root: the target and objpatch run at that nice
# level, so that the machine's other work, at 0 or 19, delays them little:
# the closest a shared machine comes to an idle one; default: not changed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. bench/results.sh

out=${BENCH_DIR:-$top/build/bench}/attach-hold
TARGETS=${HOLD_TARGETS:-5}
ATTACHES=${HOLD_ATTACHES:-3}
MANY=${HOLD_MANY:-5000}
DURATION=${HOLD_DURATION:-0.2}
objpatch=${HOLD_OBJPATCH:-$top/build/objpatch}
nice=()
[ -z "${HOLD_NICE:-}" ] || nice=(nice -n "$HOLD_NICE")
results=${HOLD_RESULTS-$top/bench/RESULTS-attach.md}
die() { echo "attach-hold.sh: $*" >&2; exit 1; }

[ -x build/objpatch ] && [ -f build/libobjpatch.so ] && [ -x build/objpatch-cc ] || die "build/ is not built (make)"
[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2> /dev/null || echo 0)" = 0 ] || [ "$(id -u)" = 0 ] ||
	die "ptrace is not permitted (kernel.yama.ptrace_scope)"
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rm -rf "$out"
mkdir -p "$out"
cc -O2 -Wall -Wextra -o "$out/timeit" bench/timeit.c

# The two targets: the loop alone, and the loop with MANY more functions.
build/objpatch-cc gcc -O2 -g -pthread bench/runtime/stall.c -o "$out/stall-small" ||
	die "building the small target failed"
# gen-many.pl's part 1 of 2 has no main: MANY functions of 2 * MANY.
bench/runtime/gen-many.pl --funcs=$((2 * MANY)) --part=1 --parts=2 > "$out/many.c"
build/objpatch-cc gcc -O2 -g -c "$out/many.c" -o "$out/many.o" &&
	build/objpatch-cc gcc -O2 -g -pthread bench/runtime/stall.c "$out/many.o" -o "$out/stall-many" ||
	die "building the big target failed"

# median FILE / max FILE: of a column of numbers
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
max() { sort -n "$1" | tail -1 | awk '{ printf "%.2f", $1 }'; }
min() { sort -n "$1" | head -1 | awk '{ printf "%.2f", $1 }'; }
# mmm FILE: min / median / max
mmm() { echo "$(min "$1") / $(median "$1") / $(max "$1")"; }

# gap FD OUTFILE: the target's longest gap since the last one asked, in ms
gap() {
	local before
	before=$(grep -c '^maxgap_us=' "$2" || true)
	echo >&"$1"
	for _ in $(seq 200); do
		[ "$(grep -c '^maxgap_us=' "$2" || true)" -gt "$before" ] && break
		sleep 0.01
	done
	tail -1 "$2" | sed -n 's/^maxgap_us=\([0-9]*\)$/\1/p' | awk '{ printf "%.3f\n", $1 / 1000 }'
}

# run_target NAME: HOLD_TARGETS processes of stall-NAME, each attached HOLD_ATTACHES times
run_target() {
	local name=$1 prog=$out/stall-$1 r a pid fifo log err line t1 when
	for r in $(seq "$TARGETS"); do
		fifo=$out/$name.$r.fifo log=$out/$name.$r.out
		mkfifo "$fifo"
		"${nice[@]}" "$prog" < "$fifo" > "$log" &
		pid=$!
		exec 7> "$fifo"
		for _ in $(seq 200); do grep -q ready "$log" && break; sleep 0.01; done
		grep -q ready "$log" || die "$name: the target did not start"
		sleep 0.2
		for a in $(seq "$ATTACHES"); do
			when=later
			[ "$a" = 1 ] && when=first
			# The window without an attach, as long as an attach takes.
			gap 7 "$log" > /dev/null
			sleep "$DURATION"
			sleep 0.05
			echo "$(gap 7 "$log")" >> "$out/$name.idle.gap"
			err=$out/$name.$r.$a.err
			gap 7 "$log" > /dev/null
			line=$("${nice[@]}" "$out/timeit" all "$objpatch" attach -v -F '*' -F '!step' --duration "$DURATION" -- "$pid" 2> "$err" |
				awk -F'\t' '$1 == "ALL" { print $4, $5 }')
			[ "${line%% *}" = 0 ] || die "$name: attach $a of target $r failed: $(head -3 "$err")"
			echo "${line#* }" | awk '{ printf "%.2f\n", $1 / 1e6 }' >> "$out/$name.$when.cpu"
			gap 7 "$log" >> "$out/$name.$when.gap"
			t1=$(sed -n 's/.*: held \([0-9.]*\) ms (its threads stopped).*/\1/p' "$err")
			[ -n "$t1" ] || die "$name: attach -v printed no hold: $(head -3 "$err")"
			echo "$t1" >> "$out/$name.$when.hold"
			sed -n 's/.*(its threads stopped): \(.*\) ms$/\1/p' "$err" | tr ',' '\n' |
				while read -r step; do
					echo "${step##* }" >> "$out/$name.$when.step.$(echo "${step% *}" | tr ' ' _)"
				done
			sleep 0.1
		done
		exec 7>&-
		wait "$pid" || true
		rm -f "$fifo"
	done
}

run_target small
run_target many
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

report() {
	local name when steps s
	echo "<!-- attach-hold -->"
	echo "## How long objpatch attach holds a process"
	echo
	echo "Measured by \`bench/attach-hold.sh\` (HOLD_TARGETS=$TARGETS HOLD_ATTACHES=$ATTACHES HOLD_MANY=$MANY" \
		"HOLD_DURATION=$DURATION HOLD_OBJPATCH=${HOLD_OBJPATCH:-build/objpatch} HOLD_NICE=${HOLD_NICE:-}) from $started, $(nproc) cores, $(uname -r), load average $load_before before," \
		"$load_after after."
	echo "Each attach: \`objpatch attach -v -F '*' -F '!step' --duration $DURATION PID\` (every site patched but the loop's, none called) into \`bench/runtime/stall.c\` built with" \
		"objpatch-cc (*small*), and the same with $MANY functions of \`gen-many.pl\` linked in (*many*)." \
		"*first*: the attach that loads the runtime (one per fresh process); *later*: the next ones."
	echo "*Hold*: attach -v's figure, from the first thread seized to the last one let go. *Target gap*:" \
		"the loop's longest gap between two iterations over the whole attach (hold, patching, session end);" \
		"*idle gap*: the same over a window as long, with no attach, just before (the machine's other work)." \
		"*CPU*: objpatch's user + system time for the whole attach (median / max). In ms; min / median / max" \
		"where three figures are given: the minimum is what an idle machine comes closest to."
	echo
	echo "| target | attach | runs | hold | target gap | idle gap | objpatch CPU |"
	echo "|---|---|---|---|---|---|---|"
	for name in small many; do
		for when in first later; do
			echo "| $name | $when | $(wc -l < "$out/$name.$when.hold") |" \
				"$(mmm "$out/$name.$when.hold") |" \
				"$(mmm "$out/$name.$when.gap") |" \
				"$(mmm "$out/$name.idle.gap") |" \
				"$(median "$out/$name.$when.cpu") / $(max "$out/$name.$when.cpu") |"
		done
	done
	echo
	echo "Where the hold went (attach -v's steps), ms, median / max:"
	echo
	echo "| target | attach | steps |"
	echo "|---|---|---|"
	for name in small many; do
		for when in first later; do
			steps=""
			for s in stop pick mmap dlopen find_runtime objpatch_attach_start let_go; do
				[ -f "$out/$name.$when.step.$s" ] || continue
				steps="$steps${steps:+, }${s//_/ } $(median "$out/$name.$when.step.$s") / $(max "$out/$name.$when.step.$s")"
			done
			echo "| $name | $when | $steps |"
		done
	done
	echo "<!-- /attach-hold -->"
}
report > "$out/attach-hold.md"
cat "$out/attach-hold.md"
if [ -n "$results" ]; then
	[ -f "$results" ] || printf '# objpatch attach: what the attached process sees\n' > "$results"
	results_put attach-hold "$out/attach-hold.md" "$results"
fi
