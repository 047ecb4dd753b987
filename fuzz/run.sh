#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make fuzz: runs each libFuzzer harness in turn for SECONDS, one process at
# a time, on a working copy of its committed corpus (BUILD_DIR/corpus/H keeps
# what the runs add; fuzz/corpus/H stays as committed), with the regression
# inputs of testdata/fuzz-regress/H as a second corpus that is only read.
# Fails when any harness fails, naming the input that made it fail.
#
# usage: fuzz/run.sh BUILD_DIR SECONDS HARNESS...
set -u
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR SECONDS HARNESS..." >&2; exit 2; }
dir=$1 secs=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
# The harnesses write a file per iteration: tmpfs when there is one.
tmp=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
scratch=$(mktemp -d "$tmp/rmc-fuzz-run.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

# stat NAME LOG: a figure of libFuzzer's -print_final_stats.
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }

failed=0
summary=()
for h in "$@"; do
	work=$dir/corpus/$h art=$dir/artifacts/$h log=$dir/$h.log
	mkdir -p "$work" "$art"
	cp -n "$top/fuzz/corpus/$h"/* "$work/" 2>/dev/null
	dict=$top/fuzz/elf.dict
	[ -f "$top/fuzz/$h.dict" ] && dict=$top/fuzz/$h.dict
	corpora=("$work")
	[ -d "$top/testdata/fuzz-regress/$h" ] && corpora+=("$top/testdata/fuzz-regress/$h")
	: > "$scratch/stamp"
	echo "fuzz: $h for ${secs}s (log: $log)"
	FUZZ_SCRATCH=$scratch "$dir/$h" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$art/" -dict="$dict" "${corpora[@]}" > "$log" 2>&1
	rc=$?
	# The progress lines without the one per new input nor the suggested dictionary.
	sed '/^###### Recommended dictionary/,/^###### End of recommended/d' "$log" |
		grep -vE '^(#[0-9]+[[:space:]]+(NEW|REDUCE) |INFO|MERGE|[[:space:]]+NEW_FUNC)' | tail -40 | sed 's/^/  /'
	line="$h: $(stat number_of_executed_units "$log") runs, $(stat average_exec_per_sec "$log") exec/s,"
	line+=" $(stat new_units_added "$log") new inputs, peak RSS $(stat peak_rss_mb "$log") MB"
	if [ "$rc" != 0 ]; then
		failed=1
		line+=", FAILED (status $rc)"
		while IFS= read -r f; do
			line+=$'\n'"  input: $f"$'\n'"  reproduce: $dir/$h $f"
		done < <(find "$art" -type f -newer "$scratch/stamp")
	fi
	summary+=("$line")
done
echo "fuzz: summary"
printf '  %s\n' "${summary[@]}"
exit "$failed"
