#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# objpatch attach PID on a C++ program: exceptions thrown
# through traced functions are caught as under objpatch run.  The runtime
# is loaded RTLD_LOCAL, so its unwinder hooks (objpatch/lib/rt_unwind.c)
# interpose on nothing: it points the modules' GOT slots of
# _Unwind_RaiseException, _Unwind_Resume_or_Rethrow and __cxa_begin_catch
# at them, by their local addresses (the exported names resolve to
# libgcc_s's and libstdc++'s own in its scope).  testdata/attach/cxx.cc's
# workers throw through thrower() and pass() (a destructor runs) into
# catcher() and check every result.  For an -mfentry and a
# -fpatchable-function-entry build:
#  - thrower: only the throwing function traced: status 0, the process
#    lives on, the trace holds thrower;
#  - all: every function traced, a second session: catcher, pass and
#    thrower in the trace, each entry with its end;
#  - no warning: the unwinder is reached through the GOT, so attach says
#    nothing about C++;
#  - the program's own checks pass, it exits 7, nothing on its stderr.
# Last, a build with libstdc++ and libgcc linked in statically (whose
# __cxa_throw calls the unwinder directly, where no slot can be pointed
# at the hooks): attach warns once, naming the program.
. "$(dirname "$0")/attach-lib.sh"

OBJPATCH=$TOP/build/objpatch
SRC=$TOP/testdata/attach/cxx.cc
D=$T_TMP

attach_host_only
# A program the bug ended takes the "quit" line's pipe with it: a failed test, not a dead script.
trap '' PIPE
if ! command -v g++ > /dev/null; then
	skip "no g++"
	done_testing
	exit
fi

# build LABEL RMC-FLAGS LDFLAGS CXXFLAGS...: compiles cxx.cc, records, links: $D/LABEL.
build() {
	local label=$1 rmc=$2 ldflags=$3 out
	shift 3
	compile_ok "[$label]" g++ -O2 -g -pthread "$@" -c "$SRC" -o "$D/$label.o" || return 1
	# shellcheck disable=SC2086
	if ! out=$("$RMC" --mode=user $rmc "$D/$label.o" 2>&1); then
		ok 1 "[$label] recordmcount --mode=user $rmc"
		diag "$out"
		return 1
	fi
	# shellcheck disable=SC2086
	compile_ok "[$label] link" g++ -pthread $ldflags -o "$D/$label" "$D/$label.o"
}

# counts FILE: "NAME PH COUNT>0" for every function and phase in a JSON trace, sorted.
counts() {
	python3 -c 'import json, sys, collections
c = collections.Counter((e["name"], e["ph"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") in ("B", "E"))
print(" ".join(sorted(n for n, p in c if p == "B")), "|", all(c[(n, "B")] == c[(n, "E")] for n, _ in c))' "$1"
}

# session LABEL NAME ATTACH-OPTIONS...: one attach of 0.3 s: its status and stderr in $D/LABEL.NAME.err.
session() {
	local label=$1 name=$2 st
	shift 2
	"$OBJPATCH" attach "$@" --duration 0.3 --format json "$pid" > "$D/$label.$name.json" 2> "$D/$label.$name.err"
	st=$?
	is "$st" 0 "[$label] $name: attach $*: status 0"
	[ "$st" = 0 ] || diag "$(head -5 "$D/$label.$name.err")"
	kill -0 "$pid" 2> /dev/null
	ok $? "[$label] $name: the process lives on, its exceptions caught"
}

# finish LABEL: "quit", then the program's own checks and status.
finish() {
	local label=$1 out st
	echo quit >&3 2> /dev/null
	reaped
	is "$st" 7 "[$label] the program exits with its own status"
	is "$(grep -c 'rounds, all right' <<< "$out")" 2 "[$label] every worker's results were right"
	grep -q '^wrong' <<< "$out" && diag "$out"
	is "$(cat "$D/$label.err")" "" "[$label] nothing on the program's standard error"
}

traced() {
	local label=$1
	if ! started "$label" "$D/$label"; then
		ok 1 "[$label] the target starts and says ready"
		return
	fi
	session "$label" thrower --filter thrower
	is "$(counts "$D/$label.thrower.json")" "thrower | True" "[$label] thrower: the trace holds thrower, every entry ended"
	session "$label" all
	is "$(counts "$D/$label.all.json")" "catcher pass thrower | True" \
		"[$label] all: the trace holds catcher, pass and thrower, every entry ended"
	is "$(grep -c 'C++' "$D/$label.thrower.err" "$D/$label.all.err" | cut -d: -f2 | tr '\n' ' ')" "0 0 " \
		"[$label] no warning about C++: the unwinder is hooked"
	finish "$label"
}

# static: the C++ runtime linked in; attach warns (the trace's fate is not checked: the program may end).
static_runtime() {
	local label=static
	build "$label" --nop "-static-libstdc++ -static-libgcc" -pg -mfentry || return
	if ! started "$label" "$D/$label"; then
		ok 1 "[$label] the target starts and says ready"
		return
	fi
	"$OBJPATCH" attach --filter catcher --duration 0.3 --format json "$pid" > "$D/$label.json" 2> "$D/$label.attach.err"
	is "$(grep -c "warning: .*$D/$label.*C++" "$D/$label.attach.err")" 1 \
		"[$label] attach warns once that an exception through a traced function ends the program"
	grep -q warning "$D/$label.attach.err" || diag "$(cat "$D/$label.attach.err")"
	echo quit >&3 2> /dev/null
	reaped
}

for v in "fentry-nop --nop -pg -mfentry" "pads - -fpatchable-function-entry=5"; do
	# shellcheck disable=SC2086
	set -- $v
	label=$1 rmc=$2
	shift 2
	[ "$rmc" = - ] && rmc=
	build "$label" "$rmc" "" "$@" || continue
	traced "$label"
done
static_runtime

done_testing
