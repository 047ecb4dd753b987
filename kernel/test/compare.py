# SPDX-License-Identifier: GPL-2.0-only
"""kernel/test: the series' formatter against objpatch annotate, offline.

Usage: compare.py HARNESS SYSTEM_MAP TRACE ANNOTATED
TRACE is a function graph trace in the unpatched 6.12 format, ANNOTATED
what `objpatch annotate` made of it.  Every return line with a value is fed
to HARNESS (the kernel's formatter on the vmlinux's table) with the value
as the register held it (the decimal errnos sign-extended, as annotate reads
them) and the function's address from SYSTEM_MAP; the line it prints must be
annotate's.  Exits 1 when one differs.
"""
import collections
import re
import subprocess
import sys

harness, system_map, trace, annotated = sys.argv[1:5]
addresses = collections.defaultdict(list)
for line in open(system_map):
    addr, kind, name = line.split()[:3]
    if kind in 'tTwW':
        addresses[name].append(int(addr, 16))
raw_lines = open(trace).read().split('\n')
ann_lines = open(annotated).read().split('\n')
if len(raw_lines) != len(ann_lines):
    sys.exit('compare.py: %s and %s differ in length' % (trace, annotated))
leaf = re.compile(r'([A-Za-z0-9_.$]+)\(\); /\* = (\S+) \*/$')
close = re.compile(r'\} /\* ([A-Za-z0-9_.$]+) = (\S+) \*/$')
asks, where, missing = [], [], set()
for i, line in enumerate(raw_lines):
    m, kind = leaf.search(line), 'L'
    if not m:
        m, kind = close.search(line), 'C'
    if not m:
        continue
    name, value = m.groups()
    raw = int(value, 16) if value.startswith('0x') else int(value) & (2**64 - 1)
    found = addresses.get(name)
    if not found:
        missing.add(name)
        continue
    asks.append('%s %x %x %s\n' % (kind, min(found), raw, name))
    where.append(i)
out = subprocess.run([harness], input=''.join(asks), capture_output=True, text=True, check=True)
same, differ = 0, collections.Counter()
for i, mine in zip(where, out.stdout.split('\n')):
    theirs = ann_lines[i][ann_lines[i].rindex('|') + 1:].strip()
    if theirs == mine.strip():
        same += 1
    else:
        differ[(theirs, mine.strip())] += 1
print('compare.py: %d values: %d printed as objpatch annotate prints them, %d not'
      % (same + sum(differ.values()), same, sum(differ.values())))
for (theirs, mine), n in differ.most_common(10):
    print('  %dx annotate: %s\n      kernel:   %s' % (n, theirs, mine))
if missing:
    print('compare.py: not in System.map (skipped): ' + ' '.join(sorted(missing)))
sys.exit(1 if differ else 0)
