#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach -v says how long it held the process and where that
# time went (issue 33, item 12), in one line:
#   objpatch attach: PID: held T ms (its threads stopped): STEP T1, STEP T2, ... ms
# The steps, in order, for:
#  - a session's first attach: stop, pick, mmap, dlopen, find runtime,
#    objpatch_attach_start, let go (the runtime loaded, then started);
#  - a later session: stop, pick, mmap, objpatch_attach_start, let go (the
#    copy loaded already is used again);
#  - --inject-only into a process that has the runtime: stop, pick, mmap,
#    dlopen, let go;
# and the steps add up to the hold (each printed to 0.01 ms: at most that
# much rounding per step): they cover it from the first thread seized to
# the last one let go.  Also with SIGCHLD ignored by objpatch's parent
# (objpatch waits for the held thread's stops by that signal).  No figure
# is compared with a time: bench/attach-hold.sh measures the speed.
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach/traced.c
D=$T_TMP

attach_host_only

compile_ok "[hold] compile" gcc -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread -pg -mfentry -c "$SRC" -o "$D/traced.o" ||
	{ done_testing; exit; }
run_ok "[hold] recordmcount --mode=user --nop" "$RMC" --mode=user --nop "$D/traced.o"
compile_ok "[hold] link" gcc -pthread -o "$D/traced" "$D/traced.o" || { done_testing; exit; }

if ! started hold "$D/traced"; then
	ok 1 "[hold] the target starts and says ready"
	done_testing
	exit
fi

# held LABEL STEPS ERRFILE: the -v line of ERRFILE names STEPS (", "
# between them) in that order, and they add up to the hold.
held() {
	local label=$1 want=$2 err=$3 line steps names="" sum
	line=$(grep ': held ' "$err")
	if ! [[ "$line" =~ ^"objpatch attach: $pid: held "([0-9]+\.[0-9]{2})" ms (its threads stopped): "(.*)" ms"$ ]]; then
		ok 1 "[$label] attach -v prints the hold and its steps (it said: $(head -3 "$err"))"
		ok 1 "[$label] ... the steps add up to the hold"
		return
	fi
	steps=${BASH_REMATCH[2]}
	sum=$(tr ',' '\n' <<< "$steps" | awk -v held="${BASH_REMATCH[1]}" '
		{ if ($NF !~ /^[0-9]+\.[0-9][0-9]$/) bad = 1; s += $NF; n++ }
		END { d = s - held; if (d < 0) d = -d; print (bad || d > 0.01 * n + 0.005) ? "no" : "yes" }')
	names=$(tr ',' '\n' <<< "$steps" | sed 's/^ *//; s/ [0-9.]*$//' | paste -sd, | sed 's/,/, /g')
	is "$names" "$want" "[$label] attach -v prints the hold and its steps in order ($line)"
	is "$sum" yes "[$label] ... the steps add up to the hold"
}

"$OBJPATCH" attach -v --duration 0.1 "$pid" > /dev/null 2> "$D/first.err"
is "$?" 0 "[first] a session: status 0"
held first "stop, pick, mmap, dlopen, find runtime, objpatch_attach_start, let go" "$D/first.err"

"$OBJPATCH" attach -v --duration 0.1 "$pid" > /dev/null 2> "$D/later.err"
is "$?" 0 "[later] another session: status 0"
held later "stop, pick, mmap, objpatch_attach_start, let go" "$D/later.err"

"$OBJPATCH" attach -v --inject-only "$pid" > /dev/null 2> "$D/inject.err"
is "$?" 0 "[inject] --inject-only: status 0"
held inject "stop, pick, mmap, dlopen, let go" "$D/inject.err"

# bash passes an ignored SIGCHLD on to objpatch across exec.
(trap '' CHLD; exec "$OBJPATCH" attach -v --duration 0.1 "$pid") > /dev/null 2> "$D/ignored.err"
is "$?" 0 "[ignored] a session with SIGCHLD ignored: status 0"
held ignored "stop, pick, mmap, objpatch_attach_start, let go" "$D/ignored.err"

echo quit >&3
reaped
is "$st" 7 "[hold] the program exits with its own status"
is "$(grep -c 'rounds, all right' <<< "$out")" 3 "[hold] every worker's results were right"
is "$(cat "$D/hold.err")" "" "[hold] nothing on the program's standard error"
done_testing
