# SPDX-License-Identifier: GPL-2.0-only
"""kernel/test: the series' formatter against objpatch annotate on every function.

Usage: synthetic.py HARNESS OBJPATCH VMLINUX SYSTEM_MAP [--hex]
For each function System.map names once, a return line of each of a set of
raw register values (a bool's stray bits, errnos of 32 and 64 bits,
characters, pointers) is written as the unpatched 6.12 kernel prints it
(with funcgraph-retval-hex: always hex), then given to `objpatch annotate
--image VMLINUX [--hex]` and to HARNESS (the kernel's formatter on the
vmlinux's table, with the value annotate reads); both lines must be the
same.  Exits 1 when one differs.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

harness, objpatch, vmlinux, system_map = sys.argv[1:5]
hex_mode = '--hex' in sys.argv[5:]
RAWS = [0, 1, 2, 0x41, 0x0a, 0x27, 0x80, 0xff, 0x100, 0x1fffffffff00, 0x7fffffff, 0x80000000,
        0xffffffea, 0xffffffff, 0xfffffffffffffffe, 0xffffffffffffffea, 0xfffffffffffff001,
        0xfffffffffffff000, 0xffff888000123456, 0x1234567890abcdef]

# The functions of the table (objpatch list: address, then name), each
# named once in System.map: %ps prints a function's own name, never that
# of a marker symbol at the same address.
listed = set()
for line in subprocess.run([objpatch, 'list', vmlinux], capture_output=True, text=True,
                           check=True).stdout.splitlines():
    m = re.search(r'([A-Za-z_][A-Za-z0-9_.$]*)\(', line)
    if m:
        listed.add(m.group(1))
counts = collections.Counter()
addresses = {}
for line in open(system_map):
    words = line.split()
    if len(words) < 3:
        continue
    addr, kind, name = words[:3]
    if kind in 'tTwW':
        counts[name] += 1
        addresses[name] = int(addr, 16)
names = sorted(n for n, c in counts.items() if c == 1 and n in listed)


# A 32-bit kernel's register holds the low half of each value.
with open(vmlinux, 'rb') as f:
    BITS = 32 if f.read(5)[4] == 1 else 64
if BITS == 32:
    RAWS = sorted(set(r & 0xffffffff for r in RAWS))


def unpatched(raw):
    """print_graph_retval() of 6.12: hex, or %ld for an errno (32-bit ones sign-extended)."""
    if hex_mode or raw == 0:
        return '0x%x' % raw
    if BITS == 32:
        return str(raw - (1 << 32)) if raw >= 0xfffff001 else '0x%x' % raw
    if raw >> 31 == 1:
        err = raw - (1 << 32)
    elif raw >> 63:
        err = raw - (1 << 64)
    else:
        err = raw
    return str(err) if -4095 <= err < 0 else '0x%x' % raw


lines, asks = [], []
for name in names:
    for raw in RAWS:
        value = unpatched(raw)
        read = int(value, 16) if value.startswith('0x') else int(value) & (2**BITS - 1)
        lines.append(' 0)   0.100 us    |  %s(); /* = %s */\n' % (name, value))
        asks.append('L %x %x %s\n' % (addresses[name], read, name))
with tempfile.NamedTemporaryFile('w', suffix='.trace', delete=False) as f:
    f.writelines(lines)
try:
    ann = subprocess.run([objpatch, 'annotate', '--image', vmlinux] + (['--hex'] if hex_mode else []) +
                         [f.name], capture_output=True, text=True, check=True).stdout.split('\n')
finally:
    os.unlink(f.name)
mine = subprocess.run([harness] + (['hex'] if hex_mode else []), input=''.join(asks),
                      capture_output=True, text=True, check=True).stdout.split('\n')
same, differ = 0, []
for a, m in zip(ann[:len(lines)], mine[:len(lines)]):
    a = a[a.rindex('|') + 1:].strip()
    if a == m.strip():
        same += 1
    else:
        differ.append((a, m.strip()))
print('synthetic.py: %d functions x %d values%s: %d lines as annotate prints them, %d not'
      % (len(names), len(RAWS), ' (hex)' if hex_mode else '', same, len(differ)))
for a, m in differ[:15]:
    print('  annotate: %s\n  kernel:   %s' % (a, m))
sys.exit(1 if differ else 0)
