#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach killed while it holds the process:
# whatever instant objpatch dies at, the process goes on as it was.  The
# kernel lets the threads go when their tracer dies, so every state a
# thread is left in must be one it continues from by itself: a call
# returns into code that puts environ back and makes rt_sigreturn from a
# signal frame of the thread's own state (inject.c's safe calls).
# OBJPATCH_ATTACH_KILL_AFTER=N makes objpatch SIGKILL itself right after
# its Nth ptrace request; N goes from 1 until the attach completes:
#  - --inject-only by the reader thread blocked in read() (main, inside
#    wait_line): the first completed load loads the runtime, the later
#    ones find it;
#  - a tracing session (the start call, and its settings' environ);
# after each kill: the process is no longer traced, it is not stopped,
# and the reader answers a line (its read() restarted); at the end an
# attach traces and detaches normally, the workers' results were all
# right and the program exits with its own status (7).
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP
# A killed objpatch cannot remove its socket's directory: in ours, not /tmp.
export TMPDIR=$T_TMP
MAX_REQUESTS=3000

attach_host_only

traced_target kill
tracer() { awk '/^TracerPid:/ { print $2 }' /proc/"$pid"/status; }
state() { awk '/^State:/ { print $2 }' /proc/"$pid"/status; }
n_line=0

# after_kill WHAT N: the process untraced, running, and its reader answers.
after_kill() {
	local answer
	until_true eval '[ "$(tracer)" = 0 ]' || { diag "$1, killed after request $2: still traced by $(tracer)"; return 1; }
	[ "$(state)" != T ] && [ "$(state)" != t ] || { diag "$1, killed after request $2: state $(state)"; return 1; }
	n_line=$((n_line + 1))
	echo "after $1 $2" >&3
	read -r -t 30 answer <&4
	[[ "$answer" == "line $n_line: "* ]] || { diag "$1, killed after request $2: the reader said '$answer'"; return 1; }
}

# kill_loop WHAT ARGS...: objpatch attach ARGS killed after each request in turn until one completes.
kill_loop() {
	local what=$1 n st killed=0
	shift
	for ((n = 1; n <= MAX_REQUESTS; n++)); do
		# In a group whose standard error is elsewhere: bash's "Killed" notice goes there.
		st=$({ OBJPATCH_ATTACH_KILL_AFTER=$n "$OBJPATCH" attach "$@" "$pid" > "$D/attach.out" 2> "$D/attach.err"
			echo $?; } 2> /dev/null)
		[ "$st" = 137 ] || break
		killed=$((killed + 1))
		after_kill "$what" "$n" || return 1
		# A session whose objpatch died ends by itself: the next attach waits for that.
		until_true eval '! grep -qx objpatch-attach /proc/$pid/task/*/comm'
	done
	if [ "$st" != 0 ]; then
		diag "$what: after $killed kills, objpatch attach exited $st: $(head -3 "$D/attach.err")"
		return 1
	fi
	diag "$what: killed after each of its first $killed ptrace requests, then completed"
	after_kill "$what" completed
}

kill_loop "--inject-only" --inject-only --thread="$pid"
ok $? "[kill] --inject-only by the thread in read(), killed at every request: the process goes on each time"
kill_loop "a session" --duration 0.05 --format json -F add_pair
ok $? "[kill] a tracing session, killed at every request of its hold: the process goes on each time"

"$OBJPATCH" attach --duration 0.2 --format json -F add_pair "$pid" > "$D/last.json" 2> "$D/last.err"
is "$?" 0 "[kill] an attach afterwards traces and detaches ($(head -1 "$D/last.err"))"
grep -q add_pair "$D/last.json"
ok $? "[kill] ... its trace shows the function"

traced_target_ends kill
done_testing
