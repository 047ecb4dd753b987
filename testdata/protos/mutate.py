#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Broken copies of an ELF object's DWARF or prototype tables, for t/60-protos.t.

  mutate.py dwarf  IN OUTDIR SEED N   the DWARF of an object before recordmcount
  mutate.py protos IN OUTDIR SEED N   __mcount_proto/__mcount_str (and their
                                      relocations) of a processed file

Writes targeted mutations (truncated sections, bad headers, wrong fields)
and N random ones (a few bytes of one section changed), one file each, and
prints their names.  The standard library only.
"""
import os
import random
import struct
import sys

SHT_RELA, SHT_REL = 4, 9
SHF_COMPRESSED = 0x800


class Elf:
    def __init__(self, image):
        self.b = bytearray(image)
        assert self.b[:4] == b"\x7fELF", "not ELF"
        self.is64 = self.b[4] == 2
        self.e = "<" if self.b[5] == 1 else ">"
        self.shoff = self._u(40 if self.is64 else 32, 8 if self.is64 else 4)
        self.shentsize = self._u(58 if self.is64 else 46, 2)
        self.shnum = self._u(60 if self.is64 else 48, 2)
        strndx = self._u(62 if self.is64 else 50, 2)
        self.names = {}
        stroff = self.sh(strndx, "offset")
        for i in range(self.shnum):
            n = self.sh(i, "name")
            end = self.b.index(0, stroff + n)
            self.names[self.b[stroff + n:end].decode("latin-1")] = i

    def _u(self, off, size, value=None):
        fmt = self.e + {1: "B", 2: "H", 4: "I", 8: "Q"}[size]
        if value is None:
            return struct.unpack_from(fmt, self.b, off)[0]
        struct.pack_into(fmt, self.b, off, value & ((1 << (8 * size)) - 1))
        return value

    # field: (offset32, offset64, size32, size64)
    SHDR = {"name": (0, 0, 4, 4), "type": (4, 4, 4, 4), "flags": (8, 8, 4, 8),
            "offset": (16, 24, 4, 8), "size": (20, 32, 4, 8), "link": (24, 40, 4, 4),
            "info": (28, 44, 4, 4), "entsize": (36, 56, 4, 8)}

    def sh(self, i, field, value=None):
        o32, o64, s32, s64 = self.SHDR[field]
        base = self.shoff + i * self.shentsize
        return self._u(base + (o64 if self.is64 else o32), s64 if self.is64 else s32, value)

    def find(self, name):
        return self.names.get(name)

    def relocs_for(self, i):
        """The REL/RELA section applying to section i."""
        for n, j in self.names.items():
            if self.sh(j, "type") in (SHT_REL, SHT_RELA) and self.sh(j, "info") == i:
                return j
        return None

    def content(self, i):
        off, size = self.sh(i, "offset"), self.sh(i, "size")
        return off, size


def dwarf_mutations(elf, rng, n):
    """(name, mutated image) pairs for the DWARF of an unprocessed object."""
    out = []

    def mut(name, fn):
        e = Elf(elf.b)
        if fn(e) is not False:
            out.append((name, bytes(e.b)))

    secs = [s for s in (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line",
                        ".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".debug_ranges",
                        ".debug_info.dwo", ".debug_abbrev.dwo", ".debug_str.dwo",
                        ".debug_str_offsets.dwo") if elf.find(s) is not None]
    for s in secs:
        i = elf.find(s)
        size = elf.sh(i, "size")
        for keep in sorted({0, 1, 4, 7, 11, size // 2, max(size - 1, 0)}):
            if keep < size:
                mut(f"{s}-truncated-{keep}", lambda e, i=i, k=keep: e.sh(i, "size", k))
        mut(f"{s}-beyond-eof", lambda e, i=i: e.sh(i, "size", len(e.b) - e.sh(i, "offset") + 64))
        for fill in (0x00, 0xFF):
            def filled(e, i=i, fill=fill):
                off, sz = e.content(i)
                e.b[off:off + sz] = bytes([fill]) * sz
            mut(f"{s}-all-{fill:02x}", filled)
    info = elf.find(".debug_info") or elf.find(".debug_info.dwo")
    if info is not None:
        off, size = elf.content(info)
        compressed = elf.sh(info, "flags") & SHF_COMPRESSED
        if compressed:
            # Elf{32,64}_Chdr: ch_type, (ch_reserved), ch_size, ch_addralign
            so = 8 if elf.is64 else 4
            ss = 8 if elf.is64 else 4
            mut("chdr-size-huge", lambda e: e._u(off + so, ss, (1 << (8 * ss - 1)) - 1))
            mut("chdr-size-small", lambda e: e._u(off + so, ss, 3))
            mut("chdr-type-bad", lambda e: e._u(off, 4, 77))
        else:
            # the unit header: a length past the section, a wrong version,
            # an abbrev offset past .debug_abbrev, a bad address size
            mut("unit-length-huge", lambda e: e._u(off, 4, 0xFFFFFF00))
            mut("unit-length-64bit-huge", lambda e: (e._u(off, 4, 0xFFFFFFFF), e._u(off + 4, 4, 0xFFFFFFF0)))
            mut("unit-version-9", lambda e: e._u(off + 4, 2, 9))
            mut("unit-length-short", lambda e: e._u(off, 4, 12))
            ver = elf._u(off + 4, 2)
            asz_off = off + (8 if ver >= 5 else 10)
            mut("unit-addr-size-3", lambda e: e._u(asz_off, 1, 3))
            mut("unit-addr-size-0", lambda e: e._u(asz_off, 1, 0))
    for s in (".debug_info", ".debug_abbrev"):
        i = elf.find(s)
        r = elf.relocs_for(i) if i is not None else None
        if r is None:
            continue
        roff, rsize = elf.content(r)
        ent = elf.sh(r, "entsize") or 1
        nrel = rsize // ent
        if not nrel:
            continue
        info_off, info_size = (8, 8) if elf.is64 else (4, 4)
        for k in range(4):
            j = rng.randrange(nrel)
            mut(f"{s}-reloc-{k}-sym-huge", lambda e, j=j: e._u(roff + j * ent + info_off, info_size,
                                                               (e._u(roff + j * ent + info_off, info_size) & 0xFF) | (0xFFFF << (32 if e.is64 else 8))))
            mut(f"{s}-reloc-{k}-offset-past", lambda e, j=j: e._u(roff + j * ent, info_size, 0xFFFFFFF0))
    for k in range(n):
        s = rng.choice(secs)
        i = elf.find(s)
        off, size = elf.content(i)
        if not size:
            continue
        changes = [(off + rng.randrange(size), rng.randrange(256)) for _ in range(rng.randint(1, 8))]

        def randomized(e, changes=changes):
            for at, v in changes:
                e.b[at] = v
        mut(f"random-{k}-{s}", randomized)
    return out


def protos_mutations(elf, rng, n):
    """(name, mutated image) pairs for the prototype tables of a processed file."""
    out = []
    strs, proto = elf.find("__mcount_str"), elf.find("__mcount_proto")
    assert strs is not None and proto is not None, "no prototype tables"
    rel = elf.relocs_for(proto)

    def mut(name, fn):
        e = Elf(elf.b)
        if fn(e) is not False:
            out.append((name, bytes(e.b)))

    soff, ssize = elf.content(strs)
    poff, psize = elf.content(proto)
    strings = bytes(elf.b[soff:soff + ssize])
    # Version 2 signatures (man/mcount-tables.5), which all tables written now are.
    sigs = [i for i in range(ssize) if (i == 0 or strings[i - 1] == 0) and strings[i:i + 2] == b"2\x1f"]

    def at_sig(k, fn):
        def f(e):
            if not sigs:
                return False
            fn(e, soff + sigs[k % len(sigs)])
        return f

    def set_bytes(at, data):
        return lambda e: e.b.__setitem__(slice(at, at + len(data)), data)

    mut("str-no-terminator", lambda e: e.b.__setitem__(
        slice(soff, soff + ssize), bytes(c or 0x41 for c in e.b[soff:soff + ssize])))
    mut("str-size-0", lambda e: e.sh(strs, "size", 0))
    mut("str-size-half", lambda e: e.sh(strs, "size", ssize // 2))
    mut("str-beyond-eof", lambda e: e.sh(strs, "offset", len(e.b) + 16))
    mut("proto-size-0", lambda e: e.sh(proto, "size", 0))
    mut("proto-size-odd", lambda e: e.sh(proto, "size", psize - 3))
    mut("proto-beyond-eof", lambda e: e.sh(proto, "size", len(e.b)))
    for k in range(3):
        mut(f"sig-{k}-version-9", at_sig(k, lambda e, a: e.b.__setitem__(a, ord("9"))))
        mut(f"sig-{k}-flags-junk", at_sig(k, lambda e, a: e.b.__setitem__(a + 2, ord("x"))))
        mut(f"sig-{k}-cut", at_sig(k, lambda e, a: e.b.__setitem__(a + 3, 0)))

    def retype(sep_from, sep_to, k):
        def fn(e, a):
            end = e.b.index(0, a)
            seps = [i for i in range(a, end) if e.b[i] == sep_from]
            if not seps:
                return
            e.b[seps[k % len(seps)]] = sep_to
        return fn
    for k in range(4):
        mut(f"sig-{k}-us-to-rs", at_sig(k, retype(0x1F, 0x1E, k)))
        mut(f"sig-{k}-rs-to-us", at_sig(k, retype(0x1E, 0x1F, k)))
        mut(f"sig-{k}-us-to-x", at_sig(k, retype(0x1F, ord("x"), k)))

    def fill_seps(e, a):
        end = e.b.index(0, a)
        e.b[a + 2:end] = bytes([0x1E]) * (end - a - 2)
    mut("sig-all-rs", at_sig(0, fill_seps))

    def digits(e, a):
        end = e.b.index(0, a)
        for i in range(a, end):
            if chr(e.b[i]).isdigit():
                e.b[i] = ord("9")
    mut("sig-digits-9", at_sig(1, digits))
    # The enumerators of an enum signature: values that do not parse.
    enum_sigs = [i for i in sigs if b"\x1fenum\x1f" in strings[i:strings.index(0, i)] or
                 strings[i:].startswith(b"2\x1f1\x1eenum")]
    for k, a in enumerate(enum_sigs[:2]):
        def bad_value(e, a=soff + a):
            end = e.b.index(0, a)
            eq = e.b.index(b"=", a, end) if b"=" in e.b[a:end] else -1
            if eq < 0:
                return False
            e.b[eq + 1] = ord("z")
        mut(f"enum-{k}-value", bad_value)

        def no_eq(e, a=soff + a):
            end = e.b.index(0, a)
            for i in range(a, end):
                if e.b[i] == ord("="):
                    e.b[i] = ord(",")
        mut(f"enum-{k}-no-eq", no_eq)
    # The members of a struct or union signature (NAME:OFFSET:CLASS:SIZE,...):
    # fields that do not parse, too many or too few, a size past the struct.
    member_sigs = [i for i in sigs if b":0:" in strings[i:strings.index(0, i)]]
    for k, a in enumerate(member_sigs[:2]):
        def member_edit(fn):
            def f(e, a=soff + a):
                end = e.b.index(0, a)
                col = e.b.index(b":0:", a, end)
                return fn(e, col, end)
            return f
        mut(f"members-{k}-offset-junk", member_edit(lambda e, c, end: e.b.__setitem__(c + 1, ord("z"))))
        mut(f"members-{k}-colon-comma", member_edit(lambda e, c, end: e.b.__setitem__(c, ord(","))))
        mut(f"members-{k}-extra-colon", member_edit(lambda e, c, end: e.b.__setitem__(c + 2, ord(":"))))

        def big_size(e, c, end):
            i = c + 3
            while i < end and e.b[i] not in b":":
                i += 1
            if i + 1 >= end:
                return False
            e.b[i + 1] = ord("9")
        mut(f"members-{k}-size-9", member_edit(big_size))
    if rel is not None:
        roff, rsize = elf.content(rel)
        ent = elf.sh(rel, "entsize") or (24 if elf.is64 else (12 if elf.sh(rel, "type") == SHT_RELA else 8))
        nrel = rsize // ent
        w = 8 if elf.is64 else 4
        rela = elf.sh(rel, "type") == SHT_RELA
        for k in range(min(nrel, 6)):
            j = rng.randrange(nrel)
            base = roff + j * ent
            mut(f"rel-{k}-offset-past", lambda e, b=base: e._u(b, w, psize + 4))
            mut(f"rel-{k}-offset-unaligned", lambda e, b=base: e._u(b, w, e._u(b, w) + 1))
            mut(f"rel-{k}-sym-huge", lambda e, b=base: e._u(
                b + w, w, (e._u(b + w, w) & (0xFFFFFFFF if e.is64 else 0xFF)) | (0x7FFF << (32 if e.is64 else 8))))
            mut(f"rel-{k}-type-0", lambda e, b=base: e._u(
                b + w, w, e._u(b + w, w) & ~(0xFFFFFFFF if e.is64 else 0xFF)))
            if rela:
                mut(f"rel-{k}-addend-huge", lambda e, b=base: e._u(b + 2 * w, w, (1 << (8 * w - 1)) - 5))
                mut(f"rel-{k}-addend-past", lambda e, b=base: e._u(b + 2 * w, w, ssize))
            else:
                # REL: the addend is the field the relocation points at
                mut(f"rel-{k}-inplace-past", lambda e, b=base: e._u(
                    poff + e._u(b, w) if e._u(b, w) + 4 <= psize else poff, 4, ssize + 100))
        mut("rel-size-0", lambda e: e.sh(rel, "size", 0))
        mut("rel-size-odd", lambda e: e.sh(rel, "size", rsize - 5))
        mut("rel-link-self", lambda e: e.sh(rel, "link", rel))
    for k in range(n):
        pick = rng.choice(["str", "proto", "rel"] if rel is not None else ["str", "proto"])
        i = {"str": strs, "proto": proto, "rel": rel}[pick]
        off, size = elf.content(i)
        if not size:
            continue
        changes = [(off + rng.randrange(size), rng.randrange(256)) for _ in range(rng.randint(1, 6))]

        def randomized(e, changes=changes):
            for at, v in changes:
                e.b[at] = v
        mut(f"random-{k}-{pick}", randomized)
    return out


def main(argv):
    if len(argv) != 6 or argv[1] not in ("dwarf", "protos"):
        sys.exit(__doc__)
    kind, src, outdir, seed, n = argv[1], argv[2], argv[3], int(argv[4]), int(argv[5])
    with open(src, "rb") as f:
        elf = Elf(f.read())
    rng = random.Random(seed)
    muts = (dwarf_mutations if kind == "dwarf" else protos_mutations)(elf, rng, n)
    os.makedirs(outdir, exist_ok=True)
    for name, image in muts:
        path = os.path.join(outdir, name.replace("/", "_"))
        with open(path, "wb") as f:
            f.write(image)
        print(path)


if __name__ == "__main__":
    main(sys.argv)
