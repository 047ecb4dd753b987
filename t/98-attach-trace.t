#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach PID: a running process is traced, then left
# dormant, as it was.  testdata/attach/traced.c runs three workers that
# call small typed functions and check every result, and a reader (main)
# blocked in read() inside a traced function; it is built with -pg
# -mfentry and recordmcount --nop, then with -fpatchable-function-entry
# (whose pads the start call joins with every thread held out of them).
# For each build:
#  - traced: attach with two filters and --duration (counted from the
#    sites' enabling, so a loaded machine still traces 0.5 s): status 0, a
#    well-formed trace (check_trace.py) of those functions only, with
#    their values; the session thread gone after the detach, and no
#    descriptor of the runtime's left;
#  - reattach: two sessions back to back ended by SIGINT, the first made
#    by the thread blocked in read() (--thread): one copy of the runtime,
#    and a frame entered in the first session that returns in the second
#    is not in the second's trace; another attach meanwhile is refused;
#    a line read while dormant;
#  - exits: the program exits while attached: objpatch exits 0 with one
#    line, the trace whole up to the exit;
#  - killed: objpatch SIGKILLed while attached: the runtime's thread
#    leaves by itself, the process goes on, a later attach works;
#  - forks: children forked while attached are dormant (nothing of theirs
#    in the trace) and their statuses are right.
#  - fork-held (pads): a thread held inside fork(), which has the
#    runtime's lock, makes the attach fail in one line, never hang.
#  - options (once): --args shows every call's arguments, report's options
#    (--format perfetto --output, --summary) shape the trace, a session
#    that traced nothing says so in one line, and usage
#    mistakes are refused with one line before the process is touched;
#  - notes (once): a message of the runtime's (a table entry it leaves
#    alone) reaches objpatch's standard error, not the process's.
# Every time, the program's own checks pass, it exits with its own status
# (7) and writes nothing on its standard error.  Last, a program without
# recorded sites and one objpatch run traces already are refused, untouched.
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach/traced.c
CHECK=(python3 "$TOP/testdata/runtime/check_trace.py")
D=$T_TMP
CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread)

attach_host_only

# build LABEL RMC-FLAGS CFLAGS...: compiles traced.c, records, links: $D/LABEL.
build() {
	local label=$1 rmc=$2 out
	shift 2
	compile_ok "[$label]" gcc "${CFLAGS[@]}" "$@" -c "$SRC" -o "$D/$label.o" || return 1
	# shellcheck disable=SC2086
	if ! out=$("$RMC" --mode=user $rmc "$D/$label.o" 2>&1); then
		ok 1 "[$label] recordmcount --mode=user $rmc"
		diag "$out"
		return 1
	fi
	compile_ok "[$label] link" gcc -pthread -o "$D/$label" "$D/$label.o"
}

# The number of threads of $pid.
threads() { ls /proc/"$pid"/task | wc -l; }

# names FILE: the functions a JSON trace shows, sorted, once each.
names() {
	python3 -c 'import json, sys
print("\n".join(sorted({e["name"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") in ("B", "E", "X")})))' "$1"
}

# check LABEL FORMAT TRACE EXPECT-LINE...: check_trace.py with these expectations
# (testdata/runtime/rt_expect.txt's syntax): a well-formed trace, its values right.
check() {
	local label=$1 format=$2 trace=$3 out
	shift 3
	printf '%s\n' "$@" > "$D/expect"
	if out=$("${CHECK[@]}" --format "$format" --expect "$D/expect" "$trace"); then
		ok 0 "[$label] the trace is well formed, its values right (check_trace.py: $(grep -c '^ok' <<< "$out") checks)"
	else
		ok 1 "[$label] the trace is well formed, its values right (check_trace.py)"
		diag "$(grep -v '^ok' <<< "$out" | head -20)"
	fi
}

# finish LABEL: "quit", then the program's own checks and status.
finish() {
	local label=$1 out st
	echo quit >&3
	reaped
	is "$st" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'rounds, all right' <<< "$out")" 3 "[$label] every worker's results were right"
	grep -q '^wrong' <<< "$out" && diag "$out"
	is "$(cat "$D/$label.err")" "" "[$label] nothing on the program's standard error"
}

# traced LABEL: attach, trace, detach.
traced() {
	local label=$1 base st out fds
	if ! started "$label" "$D/$label"; then
		ok 1 "[$label] the target starts and says ready"
		return
	fi
	base=$(threads)
	fds=$(ls /proc/"$pid"/fd | tr '\n' ' ')
	"$OBJPATCH" attach --filter add_pair --filter 'par*' --duration 0.5 --format json "$pid" \
		> "$D/$label.json" 2> "$D/$label.attach.err"
	st=$?
	is "$st" 0 "[$label] attach --filter add_pair --filter 'par*' --duration 0.5: status 0"
	[ "$st" = 0 ] || diag "$(head -5 "$D/$label.attach.err")"
	is "$(names "$D/$label.json" | tr '\n' ' ')" "add_pair parity " "[$label] the trace holds the filtered functions, only" ||
		diag "objpatch said: $(head -3 "$D/$label.attach.err")" "the trace begins: $(head -c 300 "$D/$label.json")"
	# The workers' arguments vary: values by their form (the program checks the rest).
	check "$label" json "$D/$label.json" 'add_pair ~^[0-9]+$' 'parity ~^"(odd|even)"$'
	until_true eval '[ "$(threads)" = "$base" ]'
	ok $? "[$label] detached: the runtime's session thread is gone ($(threads) threads, $base before)"
	is "$(ls /proc/"$pid"/fd | tr '\n' ' ')" "$fds" "[$label] detached: the process has the descriptors it had, no more"
	finish "$label"
}

# reader_waits: the reader (main, thread $pid) blocked in read() inside
# wait_line: the first field of its /proc syscall file is read's number
# (0).  It prints a line's answer before it calls wait_line again, and
# after "ready" before its first call: a session started or ended before
# then would count one wait_line too many or too few.  Polled: nothing
# says when.
reader_waits() {
	until_true eval '[ "$(cut -d" " -f1 /proc/$pid/task/$pid/syscall 2> /dev/null)" = 0 ]' ||
		{ diag "the reader is not back in read(): $(cat /proc/"$pid"/task/"$pid"/syscall)"; return 1; }
}

# attaching LABEL OPTIONS...: once the reader waits in wait_line, objpatch
# attach in the background, its trace in $D/LABEL.N.json (N counts the
# sessions), until its "tracing" line says the sites are enabled; sets
# $attacher.
attaching() {
	local label=$1 line
	shift
	reader_waits || return 1
	n_session=$((n_session + 1))
	trace=$D/$label.$n_session.json
	rm -f "$D/attach.err"
	mkfifo "$D/attach.err"
	"$OBJPATCH" attach --format json "$@" "$pid" > "$trace" 2> "$D/attach.err" &
	attacher=$!
	exec 6< "$D/attach.err"
	read -r -t 30 line <&6
	[[ "$line" == *"$pid: tracing; Ctrl-C detaches" ]] || { diag "objpatch attach said: $line"; return 1; }
}

# detaching: SIGINT to objpatch (Ctrl-C), which ends the session; its status.
detaching() {
	local st
	kill -INT "$attacher"
	wait "$attacher"
	st=$?
	cat <&6 > "$D/attach.rest"
	exec 6<&-
	[ -s "$D/attach.rest" ] && diag "objpatch attach said: $(head -3 "$D/attach.rest")"
	return $st
}

# line TEXT: a line for the reader, its answer, and the reader back in
# wait_line (so that a detach next sees that call).
line() {
	local answer
	echo "$1" >&3
	read -r -t 30 answer <&4
	[[ "$answer" == "line "* ]] && reader_waits
}

# runtimes: the runtime's copies in $pid's maps (distinct files).
runtimes() { grep libobjpatch /proc/"$pid"/maps | awk '{ print $6 }' | sort -u | wc -l; }

# reattach LABEL: two sessions back to back, by the reader thread itself,
# blocked in read() inside wait_line: the frame the first session opened
# returns in the second one, which must not show it.
reattach() {
	local label=$1 base maps out
	n_session=0
	if ! started "$label" "$D/$label"; then
		ok 1 "[$label] the target starts and says ready"
		return
	fi
	base=$(threads)
	attaching "$label" --thread="$pid" --filter wait_line --filter line_length
	ok $? "[$label] session 1, by the thread blocked in read(): tracing"
	line one
	ok $? "[$label] session 1: the reader answers a line"
	detaching
	ok $? "[$label] session 1: SIGINT to objpatch ends it, status 0"
	check "$label" json "$D/$label.1.json" 'line_length 4' '@count line_length 1' '@count wait_line 1'
	maps=$(grep -c libobjpatch /proc/"$pid"/maps)
	attaching "$label" --filter wait_line --filter line_length
	ok $? "[$label] session 2, at once: tracing"
	is "$(grep -c libobjpatch /proc/"$pid"/maps) $(runtimes)" "$maps 1" "[$label] session 2 uses the runtime loaded for session 1 (no second copy)"
	out=$("$OBJPATCH" attach --duration 0.1 "$pid" 2>&1)
	is "$? $(wc -l <<< "$out")" "2 1" "[$label] another attach meanwhile is refused: status 2, one line ($out)"
	line two
	ok $? "[$label] session 2: the reader answers a line"
	detaching
	ok $? "[$label] session 2: status 0"
	# The wait_line entered in session 1 returned in session 2: not shown.
	check "$label" json "$D/$label.2.json" 'line_length 4' '@count line_length 1' '@count wait_line 1'
	line three
	ok $? "[$label] dormant: the reader answers a line, nothing traced"
	until_true eval '[ "$(threads)" = "$base" ]'
	ok $? "[$label] dormant: no thread of the runtime left ($(threads) threads, $base before)"
	finish "$label"
}

# exits LABEL: the program exits while attached (a "quit" line): objpatch
# says so in one line, exits 0, and the trace is whole up to the exit.
exits() {
	local label=$1 st out
	n_session=0
	started "$label" "$D/$label" || { ok 1 "[$label] the target starts"; return; }
	attaching "$label" --filter line_length --filter wait_line
	ok $? "[$label] tracing"
	line last
	echo quit >&3
	reaped
	is "$st" 7 "[$label] the program exits with its own status while attached"
	is "$(grep -c 'rounds, all right' <<< "$out")" 3 "[$label] every worker's results were right"
	wait "$attacher"
	st=$?
	cat <&6 > "$D/attach.rest"
	exec 6<&-
	is "$st" 0 "[$label] objpatch attach exits 0"
	is "$(cat "$D/attach.rest")" "objpatch attach: $pid: the process exited while attached; trace complete up to its exit" \
		"[$label] ... with one line saying so"
	# The wait_line entered in the session read "quit" and returned with it.
	check "$label" json "$D/$label.1.json" 'line_length 5' '@count line_length 1' '@count wait_line 1' \
		'wait_line ~^"quit'
	is "$(cat "$D/$label.err")" "" "[$label] nothing on the program's standard error"
}

# killed LABEL: objpatch killed (SIGKILL) while attached: the process goes
# on, its runtime ends the session by itself (its thread leaves), and a
# later attach works.
killed() {
	local label=$1 base st
	n_session=0
	started "$label" "$D/$label" || { ok 1 "[$label] the target starts"; return; }
	base=$(threads)
	attaching "$label" --filter add_pair --filter line_length
	ok $? "[$label] tracing"
	kill -KILL "$attacher"
	wait "$attacher" 2> /dev/null
	exec 6<&-
	until_true eval '[ "$(threads)" = "$base" ]'
	ok $? "[$label] objpatch killed: the runtime's thread leaves by itself ($(threads) threads, $base before)"
	line after
	ok $? "[$label] the process goes on (the reader answers)"
	"$OBJPATCH" attach --filter line_length --duration 0.2 "$pid" > "$D/$label.after" 2> "$D/$label.after.err"
	st=$?
	is "$st" 0 "[$label] a later attach works: status 0"
	[ "$st" = 0 ] || diag "$(cat "$D/$label.after.err")"
	finish "$label"
}

# forks LABEL: the program forks a child every few milliseconds, which
# calls traced functions and exits with a status the parent checks: the
# children are dormant (nothing of theirs in the trace), their statuses
# right.
forks() {
	local label=$1 st out
	started "$label" "$D/$label" fork || { ok 1 "[$label] the target starts"; return; }
	"$OBJPATCH" attach --filter child_work --filter add_pair --duration 1 --format json "$pid" \
		> "$D/$label.fork.json" 2> "$D/$label.fork.err"
	is "$?" 0 "[$label] attach to a process that forks: status 0"
	is "$(names "$D/$label.fork.json" | tr '\n' ' ')" "add_pair " "[$label] the children's child_work is not in the trace"
	out=$(python3 -c 'import json, sys
print(" ".join(sorted({str(e["pid"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if "pid" in e})))' "$D/$label.fork.json")
	is "$out" "$pid" "[$label] every event is the process's own"
	echo quit >&3
	reaped
	is "$st" 7 "[$label] the program exits with its own status"
	grep -q '^forker: [0-9]* children, all right' <<< "$out"
	ok $? "[$label] every child's status was right ($(grep '^forker' <<< "$out"))"
	grep -q '^wrong' <<< "$out" && diag "$out"
}

# fork_held LABEL (pads): a thread stopped inside fork() has the runtime's
# lock (its fork handler) and malloc's; the call that joins the pads would
# wait for it for ever, the process held.  objpatch lets the threads run,
# longer each round, until none is inside fork(); one that never leaves
# (the program's own fork handler blocks on fd 5) makes the attach fail in
# one line, the process going on, and once it left fork() a session
# traces as any other.
fork_held() {
	local label=$1-fork-held line st out
	rm -f "$D/hold"
	mkfifo "$D/hold"
	started "$label" "$D/$1" fork-held 5<> "$D/hold" || { ok 1 "[$label] the target starts"; return; }
	"$OBJPATCH" attach --filter add_pair --duration 0.2 "$pid" > /dev/null 2> "$D/$label.1.err"
	is "$?" 0 "[$label] a first session: the runtime's fork handlers registered ($(cat "$D/$label.1.err"))"
	echo fork >&3
	read -r -t 30 line <&4
	is "$line" forking "[$label] the reader is inside fork(), blocked in the program's handler"
	out=$(timeout -k 5 60 "$OBJPATCH" attach --filter add_pair --duration 0.2 "$pid" 2>&1 > /dev/null)
	st=$?
	is "$st" 1 "[$label] an attach then fails (status 1) instead of holding the process for ever"
	grep -q "^objpatch attach: $pid: a thread kept the runtime's lock (inside fork()?) for 10 s while the threads ran; try again$" <<< "$out"
	ok $? "[$label] ... saying a thread kept the runtime's lock, inside fork() ($out)"
	echo x > "$D/hold"
	read -r -t 30 line <&4
	is "$line" "forked: 0" "[$label] let go, fork() returns: the child exited 0"
	"$OBJPATCH" attach --filter add_pair --duration 0.2 --format json "$pid" > "$D/$label.json" 2> "$D/$label.2.err"
	is "$?" 0 "[$label] then a session traces ($(cat "$D/$label.2.err"))"
	is "$(names "$D/$label.json" | tr '\n' ' ')" "add_pair " "[$label] ... the function asked for"
	finish "$label"
}

# refused LABEL: a program without recorded sites: one line, status 2, untouched.
no_sites() {
	local out
	compile_ok "[plain] build" gcc "${CFLAGS[@]}" -o "$D/plain" "$SRC" || return
	started plain "$D/plain" || { ok 1 "[plain] the target starts"; return; }
	out=$("$OBJPATCH" attach --duration 1 "$pid" 2>&1)
	is "$?" 2 "refused, no recorded sites: status 2"
	is "$(wc -l <<< "$out")" 1 "refused, no recorded sites: one line ($out)"
	! grep -q libobjpatch /proc/"$pid"/maps
	ok $? "refused, no recorded sites: the target untouched (no runtime in its maps)"
	finish plain
}

# notes: what the runtime would have printed on the process's standard
# error comes through objpatch instead.  A copy of the program whose
# wrong() (never called) holds int3s where its site's NOP was: the runtime
# leaves that table entry alone and says so.
notes() {
	local out st
	cp "$D/fentry-nop" "$D/notes"
	python3 - "$D/notes" "$("$OBJPATCH" list "$D/notes" | awk '/ wrong\(/ { print $1 }')" <<'PY' || return
import subprocess, sys
path, addr = sys.argv[1], int(sys.argv[2], 16)
for line in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if f and f[0] == "LOAD" and int(f[2], 16) <= addr < int(f[2], 16) + int(f[4], 16):
        at = addr - int(f[2], 16) + int(f[1], 16)
b = bytearray(open(path, "rb").read())
assert b[at] in (0x0f, 0x66), b[at:at + 6].hex()     # the site's NOP
b[at:at + 5] = b"\xcc" * 5
open(path, "wb").write(b)
PY
	started notes "$D/notes" || { ok 1 "[notes] the target starts"; return; }
	out=$("$OBJPATCH" attach -F add_pair --duration 0.2 "$pid" 2>&1 > /dev/null)
	st=$?
	is "$st" 0 "[notes] status 0"
	grep -q "^objpatch: $D/notes: 1 table entry does not hold a hook call or NOP; left alone$" <<< "$out"
	ok $? "[notes] the runtime's message comes through objpatch's standard error"
	is "$(grep -c "table entry does not hold" <<< "$out")" 1 "[notes] ... once"
	[ "$st" = 0 ] && grep -q "^objpatch: $D/notes" <<< "$out" || diag "$out"
	finish notes
}

# preloaded: a program objpatch run traces already is refused, untouched.
preloaded() {
	local prog out st
	started run "$OBJPATCH" run -F add_pair -o "$D/run.trace" -- "$D/fentry-nop" ||
		{ ok 1 "[run] the target starts under objpatch run"; return; }
	prog=$(pgrep -P "$pid")
	out=$("$OBJPATCH" attach --duration 0.1 "$prog" 2>&1)
	is "$? $(wc -l <<< "$out")" "2 1" "refused, a process objpatch run traces: status 2, one line ($out)"
	echo quit >&3
	exec 3>&-
	cat <&4 > /dev/null
	exec 4<&-
	wait "$pid"
	is "$?" 7 "refused, a process objpatch run traces: it exits with its own status, through objpatch run"
	grep -q 'add_pair' "$D/run.trace"
	ok $? "refused, a process objpatch run traces: its own trace is whole"
}

# options LABEL: report's options and --args, the trace going where they say;
# usage mistakes refused (status 2) before the process is touched.
options() {
	local label=$1 st out maps
	started "$label" "$D/$label" || { ok 1 "[$label] the target starts"; return; }
	"$OBJPATCH" attach -F add_pair --args --duration 0.3 "$pid" > "$D/$label.args" 2> "$D/$label.args.err"
	is "$?" 0 "[$label] --args: status 0"
	# Every call shows its arguments, and its value is their sum.
	out=$(python3 -c 'import re, sys
n = bad = 0
for line in open(sys.argv[1]):
    m = re.search(r"add_pair\(a=(-?\d+), b=(-?\d+)\); /\* ret=(-?\d+) \*/", line)
    if m:
        n += 1
        bad += int(m.group(1)) + int(m.group(2)) != int(m.group(3))
print(n > 0 and not bad, n, bad)' "$D/$label.args")
	[[ "$out" == True* ]]
	ok $? "[$label] --args: every add_pair(a=A, b=B) shows its arguments, and returns A+B (calls, wrong: ${out#* })"
	[[ "$out" == True* ]] || diag "$(head -5 "$D/$label.args")"
	"$OBJPATCH" attach -F 'add_*' --duration 0.2 --format perfetto --output "$D/$label.perfetto" "$pid" \
		> "$D/$label.stdout" 2> /dev/null
	is "$?" 0 "[$label] --format perfetto --output FILE: status 0"
	[ -s "$D/$label.perfetto" ] && [ ! -s "$D/$label.stdout" ]
	ok $? "[$label] ... the trace in FILE, nothing on standard output"
	"$OBJPATCH" attach -F add_pair -F is_square --summary --duration 0.2 "$pid" > "$D/$label.summary" 2> /dev/null
	st=$?
	grep -q 'add_pair' "$D/$label.summary" && grep -q 'is_square' "$D/$label.summary"
	ok $((st || $?)) "[$label] --summary: report's summary of both functions"
	# On a terminal, the end of the stream says how much there is to format
	# and how much of it the process's buffers still held at the stop.
	script -qec "'$OBJPATCH' attach -F add_pair --duration 0.3 -o '$D/$label.tty' $pid" /dev/null \
		> "$D/$label.tty.err" 2>&1
	st=$?
	grep -Eq "^objpatch attach: $pid: 0\.[0-9]{2} s traced; [0-9]+\.[0-9] MiB of events, [0-9]+\.[0-9] MiB of them drained after the stop; formatting them" \
		"$D/$label.tty.err"
	ok $((st || $?)) "[$label] on a terminal: the traced time and the MiB to format, drained after the stop among them ($(grep -a formatting "$D/$label.tty.err" | tr -d '\r'))"
	# A session that traces nothing (every function filtered out) says so in one line.
	"$OBJPATCH" attach -F '!*' --duration 0.2 "$pid" > "$D/$label.none" 2> "$D/$label.none.err"
	st=$?
	is "$st $(wc -c < "$D/$label.none") $(grep -vc ': tracing; Ctrl-C detaches$' "$D/$label.none.err")" "0 0 1" \
		"[$label] -F '!*': status 0, an empty trace, and one line besides 'tracing'"
	grep -q "^objpatch attach: $pid: no call was traced while attached" "$D/$label.none.err"
	ok $? "[$label] -F '!*': ... saying no call was traced ($(grep -v tracing "$D/$label.none.err"))"
	maps=$(grep -c libobjpatch /proc/"$pid"/maps)
	for bad in "--duration 0" "--duration abc" "--format xml" "--output /nonexistent/dir/t" "--policy fast" \
		"--filter [ab" "--inject-only --args" "--filter nothing_like_it"; do
		# shellcheck disable=SC2086
		out=$("$OBJPATCH" attach $bad "$pid" 2>&1)
		st=$?
		is "$st $(wc -l <<< "$out")" "2 1" "[$label] refused, $bad: status 2, one line ($out)"
	done
	is "$(grep -c libobjpatch /proc/"$pid"/maps)" "$maps" "[$label] the refusals left the process as it was"
	finish "$label"
}

for v in "fentry-nop --nop -pg -mfentry" "pads - -fpatchable-function-entry=5" "pg - -pg"; do
	# shellcheck disable=SC2086
	set -- $v
	label=$1 rmc=$2
	shift 2
	[ "$rmc" = - ] && rmc=
	build "$label" "$rmc" "$@" || continue
	traced "$label"
	reattach "$label"
	exits "$label"
	killed "$label"
	forks "$label"
	[ "$label" = pads ] && fork_held "$label"
	[ "$label" = fentry-nop ] && options "$label"
done
no_sites
[ -x "$D/fentry-nop" ] && preloaded
[ -x "$D/fentry-nop" ] && notes

done_testing
