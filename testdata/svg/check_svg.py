#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks a flame graph objpatch wrote (--format svg), for t/77-svg.t.

  check_svg.py SVG [--min-frames N] [--text TRACE] [--modules N] [--browser-script OUT]

Prints one "ok - ..." or "not ok - ..." line per check (details as "# "
lines), then "done"; exits 1 if a check failed.

  - the file is well-formed XML, an SVG, and names nothing outside itself;
  - every frame is at least as wide as its children together, and they lie
    within it; the root spans the picture and its children add up to it;
  - every frame's tooltip names the function, its calls, total and self time;
  - --text: each function's calls (the tooltips' sum) are the calls the text
    trace of the same run shows, and its return values, counted per
    function, are the text trace's (exactly where the tooltips say they are
    exact; the most frequent value at least, where they are estimates);
  - --modules N: the frames' modules are N, each drawn in hues no other
    module's frames use;
  - --browser-script OUT: writes a script that t/77-svg.t appends to a copy
    of the SVG for Chromium: it clicks a frame (zoom), the root (reset) and
    Search (a prompt answered "depth_sum"), and leaves what it saw as
    attributes of the root element; and prints, as "expect NAME VALUE"
    lines, the values this script computes those should have.
"""
import argparse
import colorsys
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

NS = "{http://www.w3.org/2000/svg}"
failed = False


def check(cond, what, *details):
    global failed
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failed = True
        for d in details:
            print("# " + str(d))
    return cond


def frames_of(root):
    frames = {}
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        rect, title = g.find(NS + "rect"), g.find(NS + "title")
        lines = title.text.split("\n")
        fields = dict(line.split(": ", 1) for line in lines[1:])
        frames[g.get("id")] = {
            "id": g.get("id"), "parent": g.get("data-p"), "x": float(rect.get("x")),
            "w": float(rect.get("width")), "fill": rect.get("fill"), "name": lines[0], "fields": fields,
            "children": [],
        }
    for f in frames.values():
        if f["parent"]:
            frames[f["parent"]]["children"].append(f)
    return frames


def external_refs(root):
    """Every attribute or text that points outside the file."""
    refs = []
    for el in root.iter():
        for k, v in el.attrib.items():
            if "href" in k or re.search(r"url\(|://", v):
                refs.append(f"{el.tag} {k}={v}")
        if el.text and re.search(r"https?://|url\(|@import|fetch\(|XMLHttpRequest", el.text):
            refs.append(f"{el.tag}: {el.text[:80]}")
    return refs


def check_geometry(root, frames):
    width = float(root.get("data-w"))
    top = frames.get("f0")
    check(top is not None and top["name"] == "all" and abs(top["w"] - width) < 0.006,
          f"the root frame 'all' spans the picture ({width} px)", top and top["w"])
    bad = []
    for f in frames.values():
        kids = f["children"]
        tol = 0.01 * (len(kids) + 1)
        if sum(k["w"] for k in kids) > f["w"] + tol:
            bad.append(f"{f['id']} {f['name']}: {f['w']} < children's {sum(k['w'] for k in kids)}")
        for k in kids:
            if k["x"] < f["x"] - tol or k["x"] + k["w"] > f["x"] + f["w"] + tol:
                bad.append(f"{k['id']} {k['name']} [{k['x']}, +{k['w']}] outside {f['id']} [{f['x']}, +{f['w']}]")
    check(not bad, f"each of {len(frames)} frames is as wide as its children together, at least, and holds them",
          *bad[:10])
    kids = top["children"] if top else []
    check(kids and abs(sum(k["w"] for k in kids) - top["w"]) <= 0.01 * (len(kids) + 1),
          "the root's children add up to the root", [(k["name"], k["w"]) for k in kids])
    for f in frames.values():
        if f["w"] < 0.1:
            return check(False, "no frame narrower than 0.1 px is drawn", f)
    return check(True, "no frame narrower than 0.1 px is drawn")


def check_tooltips(frames):
    bad = [f["id"] + ": " + repr(f["fields"]) for f in frames.values() if f["id"] != "f0" and not (
        re.fullmatch(r"\d+", f["fields"].get("calls", "")) and int(f["fields"]["calls"]) > 0 and
        re.fullmatch(r"[\d.]+ (ns|us|ms|s)", f["fields"].get("total", "")) and
        re.fullmatch(r"[\d.]+ (ns|us|ms|s)", f["fields"].get("self", "")))]
    check(not bad, "every frame's tooltip: its function, calls, total and self time", *bad[:10])


SLOTS = 4	# trace/svg.c counts a frame's values with Space-Saving in this many counters


def text_calls(path):
    """Calls and return values per stack (a tuple of names), as a text trace shows them."""
    calls, values, stacks = Counter(), defaultdict(Counter), defaultdict(list)
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        if line.startswith("#") or "|  " not in line:
            continue
        tid, rest = line.split(")", 1)[0].strip(), line.split("|  ", 1)[1].rstrip("\n")
        body = rest.lstrip(" ")
        depth, stack = (len(rest) - len(body)) // 2, stacks[tid]
        del stack[depth:]
        m = re.match(r"([\w.$@]+)\(\)(;| \{)(?: /\* ret=(.*) \*/)?$", body)
        close = re.match(r"\} /\* ([\w.$@]+)(?: ret=(.*))? \*/$", body)
        if m:
            path = tuple(stack) + (m.group(1),)
            calls[path] += 1
            if m.group(3) is not None:
                values[path][m.group(3)] += 1
            if m.group(2) == " {":
                stack.append(m.group(1))
        elif close and close.group(2) is not None:
            values[tuple(stack[:depth]) + (close.group(1),)][close.group(2)] += 1
    return calls, values


def svg_values(f):
    """[(value, count, exact)] of a frame's tooltip, and its count of other values."""
    line = f["fields"].get("returned")
    if not line:
        return [], 0
    other = re.search(r", other values \((\d+)\)$", line)
    if other:
        line = line[:other.start()]
    found = re.findall(r"(.*?) \((about )?(\d+)\)(?:, |$)", line)
    return [(v, int(n), not about) for v, about, n in found], int(other.group(1)) if other else 0


def path_of(frames, f):
    path = []
    while f["id"] != "f0":
        path.append(f["name"])
        f = frames[f["parent"]]
    return tuple(reversed(path))


def check_values(frames, values):
    """Space-Saving's promises: counts exact unless marked, never below the truth, and every value
    returned more than calls/SLOTS times shown."""
    bad, estimated = [], 0
    for f in frames.values():
        if f["id"] == "f0":
            continue
        path, n = path_of(frames, f), int(f["fields"]["calls"])
        truth, (shown, other) = values.get(path, Counter()), svg_values(f)
        for v, c, exact in shown:
            estimated += not exact
            if v not in truth or (c != truth[v] if exact else c < truth[v]):
                bad.append(f"{'/'.join(path)}: {v} ({'' if exact else 'about '}{c}), text {dict(truth)}")
        missing = [v for v, c in truth.items() if c * SLOTS > n and v not in [s[0] for s in shown]]
        if missing or (shown and sum(c for _, c, _ in shown) + other != n):
            bad.append(f"{'/'.join(path)}: shown {shown} + {other} other of {n} calls, text {dict(truth)}")
    check(not bad, f"the tooltips' return values are the text trace's ({estimated} estimated counts)", *bad[:10])
    return estimated


def check_against_text(frames, path):
    calls, values = text_calls(path)
    per_function, seen, per_path = Counter(), Counter(), Counter()
    for p, n in calls.items():
        per_function[p[-1]] += n
    for f in frames.values():
        if f["id"] != "f0":
            seen[f["name"]] += int(f["fields"]["calls"])
            per_path[path_of(frames, f)] += int(f["fields"]["calls"])
    check(seen == per_function and len(seen) >= 5,
          f"the tooltips' calls per function are the text trace's ({len(seen)} functions)",
          f"svg:  {sorted(seen.items())}", f"text: {sorted(per_function.items())}")
    check(per_path == calls, f"and per stack ({len(calls)} stacks)",
          *[f"{'/'.join(p)}: svg {per_path[p]}, text {calls[p]}" for p in set(calls) | set(per_path)
            if per_path[p] != calls[p]][:10])
    return check_values(frames, values)


def check_modules(frames, n):
    hues = defaultdict(list)
    for f in frames.values():
        if f["id"] != "f0":
            r, g, b = (int(c) / 255 for c in re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", f["fill"]).groups())
            hues[f["fields"]["module"]].append(colorsys.rgb_to_hls(r, g, b)[0] * 360)
    check(len(hues) == n, f"{n} modules", sorted(hues))
    spans = sorted((min(h), max(h), m) for m, h in hues.items())
    overlap = [(a, b) for a, b in zip(spans, spans[1:]) if b[0] <= a[1]]
    check(not overlap, "each module's frames are in hues no other module's frames use", spans)


def union_share(frames, name, width):
    """The share of the picture covered by frames called `name`, nested ones once: what Search shows."""
    total, end = 0.0, -1.0
    for x, w in sorted((f["x"], f["w"]) for f in frames.values() if f["name"] == name):
        if x + w > end:
            total += x + w - max(x, end)
            end = x + w
    return 100 * total / width


BROWSER = """<script type="text/ecmascript"><![CDATA[
(function () {
  var svg = document.documentElement, g = document.getElementById('%(target)s');
  function width(id) { return document.getElementById(id).querySelector('rect').getAttribute('width'); }
  function shown(id) { return document.getElementById(id).style.display !== 'none'; }
  g.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  svg.setAttribute('data-t-zoomed', width('%(target)s'));
  svg.setAttribute('data-t-child', width('%(child)s'));
  svg.setAttribute('data-t-other-shown', String(shown('%(other)s')));
  document.getElementById('f0').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  svg.setAttribute('data-t-reset', width('%(target)s'));
  svg.setAttribute('data-t-other-reset', String(shown('%(other)s')));
  window.prompt = function () { return 'depth_sum'; };
  document.getElementById('search').dispatchEvent(new MouseEvent('click', { bubbles: true }));
  svg.setAttribute('data-t-matched', document.getElementById('matched').textContent);
  svg.setAttribute('data-t-done', '1');
})();
]]></script>
"""


def browser_script(frames, width, out):
    """A frame with children and a frame that is neither its ancestor nor its descendant."""
    target = max((f for f in frames.values() if f["children"] and f["id"] != "f0" and f["w"] < width / 2),
                 key=lambda f: f["w"])
    anc, p = set(), target
    while p:
        anc.add(p["id"])
        p = frames.get(p["parent"]) if p["parent"] else None
    desc, todo = set(), list(target["children"])
    while todo:
        d = todo.pop()
        desc.add(d["id"])
        todo += d["children"]
    other = next(f for f in frames.values() if f["id"] not in anc and f["id"] not in desc)
    child = max(target["children"], key=lambda f: f["w"])
    open(out, "w").write(BROWSER % {"target": target["id"], "child": child["id"], "other": other["id"]})
    print(f"expect zoomed {width:.2f}")
    print(f"expect child {child['w'] * width / target['w']:.2f}")
    print("expect other-shown false")
    print(f"expect reset {target['w']:.2f}")
    print("expect other-reset true")
    print(f"expect matched Matched: {union_share(frames, 'depth_sum', width):.1f}% of the time")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("svg")
    ap.add_argument("--min-frames", type=int, default=6)
    ap.add_argument("--text")
    ap.add_argument("--modules", type=int)
    ap.add_argument("--browser-script")
    a = ap.parse_args()
    try:
        root = ET.parse(a.svg).getroot()
    except ET.ParseError as e:
        check(False, f"{a.svg} is well-formed XML", e)
        print("done")
        return 1
    check(root.tag == NS + "svg", f"{a.svg} is well-formed XML, an <svg> root", root.tag)
    refs = external_refs(root)
    check(not refs, "it names nothing outside itself (no href, url(), ://, fetch)", *refs[:5])
    check(root.find(NS + "script") is not None, "it holds its script")
    frames = frames_of(root)
    check(len(frames) >= a.min_frames, f"it has {a.min_frames} frames at least ({len(frames)})")
    if len(frames) > 1:
        check_geometry(root, frames)
        check_tooltips(frames)
        if a.text:
            check_against_text(frames, a.text)
        if a.modules:
            check_modules(frames, a.modules)
        if a.browser_script:
            browser_script(frames, float(root.get("data-w")), a.browser_script)
    print("done")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
