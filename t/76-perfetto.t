#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# --format perfetto: Perfetto's own protobuf trace, written by objpatch's
# encoder (trace/perfetto.c), from a live run and from a recording, on
# testdata/runtime/rt_test.c + rt_cxx.cc (every class of return value,
# recursion, longjmp, a signal handler, a C++ exception, 4 threads, fork):
#  - protoc --decode_raw (protobuf-compiler, scripts/deps.sh) reads the
#    whole file: as many top-level packets as our own reader finds;
#  - testdata/runtime/perfetto_trace.py walks the packets: each sequence
#    starts by clearing its state, every track is described before use
#    (threads under their process), every name resolves through the
#    sequence's interning and is sent once, and every SLICE_END closes the
#    last open SLICE_BEGIN of its track; check_trace.py then checks the
#    slices and values against rt_expect.txt as for the other formats;
#  - the return values are typed (int, uint, bool, pointer, double,
#    string annotations all occur), and equal, call by call and thread by
#    thread, what the text format prints for the same recording (also
#    with --errno-names, whose names are errno annotations);
#  - report writes the same bytes to a pipe as to a file, and the traces
#    of a forked program concatenate into one (cat);
#  - a binary trace is refused where it would land on a terminal or in
#    the program's standard error, in one line that names the fix.
# Every machine's runtime writes it too: perfetto is in t/rt-lib.sh's
# FORMATS (t/90, t/95-*: live, and an aarch64 or s390x recording reported
# here).  About 10 s.
. "$(dirname "$0")/rt-lib.sh"

PT=(python3 "$RT/perfetto_trace.py")
dir=$T_TMP/gcc-pg
if ! command -v protoc >/dev/null; then
	ok 1 "protoc is installed (protobuf-compiler: scripts/deps.sh)"
fi
build "gcc pg" "$dir" gcc g++ strip "" || { done_testing; exit 1; }

# protoc_reads LABEL FILE: protoc parses it, and its top-level packets are the reader's.
protoc_reads() {
	local label=$1 f=$2 n want
	if ! protoc --decode_raw < "$f" > "$f.raw" 2> "$f.err"; then
		ok 1 "[$label] protoc --decode_raw reads $(basename "$f")"
		diag "$(head -5 "$f.err")"
		return
	fi
	n=$(grep -c '^1 {' "$f.raw")
	want=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import perfetto_trace as p
print(p.Reader(sys.argv[2]).read().packets)' "$RT" "$f")
	is "$n" "$want" "[$label] protoc --decode_raw reads the whole file: $want packets"
}

# structure LABEL FILE: what the reader checks, plus interning sent once and typed values.
structure() {
	local label=$1 f=$2 out
	if out=$(python3 - "$RT" "$f" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import perfetto_trace as p
r = p.Reader(sys.argv[2]).read()
bad = list(r.errors)
for seq, s in r.sequences.items():
    if s["name_defs"] != len(s["names"]) or len(set(s["names"].values())) != len(s["names"]):
        bad.append("sequence %d: %d names sent for %d iids, %d distinct names"
                   % (seq, s["name_defs"], len(s["names"]), len(set(s["names"].values()))))
threads = {t["tid"] for t in r.tracks.values() if not t["process"]}
used = {e["tid"] for e in r.events if e["ph"] in "BE"}
if used - threads:
    bad.append("events of threads with no track: %s" % sorted(used - threads))
missing = {"int", "uint", "bool", "pointer", "double", "string"} - set(r.kinds)
if missing:
    bad.append("no %s annotation (kinds seen: %s)" % (", ".join(sorted(missing)), r.kinds))
print("%d packets, %d slices, %d threads, %d names" % (r.packets, sum(e["ph"] == "B" for e in r.events),
      len(threads), sum(len(s["names"]) for s in r.sequences.values())))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
	); then
		ok 0 "[$label] packets well-formed, names interned once, every thread described, values typed: $out"
	else
		ok 1 "[$label] packets well-formed, names interned once, every thread described, values typed"
		diag "$(head -20 <<< "$out")"
	fi
}

# same_values LABEL TEXT PERFETTO MIN: thread by thread, every closing's function and value
# alike, and at least MIN values compared.
same_values() {
	local label=$1 out
	if out=$(python3 - "$RT" "$2" "$3" "$4" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[1])
import perfetto_trace as p
text = {}
for line in open(sys.argv[2], encoding="utf-8"):
    if line.startswith("#") or "|  " not in line:
        continue
    tid = int(line.split(")")[0])
    body = line[line.index("|  ") + 3:].rstrip("\n").lstrip(" ")
    m = (re.match(r"^(.*)\(\); /\* (?:ret=(.*)|(unwound|unfinished|lost)) \*/$", body) or
         re.match(r"^\} /\* (.*?) (?:ret=(.*)|(unwound|unfinished|lost)) \*/$", body) or
         re.match(r"^(.*)\(\);()()$", body) or re.match(r"^\} /\* (.*) \*/()()$", body))
    if m:
        text.setdefault(tid, []).append((m.group(1), m.group(2) or m.group(3) or None))
pf = {}
for e in p.Reader(sys.argv[3]).read().events:
    if e["ph"] == "E":
        a = e.get("args", {})
        why = [k for k in a if k in ("unwound", "unfinished", "lost")]
        pf.setdefault(e["tid"], []).append((e["name"], a.get("ret") or (why[0] if why else None)))
bad = []
for tid in sorted(set(text) | set(pf)):
    t, q = text.get(tid, []), pf.get(tid, [])
    for i, (a, b) in enumerate(zip(t, q)):
        if a != b:
            bad.append("tid %d, closing %d: text %s, perfetto %s" % (tid, i + 1, a, b))
            break
    if len(t) != len(q):
        bad.append("tid %d: %d closings in text, %d in perfetto" % (tid, len(t), len(q)))
n = sum(len(v) for v in text.values())
vals = sum(1 for v in text.values() for c in v if c[1])
print("%d closings in %d threads, %d with a value" % (n, len(text), vals))
for b in bad:
    print(b)
sys.exit(1 if bad or vals < int(sys.argv[4]) else 0)
PY
	); then
		ok 0 "[$label] the same functions and values as the text trace, thread by thread: $out"
	else
		ok 1 "[$label] the same functions and values as the text trace, thread by thread"
		diag "$(head -20 <<< "$out")"
	fi
}

# ---- live
live=$dir/live.perfetto-trace
rm -f "$dir"/live*
timeout 60 "$OBJPATCH" run --format perfetto --output "$live" -- "$dir/prog" > "$dir/out" 2> "$dir/err"
program_ok "[live] objpatch run --format perfetto: exit 0, the program's checks pass" $? "$dir/out"
check_trace live perfetto "$RT/rt_expect.txt" "$live" --require-fork --require-threads 4
protoc_reads live "$live"
structure live "$live"

# ---- a recording, reported as text and as perfetto
rm -f "$dir"/rec*.data "$dir"/rep*
timeout 60 "$OBJPATCH" record --output "$dir/rec.data" -- "$dir/prog" > "$dir/out" 2> "$dir/err"
program_ok "[record] objpatch record: exit 0, the program's checks pass" $? "$dir/out"
for f in "$dir"/rec*.data; do
	pid=${f#"$dir/rec"}
	"$OBJPATCH" report --format perfetto --output "$dir/rep${pid%.data}.perfetto-trace" "$f"
	"$OBJPATCH" report --format text --output "$dir/rep${pid%.data}.text" "$f"
done
check_trace report perfetto "$RT/rt_expect.txt" "$dir/rep.perfetto-trace" --require-fork --require-threads 4
protoc_reads report "$dir/rep.perfetto-trace"
structure report "$dir/rep.perfetto-trace"
same_values report "$dir/rep.text" "$dir/rep.perfetto-trace" 200
# --errno-names: the name rides beside the number, as an errno annotation.
"$OBJPATCH" report --errno-names --format perfetto --output "$dir/errno.perfetto-trace" "$dir/rec.data"
"$OBJPATCH" report --errno-names --format text --output "$dir/errno.text" "$dir/rec.data"
grep -q 'ret=-22 (EINVAL)' "$dir/errno.text"
ok $? "[report --errno-names] the text trace names errno values (ret=-22 (EINVAL))"
same_values "report --errno-names" "$dir/errno.text" "$dir/errno.perfetto-trace" 200
child=$(find "$dir" -name 'rep.*.text' | head -1)
if [ -n "$child" ]; then
	same_values "report, forked child" "$child" "${child%.text}.perfetto-trace" 1
else
	ok 1 "[report] the forked child's recording was reported (rec.PID.data)"
fi
# The parent's and the child's files concatenated: one trace, two sequences, no clash.
if [ -n "$child" ]; then
	cat "$dir/rep.perfetto-trace" "${child%.text}.perfetto-trace" > "$dir/both.perfetto-trace"
	n=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import perfetto_trace as p
r = p.Reader(sys.argv[2]).read()
print(len(r.sequences) if not r.errors else "; ".join(r.errors[:3]))' "$RT" "$dir/both.perfetto-trace")
	is "$n" 2 "[report] the parent's and the child's traces concatenated: one well-formed trace of 2 sequences"
fi
"$OBJPATCH" report --format perfetto "$dir/rec.data" | cmp -s - "$dir/rep.perfetto-trace"
ok $? "[report] to a pipe: the same bytes as to --output"

# ---- a binary trace where it would garble: one line, the fix, status 2, nothing written
rm -f "$dir"/none*
(cd "$dir" && "$OBJPATCH" run --format perfetto -- ./prog > /dev/null 2> err.run)
st=$?
[ "$st" = 2 ] && [ "$(wc -l < "$dir/err.run")" = 1 ] && grep -q -- '--output' "$dir/err.run"
ok $? "objpatch run --format perfetto without --output: status 2 ($st), one line asking for --output"
diag "$(cat "$dir/err.run")"
OBJPATCH_FORMAT=perfetto LD_PRELOAD=$TOP/build/libobjpatch.so "$dir/prog" > /dev/null 2> "$dir/err.env"
st=$?
[ "$st" = 2 ] && [ "$(wc -l < "$dir/err.env")" = 1 ] && grep -q 'OBJPATCH_OUTPUT' "$dir/err.env"
ok $? "OBJPATCH_FORMAT=perfetto without OBJPATCH_OUTPUT: status 2 ($st) before main, one line asking for it"
diag "$(cat "$dir/err.env")"
if command -v script >/dev/null; then
	script -qec "'$OBJPATCH' report --format perfetto '$dir/rec.data' 2> '$dir/err.tty'" /dev/null > "$dir/out.tty"
	st=$?
	[ "$st" = 2 ] && [ "$(wc -l < "$dir/err.tty")" = 1 ] && grep -q -- '--output' "$dir/err.tty" &&
		! grep -q '[^[:print:][:space:]]' "$dir/out.tty"
	ok $? "objpatch report --format perfetto to a terminal: status 2 ($st), one line, no binary on it"
	diag "$(cat "$dir/err.tty")"
else
	skip "script (util-linux) is not installed: no terminal to report to"
fi

done_testing
