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

build fentry-nop --nop -pg -mfentry && traced fentry-nop

done_testing
