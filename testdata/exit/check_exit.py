#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check what a trace holds when its process exited while threads ran
(t/93-exit-threads.t): a text or JSON trace of the objpatch runtime or of
`objpatch report`.

  check_exit.py --format text|json [--threads N] [--span-us US] TRACE

Checked, for every thread: its frames nest (a closing line or E event
closes the frame it opened, children within their parent: in text, their
durations add up to at most the parent's; in JSON, a thread's events never
go back in time and no E comes before its B); B and E balance; every
duration is at most US (an upper bound of the run, measured by the
caller) and, in JSON, at most the trace's span; once a thread's frames
close as `unfinished` nothing else of that thread follows, and all its
frames close; no frame is `lost`.  Across threads: at least N of them were
cut by the exit (have unfinished frames), and in JSON all unfinished frames
close at one instant, which no event of any thread comes after.

Prints one line "events=E threads=T cut=C end_us=END" (END: JSON only) and
exits 0, or prints the problems (at most 10) and exits 1.
"""
import argparse
import json
import re
import sys

MAX_PROBLEMS = 10
# "  4242) +   12.345 us  |    name() {": tid, an optional mark and duration, "|  ", body.
TEXT_LINE = re.compile(r"^ *(\d+)\) +(?:[+!#*@$] *)?(?:(\d+)\.(\d{3}) us +)?\|  (.*)$")
OPEN = re.compile(r"^(\S+)\(\) \{$")
LEAF = re.compile(r"^(\S+)\(\);(?: /\* (.*) \*/)?$")
CLOSE = re.compile(r"^\} /\* (\S+)(?: (.*))? \*/$")


class Problems:
    def __init__(self):
        self.list = []

    def add(self, msg):
        self.list.append(msg)


class Thread:
    def __init__(self):
        self.stack = []         # text: [name, children's ns, children]; json: [name, ts]
        self.cut = False        # an unfinished frame closed: only such closes may follow
        self.last_ts = None


def check_text(path, span_ns, p):
    threads = {}
    events = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#") or not line:
                continue
            m = TEXT_LINE.match(line)
            if not m:
                p.add("%d: not a trace line: %s" % (no, line))
                continue
            events += 1
            tid, whole, frac, body = m.groups()
            t = threads.setdefault(tid, Thread())
            ns = int(whole) * 1000 + int(frac) if whole is not None else None
            depth = (len(body) - len(body.lstrip(" "))) // 2
            body = body.lstrip(" ")
            # A closing line stands at its frame's depth, anything else one deeper.
            want = len(t.stack) - 1 if body.startswith("}") else len(t.stack)
            if depth != want:
                p.add("%d: thread %s at depth %d, but %d frames are open: %s" % (no, tid, depth, len(t.stack), line))
            if ns is not None and ns > span_ns:
                p.add("%d: %.3f us is longer than the whole run (%.3f us): %s" %
                      (no, ns / 1000, span_ns / 1000, line))
            text_event(no, line, tid, t, ns, body, p)
    return threads, events, None


def text_event(no, line, tid, t, ns, body, p):
    o, leaf, close = OPEN.match(body), LEAF.match(body), CLOSE.match(body)
    why = (leaf.group(2) if leaf else close.group(2) if close else None) or ""
    if "lost" in why.split() or (close and close.group(1) == "?"):
        p.add("%d: a lost frame: %s" % (no, line))
    unfinished = why == "unfinished"
    if t.cut and not unfinished:
        p.add("%d: thread %s goes on after its frames closed as unfinished: %s" % (no, tid, line))
    t.cut = t.cut or unfinished
    if o:
        t.stack.append([o.group(1), 0, 0])
    elif leaf or close:
        if ns is None:
            p.add("%d: no duration: %s" % (no, line))
            ns = 0
        if close:
            if not t.stack:
                p.add("%d: thread %s closes a frame it never opened: %s" % (no, tid, line))
                return
            name, inner, n = t.stack.pop()
            if name != close.group(1):
                p.add("%d: thread %s closes %s but %s is open" % (no, tid, close.group(1), name))
            # Each duration is rounded to the nanosecond: n + 1 of them here.
            if inner > ns + n + 1:
                p.add("%d: %s lasts %.3f us but its callees %.3f us" % (no, name, ns / 1000, inner / 1000))
        if t.stack:
            t.stack[-1][1] += ns
            t.stack[-1][2] += 1
    else:
        p.add("%d: not an opening, a call or a closing: %s" % (no, line))


def check_json(path, span_ns, p):
    threads = {}
    events = 0
    ends = set()
    first = None
    last = None
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    for i, e in enumerate(doc["traceEvents"]):
        if e.get("ph") not in ("B", "E"):
            continue
        events += 1
        tid, ts, name = e["tid"], e["ts"], e["name"]
        first = ts if first is None else min(first, ts)
        last = ts if last is None else max(last, ts)
        t = threads.setdefault(tid, Thread())
        where = "event %d (%s %s of thread %s at %.3f)" % (i, e["ph"], name, tid, ts)
        if t.last_ts is not None and ts < t.last_ts:
            p.add("%s: before the thread's previous event (%.3f)" % (where, t.last_ts))
        t.last_ts = ts
        args = e.get("args", {})
        if args.get("lost"):
            p.add("%s: lost" % where)
        unfinished = bool(args.get("unfinished"))
        if t.cut and not unfinished:
            p.add("%s: after the thread's frames closed as unfinished" % where)
        t.cut = t.cut or unfinished
        if unfinished:
            ends.add(ts)
        if e["ph"] == "B":
            t.stack.append([name, ts])
            continue
        if not t.stack:
            p.add("%s: E without its B" % where)
            continue
        bname, bts = t.stack.pop()
        if bname != name:
            p.add("%s: closes %s" % (where, bname))
        if ts < bts:
            p.add("%s: before its B at %.3f" % (where, bts))
        if (ts - bts) * 1000 > span_ns:
            p.add("%s: lasts %.3f us, longer than the whole run" % (where, ts - bts))
    if len(ends) > 1:
        p.add("unfinished frames close at %d different instants: %s" %
              (len(ends), ", ".join("%.3f" % x for x in sorted(ends)[:5])))
    end = max(ends) if ends else None
    if end is not None and last is not None and last > end:
        p.add("an event at %.3f comes after the exit instant %.3f" % (last, end))
    return threads, events, end


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=("text", "json"), required=True)
    ap.add_argument("--threads", type=int, default=1, help="at least this many threads cut by the exit")
    ap.add_argument("--span-us", type=float, default=float("inf"), help="an upper bound of any duration")
    ap.add_argument("trace")
    a = ap.parse_args()
    p = Problems()
    span_ns = a.span_us * 1000
    try:
        check = check_text if a.format == "text" else check_json
        threads, events, end = check(a.trace, span_ns, p)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("%s: unreadable as %s: %s" % (a.trace, a.format, e))
        return 1
    for tid, t in sorted(threads.items()):
        if t.stack:
            p.add("thread %s ends with %d frames open (%s)" % (tid, len(t.stack), t.stack[-1][0]))
    cut = sum(1 for t in threads.values() if t.cut)
    if cut < a.threads:
        p.add("%d threads have unfinished frames, expected at least %d" % (cut, a.threads))
    if not events:
        p.add("no events")
    if p.list:
        for msg in p.list[:MAX_PROBLEMS]:
            print("%s: %s" % (a.trace, msg))
        if len(p.list) > MAX_PROBLEMS:
            print("... and %d more" % (len(p.list) - MAX_PROBLEMS))
        return 1
    print("events=%d threads=%d cut=%d end_us=%s" % (events, len(threads), cut,
                                                    "%.3f" % end if end is not None else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
