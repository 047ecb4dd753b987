#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Functions a filter names that never ran (issue 33, item 9): a function
# the compiler inlined at every call keeps an out-of-line copy with a site,
# which objpatch list shows and nothing calls (redis's listTypeLength).
# testdata/uncalled/inlined.c's length() and size() are such functions at
# -O2: `objpatch run` and `objpatch attach` with a filter naming them say
# so in one line at the end, naming both and the likely cause; not for a
# filter that names only functions that ran, nor without a filter
# (everything traced).
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP

if [ "$(uname -m)" != x86_64 ] || [ "$(uname -s)" != Linux ]; then
	skip "the runtime is implemented and tested on x86_64 Linux (this is $(uname -sm))"
	done_testing
	exit
fi

compile_ok "inlined: -pg -O2" gcc -O2 -g -pg -mfentry -c "$TOP/testdata/uncalled/inlined.c" -o "$D/inlined.o" &&
	compile_ok "inlined: recordmcount --mode=user" "$RMC" --mode=user "$D/inlined.o" &&
	compile_ok "inlined: link" gcc -pthread -o "$D/inlined" "$D/inlined.o" || { done_testing; exit; }

"$OBJPATCH" list "$D/inlined" > "$D/list"
grep -q ' length(' "$D/list" && grep -q ' size(' "$D/list"
ok $? "objpatch list shows the inlined functions' out-of-line copies"

line='objpatch: 2 functions matched by the filter were never called: length, size (inlined at every call site? a function the compiler inlined everywhere keeps its out-of-line copy, which nothing calls)'
for fmt in text json; do
	"$OBJPATCH" run --format "$fmt" -F length -F 'si*' -F called -o "$D/t.$fmt" -- "$D/inlined" > "$D/out" 2> "$D/err"
	is "$?" 0 "[$fmt] objpatch run -F length -F 'si*' -F called: status 0"
	is "$(cat "$D/err")" "$line" "[$fmt] one line names the functions never called, and why"
	grep -q 'called' "$D/t.$fmt"
	ok $? "[$fmt] the function that ran is traced"
done

# An analysis: run records, and objpatch formats the recording.
"$OBJPATCH" run --summary -o "$D/summary" -F length -F 'si*' -F called -- "$D/inlined" > "$D/out" 2> "$D/err"
is "$?" 0 "[--summary] objpatch run: status 0"
is "$(cat "$D/err")" "${line/objpatch:/objpatch run:}" "[--summary] the same line, from objpatch"

"$OBJPATCH" run -F length -- "$D/inlined" > "$D/out" 2> "$D/err"
grep -q '^objpatch: 1 function matched by the filter was never called: length (inlined' "$D/err"
ok $? "one function: the line says so in the singular ($(grep never "$D/err"))"

"$OBJPATCH" run -F called -o "$D/c.txt" -- "$D/inlined" > "$D/out" 2> "$D/err"
is "$(cat "$D/err")" "" "a filter whose functions all ran: no line"

"$OBJPATCH" run -o "$D/all.txt" -- "$D/inlined" > "$D/out" 2> "$D/err"
is "$(cat "$D/err")" "" "no filter (everything traced): no line, though length and size never ran"

# attach: the same line, from objpatch, which formats the session's stream;
# "while attached": a function may simply not run during a session.
attach_line=${line/objpatch:/objpatch attach:}
attach_line=${attach_line/never called:/never called while attached:}
"$D/inlined" 3 forever > "$D/ready" &
pid=$!
# Its thread has started calling: a process still starting cannot be attached to.
for _ in $(seq 600); do grep -q ready "$D/ready" && break; sleep 0.05; done
"$OBJPATCH" attach -F length -F 'si*' -F called --duration 0.3 -o "$D/att.txt" "$pid" > /dev/null 2> "$D/err"
is "$?" 0 "attach -F length -F 'si*' -F called: status 0 ($(grep -v tracing "$D/err" | head -1))"
is "$(grep -v ': tracing;' "$D/err")" "$attach_line" "attach: one line names the functions never called, and why"
grep -q 'called' "$D/att.txt"
ok $? "attach: the function that ran is traced"
"$OBJPATCH" attach -F called --duration 0.3 -o "$D/att2.txt" "$pid" > /dev/null 2> "$D/err"
is "$(grep -v ': tracing;' "$D/err")" "" "attach: a filter whose functions all ran: no line"
kill -KILL "$pid"
wait "$pid" 2> /dev/null

done_testing
