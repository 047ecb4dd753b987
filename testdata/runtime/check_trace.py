#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check a trace written by the objpatch runtime (its text, JSON, folded or
perfetto format) against hand-written expectations: EXPECT's syntax is described at
the top of testdata/runtime/rt_expect.txt.

  check_trace.py --format text|json|folded|perfetto --expect EXPECT TRACE
                 [--require-threads N] [--require-fork]

TRACE is the traced process's file; files beside it named with a pid
before TRACE's extension (t.json: t.<pid>.json) are the traces of forked children and are checked too.  Prints TAP: one "ok" or
"not ok" line per check with "# ..." details, "1..N" at the end; exits 1
when a check failed, 2 on bad usage or an unreadable expectation file.
"""
import argparse
import json
import os
import re
import sys

import perfetto_trace

MAX_DETAILS = 8     # diagnostics shown per failed check
# A runaway trace would take minutes and gigabytes to check: refused beyond this.
MAX_BYTES = 200 << 20


class Frame:
    """One call: `status` is ret, void, unwound, unfinished or inherited
    (a frame the process had when its trace began: a forked child's)."""

    __slots__ = ("name", "tid", "parent", "children", "status", "value", "where")

    def __init__(self, name, tid, parent, where):
        self.name = name
        self.tid = tid
        self.parent = parent
        self.children = []
        self.status = None
        self.value = None
        self.where = where      # "FILE:LINE" of its first event


class Trace:
    """What one file says: its frames (text, json) or stacks (folded)."""

    def __init__(self, path, child_pid):
        self.path = path
        self.child_pid = child_pid  # None: the traced process itself
        self.frames = []
        self.stacks = {}            # folded: tuple(names) -> value
        self.errors = []
        self.events = 0
        self.unreadable = False

    def error(self, line, msg):
        self.errors.append("%s:%s: %s" % (os.path.basename(self.path), line, msg))

    def names(self):
        if self.stacks:
            return {n for st in self.stacks for n in st}
        return {f.name for f in self.frames if f.name is not None}


# ---------------------------------------------------------------- expectations

class Expect:
    def __init__(self):
        self.values = {}        # name -> ("value", text) | ("void",) | ("unwound",) | ("regex", re)
        self.fib = []           # (name, n)
        self.parent = []        # (child, parent)
        self.root = []
        self.count = []         # (name, n)
        self.thread = None
        self.fork_only = []
        self.fork_inherited = []


def read_expect(path):
    e = Expect()
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("@"):
                word = line.split()
                d, args = word[0], word[1:]
                if d == "@fib" and len(args) == 2:
                    e.fib.append((args[0], int(args[1])))
                elif d == "@parent" and len(args) == 2:
                    e.parent.append((args[0], args[1]))
                elif d == "@root" and len(args) == 1:
                    e.root.append(args[0])
                elif d == "@count" and len(args) == 2:
                    e.count.append((args[0], int(args[1])))
                elif d == "@thread" and len(args) == 1:
                    e.thread = args[0]
                elif d == "@fork-only" and args:
                    e.fork_only += args
                elif d == "@fork-inherited" and args:
                    e.fork_inherited += args
                else:
                    raise ValueError("%s:%d: bad directive: %s" % (path, no, line))
                continue
            name, sep, value = line.partition(" ")
            if not sep or not value:
                raise ValueError("%s:%d: expected NAME VALUE: %s" % (path, no, line))
            if name in e.values:
                raise ValueError("%s:%d: %s twice" % (path, no, name))
            if value == "-":
                e.values[name] = ("void",)
            elif value == "unwound":
                e.values[name] = ("unwound",)
            elif value.startswith("~"):
                e.values[name] = ("regex", re.compile(value[1:]))
            else:
                e.values[name] = ("value", value)
    return e


# ---------------------------------------------------------------- text

# "   4242)    0.412 us   |    name() {": TID, an optional mark and duration, "|  ", 2 spaces a level.
# A duration too wide for its column may push the mark against it.
TEXT_LINE = re.compile(r"^ *(\d+)\) +(?:([+!#*@$]) *)?(?:(\d+\.\d{3}) us +)?\|  (.*)$")
OPEN = re.compile(r"^(.+)\(\) \{$")
LEAF = re.compile(r"^(.+)\(\);(?: /\* (ret=.*|unwound) \*/)?$")
CLOSE = re.compile(r"^\} /\* (.*) \*/$")
HEADER = re.compile(r"^# objpatch function graph, pid (\d+)$")
# The kernel's marks: + >10 us, ! >100 us, # >1 ms, * >10 ms, @ >100 ms, $ >1 s,
# decided on whole nanoseconds, which the three decimals print exactly: the
# mark follows from the printed duration, at every boundary.
MARKS = [(10**9, "$"), (10**8, "@"), (10**7, "*"), (10**6, "#"), (10**5, "!"), (10**4, "+")]


def duration_ns(text):
    whole, frac = text.split(".")
    return int(whole) * 1000 + int(frac)


def mark_for(ns):
    for limit, m in MARKS:
        if ns > limit:
            return m
    return None


class ThreadState:
    def __init__(self):
        self.stack = []         # open frames
        self.last_open = None   # the frame opened by this thread's previous event, if it was an opening
        self.seen = False


def close_status(frame, rest, tr, no):
    """Parse what follows '} /* ' for `frame`; sets status and value."""
    if frame.name is None:      # an inherited frame: its name comes with the closing
        m = re.match(r"^(.*?)(?: ret=(.*)| (unwound|unfinished|lost))?$", rest)
        frame.name = m.group(1)
        rest = rest[len(frame.name):]
    elif not rest.startswith(frame.name):
        tr.error(no, "closes %r, but the open frame is %s (%s)" % (rest, frame.name, frame.where))
        return False
    else:
        rest = rest[len(frame.name):]
    if rest == "":
        frame.status = "void"
    elif rest.startswith(" ret="):
        frame.status, frame.value = "ret", rest[5:]
    elif rest in (" unwound", " unfinished", " lost"):
        frame.status = rest[1:]     # lost: its exit event was dropped (buffers full)
    else:
        tr.error(no, "closing of %s: %r is neither ret=, unwound, unfinished nor lost" % (frame.name, rest))
        return False
    return True


def check_duration(tr, no, mark, dur, need):
    if dur is None:
        if mark:
            tr.error(no, "duration mark %r without a duration" % mark)
        elif need:
            tr.error(no, "no duration on a return")
        return
    want = mark_for(duration_ns(dur))
    if mark != want:
        tr.error(no, "%s us marked %r, the kernel's rule says %r" % (dur, mark or "", want or ""))


def parse_text(tr, lines):
    threads = {}
    pid = None
    for no, line in enumerate(lines, 1):
        if line.startswith("#"):
            m = HEADER.match(line)
            if m:
                if pid is not None and m.group(1) != pid:
                    tr.error(no, "header says pid %s, earlier %s" % (m.group(1), pid))
                pid = m.group(1)
            elif no == 1:
                tr.error(no, "the first line is not the header '# objpatch function graph, pid N'")
            continue
        if no == 1:
            tr.error(no, "the first line is not the header '# objpatch function graph, pid N'")
        m = TEXT_LINE.match(line)
        if not m:
            tr.error(no, "not a trace line: %r" % line)
            continue
        tid, mark, dur, body = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        indent = len(body) - len(body.lstrip(" "))
        body = body[indent:]
        if indent % 2:
            tr.error(no, "odd indentation %d" % indent)
            continue
        level = indent // 2
        tr.events += 1
        th = threads.setdefault(tid, ThreadState())
        if not th.seen:
            th.seen = True
            # A forked child inherits its parent's frames; nothing else starts deeper.
            if level and tr.child_pid is not None:
                th.stack = [Frame(None, tid, None, "inherited") for _ in range(level)]
                for i, f in enumerate(th.stack):
                    f.parent = th.stack[i - 1] if i else None
                    f.status = "inherited"
                tr.frames += th.stack
        where = "%s:%d" % (os.path.basename(tr.path), no)
        parent = th.stack[-1] if th.stack else None
        mo, ml, mc = OPEN.match(body), LEAF.match(body), CLOSE.match(body)
        if mc:
            if not th.stack:
                if tr.child_pid is None:
                    tr.error(no, "a closing with no open frame in thread %d" % tid)
                    continue
                f = Frame(None, tid, None, where)     # a child's inherited frame never shown open
                f.status = "inherited"
                tr.frames.append(f)
                th.stack.append(f)
                level_ok = True
            else:
                level_ok = level == len(th.stack) - 1
            f = th.stack.pop()
            if not level_ok:
                tr.error(no, "closing of %s at level %d, opened at level %d" % (f.name, level, len(th.stack)))
            if close_status(f, mc.group(1), tr, no):
                check_duration(tr, no, mark, dur, f.status in ("ret", "void"))
                if th.last_open is f and f.status in ("ret", "void"):
                    tr.error(no, "%s has no events inside: a leaf must be one line" % f.name)
            th.last_open = None
            continue
        if level != len(th.stack):
            tr.error(no, "event at level %d in thread %d, which is %d frames deep" % (level, tid, len(th.stack)))
        if mo:
            f = Frame(mo.group(1), tid, parent, where)
            if dur or mark:
                tr.error(no, "an opening line has a duration")
            th.stack.append(f)
            th.last_open = f
        elif ml:
            f = Frame(ml.group(1), tid, parent, where)
            c = ml.group(2)
            if c is None:
                f.status = "void"
            elif c == "unwound":
                f.status = "unwound"
            else:
                f.status, f.value = "ret", c[4:]
            check_duration(tr, no, mark, dur, f.status != "unwound")
            th.last_open = None
        else:
            tr.error(no, "neither NAME() {, NAME(); nor } /* ... */: %r" % body)
            continue
        tr.frames.append(f)
        if parent:
            parent.children.append(f)
    for tid, th in threads.items():
        for f in th.stack:
            if f.status != "inherited":     # a child may leave its parent's frames alone
                tr.error("EOF", "thread %d: %s (%s) never closed" % (tid, f.name, f.where))
    if pid is None:
        tr.error(1, "no header line")
    elif tr.child_pid is not None and int(pid) != tr.child_pid:
        tr.error(1, "a child's file for pid %d says pid %s" % (tr.child_pid, pid))


# ---------------------------------------------------------------- json

def parse_json(tr, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        tr.error(getattr(e, "lineno", "?"), "not valid JSON: %s" % e)
        return
    lines = text.rstrip("\n").split("\n")
    # Chrome's format allows more top-level keys ("otherData") after the events.
    if lines[0] != '{"traceEvents":[' or not re.match(r'^\],"displayTimeUnit":"ns"(,.*)?\}$', lines[-1]):
        tr.error(1, "not framed as {\"traceEvents\":[ ... ],\"displayTimeUnit\":\"ns\"} on lines of their own")
    for no, line in enumerate(lines[1:-1], 2):
        try:
            ev = json.loads(line[:-1] if line.endswith(",") else line)
            if not isinstance(ev, dict):
                raise ValueError
        except ValueError:
            tr.error(no, "not one event on this line: %r" % line[:100])
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        tr.error(1, "no traceEvents list")
        return
    if doc.get("displayTimeUnit") != "ns":
        tr.error(1, "displayTimeUnit is not \"ns\"")
    json_events(tr, doc["traceEvents"], 2)


def json_events(tr, events, first_no):
    """Chrome JSON events (from JSON, or perfetto_trace.py's from a perfetto trace) as frames."""
    threads = {}
    pids = set()
    for i, ev in enumerate(events):
        no = i + first_no       # JSON: one event a line after the opening line; perfetto: packets
        if not isinstance(ev, dict):
            tr.error(no, "not an object")
            continue
        ph, name, ts, pid, tid = ev.get("ph"), ev.get("name"), ev.get("ts"), ev.get("pid"), ev.get("tid")
        if ph in ("M", "i"):
            continue    # metadata (thread names), notes: harmless
        if ph not in ("B", "E"):
            tr.error(no, "ph %r is neither B nor E" % ph)
            continue
        if not isinstance(name, str) or not name:
            tr.error(no, "no name")
            continue
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0:
            tr.error(no, "bad ts %r" % ts)
            continue
        if not isinstance(pid, int) or not isinstance(tid, int):
            tr.error(no, "pid/tid not integers")
            continue
        pids.add(pid)
        tr.events += 1
        th = threads.setdefault(tid, {"stack": [], "ts": None})
        if th["ts"] is not None and ts < th["ts"]:
            tr.error(no, "tid %d: ts %s before the previous event's %s" % (tid, ts, th["ts"]))
        th["ts"] = ts
        stack = th["stack"]
        args = ev.get("args")
        if ph == "B":
            if args not in (None, {}):
                tr.error(no, "a B event with args %r" % args)
            f = Frame(name, tid, stack[-1] if stack else None, "%s:%d" % (os.path.basename(tr.path), no))
            if stack:
                stack[-1].children.append(f)
            stack.append(f)
            tr.frames.append(f)
            continue
        if not stack:
            if tr.child_pid is None:
                tr.error(no, "tid %d: E for %s without a B" % (tid, name))
                continue
            f = Frame(name, tid, None, "inherited")
            tr.frames.append(f)
        else:
            f = stack.pop()
            if f.name != name:
                tr.error(no, "tid %d: E for %s closes %s (%s)" % (tid, name, f.name, f.where))
        if args is None or args == {}:
            f.status = "void"
        elif args == {"unwound": True}:
            f.status = "unwound"
        elif args == {"unfinished": True}:
            f.status = "unfinished"
        elif args == {"lost": True}:
            f.status = "lost"
        elif isinstance(args, dict) and set(args) == {"ret"} and isinstance(args["ret"], str):
            f.status, f.value = "ret", args["ret"]
        else:
            tr.error(no, "E args %r: neither {\"ret\": TEXT}, {\"unwound\": true} nor none" % args)
    for tid, th in threads.items():
        for f in th["stack"]:
            if tr.child_pid is None:
                tr.error("EOF", "tid %d: B of %s (%s) has no E" % (tid, f.name, f.where))
            else:
                f.status = "unfinished"     # a child exits inside its inherited frames
    if len(pids) > 1:
        tr.error("-", "events of several pids: %s" % sorted(pids))
    if tr.child_pid is not None and pids and pids != {tr.child_pid}:
        tr.error("-", "a child's file for pid %d has events of pid %s" % (tr.child_pid, sorted(pids)))


# ---------------------------------------------------------------- perfetto

def parse_perfetto(tr):
    r = perfetto_trace.Reader(tr.path).read()
    tr.errors += r.errors
    if not r.packets:
        tr.error("-", "no packets")
    json_events(tr, r.events, 1)


# ---------------------------------------------------------------- folded

FOLDED_LINE = re.compile(r"^(.+) (\d+)$")


def parse_folded(tr, lines):
    for no, line in enumerate(lines, 1):
        m = FOLDED_LINE.match(line)
        if not m:
            tr.error(no, "not 'STACK VALUE': %r" % line)
            continue
        stack = tuple(m.group(1).split(";"))
        if any(not s or s != s.strip() for s in stack):
            tr.error(no, "an empty or padded frame name in %r" % m.group(1))
            continue
        if stack in tr.stacks:
            tr.error(no, "stack %s appears twice (distinct stacks, one line each)" % m.group(1))
        tr.stacks[stack] = int(m.group(2))
        tr.events += 1
    if not tr.stacks:
        tr.error("-", "no stacks")


# ---------------------------------------------------------------- checks

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, good, desc, details=()):
        self.n += 1
        print("%s %d - %s" % ("ok" if good else "not ok", self.n, desc))
        if not good:
            self.failed += 1
            details = list(details)
            for d in details[:MAX_DETAILS]:
                print("# " + d)
            if len(details) > MAX_DETAILS:
                print("# ... and %d more" % (len(details) - MAX_DETAILS))

    def skip(self, desc):
        self.n += 1
        print("ok %d # SKIP %s" % (self.n, desc))


def shown(f):
    if f.status == "ret":
        return "ret=" + f.value
    return f.status or "no valid closing"


def check_values(tap, traces, exp):
    for name, want in exp.values.items():
        frames = [f for t in traces for f in t.frames if f.name == name]
        done = [f for f in frames if f.status not in ("unfinished", "inherited", "lost")]
        bad = []
        for f in done:
            if want[0] == "void":
                good = f.status == "void"
            elif want[0] == "unwound":
                good = f.status == "unwound"
            elif want[0] == "regex":
                good = f.status == "ret" and want[1].search(f.value) is not None
            else:
                good = f.status == "ret" and f.value == want[1]
            if not good:
                bad.append("%s: %s" % (f.where, shown(f)))
        if want[0] == "void":
            desc = "%s: returns with no value (void)" % name
        elif want[0] == "unwound":
            desc = "%s: every frame unwound" % name
        elif want[0] == "regex":
            desc = "%s: every return matches /%s/" % (name, want[1].pattern)
        else:
            desc = "%s: every return is ret=%s" % (name, want[1])
        if not done:
            tap.result(False, desc, ["%s never %s" % (name, "appears" if not frames else "completes")])
        else:
            tap.result(not bad, "%s (%d)" % (desc, len(done)), ["%d of %d differ:" % (len(bad), len(done))] + bad)


def check_names_folded(tap, traces, exp):
    seen = set().union(*(t.names() for t in traces))
    for name in exp.values:
        tap.result(name in seen, "%s appears in a stack" % name)


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def nest_depth(f):
    """How many frames of f's name are nested in a row from f down."""
    best = 0
    todo = [(f, 1)]
    while todo:
        g, d = todo.pop()
        best = max(best, d)
        todo += [(c, d + 1) for c in g.children if c.name == f.name]
    return best


def to_int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def check_fib(tap, traces, exp, folded):
    for name, n in exp.fib:
        if folded:
            deepest = 0
            for t in traces:
                for st in t.stacks:
                    run = 0
                    for s in st:
                        run = run + 1 if s == name else 0
                        deepest = max(deepest, run)
            tap.result(deepest == n, "%s: recursion %d deep" % (name, n), ["deepest: %d" % deepest])
            continue
        frames = [f for t in traces for f in t.frames if f.name == name]
        tops = [f for f in frames if not (f.parent and f.parent.name == name)]
        bad = []
        for f in frames:
            kids = [c for c in f.children if c.name == name]
            v = to_int(f.value) if f.status == "ret" else None
            if v is None:
                bad.append("%s: %s" % (f.where, shown(f)))
            elif kids and any(to_int(c.value) is None for c in kids):
                continue        # reported with the child
            elif kids and v != sum(to_int(c.value) for c in kids):
                bad.append("%s: ret=%d, its calls returned %s" % (f.where, v, [c.value for c in kids]))
            elif not kids and v not in (0, 1):
                bad.append("%s: ret=%d without recursing" % (f.where, v))
        for f in tops:
            if f.status == "ret" and to_int(f.value) != fib(n):
                bad.append("%s: the outermost call returns %s, fib(%d) is %d" % (f.where, f.value, n, fib(n)))
        depths = [nest_depth(f) for f in tops]
        if depths != [n] * len(tops) or not tops:
            bad.append("recursion depths %s, expected %d" % (depths, n))
        calls = 2 * fib(n + 1) - 1
        if len(frames) != calls * len(tops) or not tops:
            bad.append("%d frames for %d outermost calls, expected %d each" % (len(frames), len(tops), calls))
        tap.result(not bad, "%s: fib(%d) = %d, %d calls, %d deep" % (name, n, fib(n), calls, n), bad)


def check_parents(tap, traces, exp, folded):
    for child, parent in exp.parent:
        bad, n = [], 0
        if folded:
            for t in traces:
                for st in t.stacks:
                    for i, s in enumerate(st):
                        if s == child:
                            n += 1
                            if i == 0 or st[i - 1] != parent:
                                bad.append("%s: %s" % (os.path.basename(t.path), ";".join(st)))
        else:
            for t in traces:
                for f in t.frames:
                    if f.name == child:
                        n += 1
                        if f.parent is None or (f.parent.name != parent and f.parent.status != "inherited"):
                            bad.append("%s: called by %s" % (f.where, f.parent.name if f.parent else "nothing"))
        tap.result(n and not bad, "%s is called by %s (%d)" % (child, parent, n), bad or ["%s never appears" % child])


def check_roots(tap, traces, exp, folded):
    for name in exp.root:
        bad, n = [], 0
        for t in traces:
            if folded:
                for st in t.stacks:
                    if name in st:
                        n += 1
                        if st[0] != name:
                            bad.append("%s: %s" % (os.path.basename(t.path), ";".join(st)))
            else:
                for f in t.frames:
                    if f.name == name:
                        n += 1
                        if f.parent is not None:
                            bad.append("%s: called by %s" % (f.where, f.parent.name))
        tap.result(n and not bad, "%s starts its thread (%d)" % (name, n), bad or ["%s never appears" % name])


def check_counts(tap, traces, exp, folded):
    for name, want in exp.count:
        if folded:
            tap.skip("%s called %d times: folded stacks hold no call counts" % (name, want))
            continue
        got = sum(1 for t in traces for f in t.frames if f.name == name)
        tap.result(got == want, "%s is called %d times" % (name, want), ["got %d" % got])


def check_threads(tap, traces, exp, need, folded):
    if need is None:
        return
    if not exp.thread:
        tap.result(False, "--require-threads: the expectations name no @thread function")
        return
    if folded:
        tap.skip("%d threads call %s: folded stacks merge the threads" % (need, exp.thread))
        return
    tids = {f.tid for t in traces if t.child_pid is None for f in t.frames if f.name == exp.thread}
    tap.result(len(tids) >= need, "at least %d threads call %s" % (need, exp.thread),
               ["threads: %s" % sorted(tids)])


def check_fork(tap, main, children, exp):
    if not children:
        tap.result(False, "--require-fork: a child's trace (%s with .<pid> before its extension) exists" % main.path,
                   ["no file %s.<pid>" % main.path])
        return
    tap.result(True, "--require-fork: %d child trace(s)" % len(children))
    child_names = set().union(*(c.names() for c in children))
    missing = [n for n in exp.fork_only if n not in child_names]
    tap.result(not missing, "the child's trace holds %s" % ", ".join(exp.fork_only),
               ["missing: %s" % ", ".join(missing)])
    leaked = sorted(n for n in exp.fork_only if n in main.names())
    tap.result(not leaked, "the parent's trace holds none of the child's calls", ["found: %s" % ", ".join(leaked)])
    allowed = set(exp.fork_only) | set(exp.fork_inherited)
    extra = sorted(child_names - allowed)
    tap.result(not extra, "the child's trace holds nothing from before the fork",
               ["not called by the child: %s" % ", ".join(extra)])


def load(path, fmt, child_pid):
    tr = Trace(path, child_pid)
    if fmt == "perfetto":
        parse_perfetto(tr)
        tr.unreadable = not tr.events
        return tr
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            tr.error("-", "%d bytes: more than the %d this checker reads" % (size, MAX_BYTES))
            tr.unreadable = True
            return tr
        with open(path, encoding="utf-8", errors="strict") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        tr.error("-", "cannot read: %s" % e)
        tr.unreadable = True
        return tr
    if not text:
        tr.error("-", "empty")
        tr.unreadable = True
        return tr
    if not text.endswith("\n"):
        tr.error("EOF", "the last line has no newline (cut short?)")
    if fmt == "text":
        parse_text(tr, text.rstrip("\n").split("\n"))
    elif fmt == "json":
        parse_json(tr, text)
    else:
        parse_folded(tr, text.rstrip("\n").split("\n"))
    return tr


def child_files(path):
    d, base = os.path.split(path)
    out = []
    try:
        names = sorted(os.listdir(d or "."))
    except OSError:
        return out
    # The runtime names them with the pid before the extension: t.json, t.1490.json.
    stem, ext = os.path.splitext(base)
    for n in names:
        m = re.match(re.escape(stem) + r"\.(\d+)" + re.escape(ext) + "$", n)
        if m:
            out.append((os.path.join(d, n), int(m.group(1))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", required=True, choices=("text", "json", "folded", "perfetto"))
    ap.add_argument("--expect", required=True)
    ap.add_argument("--require-threads", type=int, metavar="N")
    ap.add_argument("--require-fork", action="store_true")
    ap.add_argument("trace")
    a = ap.parse_args()
    try:
        exp = read_expect(a.expect)
    except (OSError, ValueError) as e:
        print("check_trace.py: %s" % e, file=sys.stderr)
        return 2
    folded = a.format == "folded"
    tap = Tap()
    main_tr = load(a.trace, a.format, None)
    children = [load(p, a.format, pid) for p, pid in child_files(a.trace)]
    traces = [main_tr] + children
    for t in traces:
        what = "%d stacks" % len(t.stacks) if folded else \
            "%d events, %d threads" % (t.events, len({f.tid for f in t.frames}))
        tap.result(not t.errors, "%s: well-formed %s (%s)" % (os.path.basename(t.path), a.format, what), t.errors)
    if main_tr.unreadable:      # every other check would only say the same
        print("1..%d" % tap.n)
        return 1
    if folded:
        check_names_folded(tap, traces, exp)
    else:
        check_values(tap, traces, exp)
    check_fib(tap, traces, exp, folded)
    check_parents(tap, traces, exp, folded)
    check_roots(tap, traces, exp, folded)
    check_counts(tap, traces, exp, folded)
    check_threads(tap, traces, exp, a.require_threads, folded)
    if a.require_fork:
        check_fork(tap, main_tr, children, exp)
    print("1..%d" % tap.n)
    if tap.failed:
        print("# %d of %d checks failed" % (tap.failed, tap.n))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
