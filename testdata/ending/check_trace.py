# SPDX-License-Identifier: GPL-2.0-only
"""check_trace.py FORMAT FILE [perfetto_trace.py]: whether a trace is a whole
document (t/94-ending-signals.t): JSON and Perfetto parse, every thread's
frames nest and all close, some as unfinished; text closes every frame it
opens, the last ones unfinished; folded stacks are all "STACK COUNT" lines;
the flame graph is whole XML.  One line on stderr says what is wrong."""
import json, re, subprocess, sys
import xml.dom.minidom


def balanced(events):
    stacks, unfinished = {}, 0
    for e in events:
        if e.get("ph") == "B":
            stacks.setdefault(e["tid"], []).append(e["name"])
        elif e.get("ph") == "E":
            s = stacks.get(e["tid"])
            if not s or s.pop() != e["name"]:
                return "tid %s: an E without its B (%s)" % (e["tid"], e["name"])
            unfinished += bool((e.get("args") or {}).get("unfinished"))
    open_ = {t: s for t, s in stacks.items() if s}
    if open_:
        return "frames never closed: %r" % open_
    return None if unfinished else "no frame closed as unfinished"


def text(path):
    depth, unfinished = {}, 0
    for line in open(path, errors="replace"):
        m = re.match(r"\s*(\d+)\)[^|]*\|(.*)$", line)
        if not m:
            continue
        tid, body = m.group(1), m.group(2).strip()
        if body.endswith("{"):
            depth[tid] = depth.get(tid, 0) + 1
        elif body.startswith("}"):
            depth[tid] = depth.get(tid, 0) - 1
            if depth[tid] < 0:
                return "tid %s: a } without its {" % tid
            unfinished += "unfinished" in body
    if any(depth.values()):
        return "frames never closed: %r" % {t: d for t, d in depth.items() if d}
    return None if unfinished else "no frame closed as unfinished"


def folded(path):
    lines = open(path).read().splitlines()
    bad = [l for l in lines if not re.match(r"^\S.* \d+$", l)]
    return "no stack" if not lines else ("not a stack line: %r" % bad[0] if bad else None)


def svg(path):
    return None if xml.dom.minidom.parse(path).documentElement.tagName == "svg" else "not an svg"


def perfetto(path, reader):
    p = subprocess.run([sys.executable, reader, path], capture_output=True, text=True)
    if p.returncode:
        return "perfetto: %s" % p.stderr.strip().splitlines()[:1]
    return balanced(json.loads(l) for l in p.stdout.splitlines())


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    try:
        if fmt == "json":
            why = balanced(json.load(open(path))["traceEvents"])
        elif fmt == "perfetto":
            why = perfetto(path, sys.argv[3])
        else:
            why = {"text": text, "folded": folded, "svg": svg}[fmt](path)
    except Exception as e:  # a cut document: whatever the parser says
        why = "%s: %s" % (type(e).__name__, str(e)[:200])
    if why:
        print(why, file=sys.stderr)
    return 1 if why else 0


sys.exit(main())
