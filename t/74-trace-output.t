#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What traces show, through objpatch run, record and report on
# testdata/trace/out.c (compiled -pg, recordmcount --mode=user):
#  - valid UTF-8 in a returned string prints as it is, other bytes escaped;
#  - a user program's -1 prints with no errno name, unless --errno-names
#    or OBJPATCH_ERRNO_NAMES=1 asks for it (annotate's kernel traces have
#    them by default: t/71-annotate.t);
#  - Chrome JSON parses and names the process and its threads ("M" events,
#    as uftrace's chrome dump), from run and from report;
#  - a recording reports the recorded build's names after the program is
#    rebuilt with its functions moved and renamed; a recording without the
#    functions (older) says in one line that the file changed, exit 0;
#  - a recording read from a pipe (not mapped) reports the same as its file;
#  - trace/writer.c alone (testdata/trace/clock.c): a trace written in two
#    passes, the second with a new clock rate, never runs backwards.
# About 2 s.
. "$(dirname "$0")/lib.sh"

OBJPATCH=$TOP/build/objpatch
D=$T_TMP
SRC=$TOP/testdata/trace/out.c

build_prog() {	# build_prog OUT [CFLAGS...]
	local out=$1
	shift
	compile_ok "compile $out" gcc -g -O1 -pg "$@" -c "$SRC" -o "$D/out.o" &&
	run_ok "recordmcount --mode=user ($out)" "$RMC" --mode=user "$D/out.o" &&
	compile_ok "link $out" gcc -o "$out" "$D/out.o" -pthread
}
build_prog "$D/out" || { done_testing; exit 1; }
cd "$D" || exit 1

# ---- UTF-8 and errno names in the text trace ----
"$OBJPATCH" run --output run.txt -- ./out > /dev/null
grep -q 'greet(); /\* ret="café €" \*/' run.txt
ok $? "valid UTF-8 prints as it is: ret=\"café €\""
grep -q 'greet(); /\* ret="bad \\377 byte" \*/' run.txt
ok $? "an invalid UTF-8 byte is escaped: ret=\"bad \\377 byte\""
n=$(grep -c 'fails(); /\* ret=-1 \*/' run.txt)
is "$n" 2 "a user program's -1 has no errno name by default (2 calls)"
grep -q 'EPERM' run.txt
ok $((!$?)) "no EPERM anywhere in the default trace"
[ $? = 0 ] || diag "$(grep EPERM run.txt)"
"$OBJPATCH" run --errno-names --output errno.txt -- ./out > /dev/null
n=$(grep -c 'fails(); /\* ret=-1 (EPERM) \*/' errno.txt)
is "$n" 2 "run --errno-names: ret=-1 (EPERM)"
OBJPATCH_ERRNO_NAMES=1 "$OBJPATCH" run --output env.txt -- ./out > /dev/null
n=$(grep -c 'ret=-1 (EPERM)' env.txt)
is "$n" 2 "OBJPATCH_ERRNO_NAMES=1: ret=-1 (EPERM)"

# ---- Chrome JSON: process and thread names ----
# check_names FILE LABEL: the JSON parses; process_name "out", thread_name
# for the main thread (tid = pid) "out" and for the other "out-worker".
check_names() {
	local why
	why=$(python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
meta = [e for e in ev if e["ph"] == "M"]
pid = {e["pid"] for e in ev if e["ph"] == "B"}
proc = [e["args"]["name"] for e in meta if e["name"] == "process_name"]
threads = {e["tid"]: e["args"]["name"] for e in meta if e["name"] == "thread_name"}
tids = {e["tid"] for e in ev if e["ph"] == "B"}
want = {t: ("out" if t in pid else "out-worker") for t in tids}
if proc != ["out"] or threads != want:
    print("process_name %s, thread_name %s; want ['out'], %s" % (proc, threads, want))
    sys.exit(1)
PY
)
	ok $? "$2: JSON parses, process_name \"out\", thread_name of each thread (main \"out\", \"out-worker\")"
	[ -z "$why" ] || diag "$why"
}
"$OBJPATCH" run --format json --output run.json -- ./out > /dev/null
check_names run.json "run --format json"

# ---- record, report ----
"$OBJPATCH" record --output rec.data -- ./out > /dev/null
"$OBJPATCH" report rec.data > rep1.txt 2> rep1.err
ok $? "report: exit 0"
grep -q 'greet(); /\* ret="café €" \*/' rep1.txt && grep -q 'fails(); /\* ret=-1 \*/' rep1.txt
ok $? "report: UTF-8 as it is, -1 with no errno name"
"$OBJPATCH" report --errno-names rec.data | grep -q 'fails(); /\* ret=-1 (EPERM) \*/'
ok $? "report --errno-names: ret=-1 (EPERM)"
"$OBJPATCH" record --errno-names --output rec-errno.data -- ./out > /dev/null
n=$("$OBJPATCH" report rec-errno.data | grep -c 'fails(); /\* ret=-1 (EPERM) \*/')
is "$n" 2 "record --errno-names: the report names errnos (the recording says so)"
"$OBJPATCH" report --format json rec.data > rep.json
check_names rep.json "report --format json (names from the recording)"
# A recording file is read where it lies (mapped); one from a pipe cannot
# be, and its events are kept as read: the same trace either way, threads
# merged alike.
cat rec.data | "$OBJPATCH" report /dev/stdin > rep-pipe.txt
ok $? "report of a pipe: exit 0"
cmp -s rep1.txt rep-pipe.txt
ok $? "report of a pipe: the same text as of the file"
[ $? = 0 ] || diag "$(diff rep1.txt rep-pipe.txt | head -10)"
cat rec.data | "$OBJPATCH" report --format json /dev/stdin | cmp -s rep.json -
ok $? "report of a pipe: the same JSON as of the file"

# ---- a rebuild after the recording ----
cp out out.first
cp rec.data old.data
# Drop the functions from the recording (RAW_FUNCTIONS, type 6): what an
# older recording holds, where the report needs the file as it was.
python3 - rec.data old.data <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
hl = struct.unpack_from("<H", b, 20)[0]	# the header's length (man/objpatch-recording.5)
out, at = [b[:hl]], hl
while at < len(b):
    t, n = struct.unpack_from("<II", b, at)
    if t != 6:
        out.append(b[at:at + 8 + n])
    at += 8 + n
open(sys.argv[2], "wb").write(b"".join(out))
PY
build_prog "$D/out" -DREBUILT || { done_testing; exit 1; }
first=$(nm out.first | awk '$3 == "fails" { print $1 }')
now=$(nm out | awk '$3 == "fails" { print $1 }')
[ -n "$first" ] && [ "$first" != "$now" ] && nm out | grep -q ' greet_renamed$'
ok $? "the rebuild moved fails ($first -> $now) and renamed greet"
"$OBJPATCH" report rec.data > rep2.txt 2> rep2.err
ok $? "report after the rebuild: exit 0"
is "$(cat rep2.err)" "" "report after the rebuild: nothing on standard error"
cmp -s rep1.txt rep2.txt
ok $? "report after the rebuild: the same trace as before it (the recorded names and values)"
[ $? = 0 ] || diag "$(diff rep1.txt rep2.txt | head -10)"
grep -q 'greet_renamed' rep2.txt
ok $((!$?)) "report after the rebuild: no name of the new build"
"$OBJPATCH" report old.data > old.txt 2> old.err
ok $? "a recording without functions, file rebuilt: exit 0 (a warning)"
n=$(wc -l < old.err)
grep -q "^objpatch report: $D/out: not the file recorded (its build ID differs), its functions are shown by address: report before rebuilding, or record again$" old.err && [ "$n" = 1 ]
ok $? "a recording without functions, file rebuilt: one line naming the file, the cause and the fix"
[ $? = 0 ] || diag "$(cat old.err)"
grep -qE 'greet|fails' old.txt
ok $((!$?)) "a recording without functions, file rebuilt: no wrong names"

# ---- the writer's clock across passes (ASan/UBSan) ----
if compile_ok "clock.c (ASan/UBSan)" gcc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -g -I"$TOP" \
	-fsanitize=address,undefined -fno-sanitize-recover=all -o clock "$TOP/testdata/trace/clock.c" \
	"$TOP"/build/obj/layer-{trace,tables,dwarf,elf,arch,util}.a -ldw -lelf; then
	./clock > clock.json 2> clock.err
	ok $? "clock: exit 0, no sanitizer report"
	[ -s clock.err ] && diag "$(head -5 clock.err)"
	out=$(python3 - clock.json <<'PY'
import json, sys
ev = [(e["name"], e["ph"], e["ts"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] != "M"]
# first() 1.0-1.5 us at 1 ns a tick; second() from tick 2000, the rate halved from tick 1600: 1.8 us
want = [("first", "B", 1.0), ("first", "E", 1.5), ("second", "B", 1.8), ("second", "E", 2.05)]
print("ok" if ev == want else "events %r\nwant   %r" % (ev, want))
PY
)
	[ "$out" = ok ]
	ok $? "a second pass at half the rate goes on from the first pass's time (second() at 1.8 us, not 1.0)"
	[ "$out" = ok ] || diag "$out"
fi

done_testing
