#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach PID (issue 21): a running process is traced, then left
# dormant, as it was.  testdata/attach/traced.c runs three workers that
# call small typed functions and check every result, and a reader (main)
# blocked in read(); it is built with recorded sites, -pg -mfentry and
# recordmcount --nop.  Attached to with filters and a duration:
#  - objpatch exits 0 and prints a well-formed trace (check_trace.py)
#    holding only the functions the filters name, with their values;
#  - after the detach, the runtime's session thread is gone (polled) and
#    nothing was written to the process's standard error;
#  - every result the workers computed was right, and the program exits
#    with its own status (7).
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach/traced.c
CHECK=(python3 "$TOP/testdata/runtime/check_trace.py")
D=$T_TMP
CFLAGS=(-std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread)

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "attach is implemented for x86_64 Linux hosts (this is $(uname -sm))"
	done_testing
	exit
fi

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
	exec 3>&-
	out=$(cat <&4)
	exec 4<&-
	wait "$pid"
	st=$?
	is "$st" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'rounds, all right' <<< "$out")" 3 "[$label] every worker's results were right"
	grep -q '^wrong' <<< "$out" && diag "$out"
	is "$(cat "$D/$label.err")" "" "[$label] nothing on the program's standard error"
}

# traced LABEL: attach, trace, detach.
traced() {
	local label=$1 base st out
	if ! started "$label" "$D/$label"; then
		ok 1 "[$label] the target starts and says ready"
		return
	fi
	base=$(threads)
	"$OBJPATCH" attach --filter add_pair --filter 'par*' --duration 0.5 --format json "$pid" \
		> "$D/$label.json" 2> "$D/$label.attach.err"
	st=$?
	is "$st" 0 "[$label] attach --filter add_pair --filter 'par*' --duration 0.5: status 0"
	[ -s "$D/$label.attach.err" ] && diag "$(head -5 "$D/$label.attach.err")"
	is "$(names "$D/$label.json" | tr '\n' ' ')" "add_pair parity " "[$label] the trace holds the filtered functions, only"
	# The workers' arguments vary: values by their form (the program checks the rest).
	check "$label" json "$D/$label.json" 'add_pair ~^[0-9]+$' 'parity ~^"(odd|even)"$'
	until_true eval '[ "$(threads)" = "$base" ]'
	ok $? "[$label] detached: the runtime's session thread is gone ($(threads) threads, $base before)"
	finish "$label"
}

# attaching LABEL OPTIONS...: objpatch attach in the background, its trace
# in $D/LABEL.N.json (N counts the sessions), until its "tracing" line
# says the sites are enabled; sets $attacher.
attaching() {
	local label=$1 line
	shift
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

# line TEXT: a line for the reader, and its answer.
line() {
	local answer
	echo "$1" >&3
	read -r -t 30 answer <&4
	[[ "$answer" == "line "* ]]
}

# runtimes: the runtime's copies in $pid's maps (distinct files).
runtimes() { grep libobjpatch /proc/"$pid"/maps | awk '{ print $6 }' | sort -u | wc -l; }

# reattach LABEL: two sessions back to back, by the reader thread itself,
# blocked in read() inside wait_line: the frame the first session opened
# returns in the second one, which must not show it.
reattach() {
	local label=$1 base maps
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

build fentry-nop --nop -pg -mfentry && traced fentry-nop && reattach fentry-nop

done_testing
