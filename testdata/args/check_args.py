#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""t/96-args.t's checker: the arguments a trace shows, call by call, against
expect.txt.

usage: check_args.py EXPECT FORMAT TRACE [--recording] [--unknown] [--ldbl-double]

FORMAT is text (objpatch's function graph), json (Chrome trace events: each
"B" event's args) or events (perfetto_trace.py's lines, the same).  Every
call of a function expect.txt names is compared, in order, with its lines
for that function.  --recording: strings show as addresses (a recording
keeps no characters).  --unknown: every value is "?" (a hook that cannot
see the arguments).  --ldbl-double: long double is double on this machine
(MIPS o32), passed and captured as one: ldbl's x shows the 1.25 main passes
instead of "?".  Prints what differs; exit status 1 if anything does.
"""
import json
import re
import sys


def expected(path, recording, unknown, ldbl_double=False):
    calls = []
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = re.match(r"(\w+)\((.*)\)$", line)
        args = m.group(2)
        if ldbl_double and m.group(1) == "ldbl":
            args = args.replace("x=?", "x=1.25", 1)
        if recording:
            args = re.sub(r'="[^"]*"', "=<ptr>", args)
        if unknown:
            args = re.sub(r"=([^,]|,(?! ))+", "=?", args)
        calls.append((m.group(1), args))
    return calls


def from_text(path):
    calls = []
    for line in open(path):
        m = re.search(r"\|\s+(\w+)\((.*)\)(?: \{|;)", line)
        if m:
            calls.append((m.group(1), m.group(2)))
    return calls


def from_args(name, args):
    shown = []
    for k, v in (args or {}).items():
        if k == "more":
            shown.append(v)
        elif k == "args":
            return name, v
        else:
            shown.append("%s=%s" % (k, v))
    return name, ", ".join(shown)


def from_json(path):
    return [from_args(e["name"], e.get("args")) for e in json.load(open(path))["traceEvents"] if e.get("ph") == "B"]


def from_events(path):
    return [from_args(e["name"], e.get("args")) for e in map(json.loads, open(path)) if e.get("ph") == "B"]


def same(want, got):
    pattern = "".join("0x[0-9a-f]+" if p == "<ptr>" else re.escape(p) for p in re.split(r"(<ptr>)", want))
    return re.fullmatch(pattern, got) is not None


def main():
    argv = sys.argv[1:]
    recording = "--recording" in argv
    unknown = "--unknown" in argv
    ldbl_double = "--ldbl-double" in argv
    argv = [a for a in argv if not a.startswith("--")]
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    want = expected(argv[0], recording, unknown, ldbl_double)
    got = {"text": from_text, "json": from_json, "events": from_events}[argv[1]](argv[2])
    names = {n for n, _ in want}
    got = [(n, a) for n, a in got if n in names]
    bad = 0
    for name in sorted(names):
        w = [a for n, a in want if n == name]
        g = [a for n, a in got if n == name]
        if len(w) != len(g):
            print("%s: %d calls shown, %d expected" % (name, len(g), len(w)))
            bad += 1
            continue
        for a, b in zip(w, g):
            if not same(a, b):
                print("%s: shown (%s), expected (%s)" % (name, b, a))
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
