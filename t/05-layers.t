#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# The layering README's "Layout" section writes down (between its
# <!-- layers --> markers): every #include in the tree's C, header and
# assembly files stays in its own layer or names one the table allows,
# through the include root (no "../"); every source file belongs to a
# layer; and each binary holds code of its allowed layers only (read from
# the DWARF compile units the Makefile's link put in it).  Under a second.
import os, re, subprocess, sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

def layer_table():
    text = open(os.path.join(TOP, 'README.md')).read()
    m = re.search(r'<!-- layers -->(.*?)<!-- /layers -->', text, re.S)
    rules = {}
    for line in (m.group(1) if m else '').splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] == ':':
            rules[words[0]] = set(w for w in words[2:] if w != '-')
    return rules

def layer_of(path, rules):
    best = None
    for name in rules:
        if (path + '/').startswith(name + '/') and (best is None or len(name) > len(best)):
            best = name
    return best

def sources():
    try:
        files = subprocess.check_output(['git', '-C', TOP, 'ls-files'], text=True,
                                        stderr=subprocess.DEVNULL).split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), TOP) for d, _, fs in os.walk(TOP) for f in fs]
    return sorted(f for f in files if re.search(r'\.(c|h|S)$', f) and os.path.exists(os.path.join(TOP, f)))

rules = layer_table()
ok(len(rules) >= 8, 'README names the layers and what each may include (%d layers)' % len(rules))
for layer, allowed in sorted(rules.items()):
    unknown = sorted(a for a in allowed if a not in rules)
    ok(not unknown, '%s: may include only layers the table defines' % layer, unknown)

# The table is a partial order: no layer reaches itself through others.
def reaches(start):
    seen, todo = set(), list(rules.get(start, ()))
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(rules.get(x, ()))
    return seen
cyclic = sorted(l for l in rules if l in reaches(l))
ok(not cyclic, 'the allowed dependencies have no cycle', cyclic)

# kernel/ is Linux code (the series and the stand-ins its offline check
# builds it with), outside the layers of our tools.
outside = ('testdata/', 't/', 'fuzz/', 'bench/', 'kernel/')
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = sources()
per_layer = {}
for f in files:
    if f.startswith(outside):
        continue
    layer = layer_of(f, rules)
    per_layer.setdefault(layer, []).append(f)
ok(None not in per_layer, 'every source file outside tests and benchmarks is in a layer',
   per_layer.get(None, []))

for layer in sorted(l for l in per_layer if l):
    bad = []
    for f in per_layer[layer]:
        for name in inc.findall(open(os.path.join(TOP, f), errors='replace').read()):
            target = layer_of(name, rules)
            if '..' in name.split('/'):
                bad.append('%s: "%s" climbs out through ".."; include from the tree top' % (f, name))
            elif not os.path.exists(os.path.join(TOP, name)):
                bad.append('%s: "%s" is not a path from the tree top' % (f, name))
            elif target != layer and target not in rules[layer]:
                bad.append('%s: "%s" is in %s, which %s may not use' % (f, name, target, layer))
    ok(not bad, '%s: %d files include only %s' % (layer, len(per_layer[layer]),
                                                   ' '.join(sorted(rules[layer] | {layer}))), bad)

# What each binary links, from its DWARF: the tools and the runtime.
def compile_units(path):
    out = subprocess.run(['readelf', '--debug-dump=info', path], capture_output=True, text=True).stdout
    units, in_cu = set(), False
    for line in out.splitlines():
        if 'DW_TAG_compile_unit' in line:
            in_cu = True
        elif in_cu and 'DW_AT_name' in line:
            units.add(line.split()[-1])
            in_cu = False
        elif '<1>' in line:
            in_cu = False
    return sorted(u for u in units if not u.startswith('/') and re.search(r'\.[cS]$', u))

binaries = [('build/recordmcount', 'recordmcount'), ('build/objpatch', 'objpatch/cli'),
            ('build/objpatch-cc', 'objpatch/cc'), ('build/libobjpatch.so', 'objpatch/lib')]
for path, top in binaries:
    full = os.path.join(TOP, path)
    if not os.path.exists(full):
        ok(False, '%s: built (make all)' % path)
        continue
    units = compile_units(full)
    allowed = rules.get(top, set()) | {top}
    bad = ['%s holds %s (layer %s)' % (path, u, layer_of(u, rules)) for u in units
           if layer_of(u, rules) not in allowed]
    ok(units and not bad, '%s: %d compile units, all of %s' % (path, len(units), ' '.join(sorted(allowed))), bad)
    if top != 'objpatch/lib':
        ports = [u for u in units if re.match(r'arch/[^/]+/rt_', u)]
        ok(not ports, '%s: no runtime port (trampolines, patch protocol) linked in' % path, ports)

# Licences follow the layers: every source file says its licence, and what
# the runtime library links is LGPL-2.1-or-later.
def spdx(path):
    with open(os.path.join(TOP, path), errors='replace') as f:
        m = re.search(r'SPDX-License-Identifier:\s*(\S+)', f.read(400))
    return m.group(1) if m else None
unlabelled = [f for f in files if not f.startswith('testdata/') and spdx(f) is None]
ok(not unlabelled, 'every source file has an SPDX line', unlabelled)
rt = os.path.join(TOP, 'build/libobjpatch.so')
if os.path.exists(rt):
    units = compile_units(rt)
    gpl = ['%s is %s' % (u, spdx(u)) for u in units if os.path.exists(os.path.join(TOP, u)) and
           spdx(u) != 'LGPL-2.1-or-later']
    ok(units and not gpl, 'build/libobjpatch.so: its %d compile units are LGPL-2.1-or-later' % len(units), gpl)

# The tracker behind "issue N" is not in the repository: a comment or a
# document that cites one says nothing to its reader.  kernel/ describes the
# series' history, which is its subject.
def cites_issue(path):
    try:
        text = open(os.path.join(TOP, path), errors='replace').read()
    except OSError:
        return []
    return ['%s:%d' % (path, text.count('\n', 0, m.start()) + 1)
            for m in re.finditer(r'\bissues? #?[0-9]+', text, re.I)]
try:
    tracked = subprocess.check_output(['git', '-C', TOP, 'ls-files'], text=True, stderr=subprocess.DEVNULL).split()
except (OSError, subprocess.CalledProcessError):
    tracked = []
cited = [c for f in tracked if not f.startswith(('kernel/', 'testdata/')) and
         re.search(r'\.(c|h|S|sh|t|py|pl|md|[135]|txt)$|^Makefile$', f) for c in cites_issue(f)]
ok(not cited, 'no file outside kernel/ cites an issue number (%d files read)' % len(tracked), cited[:10])

done()
