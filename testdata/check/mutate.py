#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Damage a kernel-mode call-site table on purpose, for t/33-check.t.

    mutate.py drop FILE N        objects: entry N disappears (its relocation becomes R_*_NONE)
    mutate.py shift FILE N BYTES objects: entry N points BYTES further
    mutate.py dup FILE N M       objects or linked files: entry N becomes a copy of entry M
    mutate.py swap FILE N M      linked files: entries N and M trade places

Objects: entry N is the table's Nth relocation (.rel(a)__mcount_loc).  Linked
files: the Nth word of __mcount_loc, or of __start_mcount_loc..__stop_mcount_loc.
Edits the file in place; reads ELF with nothing but the struct module.
"""
import struct
import sys


class Elf:
    def __init__(self, path):
        self.path = path
        self.b = bytearray(open(path, 'rb').read())
        if self.b[:4] != b'\x7fELF':
            sys.exit(f'{path}: not ELF')
        self.is64 = self.b[4] == 2
        self.end = '<' if self.b[5] == 1 else '>'
        self.ptr = 8 if self.is64 else 4
        if self.is64:
            self.type, = self.unpack('H', 0x10)
            shoff, = self.unpack('Q', 0x28)
            shentsize, shnum, shstrndx = self.unpack('HHH', 0x3a)
            fmt = 'IIQQQQIIQQ'
        else:
            self.type, = self.unpack('H', 0x10)
            shoff, = self.unpack('I', 0x20)
            shentsize, shnum, shstrndx = self.unpack('HHH', 0x2e)
            fmt = 'IIIIIIIIII'
        keys = ('name', 'type', 'flags', 'addr', 'offset', 'size', 'link', 'info', 'align', 'entsize')
        self.sec = [dict(zip(keys, self.unpack(fmt, shoff + i * shentsize))) for i in range(shnum)]
        strtab = self.sec[shstrndx]
        for s in self.sec:
            s['sname'] = self.cstr(strtab['offset'] + s['name'])

    def unpack(self, fmt, off):
        return struct.unpack_from(self.end + fmt, self.b, off)

    def pack(self, fmt, off, *v):
        struct.pack_into(self.end + fmt, self.b, off, *v)

    def cstr(self, off):
        return self.b[off:self.b.index(0, off)].decode()

    def section(self, name):
        for s in self.sec:
            if s['sname'] == name:
                return s
        return None

    def symbol(self, name):
        for s in self.sec:
            if s['type'] != 2:      # SHT_SYMTAB
                continue
            strtab = self.sec[s['link']]
            size = 24 if self.is64 else 16
            for i in range(s['size'] // size):
                off = s['offset'] + i * size
                if self.is64:
                    st_name, _, _, _, value, _ = self.unpack('IBBHQQ', off)
                else:
                    st_name, value, _, _, _, _ = self.unpack('IIIBBH', off)
                if self.cstr(strtab['offset'] + st_name) == name:
                    return value
        return None

    def save(self):
        open(self.path, 'wb').write(self.b)


def word(e):
    return 'Q' if e.ptr == 8 else 'I'


def object_relocs(e):
    """(table section, its relocation section, entry size of a relocation, RELA?)"""
    tab = e.section('__mcount_loc')
    for name, rela in (('.rela__mcount_loc', True), ('.rel__mcount_loc', False)):
        rs = e.section(name)
        if rs:
            return tab, rs, (3 if rela else 2) * e.ptr, rela
    sys.exit(f'{e.path}: no relocations for __mcount_loc')


def reloc(e, rs, size, rela, n):
    off = rs['offset'] + n * size
    if n < 0 or (n + 1) * size > rs['size']:
        sys.exit(f'{e.path}: no relocation {n}')
    fields = e.unpack(word(e) * 2 + ('q' if e.ptr == 8 else 'i') * rela, off)
    return off, list(fields)


def put_reloc(e, off, rela, fields):
    e.pack(word(e) * 2 + ('q' if e.ptr == 8 else 'i') * rela, off, *fields)


def linked_table(e):
    """File offset and entry count of a linked file's kernel table."""
    tab = e.section('__mcount_loc')
    if tab:
        return tab['offset'], tab['size'] // e.ptr
    start, stop = e.symbol('__start_mcount_loc'), e.symbol('__stop_mcount_loc')
    if start is None or stop is None:
        sys.exit(f'{e.path}: no kernel table')
    for s in e.sec:
        if s['type'] == 1 and s['addr'] <= start and stop <= s['addr'] + s['size']:
            return s['offset'] + start - s['addr'], (stop - start) // e.ptr
    sys.exit(f'{e.path}: the table is in no section')


def main():
    op, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    e = Elf(path)
    w = word(e)
    if e.type != 1:             # linked: the words themselves
        at, count = linked_table(e)
        m = int(sys.argv[4])
        if max(n, m) >= count:
            sys.exit(f'{path}: the table has {count} entries')
        a, b = e.unpack(w, at + n * e.ptr)[0], e.unpack(w, at + m * e.ptr)[0]
        if op == 'dup':
            e.pack(w, at + n * e.ptr, b)
        elif op == 'swap':
            e.pack(w, at + n * e.ptr, b)
            e.pack(w, at + m * e.ptr, a)
        else:
            sys.exit(f'{op}: not for linked files')
        e.save()
        return
    tab, rs, size, rela = object_relocs(e)
    off, r = reloc(e, rs, size, rela, n)
    in_place = tab['offset'] + r[0]     # where REL keeps the addend (and SH beside r_addend)
    if op == 'drop':
        r[1] = 0                        # symbol 0, type 0: R_*_NONE in every r_info layout
        if rela:
            r[2] = 0
    elif op == 'shift':
        delta = int(sys.argv[4])
        if rela:
            r[2] += delta
        else:
            e.pack(w, in_place, (e.unpack(w, in_place)[0] + delta) % (1 << (8 * e.ptr)))
    elif op == 'dup':
        off_m, rm = reloc(e, rs, size, rela, int(sys.argv[4]))
        r[1:] = rm[1:]
        e.pack(w, in_place, e.unpack(w, tab['offset'] + rm[0])[0])
    else:
        sys.exit(f'{op}: unknown')
    put_reloc(e, off, rela, r)
    e.save()


if __name__ == '__main__':
    main()
