#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A raw recording's end (t/93-exit-threads.t), read independently of
objpatch (man/objpatch-recording.5: a header whose length is its u16 at byte
20 from version 3 on, 32 bytes before; then records {u32 type, u32 bytes,
payload}; events are {timestamp, word} runs, trace/event.h), in this
machine's byte order.

  recording.py end REC        "events=N after_end=K end_us=US": the events,
                              how many are later than the exit instant
                              (RAW_COUNTS' time), and that instant as a
                              JSON trace of it shows it
  recording.py cut REC OUT    OUT: REC with its exit instant moved to halfway
                              between its first event and its end, as if the
                              threads had recorded past it; prints
                              "events=N after_end=K end_us=US" for OUT
"""
import struct
import sys

RAW_CLOCK, RAW_EVENTS, RAW_COUNTS = 2, 3, 4


def header_bytes(data):
    """Where the records start."""
    return struct.unpack_from("<H", data, 20)[0] if data[:15] >= b"OBJPATCH-RAW-3" else 32


def records(data):
    """(offset of the payload, type, payload bytes) of every record."""
    at = header_bytes(data)
    while at + 8 <= len(data):
        rtype, size = struct.unpack_from("<II", data, at)
        yield at + 8, rtype, data[at + 8:at + 8 + size]
        at += 8 + size


def event_times(payload):
    """The timestamps of a RAW_EVENTS payload's events (its first word is the tid)."""
    words = struct.unpack("<%dQ" % (len(payload) // 8), payload)
    i = 1
    while i + 1 < len(words):
        yield words[i]
        head = words[i + 1]
        i += 2 if head >> 63 else (head >> 48) & 0x7FFF


def summary(data):
    times, clock, end, counts_at = [], None, None, None
    for off, rtype, payload in records(data):
        if rtype == RAW_EVENTS:
            times += list(event_times(payload))
        elif rtype == RAW_CLOCK:
            clock = struct.unpack_from("<4Q", payload)
        elif rtype == RAW_COUNTS:
            end = struct.unpack_from("<4Q", payload)[3]
            counts_at = off
    if clock is None or end is None:
        sys.exit("no RAW_CLOCK or no RAW_COUNTS: not a finished recording")
    return times, clock, end, counts_at


def end_us(clock, end):
    """As the report prints it: ticks from ts0 at the last clock's rate, in us, 3 decimals."""
    ts0, ns0, ts, ns = clock
    rate = float(ns - ns0) / float(ts - ts0) if ts > ts0 else 1.0
    return "%.3f" % (float(end - ts0) * rate / 1000.0)


def report(times, clock, end):
    print("events=%d after_end=%d end_us=%s" % (len(times), sum(1 for t in times if t > end), end_us(clock, end)))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "end":
        with open(sys.argv[2], "rb") as f:
            times, clock, end, _ = summary(f.read())
        report(times, clock, end)
    elif len(sys.argv) == 4 and sys.argv[1] == "cut":
        with open(sys.argv[2], "rb") as f:
            data = bytearray(f.read())
        times, clock, end, counts_at = summary(data)
        if not times:
            sys.exit("no events to cut")
        new_end = min(times) + (end - min(times)) // 2
        struct.pack_into("<Q", data, counts_at + 24, new_end)
        with open(sys.argv[3], "wb") as f:
            f.write(data)
        report(times, clock, new_end)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
