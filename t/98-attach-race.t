#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach, two at once: a process takes one
# session at a time, and the rule is one: a second objpatch attach is
# refused at once, status 2, in one line naming the objpatch that holds
# or traces the process (its pid), whatever instant it comes at:
#  - 20 pairs started together: exactly one traces, the other exits 2
#    first with that line (naming the one that traces), and the one that
#    traces ends with status 0 on SIGINT;
#  - an attach while a session runs: status 2, the same line;
#  - an attach while a debugger-like tracer (strace) holds the process:
#    status 2, naming that tracer as another program;
# and the program's own checks pass, it exits with its own status (7).
# Whether an outcome came from PTRACE_SEIZE's EPERM, the runtime's owner
# variable or the start call's refusal depends on timing; the behaviour
# asserted does not.
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP
PAIRS=20

attach_host_only

traced_target race

# pair I: two attaches started together; 0 when exactly one traced, the
# other refused first with status 2 naming it.  Diagnostics otherwise.
pair() {
	local i=$1 a b first other st_first st_other line
	"$OBJPATCH" attach --format json "$pid" > "$D/a.$i.json" 2> "$D/a.$i.err" &
	a=$!
	"$OBJPATCH" attach --format json "$pid" > "$D/b.$i.json" 2> "$D/b.$i.err" &
	b=$!
	wait -n -p first "$a" "$b"
	st_first=$?
	other=$([ "$first" = "$a" ] && echo "$b" || echo "$a")
	# The one that traces: its tracing line, then Ctrl-C ends it.
	until_true grep -q "tracing; Ctrl-C detaches" "$D/a.$i.err" "$D/b.$i.err"
	kill -INT "$other" 2> /dev/null
	wait "$other"
	st_other=$?
	line=$(cat "$D/$([ "$first" = "$a" ] && echo a || echo b).$i.err")
	if [ "$st_first" != 2 ] || [ "$st_other" != 0 ] || [ "$(wc -l <<< "$line")" != 1 ] ||
		[[ "$line" != "objpatch attach: $pid: another objpatch attach (pid $other) "*": a process takes one session at a time; wait for that one to end" ]]; then
		diag "pair $i: first to end $first status $st_first: $line" "the other $other status $st_other: $(head -3 "$D/a.$i.err" "$D/b.$i.err")"
		return 1
	fi
}

bad=0
for i in $(seq $PAIRS); do
	pair "$i" || { bad=1; break; }
done
ok $bad "[race] $PAIRS pairs started together: one traces (status 0), the other is refused first, status 2, naming it"

# A session runs: another attach is refused, naming it.
"$OBJPATCH" attach --format json "$pid" > "$D/s.json" 2> "$D/s.err" &
session=$!
until_true grep -qs "tracing; Ctrl-C detaches" "$D/s.err"
ok $? "[race] a session runs"
out=$("$OBJPATCH" attach --duration 0.1 "$pid" 2>&1)
is "$?" 2 "[race] an attach meanwhile: status 2"
is "$out" "objpatch attach: $pid: another objpatch attach (pid $session) is tracing it: a process takes one session at a time; wait for that one to end" \
	"[race] ... one line naming the session's objpatch"
out=$("$OBJPATCH" attach -v --inject-only "$pid" 2>&1)
is "$?" 0 "[race] --inject-only meanwhile loads nothing new and starts no session: status 0"
[[ "$out" =~ "objpatch attach: $pid: held "[0-9]+\.[0-9]+" ms (its threads stopped)" ]]
ok $? "[race] ... -v says how long it held the process ($out)"
kill -INT "$session"
wait "$session"
is "$?" 0 "[race] the session ends on SIGINT, status 0"

# A tracer of another kind: named as such.
if command -v strace > /dev/null; then
	strace -p "$pid" -e trace=none -o /dev/null 2> /dev/null &
	tracer=$!
	until_true eval '[ "$(awk "/^TracerPid:/ { print \$2 }" /proc/$pid/status)" != 0 ]'
	out=$("$OBJPATCH" attach --duration 0.1 "$pid" 2>&1)
	is "$?" 2 "[race] an attach while strace traces it: status 2"
	[[ "$out" == *"already traced by process $tracer (a debugger, strace)"* ]]
	ok $? "[race] ... naming strace's pid as a debugger's ($out)"
	kill "$tracer"
	wait "$tracer" 2> /dev/null
	until_true eval '[ "$(awk "/^TracerPid:/ { print \$2 }" /proc/$pid/status)" = 0 ]'
else
	skip "no strace here: the refusal of a process another program traces is not checked"
	skip "no strace here"
fi

traced_target_ends race
done_testing
