#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Make malformed copies of a valid ELF relocatable object, for the tests.

  elfmut.py targeted IN OUTDIR     one file per named mutation, names on stdout
  elfmut.py dwarf IN OUTDIR        the same for DWARF (.debug_info not compressed)
  elfmut.py random IN OUTDIR N SEED  N copies with a few random bytes changed

Each targeted mutation breaks one thing a reader must check (header fields,
section header table, relocation links, symbol and string indices, entry
sizes, section extents), so the tool under test has to reject it cleanly.
Self-contained on purpose: the standard library only, no ELF package.
"""
import os
import random
import struct
import sys

SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_REL, SHT_NOBITS, SHT_GROUP = 2, 3, 4, 9, 8, 17
SHF_EXECINSTR = 4


class Elf:
    """Field access on an ELF image by name, for either class and byte order."""

    EHDR = {  # name: (offset32, offset64, size32, size64)
        "e_type": (16, 16, 2, 2), "e_machine": (18, 18, 2, 2),
        "e_shoff": (32, 40, 4, 8), "e_shentsize": (46, 58, 2, 2),
        "e_shnum": (48, 60, 2, 2), "e_shstrndx": (50, 62, 2, 2),
    }
    SHDR = {
        "sh_name": (0, 0, 4, 4), "sh_type": (4, 4, 4, 4), "sh_flags": (8, 8, 4, 8),
        "sh_offset": (16, 24, 4, 8), "sh_size": (20, 32, 4, 8),
        "sh_link": (24, 40, 4, 4), "sh_info": (28, 44, 4, 4), "sh_entsize": (36, 56, 4, 8),
    }
    SYM = {"st_name": (0, 0, 4, 4), "st_shndx": (14, 6, 2, 2)}

    def __init__(self, image):
        self.b = bytearray(image)
        if self.b[:4] != b"\x7fELF":
            raise ValueError("not an ELF file")
        self.is64 = self.b[4] == 2
        self.end = "<" if self.b[5] == 1 else ">"

    def _get(self, table, base, name):
        o32, o64, s32, s64 = table[name]
        off, size = (o64, s64) if self.is64 else (o32, s32)
        fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[size]
        return base + off, self.end + fmt

    def get(self, table, base, name):
        off, fmt = self._get(table, base, name)
        return struct.unpack_from(fmt, self.b, off)[0]

    def put(self, table, base, name, value):
        off, fmt = self._get(table, base, name)
        mask = (1 << (8 * struct.calcsize(fmt))) - 1
        struct.pack_into(fmt, self.b, off, value & mask)

    def eh(self, name, value=None):
        if value is None:
            return self.get(self.EHDR, 0, name)
        return self.put(self.EHDR, 0, name, value)

    def shdr_off(self, i):
        return self.eh("e_shoff") + i * self.eh("e_shentsize")

    def sh(self, i, name, value=None):
        if value is None:
            return self.get(self.SHDR, self.shdr_off(i), name)
        return self.put(self.SHDR, self.shdr_off(i), name, value)

    def nsec(self):
        return self.eh("e_shnum")

    def name(self, i):
        strtab = self.sh(self.eh("e_shstrndx"), "sh_offset")
        start = strtab + self.sh(i, "sh_name")
        return bytes(self.b[start:self.b.index(0, start)]).decode()

    def find(self, pred):
        for i in range(1, self.nsec()):
            if pred(i):
                return i
        raise LookupError("no such section")

    def by_type(self, t):
        return self.find(lambda i: self.sh(i, "sh_type") == t)

    def by_name(self, n):
        return self.find(lambda i: self.name(i) == n)

    def text_relocs(self):
        """The relocation section of the first executable section."""
        def pred(i):
            if self.sh(i, "sh_type") not in (SHT_REL, SHT_RELA):
                return False
            target = self.sh(i, "sh_info")
            return 0 < target < self.nsec() and self.sh(target, "sh_flags") & SHF_EXECINSTR
        return self.find(pred)

    def sym_off(self, idx):
        st = self.by_type(SHT_SYMTAB)
        return self.sh(st, "sh_offset") + idx * (24 if self.is64 else 16)

    def set_reloc_sym(self, relsec, n, sym):
        """Point relocation n of `relsec` at symbol `sym` (standard r_info layout)."""
        entsize = self.sh(relsec, "sh_entsize")
        info = self.sh(relsec, "sh_offset") + n * entsize + (8 if self.is64 else 4)
        if self.is64:
            fmt = self.end + "Q"
            v = struct.unpack_from(fmt, self.b, info)[0]
            struct.pack_into(fmt, self.b, info, (sym << 32) | (v & 0xffffffff))
        else:
            fmt = self.end + "I"
            v = struct.unpack_from(fmt, self.b, info)[0]
            struct.pack_into(fmt, self.b, info, ((sym << 8) | (v & 0xff)) & 0xffffffff)


def targeted(image):
    """Yields (name, bytes) for every mutation; each must be rejected."""
    size = len(image)

    def mut(fn):
        """None when the object lacks what the mutation needs (a group)."""
        e = Elf(image)
        try:
            fn(e)
        except LookupError:
            return None
        return bytes(e.b)

    base = Elf(image)
    shoff, shentsize, shnum = base.eh("e_shoff"), base.eh("e_shentsize"), base.nsec()
    # Truncations: every 1/20 of the file, inside the ELF header, inside and
    # just short of the section header table.
    cuts = {size * k // 20 for k in range(1, 20)}
    cuts |= {4, 16, 17, 40, 52, 63, shoff, shoff + 1, shoff + shentsize - 1,
             shoff + shentsize * (shnum // 2) + 7, size - 1}
    for c in sorted(x for x in cuts if 0 < x < size):
        yield "trunc-%d" % c, image[:c]

    def ident(i, v):
        return lambda e: e.b.__setitem__(i, v)
    yield "class-none", mut(ident(4, 0))
    yield "class-3", mut(ident(4, 3))
    yield "class-swapped", mut(ident(4, 3 - image[4]))
    yield "data-none", mut(ident(5, 0))
    yield "data-3", mut(ident(5, 3))
    yield "data-swapped", mut(ident(5, 3 - image[5]))
    yield "type-exec", mut(lambda e: e.eh("e_type", 2))
    yield "type-dyn", mut(lambda e: e.eh("e_type", 3))
    yield "type-core", mut(lambda e: e.eh("e_type", 4))
    yield "machine-unknown", mut(lambda e: e.eh("e_machine", 0xbeef))
    yield "machine-none", mut(lambda e: e.eh("e_machine", 0))

    yield "shoff-beyond-eof", mut(lambda e: e.eh("e_shoff", size + 64))
    yield "shoff-huge", mut(lambda e: e.eh("e_shoff", (1 << (64 if e.is64 else 32)) - 8))
    yield "shoff-table-crosses-eof", mut(lambda e: e.eh("e_shoff", size - shentsize * shnum // 2))
    yield "shnum-too-many", mut(lambda e: e.eh("e_shnum", shnum + 10))
    yield "shnum-0xffff", mut(lambda e: e.eh("e_shnum", 0xffff))
    yield "shnum-zero", mut(lambda e: e.eh("e_shnum", 0))
    yield "shentsize-wrong", mut(lambda e: e.eh("e_shentsize", shentsize - 8))
    yield "shstrndx-beyond", mut(lambda e: e.eh("e_shstrndx", shnum + 3))
    yield "shstrndx-zero", mut(lambda e: e.eh("e_shstrndx", 0))
    yield "shstrndx-not-strtab", mut(lambda e: e.eh("e_shstrndx", e.by_type(SHT_SYMTAB)))

    def rel(field, value):
        return mut(lambda e: e.sh(e.text_relocs(), field, value(e) if callable(value) else value))
    yield "rel-link-beyond", rel("sh_link", shnum + 5)
    yield "rel-link-huge", rel("sh_link", 0xfffffff0)
    yield "rel-link-zero", rel("sh_link", 0)
    yield "rel-link-not-symtab", rel("sh_link", lambda e: e.eh("e_shstrndx"))
    yield "rel-info-beyond", rel("sh_info", shnum + 5)
    yield "rel-info-huge", rel("sh_info", 0xfffffff0)
    yield "rel-info-zero", rel("sh_info", 0)
    for name, bad in (("rel-entsize-zero", 0), ("rel-entsize-small", 1), ("rel-entsize-big", 4096)):
        yield name, mut(lambda e, bad=bad: e.sh(e.text_relocs(), "sh_entsize", bad))

    def nsyms(e):
        st = e.by_type(SHT_SYMTAB)
        return e.sh(st, "sh_size") // e.sh(st, "sh_entsize")
    yield "reloc-sym-beyond", mut(lambda e: e.set_reloc_sym(e.text_relocs(), 0, nsyms(e) + 5))
    yield "reloc-sym-huge", mut(lambda e: e.set_reloc_sym(e.text_relocs(), 0, 0xffffff))

    def symtab(field, value):
        return mut(lambda e: e.sh(e.by_type(SHT_SYMTAB), field, value(e) if callable(value) else value))
    yield "symtab-entsize-zero", symtab("sh_entsize", 0)
    yield "symtab-entsize-wrong", symtab("sh_entsize", 7)
    yield "symtab-link-beyond", symtab("sh_link", shnum + 1)
    yield "symtab-link-zero", symtab("sh_link", 0)
    yield "symtab-link-not-strtab", symtab("sh_link", lambda e: e.by_type(SHT_SYMTAB))
    yield "symtab-info-beyond", symtab("sh_info", lambda e: nsyms(e) + 1)
    yield "symtab-info-zero", symtab("sh_info", 0)
    yield "symtab-size-beyond-eof", symtab("sh_size", lambda e: size)
    yield "sym-shndx-beyond", mut(lambda e: e.put(e.SYM, e.sym_off(nsyms(e) - 1), "st_shndx", shnum + 2))

    yield "secname-beyond", mut(lambda e: e.sh(1, "sh_name", 0x7ffffff0))
    yield "secname-just-beyond", mut(lambda e: e.sh(2, "sh_name", e.sh(e.eh("e_shstrndx"), "sh_size")))
    yield "symname-beyond", mut(lambda e: e.put(e.SYM, e.sym_off(nsyms(e) - 1), "st_name", 0x7ffffff0))

    def unterminate(e, sec):
        end = e.sh(sec, "sh_offset") + e.sh(sec, "sh_size") - 1
        e.b[end] = ord("x")
    yield "shstrtab-unterminated", mut(lambda e: unterminate(e, e.eh("e_shstrndx")))

    def group_word(e, n, value):
        g = e.by_type(SHT_GROUP)
        struct.pack_into(e.end + "I", e.b, e.sh(g, "sh_offset") + 4 * n, value)
    yield "group-member-beyond", mut(lambda e: group_word(e, 1, shnum + 3))
    yield "group-member-zero", mut(lambda e: group_word(e, 1, 0))
    yield "group-size-odd", mut(lambda e: e.sh(e.by_type(SHT_GROUP), "sh_size",
                                                e.sh(e.by_type(SHT_GROUP), "sh_size") - 1))

    def text(field, value):
        return mut(lambda e: e.sh(e.by_name(".text"), field, value(e) if callable(value) else value))
    yield "text-size-beyond-eof", text("sh_size", size)
    yield "text-offset-beyond-eof", text("sh_offset", size + 16)
    yield "text-offset-near-eof", text("sh_offset", size - 2)
    yield "text-offset-wraps", text("sh_offset", (1 << (64 if base.is64 else 32)) - 16)
    yield "rel-size-beyond-eof", rel("sh_size", size)
    yield "shstrtab-size-beyond-eof", mut(lambda e: e.sh(e.eh("e_shstrndx"), "sh_size", size))


def dwarf(image):
    """Yields (name, bytes): a broken first unit header in an uncompressed
    .debug_info (DWARF 5, 32-bit), and broken debug section extents.  A
    reader may ignore bad DWARF or reject the file, but never crash."""
    e = Elf(image)
    info = e.by_name(".debug_info")
    off = e.sh(info, "sh_offset")
    if e.sh(info, "sh_flags") & 0x800:	# SHF_COMPRESSED
        raise LookupError(".debug_info is compressed")

    def at(rel, fmt, value):
        def fn():
            b = bytearray(image)
            struct.pack_into(e.end + fmt, b, off + rel, value)
            return bytes(b)
        return fn()
    yield "dwarf-unit-type-unknown", at(6, "B", 0x11)
    yield "dwarf-unit-type-zero", at(6, "B", 0)
    yield "dwarf-unit-type-skeleton", at(6, "B", 4)
    yield "dwarf-unit-type-type", at(6, "B", 2)
    yield "dwarf-version-0", at(4, "H", 0)
    yield "dwarf-version-huge", at(4, "H", 0xffff)
    yield "dwarf-version-2", at(4, "H", 2)
    yield "dwarf-unit-length-huge", at(0, "I", 0xfffffff0)
    yield "dwarf-unit-length-zero", at(0, "I", 0)
    yield "dwarf-unit-length-64bit", at(0, "I", 0xffffffff)
    yield "dwarf-address-size-3", at(7, "B", 3)
    yield "dwarf-abbrev-offset-huge", at(8, "I", 0x7ffffff0)
    yield "dwarf-first-abbrev-code-huge", at(12, "B", 0x7f)
    for name in (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line", ".debug_line_str"):
        try:
            sec = e.by_name(name)
        except LookupError:
            continue
        b = Elf(image)
        b.sh(sec, "sh_size", b.sh(sec, "sh_size") // 2)
        yield "dwarf-half%s" % name.replace(".", "-"), bytes(b.b)
        b = Elf(image)
        b.sh(sec, "sh_size", 0)
        yield "dwarf-empty%s" % name.replace(".", "-"), bytes(b.b)
        b = Elf(image)
        b.sh(sec, "sh_type", SHT_NOBITS)
        yield "dwarf-nobits%s" % name.replace(".", "-"), bytes(b.b)


def random_flips(image, n, seed):
    """Mutants with 1-6 random bytes changed, mostly in the headers, tables and
    debug information a reader interprets rather than in code it only copies."""
    rng = random.Random(seed)
    e = Elf(image)
    hot = [(0, 64), (e.eh("e_shoff"), e.eh("e_shentsize") * e.nsec())]
    for i in range(1, e.nsec()):
        # The DWARF the tool reads for its prototype tables counts too.
        if e.sh(i, "sh_type") in (SHT_SYMTAB, SHT_REL, SHT_RELA, SHT_GROUP, SHT_STRTAB) or \
                e.name(i).startswith(".debug_"):
            hot.append((e.sh(i, "sh_offset"), e.sh(i, "sh_size")))
    for k in range(n):
        b = bytearray(image)
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.85:
                start, length = rng.choice(hot)
                pos = start + rng.randrange(max(length, 1))
            else:
                pos = rng.randrange(len(b))
            pos = min(pos, len(b) - 1)
            b[pos] = rng.choice((0, 0xff, b[pos] ^ (1 << rng.randrange(8)), rng.randrange(256)))
        yield "flip-%03d" % k, bytes(b)


def main(argv):
    if len(argv) < 4 or argv[1] not in ("targeted", "dwarf", "random"):
        sys.exit(__doc__)
    with open(argv[2], "rb") as f:
        image = f.read()
    os.makedirs(argv[3], exist_ok=True)
    if argv[1] == "targeted":
        gen = targeted(image)
    elif argv[1] == "dwarf":
        gen = dwarf(image)
    else:
        gen = random_flips(image, int(argv[4]), int(argv[5]))
    try:
        items = list(gen)
    except LookupError as err:
        sys.exit("elfmut.py: %s: %s" % (argv[2], err))
    for name, data in items:
        if data is None:
            continue
        with open(os.path.join(argv[3], name + ".o"), "wb") as f:
            f.write(data)
        print(name)


if __name__ == "__main__":
    main(sys.argv)
