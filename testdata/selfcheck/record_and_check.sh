#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# record_and_check.sh RMC DIR SRC CC [FLAGS...]: one object of t/33-self-check.t.
# Compiles SRC with CC FLAGS into DIR/orig.o (the compiler's words in
# DIR/compile.err on failure), then records a copy in every mode, with and
# without --nop, and runs recordmcount --check on each result.  Each run
# leaves DIR/MODE.rc ("RECORD_STATUS CHECK_STATUS"), MODE.rec (the
# recorder's words) and MODE.check (the check's report).  Run in parallel by
# xargs: nothing here is shared between objects.
rmc=$1 dir=$2 src=$3
shift 3
mkdir -p "$dir"
"$@" -O2 -g -c "$src" -o "$dir/orig.o" > "$dir/compile.err" 2>&1 || { echo fail > "$dir/compile.rc"; exit 0; }
echo ok > "$dir/compile.rc"
for mode in kernel user kernel-nop user-nop; do
	cp "$dir/orig.o" "$dir/$mode.o"
	case $mode in
	*-nop) "$rmc" --mode="${mode%-nop}" --nop "$dir/$mode.o" > "$dir/$mode.rec" 2>&1 ;;
	*) "$rmc" --mode="$mode" "$dir/$mode.o" > "$dir/$mode.rec" 2>&1 ;;
	esac
	rec=$?
	"$rmc" --check "$dir/$mode.o" > "$dir/$mode.check" 2>&1
	echo "$rec $?" > "$dir/$mode.rc"
done
