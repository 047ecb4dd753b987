#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach -v says how long it held the process and where that
# time went, in one line:
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
# (objpatch waits for the held thread's stops by that signal).  And the
# signal a call's return code may send its thread (SIGURG or SIGWINCH, so
# that the call runs without a stop at each system call) never reaches a
# process that catches it.  No figure is compared with a time:
# bench/attach-hold.sh measures the speed.
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

# The signal that ends a call (SIGURG, else SIGWINCH) is never one the
# process catches: with both caught, every system call stops instead; with
# SIGURG caught, SIGWINCH ends it.  Either way the handlers see nothing.
compile_ok "[quiet] compile" gcc -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread -pg -mfentry \
	-c "$TOP/testdata/attach/quiet_signals.c" -o "$D/quiet.o" || { done_testing; exit; }
run_ok "[quiet] recordmcount --mode=user --nop" "$RMC" --mode=user --nop "$D/quiet.o"
compile_ok "[quiet] link" gcc -pthread -o "$D/quiet" "$D/quiet.o" || { done_testing; exit; }
for mode in both urg; do
	if ! started "quiet-$mode" "$D/quiet" "$mode"; then
		ok 1 "[quiet $mode] the target starts and says ready"
		continue
	fi
	bad=0
	for i in 1 2 3; do
		"$OBJPATCH" attach -v -F work --duration 0.05 "$pid" > /dev/null 2> "$D/quiet.$mode.$i.err" ||
			{ bad=1; diag "attach $i: $(head -3 "$D/quiet.$mode.$i.err")"; break; }
		# The next session once this one's thread has ended.
		until_true eval '! grep -qx objpatch-attach /proc/$pid/task/*/comm'
	done
	"$OBJPATCH" attach -v --inject-only "$pid" > /dev/null 2> "$D/quiet.$mode.inject.err" ||
		{ bad=1; diag "--inject-only: $(head -3 "$D/quiet.$mode.inject.err")"; }
	ok $bad "[quiet $mode] three sessions and --inject-only into a process that catches $([ $mode = both ] && echo SIGURG and SIGWINCH || echo SIGURG): status 0"
	echo counts >&3
	read -r -t 30 line <&4
	is "$line" "urg 0 winch 0" "[quiet $mode] ... its handlers never ran"
	reaped
	is "$st" 7 "[quiet $mode] ... and it exits with its own status"
done
done_testing
