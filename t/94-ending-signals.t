#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A signal that ends the traced program leaves a whole trace:
# testdata/ending/ending.c runs 4 threads calling without end,
# and once each has made its rounds (no timing: a counter says so) ends
# as told, while they still call:
#  - SIGTERM, SIGINT, SIGHUP, SIGQUIT sent to objpatch run, which passes
#    them on, the program leaving them at their default action: objpatch
#    exits 128+N and the trace is a whole document in every format (text,
#    json, folded, svg, perfetto), its open frames closed as unfinished;
#    also a hot loop's long JSON trace (no pause between calls);
#  - abort() and a SIGSEGV in the program (also through the patcher's own
#    SIGSEGV handler, OBJPATCH_PATCH_WRITE=mprotect);
#  - objpatch record + SIGTERM, and a SIGKILL: objpatch report gives a
#    whole document in every format, the open frames unfinished;
#  - run + SIGKILL: objpatch exits 137 (the trace cannot be finished: the
#    man page says so).
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP
SRC=$TOP/testdata/ending
CHECK=(python3 "$SRC/check_trace.py")
READER=$TOP/testdata/runtime/perfetto_trace.py

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is implemented and tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi
ulimit -c 0	# SIGQUIT, abort, SIGSEGV: no core file

compile_ok "ending: -pg" gcc -O2 -g -pg -mfentry -c "$SRC/ending.c" -o "$D/ending.o" &&
	compile_ok "ending: recordmcount --mode=user" "$RMC" --mode=user "$D/ending.o" &&
	compile_ok "ending: link" gcc -o "$D/ending" "$D/ending.o" -lpthread || { done_testing; exit; }

ext() { case $1 in perfetto) echo perfetto-trace;; *) echo "$1";; esac; }

# whole LABEL FORMAT FILE: the trace is a whole document.
whole() {
	local why
	why=$("${CHECK[@]}" "$2" "$3" "$READER" 2>&1)
	ok $? "[$1] the $2 trace is whole${why:+: $why}"
}

# ---- run: a signal objpatch passes on ----

for sig in TERM INT HUP QUIT; do
	n=$(kill -l "$sig")
	for fmt in text json folded svg perfetto; do
		out=$D/run-$sig.$(ext "$fmt")
		timeout 120 "$OBJPATCH" run --format "$fmt" -o "$out" -- "$D/ending" 2000 "$n" > /dev/null 2> "$D/err"
		is "$?" $((128 + n)) "[run SIG$sig $fmt] objpatch exits 128+$n"
		whole "run SIG$sig" "$fmt" "$out"
	done
done

# A hot loop: the writer thread far behind the threads when the signal comes.
timeout 300 "$OBJPATCH" run --format json -o "$D/hot.json" -- "$D/ending" 10000 15 hot > /dev/null 2> "$D/err"
is "$?" 143 "[run SIGTERM, hot] objpatch exits 143"
diag "hot loop: a JSON trace of $(($(stat -c %s "$D/hot.json") / 1048576)) MiB"
whole "run SIGTERM, hot" json "$D/hot.json"

# ---- run: the program's own death ----

for how in abort segv; do
	want=$((128 + $(kill -l "$(case $how in abort) echo ABRT;; segv) echo SEGV;; esac)")))
	for fmt in text json; do
		timeout 120 "$OBJPATCH" run --format "$fmt" -o "$D/$how.$fmt" -- "$D/ending" 2000 "$how" > /dev/null 2> "$D/err"
		is "$?" "$want" "[run $how $fmt] objpatch exits $want"
		whole "run $how" "$fmt" "$D/$how.$fmt"
	done
done
OBJPATCH_PATCH_WRITE=mprotect timeout 120 "$OBJPATCH" run --format json -o "$D/segv-mprotect.json" -- \
	"$D/ending" 2000 segv > /dev/null 2> "$D/err"
is "$?" 139 "[run segv, the patcher's SIGSEGV handler] objpatch exits 139"
whole "run segv, the patcher's SIGSEGV handler" json "$D/segv-mprotect.json"

timeout 120 "$OBJPATCH" run --format json -o "$D/kill.json" -- "$D/ending" 2000 kill > /dev/null 2> "$D/err"
is "$?" 137 "[run SIGKILL] objpatch exits 137 (the trace ends where the writer was: documented)"

# ---- record, report ----

for how in 15 kill; do
	timeout 120 "$OBJPATCH" record -o "$D/rec-$how.data" -- "$D/ending" 2000 "$how" > /dev/null 2> "$D/err"
	is "$?" $((128 + ${how/kill/9})) "[record $how] objpatch record exits as the program died"
	for fmt in text json folded svg perfetto; do
		out=$D/rec-$how.$(ext "$fmt")
		"$OBJPATCH" report --format "$fmt" -o "$out" "$D/rec-$how.data" 2> "$D/err"
		is "$?" 0 "[record $how, report $fmt] status 0 ($(head -1 "$D/err"))"
		whole "record $how, report" "$fmt" "$out"
	done
done

done_testing
