#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Structured mutants of valid ELF relocatable objects, and the checks t/44 runs on them.

  mutate.py gen OUT_DIR COUNT SEED BASE.o...
      write COUNT mutants (0000.o ...) and a line `NAME DESCRIPTION` each on
      stdout; the same seed gives the same mutants
  mutate.py run --tool T [--objpatch P] [--mode-cycle] --count N --seed S
                [--tag NAME] --work DIR [--save DIR] [--readelf N] [--slow SECONDS]
                BASE.o...
      generate the mutants and check the tools on them (Checker.go);
      prints `key value` summary lines and `FAIL ...` lines
  mutate.py scaled --tool T --work DIR
      time the tool on size-scaled malformed objects (linear time)

A mutant breaks what a reader has to check: the ELF header (section header
table offset, count, entry size, name table index, class, byte order,
machine), any field of a section header (offset, size, link, info, entry
size, type, flags, name, alignment), links that point at themselves or at
each other, symbols (name, section index, value, size, type and binding),
relocations (symbol index, type, offset, addend, duplicates), string tables
(cut short, unterminated), extended section numbering (SHN_XINDEX in the
header, in symbols, a forged SHT_SYMTAB_SHNDX), COMDAT groups, section names
(a name the tool treats specially), instruction bytes at a call site,
another architecture's machine number, sections retyped (code or
relocations with no file bytes), truncation anywhere, random bytes, and two
or three of these at once.
Self-contained: the standard library only.
"""
import glob
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import time

SHT = dict(NULL=0, PROGBITS=1, SYMTAB=2, STRTAB=3, RELA=4, HASH=5, DYNAMIC=6, NOTE=7, NOBITS=8, REL=9,
           SHLIB=10, DYNSYM=11, INIT_ARRAY=14, FINI_ARRAY=15, PREINIT_ARRAY=16, GROUP=17, SYMTAB_SHNDX=18,
           LLVM_ADDRSIG=0x6fff4c03, GNU_versym=0x6fffffff, ARM_ATTRIBUTES=0x70000003)
SHF_BITS = [0x1, 0x2, 0x4, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800, 0x80000000, 0x0ff00000]
MACHINES = [2, 3, 8, 18, 20, 21, 22, 40, 42, 43, 50, 62, 183, 243, 258]
SPECIAL_NAMES = [b".text", b"__mcount_loc", b".rela__mcount_loc", b".rel__mcount_loc", b"__mcount_rel",
                 b".init.text", b".noinstr.text", b".debug_info", b".symtab", b".strtab", b"__mcount_proto"]

EHDR = {  # name: (off32, off64, fmt32, fmt64)
    "e_type": (16, 16, "H", "H"), "e_machine": (18, 18, "H", "H"), "e_version": (20, 20, "I", "I"),
    "e_entry": (24, 24, "I", "Q"), "e_phoff": (28, 32, "I", "Q"), "e_shoff": (32, 40, "I", "Q"),
    "e_flags": (36, 48, "I", "I"), "e_ehsize": (40, 52, "H", "H"), "e_phentsize": (42, 54, "H", "H"),
    "e_phnum": (44, 56, "H", "H"), "e_shentsize": (46, 58, "H", "H"), "e_shnum": (48, 60, "H", "H"),
    "e_shstrndx": (50, 62, "H", "H"),
}
SHDR = {
    "sh_name": (0, 0, "I", "I"), "sh_type": (4, 4, "I", "I"), "sh_flags": (8, 8, "I", "Q"),
    "sh_addr": (12, 16, "I", "Q"), "sh_offset": (16, 24, "I", "Q"), "sh_size": (20, 32, "I", "Q"),
    "sh_link": (24, 40, "I", "I"), "sh_info": (28, 44, "I", "I"), "sh_addralign": (32, 48, "I", "Q"),
    "sh_entsize": (36, 56, "I", "Q"),
}
SYM = {
    "st_name": (0, 0, "I", "I"), "st_value": (4, 8, "I", "Q"), "st_size": (8, 16, "I", "Q"),
    "st_info": (12, 4, "B", "B"), "st_other": (13, 5, "B", "B"), "st_shndx": (14, 6, "H", "H"),
}


class Elf:
    """A valid object's layout (read once) and typed writes into a copy of it."""

    def __init__(self, image):
        self.base = bytes(image)
        self.b = bytearray(image)
        self.is64 = image[4] == 2
        self.end = "<" if image[5] == 1 else ">"
        self.size = len(image)
        self.shoff = self.eh("e_shoff")
        self.shentsize = self.eh("e_shentsize")
        self.shnum = self.eh("e_shnum") or self.get(SHDR, self.shoff, "sh_size")
        self.shstrndx = self.eh("e_shstrndx")
        if self.shstrndx == 0xffff:
            self.shstrndx = self.get(SHDR, self.shoff, "sh_link")
        self.machine = self.eh("e_machine")
        self.sec = [{f: self.get(SHDR, self.shdr(i), f) for f in SHDR} for i in range(self.shnum)]
        strtab = self.sec[self.shstrndx]
        for s in self.sec:
            s["nm"] = self.cstr(strtab["sh_offset"] + s["sh_name"])
        self.symtab = self.first(SHT["SYMTAB"])
        self.symsize = 24 if self.is64 else 16
        self.nsym = self.sec[self.symtab]["sh_size"] // self.symsize if self.symtab else 0
        self.rels = [i for i, s in enumerate(self.sec) if s["sh_type"] in (SHT["REL"], SHT["RELA"])]
        self.groups = [i for i, s in enumerate(self.sec) if s["sh_type"] == SHT["GROUP"]]
        self.strtabs = [i for i, s in enumerate(self.sec) if s["sh_type"] == SHT["STRTAB"]]
        self.texts = [i for i, s in enumerate(self.sec) if s["sh_flags"] & 4 and s["sh_type"] == 1]
        self.maxword = (1 << (64 if self.is64 else 32)) - 1

    def cstr(self, off):
        end = self.base.find(b"\0", off)
        return self.base[off:end] if 0 <= off < self.size and end >= 0 else b""

    def first(self, t):
        return next((i for i, s in enumerate(self.sec) if s["sh_type"] == t), 0)

    def _at(self, table, base, name):
        o32, o64, f32, f64 = table[name]
        return base + (o64 if self.is64 else o32), self.end + (f64 if self.is64 else f32)

    def get(self, table, base, name):
        off, fmt = self._at(table, base, name)
        return struct.unpack_from(fmt, self.base, off)[0]

    def put(self, table, base, name, value):
        off, fmt = self._at(table, base, name)
        struct.pack_into(fmt, self.b, off, value & ((1 << (8 * struct.calcsize(fmt))) - 1))

    def eh(self, name, value=None):
        if value is None:
            return self.get(EHDR, 0, name)
        self.put(EHDR, 0, name, value)

    def shdr(self, i):
        return self.shoff + i * self.shentsize

    def set_sh(self, i, name, value):
        self.put(SHDR, self.shdr(i), name, value)

    def sym_off(self, k):
        return self.sec[self.symtab]["sh_offset"] + k * self.symsize

    def rel_entry(self, r, k):
        s = self.sec[r]
        return s["sh_offset"] + k * s["sh_entsize"]

    def nrel(self, r):
        s = self.sec[r]
        return s["sh_size"] // s["sh_entsize"] if s["sh_entsize"] else 0

    def set_rinfo(self, r, k, sym=None, typ=None):
        off = self.rel_entry(r, k) + (8 if self.is64 else 4)
        if self.is64 and self.machine == 8:	# MIPS64: sym(4) ssym type3 type2 type
            if sym is not None:
                struct.pack_into(self.end + "I", self.b, off, sym & 0xffffffff)
            if typ is not None:
                self.b[off + 7] = typ & 0xff
            return
        fmt = self.end + ("Q" if self.is64 else "I")
        v = struct.unpack_from(fmt, self.b, off)[0]
        shift, tmask = (32, 0xffffffff) if self.is64 else (8, 0xff)
        s, t = v >> shift, v & tmask
        s = s if sym is None else sym & ((1 << (64 - shift if self.is64 else 24)) - 1)
        t = t if typ is None else typ & tmask
        struct.pack_into(fmt, self.b, off, (s << shift) | t)

    def rinfo(self, r, k):
        off = self.rel_entry(r, k) + (8 if self.is64 else 4)
        if self.is64 and self.machine == 8:
            return struct.unpack_from(self.end + "I", self.base, off)[0], self.base[off + 7]
        v = struct.unpack_from(self.end + ("Q" if self.is64 else "I"), self.base, off)[0]
        return (v >> 32, v & 0xffffffff) if self.is64 else (v >> 8, v & 0xff)


# ---- the mutations: each edits e (an Elf) with rng and returns a description ----

def pick_value(rng, e, orig, extra=()):
    """An interesting value for a field that held `orig`."""
    m = e.maxword
    choices = [0, 1, orig + 1, orig - 1, orig * 2, m, m - 7, 1 << 31, (1 << 31) - 1, 0xffff, 0xff00,
               e.size, e.size - 1, e.size + 1, rng.randrange(1 << 16), rng.randrange(m + 1)] + list(extra)
    return rng.choice(choices) & m


def m_truncate(rng, e):
    s = e.sec[rng.randrange(1, e.shnum)]
    cut = rng.choice([rng.randrange(1, e.size), rng.randrange(1, 64), e.shoff + rng.randrange(e.shnum * e.shentsize),
                      s["sh_offset"] + rng.randrange(max(s["sh_size"], 1)), e.size - rng.randrange(1, 9)])
    cut = min(max(cut, 1), e.size - 1)
    del e.b[cut:]
    return "truncate at %d of %d" % (cut, e.size)


def m_ehdr(rng, e):
    name = rng.choice(["e_shoff"] * 4 + ["e_shnum"] * 4 + ["e_shstrndx"] * 4 + ["e_shentsize"] * 2 +
                      ["e_type", "e_machine", "e_machine", "e_version", "e_ehsize", "e_phoff", "e_phnum",
                       "e_phentsize", "e_flags", "e_entry", "ident"])
    if name == "ident":
        i = rng.choice([4, 5, 6, 7, 8, 9, 15])
        v = rng.choice([0, 1, 2, 3, 0xff, e.b[i] ^ 3])
        e.b[i] = v
        return "e_ident[%d] = %d" % (i, v)
    orig = e.eh(name)
    extra = {
        "e_shoff": [e.shoff + 1, e.shoff + e.shentsize, e.sec[rng.randrange(e.shnum)]["sh_offset"], 64, e.size - 40],
        "e_shnum": [e.shnum - 1, e.shnum + 1, e.shnum * 2, 2, 0xffff],
        "e_shstrndx": [e.shnum, e.shnum - 1, 0xffff, e.symtab, rng.randrange(e.shnum)] + e.rels[:1],
        "e_shentsize": [40, 64, 0],
        "e_type": [2, 3, 4, 0xfe00],
        "e_machine": MACHINES,
    }.get(name, [])
    v = pick_value(rng, e, orig, extra * 4)
    e.eh(name, v)
    return "%s %#x -> %#x" % (name, orig, v & ((1 << 64) - 1))


def pick_section(rng, e):
    pool = list(range(1, e.shnum)) + [e.symtab] * 3 + e.rels * 2 + e.strtabs * 2 + e.texts * 2 + e.groups * 2
    return rng.choice(pool)


def m_shdr(rng, e):
    i = pick_section(rng, e)
    s = e.sec[i]
    name = rng.choice(["sh_offset", "sh_size"] * 3 + ["sh_link", "sh_info"] * 3 +
                      ["sh_entsize", "sh_entsize", "sh_type", "sh_type", "sh_flags", "sh_flags", "sh_name",
                       "sh_addralign", "sh_addr"])
    orig = s[name]
    other = e.sec[rng.randrange(e.shnum)]
    extra = {
        "sh_offset": [other["sh_offset"], e.shoff, e.size - 1, orig + 1, e.maxword - 15],
        "sh_size": [other["sh_size"], e.size - s["sh_offset"], e.size - s["sh_offset"] + 1,
                    orig - 1 if orig else 1, orig + (s["sh_entsize"] or 1)],
        "sh_link": [i, 0, e.shnum, e.shnum - 1, e.symtab, e.shstrndx, 0xffff, 0xfff1] + e.rels[:2],
        "sh_info": [i, 0, e.shnum, e.shnum - 1, e.symtab, e.nsym, e.nsym + 1, 0xffff] + e.rels[:2],
        "sh_entsize": [0, 1, 4, 8, 12, 16, 24, 40, 64, orig + 1],
        "sh_type": list(SHT.values()) + [0x7fffffff, 0x60000000],
        "sh_flags": [orig ^ b for b in SHF_BITS] * 2,
        "sh_name": [e.sec[e.shstrndx]["sh_size"], e.sec[e.shstrndx]["sh_size"] - 1, orig + 1, other["sh_name"]],
        "sh_addralign": [0, 3, 1 << 63, 1 << 31, 4096],
        "sh_addr": [e.maxword, 1 << 31, 0x1000],
    }[name]
    v = pick_value(rng, e, orig, extra * 3)
    e.set_sh(i, name, v)
    return "section %d (%s) %s %#x -> %#x" % (i, s["nm"].decode(errors="replace"), name, orig, v)


def m_cycle(rng, e):
    """Links that point back at themselves or at each other."""
    a, b = pick_section(rng, e), pick_section(rng, e)
    kind = rng.randrange(5)
    if kind == 0:
        e.set_sh(a, "sh_link", a)
        return "section %d sh_link -> itself" % a
    if kind == 1:
        e.set_sh(a, "sh_info", a)
        return "section %d sh_info -> itself" % a
    if kind == 2:
        e.set_sh(a, "sh_link", b)
        e.set_sh(b, "sh_link", a)
        return "sections %d and %d sh_link -> each other" % (a, b)
    if kind == 3 and e.rels:
        r = rng.choice(e.rels)
        e.set_sh(r, "sh_info", rng.choice(e.rels))
        e.set_sh(r, "sh_link", rng.choice(e.rels + [r]))
        return "relocation section %d applies to and links a relocation section" % r
    e.set_sh(e.symtab, "sh_link", e.symtab)
    return "symtab sh_link -> itself"


def pick_symbol(rng, e):
    if e.nsym < 2:
        return 0
    k = rng.randrange(e.nsym)
    return rng.choice([k, k, e.nsym - 1, 1, rng.randrange(1, e.nsym)])


def m_symbol(rng, e):
    k = pick_symbol(rng, e)
    base = e.sym_off(k)
    name = rng.choice(["st_name", "st_shndx", "st_shndx", "st_shndx", "st_value", "st_value", "st_size",
                       "st_info", "st_info", "st_other"])
    orig = e.get(SYM, base, name)
    strsz = e.sec[e.sec[e.symtab]["sh_link"]]["sh_size"]
    extra = {
        "st_name": [strsz, strsz - 1, strsz + 1, orig + 1, e.maxword],
        "st_shndx": [0, e.shnum, e.shnum - 1, 0xfff1, 0xfff2, 0xffff, 0xff00, e.symtab, e.shstrndx] + e.rels[:2],
        "st_value": [e.maxword, e.maxword - 3, 1 << 31, orig + 1, orig + 0x10000],
        "st_size": [e.maxword, 1 << 31, 0x10000, orig + 1],
        "st_info": [(orig & 0xf0) | t for t in (0, 1, 2, 3, 4, 6, 10)] +
                   [(bnd << 4) | (orig & 15) for bnd in (0, 1, 2, 10)],
        "st_other": [1, 2, 3, 0x80, 0xff],
    }[name]
    v = pick_value(rng, e, orig, extra * 3)
    e.put(SYM, base, name, v)
    return "symbol %d %s %#x -> %#x" % (k, name, orig, v & e.maxword)


def m_reloc(rng, e):
    if not e.rels:
        return m_symbol(rng, e)
    texts = [r for r in e.rels if e.sec[r]["sh_info"] in e.texts]
    r = rng.choice(e.rels + texts * 3)
    n = e.nrel(r)
    if n == 0:
        return m_shdr(rng, e)
    k = rng.randrange(n)
    sym, typ = e.rinfo(r, k)
    kind = rng.choice(["sym"] * 3 + ["type"] * 3 + ["offset"] * 3 + ["addend", "dup", "same-offset"])
    ent = e.rel_entry(r, k)
    word = "Q" if e.is64 else "I"
    if kind == "sym":
        v = rng.choice([0, e.nsym, e.nsym - 1, e.nsym + 1, 0xffffff, e.maxword, rng.randrange(e.nsym or 1)])
        e.set_rinfo(r, k, sym=v)
        return "section %d reloc %d symbol %d -> %d" % (r, k, sym, v)
    if kind == "type":
        other = e.rinfo(r, rng.randrange(n))[1]
        v = rng.choice([0, 0xff, other, typ + 1, typ - 1, rng.randrange(256), rng.randrange(1 << 16)])
        e.set_rinfo(r, k, typ=v)
        return "section %d reloc %d type %d -> %d" % (r, k, typ, v)
    if kind == "offset":
        tsize = e.sec[e.sec[r]["sh_info"]]["sh_size"] if e.sec[r]["sh_info"] < e.shnum else 0
        orig = struct.unpack_from(e.end + word, e.base, ent)[0]
        v = rng.choice([0, tsize, tsize - 1, tsize - 2, tsize + 4, e.maxword, e.maxword - 3, orig + 1, orig - 1,
                        rng.randrange(max(tsize, 1))]) & e.maxword
        struct.pack_into(e.end + word, e.b, ent, v)
        return "section %d reloc %d offset %#x -> %#x" % (r, k, orig, v)
    if kind == "addend":
        if e.sec[r]["sh_type"] != SHT["RELA"]:
            return m_reloc(rng, e)
        off = ent + (16 if e.is64 else 8)
        v = rng.choice([0, 1 << 31, e.maxword, e.maxword >> 1, rng.randrange(e.maxword)])
        struct.pack_into(e.end + word, e.b, off, v)
        return "section %d reloc %d addend -> %#x" % (r, k, v)
    size = e.sec[r]["sh_entsize"]
    if kind == "dup":
        j = rng.randrange(n)
        e.b[e.rel_entry(r, j):e.rel_entry(r, j) + size] = e.base[ent:ent + size]
        return "section %d reloc %d copied over %d" % (r, k, j)
    orig = struct.unpack_from(e.end + word, e.base, ent)[0]
    for j in range(n):
        struct.pack_into(e.end + word, e.b, e.rel_entry(r, j), orig)
    return "section %d: every reloc at offset %#x" % (r, orig)


def m_string(rng, e):
    i = rng.choice(e.strtabs)
    s = e.sec[i]
    kind = rng.randrange(5)
    if kind == 0:
        v = rng.randrange(s["sh_size"])
        e.set_sh(i, "sh_size", v)
        return "string table %d cut to %d bytes" % (i, v)
    if kind == 1:
        e.b[s["sh_offset"] + s["sh_size"] - 1] = ord("x")
        return "string table %d unterminated" % i
    if kind == 2:
        e.b[s["sh_offset"]] = ord("x")
        return "string table %d does not start with NUL" % i
    if kind == 3:
        for j in range(s["sh_offset"], s["sh_offset"] + s["sh_size"]):
            if e.b[j] == 0 and rng.random() < 0.3:
                e.b[j] = ord("A")
        return "string table %d: NULs replaced" % i
    e.b[s["sh_offset"]:s["sh_offset"] + s["sh_size"]] = bytes(rng.randrange(256) for _ in range(s["sh_size"]))
    return "string table %d: random bytes" % i


def m_xindex(rng, e):
    """Extended section numbering, right and wrong."""
    kind = rng.randrange(6)
    if kind == 0:
        v = rng.choice([e.shnum, e.shnum, e.shnum + 1, e.shnum - 1, 0, e.maxword, 0x10000])
        e.eh("e_shnum", 0)
        e.set_sh(0, "sh_size", v)
        return "e_shnum 0, section 0 sh_size %#x (real count %d)" % (v, e.shnum)
    if kind == 1:
        v = rng.choice([e.shstrndx, e.shstrndx, 0, e.shnum, e.symtab, 0xffff, e.maxword & 0xffffffff])
        e.eh("e_shstrndx", 0xffff)
        e.set_sh(0, "sh_link", v)
        return "e_shstrndx SHN_XINDEX, section 0 sh_link %d (real %d)" % (v, e.shstrndx)
    if kind == 2:
        k = pick_symbol(rng, e)
        e.put(SYM, e.sym_off(k), "st_shndx", 0xffff)
        return "symbol %d st_shndx SHN_XINDEX, no extended index table" % k
    # Forge an SHT_SYMTAB_SHNDX from another section.
    cands = [i for i in range(1, e.shnum) if i not in (e.symtab, e.shstrndx) and e.sec[i]["sh_type"] != SHT["STRTAB"]]
    i = rng.choice(cands)
    e.set_sh(i, "sh_type", SHT["SYMTAB_SHNDX"])
    e.set_sh(i, "sh_link", e.symtab if kind != 5 else rng.choice([i, 0, e.shnum]))
    e.set_sh(i, "sh_entsize", 4)
    size = rng.choice([e.nsym * 4, e.nsym * 4 - 4, 4, 0, e.sec[i]["sh_size"]])
    if size <= e.sec[i]["sh_size"] or rng.random() < 0.5:
        e.set_sh(i, "sh_size", size)
    start = e.sec[i]["sh_offset"]
    for j in range(min(size, e.sec[i]["sh_size"]) // 4):
        if rng.random() < 0.3:
            struct.pack_into(e.end + "I", e.b, start + 4 * j,
                             rng.choice([0, e.shnum, e.shnum - 1, 0xffffffff, rng.randrange(e.shnum)]))
    for _ in range(rng.randrange(1, 4)):
        e.put(SYM, e.sym_off(pick_symbol(rng, e)), "st_shndx", 0xffff)
    return "section %d (%s) made an extended index table of %d bytes (kind %d)" % (
        i, e.sec[i]["nm"].decode(errors="replace"), size, kind)


def m_group(rng, e):
    if not e.groups:
        return m_cycle(rng, e)
    g = rng.choice(e.groups)
    s = e.sec[g]
    n = s["sh_size"] // 4
    kind = rng.randrange(6)
    if kind == 0 or n < 2:
        v = rng.choice([0, 2, 0xffffffff, rng.randrange(1 << 32)])
        struct.pack_into(e.end + "I", e.b, s["sh_offset"], v)
        return "group %d flags -> %#x" % (g, v)
    w = rng.randrange(1, n)
    v = rng.choice([0, g, e.shnum, e.shnum - 1, e.symtab, 0xffffffff, 0xffff,
                    struct.unpack_from(e.end + "I", e.base, s["sh_offset"] + 4 * rng.randrange(1, n))[0]])
    if kind in (1, 2, 3):
        struct.pack_into(e.end + "I", e.b, s["sh_offset"] + 4 * w, v)
        return "group %d member %d -> %d" % (g, w, v)
    if kind == 4:
        v = rng.choice([e.nsym, e.nsym + 5, 0, e.maxword & 0xffffffff])
        e.set_sh(g, "sh_info", v)
        return "group %d signature symbol -> %d" % (g, v)
    v = rng.choice([0, 4, s["sh_size"] + 4, s["sh_size"] - 2])
    e.set_sh(g, "sh_size", v)
    return "group %d size -> %d" % (g, v)


def m_rename(rng, e):
    """Point a section's name at a name the tool treats specially, if .shstrtab has it."""
    st = e.sec[e.shstrndx]
    table = e.base[st["sh_offset"]:st["sh_offset"] + st["sh_size"]]
    found = []
    for nm in SPECIAL_NAMES:
        at = table.find(nm + b"\0")
        if at >= 0:
            found.append((nm, at))
    i = pick_section(rng, e)
    if not found:
        return m_shdr(rng, e)
    nm, at = rng.choice(found)
    e.set_sh(i, "sh_name", at)
    return "section %d (%s) renamed %s" % (i, e.sec[i]["nm"].decode(errors="replace"), nm.decode())


def m_code(rng, e):
    """Bytes at a relocated place in code: the call the tool matches."""
    texts = [r for r in e.rels if e.sec[r]["sh_info"] in e.texts and e.nrel(r)]
    if not texts:
        return m_flip(rng, e)
    r = rng.choice(texts)
    k = rng.randrange(e.nrel(r))
    off = struct.unpack_from(e.end + ("Q" if e.is64 else "I"), e.base, e.rel_entry(r, k))[0]
    t = e.sec[e.sec[r]["sh_info"]]
    pos = t["sh_offset"] + off + rng.randrange(-4, 4)
    if 0 <= pos < t["sh_offset"] + t["sh_size"] and pos >= t["sh_offset"]:
        e.b[pos] = rng.choice([0, 0xff, e.b[pos] ^ 0x80, rng.randrange(256)])
        return "code byte at %s+%#x changed" % (t["nm"].decode(errors="replace"), pos - t["sh_offset"])
    return m_flip(rng, e)


def m_machine(rng, e):
    """Another architecture's machine number: its relocation types and call
    patterns then apply to these bytes."""
    v = rng.choice([m for m in MACHINES if m != e.machine])
    e.eh("e_machine", v)
    if rng.random() < 0.3:
        e.eh("e_flags", rng.choice([0, 0x5000000, 0x70001007, 2, 0xffffffff]))
    return "e_machine %d -> %d" % (e.machine, v)


def m_retype(rng, e):
    """A section the tool reads (code, relocations, symbols, names, DWARF) with
    no bytes in the file, or of another kind."""
    debug = [i for i, s in enumerate(e.sec) if s["nm"].startswith(b".debug_")]
    i = rng.choice(e.texts * 3 + e.rels * 2 + [e.symtab, e.shstrndx] + e.strtabs + e.groups + debug)
    v = rng.choice([SHT["NOBITS"]] * 3 + [SHT["NULL"], SHT["NOTE"], SHT["PROGBITS"], SHT["REL"], SHT["RELA"],
                                          SHT["DYNSYM"], SHT["GROUP"], SHT["LLVM_ADDRSIG"], SHT["INIT_ARRAY"]])
    e.set_sh(i, "sh_type", v)
    return "section %d (%s) sh_type %d -> %d" % (i, e.sec[i]["nm"].decode(errors="replace"), e.sec[i]["sh_type"], v)


def m_flip(rng, e):
    hot = [(0, 64), (e.shoff, e.shentsize * e.shnum)]
    for i, s in enumerate(e.sec):
        if s["sh_type"] in (2, 3, 4, 9, 17) or s["nm"].startswith(b".debug_"):
            hot.append((s["sh_offset"], s["sh_size"]))
    n = rng.randrange(1, 9)
    for _ in range(n):
        if rng.random() < 0.85:
            start, length = rng.choice(hot)
            pos = start + rng.randrange(max(length, 1))
        else:
            pos = rng.randrange(e.size)
        pos = min(pos, len(e.b) - 1)
        e.b[pos] = rng.choice([0, 0xff, e.b[pos] ^ (1 << rng.randrange(8)), rng.randrange(256)])
    return "%d random bytes" % n


def m_combo(rng, e):
    parts = []
    for _ in range(rng.randrange(2, 4)):
        if len(e.b) != e.size:
            break
        parts.append(rng.choice(STRUCTURED)(rng, e))
    return " + ".join(parts)


STRUCTURED = [m_ehdr, m_shdr, m_shdr, m_cycle, m_symbol, m_reloc, m_reloc, m_string, m_xindex, m_group, m_rename,
              m_code, m_machine, m_retype]
KINDS = [(m_truncate, 7), (m_ehdr, 8), (m_shdr, 20), (m_cycle, 4), (m_symbol, 11), (m_reloc, 13), (m_string, 4),
         (m_xindex, 5), (m_group, 3), (m_rename, 3), (m_code, 3), (m_machine, 4), (m_retype, 4), (m_flip, 8),
         (m_combo, 4)]


def mutants(bases, count, seed, tag=""):
    """Yields (name, bytes, description) for `count` mutants that differ from their base."""
    images = [(os.path.basename(b), open(b, "rb").read()) for b in bases]
    fns = [f for f, w in KINDS for _ in range(w)]
    for k in range(count):
        bname, image = images[k % len(images)]
        rng = random.Random("%s:%s:%d" % (seed, tag, k))
        for _ in range(50):
            e = Elf(image)
            fn = rng.choice(fns)
            desc = fn(rng, e)
            if bytes(e.b) != image:
                break
        yield "%04d" % k, bytes(e.b), "%s: %s: %s" % (bname, fn.__name__[2:], desc)


# ---- running the tools ----

def limit_file_size():
    """A tool that writes gigabytes of padding dies of SIGXFSZ, not the disk."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, timeout):
    """(status, stderr, seconds); status -1000 for a timeout, -N for a signal.
    The seconds are the tool's CPU time (user + system), which other work on
    a shared machine does not stretch as it stretches the wall clock: the
    speed checks use them, and `timeout` (wall clock) only catches hangs."""
    t0 = child_cpu()
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout,
                           preexec_fn=limit_file_size)
        return p.returncode, p.stderr.decode(errors="replace"), child_cpu() - t0
    except subprocess.TimeoutExpired as err:
        return -1000, (err.stderr or b"").decode(errors="replace"), child_cpu() - t0


def crashed(status):
    """A signal, a timeout, or a sanitizer's status 99 (t/44 sets it)."""
    return status < 0 or status >= 99


def per_file_lines(prog, stderr, paths):
    """{path: [reasons]} and the lines that name none of the paths."""
    by, stray = {p: [] for p in paths}, []
    for line in stderr.splitlines():
        m = re.match(r"^%s: (.*?): (.+)$" % prog, line)
        if m and m.group(1) in by and m.group(2).startswith("warning: "):
            continue    # a processed file's warning (a reference to the hook it does not record)
        if m and m.group(1) in by:
            by[m.group(1)].append(m.group(2))
        else:
            stray.append(line)
    return by, stray


class Checker:
    def __init__(self, args):
        self.a = args
        self.n = {k: 0 for k in ("mutants", "processed", "modified", "rejected", "crashes", "timeouts",
                                 "bad_messages", "changed_on_error", "temp_left", "second_run_changed",
                                 "list_failed", "list_crashes", "objpatch_crashes", "readelf_checked",
                                 "readelf_new_errors", "batches_rerun", "runs", "slow", "result_too_large")}
        self.max_file_s = 0.0
        self.desc = {}

    def fail(self, key, name, msg):
        self.n[key] += 1
        print("FAIL %s %s [%s]: %s" % (key, name, self.desc.get(name, "?"), msg[:600].replace("\n", " | ")))
        if self.a.get("save"):
            os.makedirs(self.a["save"], exist_ok=True)
            shutil.copy(os.path.join(self.orig, name + ".o"),
                        os.path.join(self.a["save"], "%s-%s.o" % (self.a.get("tag", "m"), name)))

    def tool_cmd(self, mode, files):
        cmd = [self.a["tool"]]
        if mode == "user":
            cmd.append("--mode=user")
        elif mode == "nop":
            cmd.append("--nop")
        return cmd + files

    def record(self, names, mode):
        """The tool on a batch of copies; returns the names it processed."""
        paths = [os.path.join(self.work, x + ".o") for x in names]
        status, err, secs = run(self.tool_cmd(mode, paths), 120)
        self.n["runs"] += 1
        by, stray = per_file_lines("recordmcount", err, paths)
        if crashed(status) or stray:
            # Pinpoint: each file alone, from a fresh copy.
            self.n["batches_rerun"] += 1
            done = []
            for x, p in zip(names, paths):
                shutil.copy(os.path.join(self.orig, x + ".o"), p)
                if self.record_one(x, p, mode):
                    done.append(x)
            return done
        if secs > self.a["slow"] * 3:
            # Slow: find which file, each alone from a fresh copy.
            self.n["batches_rerun"] += 1
            done = []
            for x, p in zip(names, paths):
                shutil.copy(os.path.join(self.orig, x + ".o"), p)
                if self.record_one(x, p, mode):
                    done.append(x)
            return done
        self.max_file_s = max(self.max_file_s, secs / max(len(names), 1))
        if status != (1 if any(by.values()) else 0):
            self.fail("bad_messages", names[0], "batch status %d with %d messages" %
                      (status, sum(1 for v in by.values() if v)))
        done = []
        for x, p in zip(names, paths):
            if self.judge(x, p, by[p]):
                done.append(x)
        return done

    def record_one(self, x, p, mode):
        status, err, secs = run(self.tool_cmd(mode, [p]), 60)
        self.n["runs"] += 1
        self.max_file_s = max(self.max_file_s, secs)
        if status == -1000:
            self.fail("timeouts", x, "no result in 60 s")
            return False
        if crashed(status):
            self.fail("crashes", x, "status %d: %s" % (status, err[-1500:]))
            return False
        if secs > self.a["slow"]:
            self.fail("slow", x, "%.2f CPU s for %d bytes" % (secs, os.path.getsize(os.path.join(self.orig, x + ".o"))))
        by, stray = per_file_lines("recordmcount", err, [p])
        if stray or status != (1 if by[p] else 0):
            self.fail("bad_messages", x, "status %d, stderr: %s" % (status, err))
            return False
        return self.judge(x, p, by[p])

    def judge(self, x, p, reasons):
        orig = open(os.path.join(self.orig, x + ".o"), "rb").read()
        # What the tool adds is bounded by what is there: no blow-up.
        if os.path.getsize(p) > 4 * len(orig) + (1 << 20):
            self.fail("result_too_large", x, "%d bytes from %d" % (os.path.getsize(p), len(orig)))
            return False
        now = open(p, "rb").read()
        if len(reasons) > 1:
            self.fail("bad_messages", x, "%d messages: %s" % (len(reasons), reasons))
        if reasons:
            self.n["rejected"] += 1
            if now != orig:
                self.fail("changed_on_error", x, "rejected (%s) but changed" % reasons[0])
            return False
        self.n["processed"] += 1
        if now != orig:
            self.n["modified"] += 1
        return True

    def lister(self, prog_args, prog, names, where, key_crash, must_succeed):
        paths = [os.path.join(where, x + ".o") for x in names]
        for i in range(0, len(paths), self.a["batch"]):
            chunk = paths[i:i + self.a["batch"]]
            status, err, _ = run(prog_args + chunk, 120)
            self.n["runs"] += 1
            by, stray = per_file_lines(prog, err, chunk)
            if not crashed(status) and not stray and status in (0, 1):
                bad = [p for p in chunk if by[p]] if must_succeed else []
                for p in bad:
                    self.fail("list_failed", os.path.basename(p)[:-2], "%s: %s" % (prog, by[p][0]))
                continue
            for p in chunk:
                status, err, _ = run(prog_args + [p], 60)
                self.n["runs"] += 1
                if crashed(status) or status not in (0, 1):
                    self.fail(key_crash, os.path.basename(p)[:-2], "%s status %d: %s" % (prog, status, err[-1500:]))
                elif must_succeed and status:
                    self.fail("list_failed", os.path.basename(p)[:-2], "%s: %s" % (prog, err))

    def readelf_clean(self, path):
        p = subprocess.run(["readelf", "-aW", path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return p.returncode == 0 and not p.stderr.strip()

    def go(self, bases):
        a = self.a
        self.orig = os.path.join(a["work"], "orig")
        self.work = os.path.join(a["work"], "w")
        self.again = os.path.join(a["work"], "again")
        for d in (self.orig, self.work, self.again):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        names = []
        for name, data, desc in mutants(bases, a["count"], a["seed"], a.get("tag", "")):
            with open(os.path.join(self.orig, name + ".o"), "wb") as f:
                f.write(data)
            with open(os.path.join(self.work, name + ".o"), "wb") as f:
                f.write(data)
            self.desc[name] = desc
            names.append(name)
            self.n["mutants"] += 1
        kinds = {}
        for d in self.desc.values():
            k = d.split(": ")[1]
            kinds[k] = kinds.get(k, 0) + 1
        modes = ["kernel", "user", "nop"]
        processed = []
        for bi, i in enumerate(range(0, len(names), a["batch"])):
            mode = modes[bi % 3] if a.get("mode_cycle") else "kernel"
            batch = names[i:i + a["batch"]]
            done = self.record(batch, mode)
            processed += [(x, mode) for x in done]
            left = glob.glob(os.path.join(self.work, "*.rmc??????"))
            for t in left:
                self.fail("temp_left", os.path.basename(t)[:4], "temporary file %s left" % t)
                os.unlink(t)
        # A second run on each result changes nothing.
        for mode in modes:
            group = [x for x, m in processed if m == mode]
            for i in range(0, len(group), a["batch"]):
                chunk = group[i:i + a["batch"]]
                for x in chunk:
                    shutil.copy(os.path.join(self.work, x + ".o"), os.path.join(self.again, x + ".o"))
                paths = [os.path.join(self.again, x + ".o") for x in chunk]
                status, err, _ = run(self.tool_cmd(mode, paths), 120)
                self.n["runs"] += 1
                for x, p in zip(chunk, paths):
                    if open(p, "rb").read() != open(os.path.join(self.work, x + ".o"), "rb").read():
                        self.fail("second_run_changed", x, "a second %s-mode run changed the result" % mode)
                if status != 0:
                    self.fail("second_run_changed", chunk[0], "second run status %d: %s" % (status, err[:300]))
        ok_names = [x for x, _ in processed]
        # The readers: never a crash; on every result the table must read back.
        self.lister([a["tool"], "--list"], "recordmcount", names, self.orig, "list_crashes", False)
        self.lister([a["tool"], "--list"], "recordmcount", ok_names, self.work, "list_crashes", True)
        if a.get("objpatch"):
            self.lister([a["objpatch"], "list"], "objpatch", names, self.orig, "objpatch_crashes", False)
            self.lister([a["objpatch"], "list"], "objpatch", ok_names, self.work, "objpatch_crashes", False)
        # A result is no worse than its input for readelf.
        modified = [x for x in ok_names if open(os.path.join(self.work, x + ".o"), "rb").read() !=
                    open(os.path.join(self.orig, x + ".o"), "rb").read()]
        for x in modified[:a.get("readelf", 0)]:
            if self.readelf_clean(os.path.join(self.orig, x + ".o")):
                self.n["readelf_checked"] += 1
                if not self.readelf_clean(os.path.join(self.work, x + ".o")):
                    self.fail("readelf_new_errors", x, "readelf warns on the result, not on the input")
        for k in sorted(self.n):
            print(k, self.n[k])
        print("max_file_ms %.1f" % (self.max_file_s * 1000))
        print("kinds " + ",".join("%s=%d" % kv for kv in sorted(kinds.items())))


# ---- linear time ----

def scaled_source(n, kind):
    """x86-64 assembly: n functions calling mcount, with a defect that scales with n."""
    out = [".text"]
    for i in range(n):
        out += [".globl f%d" % i, ".type f%d,@function" % i, "f%d:" % i]
        if kind == "same-offset":
            out += ["call mcount" if i == 0 else "nop; nop; nop; nop; nop", "ret"]
        else:
            out += ["call mcount", "ret"]
        out.append(".size f%d,.-f%d" % (i, i))
    if kind == "same-offset":
        out += [".reloc f0+1, R_X86_64_PLT32, mcount-4"] * (n - 1)
    return "\n".join(out) + "\n"


def scaled(args):
    """Times the tool on objects of 1x, 4x and 16x the size with a defect that
    grows with them, and on huge claimed sizes and counts.  Prints
    `kind n seconds` lines."""
    work = args["work"]
    os.makedirs(work, exist_ok=True)
    for kind in ("plain", "same-offset", "same-value", "huge-size", "one-symbol", "many-sections"):
        for n in (1000, 4000, 16000):
            src = os.path.join(work, "%s-%d.s" % (kind, n))
            obj = src[:-2] + ".o"
            if kind == "many-sections":
                text = "".join(".section .text.f%d,\"ax\",@progbits\n.globl f%d\nf%d: call mcount\nret\n" % (i, i, i)
                               for i in range(n))
            else:
                text = scaled_source(n, kind)
            with open(src, "w") as f:
                f.write(text)
            subprocess.run(["as", "--64", "-o", obj, src], check=True)
            e = Elf(open(obj, "rb").read())
            if kind in ("same-value", "huge-size"):
                for k in range(1, e.nsym):
                    if kind == "same-value":
                        e.put(SYM, e.sym_off(k), "st_value", 0)
                    else:
                        e.put(SYM, e.sym_off(k), "st_size", e.maxword)
            if kind == "one-symbol":	# every relocation against the last symbol
                for r in e.rels:
                    for k in range(e.nrel(r)):
                        e.set_rinfo(r, k, sym=e.nsym - 1)
            with open(obj, "wb") as f:
                f.write(bytes(e.b))
            best = None
            for _ in range(3):
                shutil.copy(obj, obj + ".x")
                status, err, secs = run([args["tool"], obj + ".x"], 60)
                best = secs if best is None else min(best, secs)
            print("%s %d %.4f %d %s" % (kind, n, best, status, err.strip().replace("\n", " | ")[:200]))
    # Claims of sizes and counts far beyond the file: rejected at once.  A
    # forged alignment matters only for a section the writer moves (the
    # name table, which grows): the others stay where they are.
    base = os.path.join(work, "plain-16000.o")
    image = open(base, "rb").read()
    claims = []
    e = Elf(image)
    claims.append(("symtab-size", lambda e: e.set_sh(e.symtab, "sh_size", e.maxword - 7)))
    claims.append(("rel-size", lambda e: e.set_sh(e.rels[0], "sh_size", e.maxword - 7)))
    claims.append(("shnum-xindex", lambda e: (e.eh("e_shnum", 0), e.set_sh(0, "sh_size", 0xffffffff))))
    claims.append(("shnum-max", lambda e: e.eh("e_shnum", 0xffff)))
    claims.append(("strtab-size", lambda e: e.set_sh(e.shstrndx, "sh_size", 1 << 40)))
    claims.append(("text-size", lambda e: e.set_sh(e.texts[0], "sh_size", 1 << 62)))
    claims.append(("symtab-entsize", lambda e: e.set_sh(e.symtab, "sh_entsize", 1)))
    claims.append(("rela-align", lambda e: e.set_sh(e.rels[0], "sh_addralign", 1 << 31)))
    claims.append(("text-align", lambda e: e.set_sh(e.texts[0], "sh_addralign", 1 << 40)))
    claims.append(("shstrtab-align", lambda e: e.set_sh(e.shstrndx, "sh_addralign", 1 << 40)))
    for name, fn in claims:
        e = Elf(image)
        fn(e)
        p = os.path.join(work, "claim-%s.o" % name)
        with open(p, "wb") as f:
            f.write(bytes(e.b))
        status, err, secs = run([args["tool"], p], 60)
        print("claim-%s %d %.4f %d %s" % (name, os.path.getsize(p) - len(image), secs, status,
                                         err.strip().replace("\n", " | ")[:200]))


def parse_opts(argv):
    opts = {"batch": 50, "readelf": 0, "slow": 1.0}
    bases = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--mode-cycle":
            opts["mode_cycle"] = True
        elif a.startswith("--"):
            key = a[2:].replace("-", "_")
            val = argv[i + 1]
            opts[key] = int(val) if key in ("count", "batch", "readelf") else float(val) if key == "slow" else val
            i += 1
        else:
            bases.append(a)
        i += 1
    return opts, bases


def main(argv):
    if len(argv) < 2 or argv[1] not in ("gen", "run", "scaled"):
        sys.exit(__doc__)
    if argv[1] == "gen":
        out, count, seed, bases = argv[2], int(argv[3]), argv[4], argv[5:]
        os.makedirs(out, exist_ok=True)
        for name, data, desc in mutants(bases, count, seed):
            with open(os.path.join(out, name + ".o"), "wb") as f:
                f.write(data)
            print(name, desc)
        return
    opts, bases = parse_opts(argv[2:])
    if argv[1] == "scaled":
        scaled(opts)
        return
    Checker(opts).go(bases)


if __name__ == "__main__":
    main(sys.argv)
