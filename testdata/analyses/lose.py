#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""t/78-analyses.t: a recording whose exits at one depth are lost, as when
the buffers were full: every Nth exit event at DEPTH of every thread is
removed from the RAW_EVENTS records (man/objpatch-recording.5; this
machine's byte order; the header's length is at byte 20 from version 3 on,
32 bytes before).  The writer then closes those frames as "lost".
  lose.py IN OUT DEPTH N"""
import struct
import sys

src, dst, depth, every = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(src, 'rb').read()
head = struct.unpack_from('<H', data, 20)[0] if data[:15] >= b'OBJPATCH-RAW-3' else 32
out, at, seen, removed = [data[:head]], head, 0, 0
while at < len(data):
    rtype, size = struct.unpack_from('<II', data, at)
    payload = data[at + 8:at + 8 + size]
    at += 8 + (size + 7) // 8 * 8
    if rtype == 3:	# RAW_EVENTS: tid, then events
        w = list(struct.unpack_from('<%dQ' % (size // 8), payload))
        keep, i = w[:1], 1
        while i < len(w):
            head = w[i + 1]
            entry = head >> 63
            n = 2 if entry else (head >> 48) & 0x7fff
            if not entry and (head & 0xff) == 2 and (head >> 8) & 0xffffff == depth:
                seen += 1
                if seen % every == 0:
                    removed += 1
                    i += n
                    continue
            keep += w[i:i + n]
            i += n
        payload = struct.pack('<%dQ' % len(keep), *keep)
        size = len(payload)
    out.append(struct.pack('<II', rtype, size) + payload + b'\0' * ((-size) % 8))
open(dst, 'wb').write(b''.join(out))
print(removed)
