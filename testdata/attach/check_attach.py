#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the trace of one `objpatch attach` (t/99-attach-stress.t).

  check_attach.py --format json|text [--filter GLOB]... [--pid PID]
                  [--require NAME=THREADS] TRACE

Checks that TRACE is well formed (JSON: parses, Chrome trace events; text:
objpatch's function graph, each line of a known form, indentation that
follows the calls), that every function in it matches the attach's
filters (the runtime's rule: in order, a pattern that matches turns its
function on, or off with a leading '!'; the last match decides; without
patterns every function is traced), and that each thread's entries and
exits pair up: every entry has its exit, named alike, in order, and
timestamps never go back.  A frame still open when the trace ended must
be closed as unfinished (or lost, unwound); one that is not is an error.
With --pid, events of other processes (children forked while traced)
are allowed to close frames they inherited.  --require NAME=THREADS: at
least THREADS threads have a whole call of NAME (entered, then returned).

Prints one line: "ok: N events, M functions, T threads: NAME..." (the
functions seen), or the problems (at most 20) and exits 1; 2 on bad usage.
"""
import argparse
import fnmatch
import json
import re
import sys

MAX_SHOWN = 20


def traced(name, filters):
    """The runtime's rule for one function name."""
    if not filters:
        return True
    on = False
    for f in filters:
        neg = f.startswith("!")
        glob = f[1:] if neg else f
        if fnmatch.fnmatchcase(name, glob):
            on = not neg
    return on


class Check:
    def __init__(self, filters, pid):
        self.filters = filters
        self.pid = pid
        self.errors = []
        self.events = 0
        self.names = {}         # name -> entries
        self.stacks = {}        # (pid, tid) -> [(name, where)]
        self.last_ts = {}       # (pid, tid) -> ts
        self.returned = {}      # name -> {(pid, tid)} that entered and returned it

    def error(self, where, msg):
        self.errors.append("%s: %s" % (where, msg))

    def name_ok(self, where, name):
        if not traced(name, self.filters):
            self.error(where, "%s is traced, but the filters %s do not select it" % (name, self.filters))

    def enter(self, where, key, name):
        self.events += 1
        self.name_ok(where, name)
        self.names[name] = self.names.get(name, 0) + 1
        self.stacks.setdefault(key, []).append((name, where))

    def leave(self, where, key, name, how):
        """Closes the innermost open frame of thread KEY; name None: whichever it is."""
        self.events += 1
        stack = self.stacks.setdefault(key, [])
        if not stack:
            if self.pid is not None and key[0] != self.pid:
                if name is not None:
                    self.name_ok(where, name)
                return      # a child leaving a frame of its parent's, entered before the fork
            self.error(where, "thread %s: an exit (%s, %s) with no entry open" % (key[1], name, how))
            return
        open_name, open_where = stack.pop()
        if name is not None and name != open_name:
            self.error(where, "thread %s: the exit of %s closes %s (entered at %s)" % (key[1], name, open_name, open_where))
        elif how in ("returned", "leaf"):
            self.returned.setdefault(open_name, set()).add(key)

    def time(self, where, key, ts):
        last = self.last_ts.get(key)
        if last is not None and ts < last:
            self.error(where, "thread %s: time %s before the previous event's %s" % (key[1], ts, last))
        self.last_ts[key] = ts

    def end(self):
        for key, stack in self.stacks.items():
            for name, where in stack:
                if self.pid is not None and key[0] != self.pid:
                    continue    # a child may exit inside its frames
                self.error(where, "thread %s: %s entered, never left nor marked unfinished" % (key[1], name))


# ---------------------------------------------------------------- json

CLOSINGS = ({"unfinished": True}, {"unwound": True}, {"lost": True})


def check_json(c, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        c.error("json", "does not parse: %s" % e)
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        c.error("json", "no traceEvents list")
        return
    for i, ev in enumerate(doc["traceEvents"]):
        where = "event %d" % i
        if not isinstance(ev, dict):
            c.error(where, "not an object: %r" % (ev,))
            continue
        ph, name, ts, pid, tid = (ev.get(k) for k in ("ph", "name", "ts", "pid", "tid"))
        if ph in ("M", "i", "I"):
            continue        # metadata (thread names), instant notes
        if ph not in ("B", "E"):
            c.error(where, "ph %r is neither B nor E" % (ph,))
            continue
        if not isinstance(name, str) or not name:
            c.error(where, "no name: %r" % (ev,))
            continue
        if not isinstance(pid, int) or not isinstance(tid, int):
            c.error(where, "pid and tid are not integers: %r" % (ev,))
            continue
        if not isinstance(ts, (int, float)) or isinstance(ts, bool) or ts < 0:
            c.error(where, "bad ts: %r" % (ev,))
            continue
        key = (pid, tid)
        c.time(where, key, ts)
        args = ev.get("args")
        if args is not None and not isinstance(args, dict):
            c.error(where, "args is not an object: %r" % (args,))
            continue
        if ph == "B":
            c.enter(where, key, name)
            continue
        how = "returned"
        if args in CLOSINGS:
            how = next(iter(args))
        elif args not in (None, {}) and set(args) != {"ret"}:
            c.error(where, "an exit's args are neither {ret}, unfinished, unwound nor lost: %r" % (args,))
        c.leave(where, key, name, how)


# ---------------------------------------------------------------- text

# "   4242)    0.412 us   |    name(args) {": TID, a mark and duration (on returns), "|  ", 2 spaces a level.
LINE = re.compile(r"^ *(\d+)\) +(?:[+!#*@$] *)?(?:\d+\.\d{3} us +)?\|  (.*)$")
OPEN = re.compile(r"^([^\s(]+)\(.*\) \{$")
LEAF = re.compile(r"^([^\s(]+)\(.*\);(?: /\* (?:ret=.*|unwound) \*/)?$")
CLOSE = re.compile(r"^\} /\* (\S+?)(?: (ret=.*|unwound|unfinished|lost))? \*/$")
HEADER = re.compile(r"^# objpatch function graph, pid (\d+)")


def check_text(c, text):
    pid = None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for no, line in enumerate(lines, 1):
        where = "line %d" % no
        if line.startswith("#"):
            m = HEADER.match(line)
            if m:
                pid = int(m.group(1))
            continue
        m = LINE.match(line)
        if not m:
            c.error(where, "not a trace line: %r" % line)
            continue
        tid, body = int(m.group(1)), m.group(2)
        indent = len(body) - len(body.lstrip(" "))
        body = body[indent:]
        key = (pid, tid)
        depth = len(c.stacks.get(key, []))
        mc, mo, ml = CLOSE.match(body), OPEN.match(body), LEAF.match(body)
        if mc:
            if indent != 2 * (depth - 1) and depth:
                c.error(where, "an exit at indentation %d in a thread %d deep: %r" % (indent, depth, line))
            how = mc.group(2) or "returned"
            c.leave(where, key, mc.group(1), "returned" if how.startswith("ret=") else how)
            continue
        if indent != 2 * depth:
            c.error(where, "an entry at indentation %d in a thread %d deep: %r" % (indent, depth, line))
        if mo:
            c.enter(where, key, mo.group(1))
        elif ml:
            c.enter(where, key, ml.group(1))
            c.leave(where, key, ml.group(1), "leaf")
        else:
            c.error(where, "neither NAME(...) {, NAME(...); nor } /* NAME ... */: %r" % line)
    if pid is None and lines:
        c.error("line 1", "no header '# objpatch function graph, pid N'")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--format", choices=("json", "text"), required=True)
    ap.add_argument("--filter", action="append", default=[])
    ap.add_argument("--pid", type=int)
    ap.add_argument("--require", action="append", default=[], metavar="NAME=THREADS")
    ap.add_argument("trace")
    a = ap.parse_args()
    try:
        with open(a.trace, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print("cannot read %s: %s" % (a.trace, e))
        return 1
    c = Check(a.filter, a.pid)
    (check_json if a.format == "json" else check_text)(c, text)
    c.end()
    for r in a.require:
        name, _, n = r.partition("=")
        got = len(c.returned.get(name, ()))
        if got < int(n or 1):
            c.error("require", "%d threads have a whole call of %s, not %s" % (got, name, n))
    if c.errors:
        for e in c.errors[:MAX_SHOWN]:
            print(e)
        if len(c.errors) > MAX_SHOWN:
            print("... and %d more" % (len(c.errors) - MAX_SHOWN))
        return 1
    threads = {k for k in c.stacks}
    print("ok: %d events, %d functions, %d threads: %s" % (c.events, len(c.names), len(threads), " ".join(sorted(c.names))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
