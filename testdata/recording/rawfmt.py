#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A second reader of objpatch recordings, written from
man/objpatch-recording.5 alone (not from trace/raw.c), for t/75-recording.t:
it lists a recording's records and makes the altered copies the test feeds
to `objpatch report`.

usage: rawfmt.py walk FILE                     header fields, then "OFFSET TYPE BYTES" per record
       rawfmt.py to-v2 FILE OUT                the same records under a version 2 header
       rawfmt.py to-v1 FILE OUT                version 1: its four record types only
       rawfmt.py unknown FILE OUT              a record of an unknown type after every record
       rawfmt.py extend FILE OUT               the header 16 bytes longer (a minor one more), as a later minor writes
       rawfmt.py before-filter FILE OUT        minor 0 and no filter record (type 10), as objpatch wrote before
       rawfmt.py filter FILE                   the filter record's patterns, one a line
       rawfmt.py header FILE OUT FIELD VALUE   one header field set (magic: a string)
       rawfmt.py size FILE OUT INDEX BYTES     record INDEX (from 0) claims BYTES of payload
       rawfmt.py event FILE OUT INDEX WORD     the middle event of events record INDEX has header word WORD
       rawfmt.py offset FIELD                  where a header field lies
"""
import struct
import sys

# name: (offset, struct format) of version 3's header fields
FIELDS = {"byte_order": (16, "I"), "header_bytes": (20, "H"), "minor": (22, "H"), "machine": (24, "H"),
          "elfclass": (26, "B"), "word_bytes": (27, "B"), "flags": (28, "I"), "depth": (32, "I"), "pid": (36, "i")}
V3_TYPES = {1, 2, 3, 4}


def parse(b):
    if b[:16] != b"OBJPATCH-RAW-3\n\0":
        sys.exit("rawfmt.py: not a version 3 recording")
    order = "<" if struct.unpack_from("<I", b, 16)[0] == 0x01020304 else ">"
    head = {k: struct.unpack_from(order + f, b, o)[0] for k, (o, f) in FIELDS.items()}
    recs, at = [], head["header_bytes"]
    while at < len(b):
        t, n = struct.unpack_from(order + "II", b, at)
        recs.append((at, t, n))
        at += 8 + n
    return order, head, recs


def record_bytes(b, rec):
    return b[rec[0]:rec[0] + 8 + rec[2]]


def main(argv):
    cmd, path = argv[1], argv[2]
    if cmd == "offset":
        print(FIELDS[path][0])
        return
    b = open(path, "rb").read()
    order, head, recs = parse(b)
    body = lambda keep=lambda t: True: b"".join(record_bytes(b, r) for r in recs if keep(r[1]))
    if cmd == "walk":
        print(" ".join("%s=%d" % kv for kv in head.items()), "order=" + ("little" if order == "<" else "big"))
        for at, t, n in recs:
            print(at, t, n)
        return
    if cmd == "filter":
        for at, t, n in recs:
            if t == 10:
                print("\n".join(p.decode() for p in b[at + 8:at + 8 + n].split(b"\0") if p))
        return
    out = argv[3]
    if cmd in ("to-v2", "to-v1"):
        v = 2 if cmd == "to-v2" else 1
        hdr = b"OBJPATCH-RAW-%d\n\0" % v + struct.pack(order + "HBBIiI", head["machine"], head["elfclass"],
                                                       head["flags"] if v == 2 else 0, head["depth"], head["pid"], 0)
        data = hdr + body(lambda t: v == 2 or t in V3_TYPES)
    elif cmd == "unknown":
        extra = struct.pack(order + "II", 0x7fff0001, 16) + b"unknown!" * 2
        data = b[:head["header_bytes"]] + extra + b"".join(record_bytes(b, r) + extra for r in recs)
    elif cmd == "extend":
        hdr = bytearray(b[:head["header_bytes"]])
        struct.pack_into(order + "HH", hdr, 20, head["header_bytes"] + 16, head["minor"] + 1)
        data = bytes(hdr) + b"later fields....".ljust(16, b".") + body()
    elif cmd == "before-filter":
        hdr = bytearray(b[:head["header_bytes"]])
        struct.pack_into(order + "H", hdr, 22, 0)
        data = bytes(hdr) + body(lambda t: t != 10)
    elif cmd == "header":
        hdr = bytearray(b[:head["header_bytes"]])
        if argv[4] == "magic":
            hdr[:16] = argv[5].encode().decode("unicode_escape").encode("latin-1").ljust(16, b"\0")
        else:
            o, f = FIELDS[argv[4]]
            struct.pack_into(order + f, hdr, o, int(argv[5], 0))
        data = bytes(hdr) + body()
    elif cmd == "size":
        data = bytearray(b)
        struct.pack_into(order + "I", data, recs[int(argv[4])][0] + 4, int(argv[5], 0))
        data = bytes(data)
    elif cmd == "event":
        # An events record's payload: the thread ID, then events of a time and a header
        # word each, 2 words long with bit 63 set (an entry), else as long as bits 48-62 say.
        at, _, n = recs[int(argv[4])]
        starts, w = [], 1
        while w < n // 8:
            starts.append(at + 8 + 8 * w)
            head = struct.unpack_from(order + "Q", b, at + 8 + 8 * w + 8)[0]
            w += 2 if head >> 63 else (head >> 48) & 0x7fff
        data = bytearray(b)
        struct.pack_into(order + "Q", data, starts[len(starts) // 2] + 8, int(argv[5], 0))
        data = bytes(data)
    else:
        sys.exit(__doc__)
    open(out, "wb").write(data)


main(sys.argv)
