#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""t/78-analyses.t's oracle: reads objpatch's unfiltered text trace into
call trees and computes from them what each analysis must show, on its
own (no code shared with objpatch); then compares with what objpatch
report printed.  Exit 0 when equal, else 1 with the first difference.

  check.py counts FULL.txt                    "NAME CALLS" per function
  check.py filter FULL.txt OUT.txt OPTION...  OPTION: tid=T, match=+GLOB/-GLOB,
                                              below=F, callers=F, min=NS, depth=N
  check.py summary FULL.txt SUMMARY.json
  check.py sorted SUMMARY.txt KEY             lines in KEY's order
  check.py graph FULL.txt ROOT GRAPH.txt
"""
import fnmatch
import json
import re
import sys

# The duration in microseconds: 5 places (%5llu), more for a call of 100 ms
# or longer, which a loaded machine makes of any call (one preemption).
LINE = re.compile(r'^ *(\d+)\) (.)([ \d]{4}\d+\.\d{3}) us  \|  ( *)(.*)$|^ *(\d+)\)               \|  ( *)(.*)$')


class Call:
    def __init__(self, name, depth):
        self.name, self.depth, self.ns, self.kids = name, depth, None, []


def parse(path):
    """{tid: [root Call...]} from a text trace."""
    roots, stacks = {}, {}
    for line in open(path, encoding='utf-8', errors='replace'):
        if line.startswith('#'):
            continue
        m = LINE.match(line.rstrip('\n'))
        if not m:
            raise SystemExit('%s: not a trace line: %r' % (path, line))
        if m.group(1):
            tid, ns, indent, body = int(m.group(1)), m.group(3), m.group(4), m.group(5)
            ns = int(ns.replace('.', '').strip() or 0)
        else:
            tid, ns, indent, body = int(m.group(6)), None, m.group(7), m.group(8)
        depth = len(indent) // 2
        stack = stacks.setdefault(tid, [])
        if body.startswith('}'):
            c = stack.pop()
            c.ns = ns
            continue
        if depth != len(stack):
            raise SystemExit('%s: %r is at depth %d inside %d open calls' % (path, line, depth, len(stack)))
        name = body.split('(', 1)[0]
        c = Call(name, depth)
        (stack[-1].kids if stack else roots.setdefault(tid, [])).append(c)
        if body.endswith('{'):
            stack.append(c)
        else:
            c.ns = ns
    return roots


def walk(calls, ancestors=()):
    for c in calls:
        yield c, ancestors
        yield from walk(c.kids, ancestors + (c,))


def shown(trees, opts):
    """{tid: [(depth, name, ns)]} in preorder, as the options keep them."""
    out = {}
    for tid, calls in trees.items():
        keep = {}
        for c, anc in walk(calls):
            keep[id(c)] = True
        for kind, arg in opts:
            keep = stage(calls, keep, kind, arg)
        if 'tid' in dict(opts) and tid != int(dict(opts)['tid']):
            continue
        rows = []
        for c, anc in walk(calls):
            if keep[id(c)]:
                rows.append((sum(1 for a in anc if keep[id(a)]), c.name, c.ns))
        if rows:
            out[tid] = rows
    return out


def matches(globs, name):
    on = globs[0][0] == '-'
    for g in globs:
        if fnmatch.fnmatchcase(name, g[1:]):
            on = g[0] == '+'
    return on


def stage(calls, keep, kind, arg):
    """One option on the tree as the previous ones left it (depths: kept ancestors)."""
    new = {}
    for c, anc in walk(calls):
        if not keep[id(c)]:
            new[id(c)] = False
            continue
        kanc = [a for a in anc if keep[id(a)]]
        kdesc = [d for d, _ in walk(c.kids) if keep[id(d)]]
        if kind == 'match':
            new[id(c)] = matches(arg, c.name)
        elif kind == 'below':
            new[id(c)] = any(x.name == arg for x in kanc + [c])
        elif kind == 'callers':
            new[id(c)] = any(x.name == arg for x in kdesc + [c])
        elif kind == 'min':
            new[id(c)] = any(x.ns >= int(arg) for x in kdesc + [c])
        elif kind == 'depth':
            new[id(c)] = len(kanc) < int(arg)
        else:
            new[id(c)] = True
    return new


def options(args):
    opts, globs = [], []
    for a in args:
        k, v = a.split('=', 1)
        if k == 'match':
            globs.append(v)
        else:
            opts.append((k, v))
    # objpatch's order: structure, names, time, depth (the tid anywhere)
    order = ['tid', 'below', 'callers', 'match', 'min', 'depth']
    if globs:
        opts.append(('match', globs))
    return sorted(opts, key=lambda o: order.index(o[0]))


def stats(trees):
    s = {}
    for calls in trees.values():
        for c, anc in walk(calls):
            f = s.setdefault(c.name, dict(calls=0, total=0, self=0, min=None, max=0))
            f['calls'] += 1
            if not any(a.name == c.name for a in anc):
                f['total'] += c.ns
            f['self'] += c.ns - sum(k.ns for k in c.kids)
            f['min'] = c.ns if f['min'] is None else min(f['min'], c.ns)
            f['max'] = max(f['max'], c.ns)
    for f in s.values():
        f['avg'] = f['total'] // f['calls']
    return s


def graph(trees, root):
    g = []
    index = {}

    def add(c, path):
        path = path + (c.name,)
        if path not in index:
            index[path] = len(g)
            g.append([path, 0, 0])
        e = g[index[path]]
        e[1] += 1
        e[2] += c.ns
        for k in c.kids:
            add(k, path)
    for calls in trees.values():
        for c, anc in walk(calls):
            if c.name == root and not any(a.name == root for a in anc):
                add(c, ())
    return {tuple(e[0]): (e[1], e[2]) for e in g}


def parse_graph(path):
    got, stack = {}, []
    for line in open(path):
        m = re.match(r'^ *(\d+)\.(\d{3}) us : ([ |+-]*)\((\d+)\) (\S+)$', line.rstrip('\n'))
        if not m:
            continue
        depth = len(m.group(3)) // 2
        del stack[depth:]
        stack.append(m.group(5))
        got[tuple(stack)] = (int(m.group(4)), int(m.group(1) + m.group(2)))
    return got


def fail(msg):
    print(msg)
    sys.exit(1)


def main():
    cmd = sys.argv[1]
    if cmd == 'counts':
        for name, f in sorted(stats(parse(sys.argv[2])).items()):
            print(name, f['calls'])
    elif cmd == 'filter':
        want = shown(parse(sys.argv[2]), options(sys.argv[4:]))
        got = shown(parse(sys.argv[3]), [])
        if not want:
            fail('the options keep nothing in %s: a test that cannot fail' % sys.argv[2])
        for tid in sorted(set(want) | set(got)):
            w, g = want.get(tid, []), got.get(tid, [])
            for i in range(max(len(w), len(g))):
                a = w[i] if i < len(w) else None
                b = g[i] if i < len(g) else None
                if a != b:
                    fail('thread %d call %d: expected %s, got %s' % (tid, i, a, b))
        print('%d calls in %d threads' % (sum(map(len, want.values())), len(want)))
    elif cmd == 'summary':
        want = stats(parse(sys.argv[2]))
        got = {f['function']: {k: v for k, v in f.items() if k != 'function'}
               for f in json.load(open(sys.argv[3]))['functions']}
        if want != got:
            for n in sorted(set(want) | set(got)):
                if want.get(n) != got.get(n):
                    fail('%s: expected %s, got %s' % (n, want.get(n), got.get(n)))
    elif cmd == 'sorted':
        cols = ['calls', 'total', 'self', 'avg', 'min', 'max']
        rows = []
        for line in open(sys.argv[2]):
            if line.startswith('#'):
                continue
            v = line.split()
            rows.append(dict(zip(cols, [int(v[0])] + [int(x.replace('.', '')) for x in v[1:6]]), name=v[6]))
        key = sys.argv[3]
        want = sorted(rows, key=lambda r: r['name']) if key == 'name' else \
            sorted(rows, key=lambda r: (-r[key], r['name']))
        if [r['name'] for r in want] != [r['name'] for r in rows] or len(rows) < 2:
            fail('order %s, expected %s' % ([r['name'] for r in rows], [r['name'] for r in want]))
    elif cmd == 'graph':
        want = graph(parse(sys.argv[2]), sys.argv[3])
        got = parse_graph(sys.argv[4])
        if want != got or not want:
            for p in sorted(set(want) | set(got)):
                if want.get(p) != got.get(p):
                    fail('%s: expected (calls, ns) %s, got %s' % (';'.join(p), want.get(p), got.get(p)))
            fail('an empty graph')


main()
