#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Do two builds of recordmcount write the same bytes?  Runs OLD and NEW on
# fresh copies of every object of the benchmark corpus (bench/gen-corpus.sh),
# in each mode given (default: kernel mode with tables, --no-protos, user
# mode), plus a second run on each result (objects that already have
# tables), and compares the files with cmp, the exit status and stderr.
# For a change meant to be invisible: a speed-up, a refactoring.
#
#   bench/same-output.sh OLD NEW [CORPUS]
#
# Prints one line per difference and a summary; exits 1 on any difference.
set -euo pipefail
old=$(realpath "$1")
new=$(realpath "$2")
top=$(cd "$(dirname "$0")/.." && pwd)
corpus=${3:-$top/build/bench/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/elfsum" "$top/bench/elfsum.c" -lelf -lz
mapfile -t objs < <(cd "$corpus" && find . -name '*.o' | sed 's|^\./||' | sort)
modes=("" "--no-protos" "--mode=user")
diffs=0 total=0 identical=0
for m in "${modes[@]}"; do
	for tool in old new; do
		rm -rf "$work/$tool"
		mkdir -p "$work/$tool"
		(cd "$corpus" && cp --parents "${objs[@]}" "$work/$tool/")
		bin=$old
		[ "$tool" = new ] && bin=$new
		for pass in 1 2; do
			(cd "$work/$tool" && for o in "${objs[@]}"; do
				# shellcheck disable=SC2086
				"$bin" $m "$o" 2> "$o.err$pass"
				echo "$?" > "$o.rc$pass"
			done)
		done
	done
	for o in "${objs[@]}"; do
		total=$((total + 1))
		if cmp -s "$work/old/$o" "$work/new/$o"; then
			identical=$((identical + 1))
		else
			for tool in old new; do (cd "$work/$tool" && "$work/elfsum" "$o" > "$o.sum" 2>&1); done
			cmp -s "$work/old/$o.sum" "$work/new/$o.sum" || { echo "differs: ${m:-default} $o"; diffs=$((diffs + 1)); }
		fi
		for f in "$o.err1" "$o.rc1" "$o.err2" "$o.rc2"; do
			if ! cmp -s "$work/old/$f" "$work/new/$f"; then
				echo "differs: ${m:-default} $f"
				diffs=$((diffs + 1))
			fi
		done
	done
done
echo "same-output: ${#objs[@]} objects x ${#modes[@]} modes x 2 passes: $diffs differences ($total object runs compared, $identical byte-identical)"
[ "$diffs" = 0 ]
