# SPDX-License-Identifier: GPL-2.0-only
"""kernel/test: a compact table (__mcount_ret) for the harness, from a vmlinux's table.

Usage: compact.py FORM RECORDS STRINGS ADDR OUT_RET OUT_STR [--reverse]
FORM is the form of RECORDS, the dumped records of a 64-bit little-endian
vmlinux: full (__mcount_proto: address, size, name, signature) or compact
(__mcount_ret: function address minus the field's, signature).  ADDR is
the address (hex) the records are at in vmlinux, or are put at for a
derived table.  Writes OUT_RET, the compact records as at ADDR, and
OUT_STR, the strings: from a full table, each signature cut to its return
type, flags + 16 (PROTO_RET_ONLY) and - 2 (varargs), as recordmcount
--protos=compact writes them, one string per distinct signature; from a
compact one, the strings as they are.  --reverse writes the records in
descending address order, so that the series' initcall must sort them (with
its swap function).  Prints the number of records and of string bytes.
"""
import struct
import sys

form, records, strings, addr, out_ret, out_str = sys.argv[1:7]
reverse = '--reverse' in sys.argv[7:]
base = int(addr, 16)
recs = open(records, 'rb').read()
strs = open(strings, 'rb').read()


def cstring(off):
    return strs[off:strs.index(b'\0', off)]


funcs = []  # (address, signature offset in the output strings)
if form == 'full':
    out, offsets = bytearray(), {}
    for i in range(0, len(recs), 20):
        func, _size, _name, sig = struct.unpack_from('<QIII', recs, i)
        items = cstring(sig).split(b'\x1e')
        version, flags = items[0].split(b'\x1f')
        flags = (int(flags) | 16) & ~2
        ret = version + b'\x1f' + str(flags).encode() + b'\x1e' + items[1]
        if ret not in offsets:
            offsets[ret] = len(out)
            out += ret + b'\0'
        funcs.append((func, offsets[ret]))
    strs = bytes(out)
elif form == 'compact':
    for i in range(0, len(recs), 8):
        rel, sig = struct.unpack_from('<iI', recs, i)
        funcs.append(((base + i + rel) % 2**64, sig))
else:
    sys.exit('compact.py: FORM is full or compact, not %s' % form)
funcs.sort(reverse=reverse)
out = bytearray()
for i, (func, sig) in enumerate(funcs):
    rel = func - (base + 8 * i)
    if not -2**31 <= rel < 2**31:
        sys.exit('compact.py: function 0x%x is too far from its record at 0x%x' % (func, base + 8 * i))
    out += struct.pack('<iI', rel, sig)
open(out_ret, 'wb').write(out)
open(out_str, 'wb').write(strs)
print(len(funcs), len(strs))
