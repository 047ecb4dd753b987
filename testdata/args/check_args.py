#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""t/96-args.t's checker: the arguments a trace shows, call by call, against
expect.txt.

usage: check_args.py EXPECT FORMAT TRACE [--recording] [--unknown] [--machine FILE]

FORMAT is text (objpatch's function graph), json (Chrome trace events: each
"B" event's args) or events (perfetto_trace.py's lines, the same).  Every
call of a function expect.txt names is compared, in order, with its lines
for that function.  --recording: strings show as addresses (a recording
keeps no characters).  --unknown: every value is "?" (a hook that cannot
see the arguments).  --machine FILE: what one machine's hook shows
differently from expect.txt, a line per function, "FUNCTION WORD...": a
word PARAM=VALUE replaces that parameter's value in every call ("?" for an
argument the hook cannot see, a long double that is a double there); a
bare PARAM keeps expect.txt's value where the line "every ?" (a hook that
sees no register argument) makes every other value "?".  Every other value
must be as expect.txt says.  Prints what differs; exit status 1 if
anything does.
"""
import json
import re
import sys


def machine_values(path):
    """(every value "?", FUNCTION -> [(PARAM, VALUE)], {FUNCTION.PARAM shown}) from a --machine file."""
    every_unknown, values, shown = False, {}, set()
    for line in open(path) if path else []:
        words = line.split("#")[0].split()
        if words == ["every", "?"]:
            every_unknown = True
            continue
        for w in words[1:]:
            if "=" in w:
                values.setdefault(words[0], []).append(tuple(w.split("=", 1)))
            else:
                shown.add("%s.%s" % (words[0], w))
    if shown and not every_unknown:
        raise SystemExit("--machine %s: parameters named bare, but no \"every ?\" line" % path)
    return every_unknown, values, shown


def expected(path, recording, unknown, machine):
    every_unknown, values, shown = machine
    unknown = unknown or every_unknown
    calls = []
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = re.match(r"(\w+)\((.*)\)$", line)
        func, args = m.group(1), m.group(2)
        for param, value in values.get(func, []):
            args, n = re.subn(r"(^|, )%s=([^,]|,(?! ))+" % re.escape(param), r"\g<1>%s=%s" % (param, value), args)
            if n != 1:
                raise SystemExit("--machine: no parameter %s in %s" % (param, func))
        if recording:
            args = re.sub(r'="[^"]*"', "=<ptr>", args)
        if unknown:
            args = re.sub(r"(\w+)=(?:[^,]|,(?! ))+",
                          lambda p: p.group(0) if "%s.%s" % (func, p.group(1)) in shown else p.group(1) + "=?",
                          args)
        calls.append((func, args))
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
    machine = None
    if "--machine" in argv[:-1]:
        i = argv.index("--machine")
        machine = argv[i + 1]
        del argv[i:i + 2]
    argv = [a for a in argv if not a.startswith("--")]
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    want = expected(argv[0], recording, unknown, machine_values(machine))
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
