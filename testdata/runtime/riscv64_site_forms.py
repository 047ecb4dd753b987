#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""
riscv64: what each recorded site of a linked program holds, from
`recordmcount --list PROG` (first column: the site's address) and
`riscv64-linux-gnu-objdump -d PROG`: prints one line of counts,
"jal=N auipc=N nop=N other=N mod4_2=N" (mod4_2: sites at an address
that is 2 mod 4, whose toggled word is not 4-byte aligned).
"""
import re
import sys


def main():
    sites = [int(line.split()[0], 16) for line in open(sys.argv[1]) if line.strip()]
    insn = {}
    for line in open(sys.argv[2]):
        m = re.match(r'^\s*([0-9a-f]+):\s+[0-9a-f]+\s+(\S+)', line)
        if m:
            insn[int(m.group(1), 16)] = m.group(2)
    counts = {'jal': 0, 'auipc': 0, 'nop': 0, 'other': 0}
    for a in sites:
        op = insn.get(a, '?')
        counts[op if op in counts else 'other'] += 1
    counts['mod4_2'] = sum(1 for a in sites if a % 4 == 2)
    print(' '.join(f'{k}={v}' for k, v in counts.items()))


main()
