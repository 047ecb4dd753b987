#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Functions a filter names that never ran: a function
# the compiler inlined at every call keeps an out-of-line copy with a site,
# which objpatch list shows and nothing calls (redis's listTypeLength).
# testdata/uncalled/inlined.c's length() and size() are such functions at
# -O2: `objpatch run` and `objpatch attach` with a filter naming them say
# so in one line at the end, naming both and the likely cause; not for a
# filter that names only functions that ran, nor without a filter
# (everything traced).  `objpatch record -F` keeps the filter in the
# recording (type 10, man/objpatch-recording.5), and `objpatch report`
# of it says the same line, narrowed by its own -F/-N, also when its -F
# left no call; a recording of before (minor 0, no filter record) reports
# as before, without the line.
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

# record, then report: the recording carries the filter.
RAWFMT=(python3 "$TOP/testdata/recording/rawfmt.py")
report_line=${line/objpatch:/objpatch report:}
"$OBJPATCH" record -F length -F 'si*' -F called -o "$D/r.data" -- "$D/inlined" > "$D/out" 2> "$D/err"
is "$?" 0 "record -F length -F 'si*' -F called: status 0"
is "$(cat "$D/err")" "" "record: nothing on standard error (the calls are not read yet)"
is "$("${RAWFMT[@]}" filter "$D/r.data" | tr '\n' ' ')" "length si* called " \
	"the recording carries the filter's patterns, in order (type 10)"
for fmt in text json; do
	"$OBJPATCH" report --format "$fmt" -o "$D/r.$fmt" "$D/r.data" 2> "$D/err"
	is "$?" 0 "[$fmt] report of it: status 0"
	is "$(cat "$D/err")" "$report_line" "[$fmt] report: the same line, from objpatch report"
	grep -q 'called' "$D/r.$fmt"
	ok $? "[$fmt] report: the function that ran is in the trace"
done
# To standard output: the line goes to standard error, the JSON stays whole.
"$OBJPATCH" report --format json "$D/r.data" > "$D/r.stdout.json" 2> "$D/err"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$D/r.stdout.json" && [ "$(cat "$D/err")" = "$report_line" ]
ok $? "report --format json to standard output: valid JSON, the line on standard error"
"$OBJPATCH" report --summary "$D/r.data" > "$D/out" 2> "$D/err"
is "$(cat "$D/err")" "$report_line" "report --summary: the same line"

# report's own --filter/--exclude narrow the line to what they show.
"$OBJPATCH" report -N length -o "$D/n.txt" "$D/r.data" 2> "$D/err"
grep -q '^objpatch report: 1 function matched by the filter was never called: size (inlined' "$D/err"
ok $? "report -N length: the line names size alone ($(grep never "$D/err"))"
"$OBJPATCH" report -F length -o "$D/f.txt" "$D/r.data" 2> "$D/err"
is "$?" 1 "report -F length: no call is left, status 1"
is "$(sed -n 2p "$D/err")" "objpatch report: 1 function matched by the filter was never called: length (${line#*length, size (}" \
	"report -F length: after the error, the line says why: length never ran ($(head -1 "$D/err"))"
"$OBJPATCH" report -F called -o "$D/f.txt" "$D/r.data" 2> "$D/err"
is "$(cat "$D/err")" "" "report -F called: a function that ran: no line"

# A view that shows none of called()'s calls does not make it uncalled.
"$OBJPATCH" report --min-duration 10s -o "$D/m.txt" "$D/r.data" 2> "$D/err"
is "$(grep never "$D/err")" "$report_line" "report --min-duration 10s (no call shown): still length and size alone"

# An excluded function is not named.
"$OBJPATCH" record -F length -F 'si*' -F '!size' -o "$D/x.data" -- "$D/inlined" > "$D/out" 2> "$D/err"
"$OBJPATCH" report -o "$D/x.txt" "$D/x.data" 2> "$D/err"
grep -q '^objpatch report: 1 function matched by the filter was never called: length (inlined' "$D/err"
ok $? "record -F length -F 'si*' -F '!size': report names length alone ($(grep never "$D/err"))"

"$OBJPATCH" record -F called -o "$D/c.data" -- "$D/inlined" > "$D/out" 2> "$D/err"
"$OBJPATCH" report -o "$D/c.txt" "$D/c.data" 2> "$D/err"
is "$(cat "$D/err")" "" "record -F called, report: a filter whose functions all ran: no line"
"$OBJPATCH" record -o "$D/all.data" -- "$D/inlined" > "$D/out" 2> "$D/err"
"$OBJPATCH" report -o "$D/all.txt" "$D/all.data" 2> "$D/err"
is "$(cat "$D/err")" "" "record without a filter, report: no line"

# A recording of before: no filter record, so nothing to name; the same trace.
"${RAWFMT[@]}" before-filter "$D/r.data" "$D/old.data"
"$OBJPATCH" report -o "$D/old.txt" "$D/old.data" 2> "$D/err"
is "$?" 0 "a recording of before (minor 0, no filter record): status 0"
is "$(cat "$D/err")" "" "a recording of before: no line (its filter is unknown)"
cmp -s "$D/r.text" "$D/old.txt"
ok $? "a recording of before: the same trace"

# A filter record whose patterns have no NUL: corrupt, said once.
python3 -c 'import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = struct.unpack_from("<H", b, 20)[0]
while at < len(b):
    t, n = struct.unpack_from("<II", b, at)
    if t == 10:
        b[at + 8:at + 8 + n] = b"x" * n
    at += 8 + n
open(sys.argv[2], "wb").write(b)' "$D/r.data" "$D/bad.data"
"$OBJPATCH" report -o "$D/bad.txt" "$D/bad.data" 2> "$D/err"
rc=$?
[ "$rc" = 1 ] && [ "$(wc -l < "$D/err")" = 1 ] && grep -q "^objpatch report: $D/bad.data: offset [0-9]*: corrupt record of type 10" "$D/err"
ok $? "a filter record without its NUL: one line naming its offset, status 1 (status $rc: $(head -1 "$D/err"))"

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
