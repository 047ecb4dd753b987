#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Damage __patchable_function_entries on purpose, for t/35-patchable.t (and
__mcount_loc for t/36-recorded.t: MUTATE_TABLE=__mcount_loc).

    mutate.py drop FILE N          entry N disappears (objects: its relocation becomes R_*_NONE;
                                   linked files: it is zeroed)
    mutate.py shift FILE N BYTES   entry N points BYTES further
    mutate.py dup FILE N M         entry N becomes a copy of entry M
    mutate.py pad FILE N BYTES     the first BYTES bytes entry N points at become 0xcc (x86) or 0xff

Objects: entry N is the table's Nth relocation; linked files: the Nth word.
Edits the file in place.
"""
import importlib.util
import os
import sys

TABLE = os.environ.get('MUTATE_TABLE', '__patchable_function_entries')


def check_mutate():
    """testdata/check/mutate.py, whose ELF reader this one extends."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'check', 'mutate.py')
    spec = importlib.util.spec_from_file_location('check_mutate', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Elf(check_mutate().Elf):
    def __init__(self, path):
        super().__init__(path)
        self.machine, = self.unpack('H', 0x12)
        for i, s in enumerate(self.sec):
            s['index'] = i

    def word(self):
        return 'Q' if self.ptr == 8 else 'I'

    def table(self):
        return next(s for s in self.sec if s['sname'] == TABLE)

    def relocs(self):
        """Objects: (file offset of the relocation, rela?, table section) per entry, in table order
        (clang makes a table section per function)."""
        out = []
        for t in self.sec:
            if t['sname'] != TABLE:
                continue
            for s in self.sec:
                if s['type'] in (4, 9) and s['info'] == t['index']:
                    size = s['entsize']
                    out += [(s['offset'] + i * size, s['type'] == 4, t) for i in range(s['size'] // size)]
        if not out:
            sys.exit('no relocations for ' + TABLE)
        return out

    def entry(self, n):
        """(section index or None, file offset of the word or relocation, value)."""
        if self.type == 1:
            off, rela, t = self.relocs()[n]
            if rela and self.machine != 42:     # SH: the linker reads the addend in place
                addend_at = off + (2 * self.ptr)
                return 'rela', addend_at
            r_offset, = self.unpack(self.word(), off)
            return 'rel', t['offset'] + r_offset
        t = self.table()
        return 'word', t['offset'] + n * self.ptr

    def target(self, n):
        """File offset of the code entry N points at."""
        kind, at = self.entry(n)
        if kind == 'word':
            addr, = self.unpack(self.word(), at)
            for s in self.sec:
                if s['flags'] & 2 and s['type'] == 1 and s['addr'] <= addr < s['addr'] + s['size']:
                    return s['offset'] + addr - s['addr']
            sys.exit('entry %d: no section holds 0x%x' % (n, addr))
        off, rela, _ = self.relocs()[n]
        if self.is64:
            info, = self.unpack('Q', off + 8)
            symi = info >> 32 if self.machine != 8 else self.unpack('I', off + 8)[0]
        else:
            info, = self.unpack('I', off + 4)
            symi = info >> 8
        symtab = next(s for s in self.sec if s['type'] == 2)
        esz = 24 if self.is64 else 16
        so = symtab['offset'] + symi * esz
        if self.is64:
            _, _, _, shndx, value, _ = self.unpack('IBBHQQ', so)
        else:
            _, value, _, _, _, shndx = self.unpack('IIIBBH', so)
        addend = self.unpack('q' if self.is64 else 'i', at)[0] if kind == 'rela' else self.unpack('I', at)[0]
        return self.sec[shndx]['offset'] + value + addend

def main():
    op, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    e = Elf(path)
    kind, at = e.entry(n)
    sfmt = ('q' if e.is64 else 'i') if kind == 'rela' else ('Q' if kind == 'word' and e.is64 else 'I')
    if op == 'drop':
        if kind == 'word':
            e.pack(sfmt, at, 0)
        else:
            off = e.relocs()[n][0]
            e.pack(e.word(), off + e.ptr, 0)     # r_info 0: R_*_NONE against no symbol
    elif op == 'shift':
        v, = e.unpack(sfmt, at)
        e.pack(sfmt, at, v + int(sys.argv[4]))
    elif op == 'dup':
        kind2, at2 = e.entry(int(sys.argv[4]))
        if kind == 'word':
            e.pack(sfmt, at, e.unpack(sfmt, at2)[0])
        else:
            rel = e.relocs()
            src, dst = rel[int(sys.argv[4])][0], rel[n][0]
            size = 3 * e.ptr if rel[n][1] else 2 * e.ptr
            e.b[dst + e.ptr:dst + size] = e.b[src + e.ptr:src + size]
            if kind == 'rel':
                e.pack('I', at, e.unpack('I', at2)[0])
    elif op == 'pad':
        # int3 on x86, rts on SH (0xffff is no fault there), an undefined word elsewhere
        fill = {3: b'\xcc', 62: b'\xcc', 42: b'\x0b\x00' if e.end == '<' else b'\x00\x0b'}.get(e.machine, b'\xff')
        t = e.target(n)
        k = int(sys.argv[4])
        e.b[t:t + k] = (fill * k)[:k]
    else:
        sys.exit('unknown operation ' + op)
    e.save()


main()
