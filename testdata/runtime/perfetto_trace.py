#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read a Perfetto protobuf trace written by objpatch (--format perfetto)
with no protobuf library: walk its packets, check what a reader needs
(every track described before use, names resolved through the sequence's
interning, a first packet that clears the sequence's state, slices that
nest per track: every END closes the last open BEGIN of its track) and turn
the slices into Chrome JSON events, their return values as the text trace
prints them, so that check_trace.py checks them as it checks JSON.

  perfetto_trace.py TRACE     prints the events as JSON, one a line; exits 1
                              with the errors on stderr when it is malformed

Field numbers: Perfetto's protos (protos/perfetto/trace/trace.proto,
trace_packet.proto, interned_data/interned_data.proto, track_event/*.proto),
the same trace/perfetto.c cites.
"""
import json
import math
import struct
import sys

VARINT, I64, LEN, I32 = 0, 1, 2, 5


def fields(buf, where):
    """(field, wire type, value) of one message; raises ValueError."""
    i, n = 0, len(buf)
    out = []
    while i < n:
        key, i = varint(buf, i, where)
        f, wt = key >> 3, key & 7
        if f == 0:
            raise ValueError("%s: field number 0" % where)
        if wt == VARINT:
            v, i = varint(buf, i, where)
        elif wt == I64:
            if i + 8 > n:
                raise ValueError("%s: a 64-bit field cut short" % where)
            v, i = buf[i:i + 8], i + 8
        elif wt == I32:
            if i + 4 > n:
                raise ValueError("%s: a 32-bit field cut short" % where)
            v, i = buf[i:i + 4], i + 4
        elif wt == LEN:
            ln, i = varint(buf, i, where)
            if i + ln > n:
                raise ValueError("%s: field %d says %d bytes, %d are left" % (where, f, ln, n - i))
            v, i = buf[i:i + ln], i + ln
        else:
            raise ValueError("%s: wire type %d" % (where, wt))
        out.append((f, wt, v))
    return out


def varint(buf, i, where):
    v = shift = 0
    while True:
        if i >= len(buf) or shift > 63:
            raise ValueError("%s: a varint cut short" % where)
        b = buf[i]
        i += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def one(fs, f, wt, default=None):
    vals = [v for ff, w, v in fs if ff == f]
    if not vals:
        return default
    if len(vals) > 1 or any(w != wt for ff, w, v in fs if ff == f):
        raise ValueError("field %d: %d values or a wrong wire type" % (f, len(vals)))
    return vals[0]


def signed64(v):
    return v - (1 << 64) if v >> 63 else v


# ---- return values as trace/format.c prints them

def c_decimal(d, single):
    """format.c's put_double(): the fewest digits that read back, laid out as put_decimal() does."""
    if math.isnan(d) or math.isinf(d):
        return ("-" if math.copysign(1, d) < 0 else "") + ("nan" if math.isnan(d) else "inf")
    for p in range(1, 10 if single else 18):
        e = "%.*e" % (p - 1, d)
        back = float(e)
        if single:
            back = struct.unpack("<f", struct.pack("<f", back))[0]
        if back == d:
            break
    neg = e.startswith("-")
    mant, exp = e.lstrip("-").split("e")
    x = int(exp)
    dig = mant.replace(".", "").rstrip("0") or "0"
    nd = len(dig)
    int_exact = abs(d) < (2.0 ** 24 if single else 2.0 ** 53)
    out = "-" if neg else ""
    if x < -4 or x >= 16 or (x >= nd and not int_exact):
        out += dig[0] + ("." + dig[1:] if nd > 1 else "") + "e%s%02d" % ("-" if x < 0 else "+", abs(x))
    elif x < 0:
        out += "0." + "0" * (-x - 1) + dig
    else:
        out += "".join(dig[i] if i < nd else "0" for i in range(x + 1))
        if nd > x + 1:
            out += "." + dig[x + 1:]
    return out


def is_single(d):
    """A double that a float holds exactly is taken for a float: the annotation does not say."""
    try:
        return struct.unpack("<f", struct.pack("<f", d))[0] == d
    except OverflowError:
        return False


def value_text(fs):
    """A DebugAnnotation's value as the text trace shows it, and its type's name."""
    for f, wt, v in fs:
        if f == 2 and wt == VARINT:
            return ("true" if v else "false"), "bool"
        if f == 3 and wt == VARINT:
            return str(v), "uint"
        if f == 4 and wt == VARINT:
            return str(signed64(v)), "int"
        if f == 5 and wt == I64:
            d = struct.unpack("<d", v)[0]
            return c_decimal(d, is_single(d)), "double"
        if f == 6 and wt == LEN:
            return v.decode("utf-8"), "string"
        if f == 7 and wt == VARINT:
            return ("0x%x" % v if v else "NULL"), "pointer"
    raise ValueError("an annotation with no value of a known type")


# ---- the trace

class Reader:
    def __init__(self, path):
        self.path = path
        self.errors = []
        self.events = []        # Chrome JSON events
        self.kinds = {}         # annotation type name -> count
        self.packets = 0
        self.sequences = {}     # id -> {"names": {}, "anns": {}, "cleared": bool}
        self.tracks = {}        # uuid -> {"pid", "tid", "name", "parent", "process"}
        self.stacks = {}        # uuid -> [names of open slices]
        self.last_ts = {}       # uuid -> ts

    def error(self, no, msg):
        self.errors.append("%s: packet %s: %s" % (self.path, no, msg))

    def read(self):
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError as e:
            self.error("-", "cannot read: %s" % e)
            return self
        try:
            top = fields(data, "Trace")
        except ValueError as e:
            self.error("-", str(e))
            return self
        for no, (f, wt, v) in enumerate(top, 1):
            self.packets += 1
            if f != 1 or wt != LEN:
                self.error(no, "a Trace field %d (wire type %d), not a packet" % (f, wt))
                continue
            try:
                self.packet(no, fields(v, "packet %d" % no))
            except (ValueError, UnicodeDecodeError) as e:
                self.error(no, str(e))
        for uuid, st in self.stacks.items():
            for name in st:
                self.error("EOF", "track %d: %s begins and never ends" % (uuid, name))
        return self

    def packet(self, no, fs):
        seq = one(fs, 10, VARINT)
        flags = one(fs, 13, VARINT, 0)
        if not seq:
            raise ValueError("no trusted_packet_sequence_id")
        s = self.sequences.get(seq)
        if s is None:
            if not flags & 1:
                raise ValueError("sequence %d's first packet does not clear its state (sequence_flags %d)" % (seq, flags))
            s = self.sequences[seq] = {"names": {}, "anns": {}, "name_defs": 0}
        interned = one(fs, 12, LEN)
        if interned is not None:
            self.intern(s, fields(interned, "interned_data"))
        desc, event = one(fs, 60, LEN), one(fs, 11, LEN)
        if desc is not None:
            self.descriptor(fields(desc, "track_descriptor"))
        if event is not None:
            if not flags & 2:
                raise ValueError("a track event without SEQ_NEEDS_INCREMENTAL_STATE")
            ts = one(fs, 8, VARINT)
            if ts is None:
                raise ValueError("a track event without a timestamp")
            self.event(no, s, ts, fields(event, "track_event"))

    def intern(self, s, fs):
        for f, wt, v in fs:
            table = {2: s["names"], 3: s["anns"]}.get(f)
            if table is None or wt != LEN:
                raise ValueError("interned_data field %d" % f)
            e = fields(v, "interned entry")
            iid, name = one(e, 1, VARINT), one(e, 2, LEN)
            if not iid or name is None:
                raise ValueError("an interned entry without iid or name")
            name = name.decode("utf-8")
            if table.get(iid, name) != name:
                raise ValueError("iid %d interned as %r and %r" % (iid, table[iid], name))
            table[iid] = name
            s["name_defs"] += f == 2

    def descriptor(self, fs):
        uuid = one(fs, 1, VARINT)
        if not uuid:
            raise ValueError("a track descriptor without uuid")
        proc, thread = one(fs, 3, LEN), one(fs, 4, LEN)
        t = {"parent": one(fs, 5, VARINT), "process": proc is not None, "name": ""}
        if proc is not None:
            p = fields(proc, "process")
            t["pid"], t["tid"] = signed64(one(p, 1, VARINT, 0)), None
            t["name"] = (one(p, 6, LEN) or b"").decode("utf-8")
        elif thread is not None:
            th = fields(thread, "thread")
            t["pid"], t["tid"] = signed64(one(th, 1, VARINT, 0)), signed64(one(th, 2, VARINT, 0))
            t["name"] = (one(th, 5, LEN) or b"").decode("utf-8")
            parent = self.tracks.get(t["parent"])
            if not parent or not parent["process"] or parent["pid"] != t["pid"]:
                raise ValueError("thread %d's track: its parent %s is not its process's track" % (t["tid"], t["parent"]))
        else:
            raise ValueError("track %d: neither a process nor a thread" % uuid)
        old = self.tracks.get(uuid)
        if old and (old["pid"], old["tid"]) != (t["pid"], t["tid"]):
            raise ValueError("track %d described as two threads" % uuid)
        self.tracks[uuid] = t

    def event(self, no, s, ts, fs):
        kind, uuid = one(fs, 9, VARINT), one(fs, 11, VARINT)
        t = self.tracks.get(uuid)
        if t is None:
            raise ValueError("an event on track %s, which no descriptor before it describes" % uuid)
        if ts < self.last_ts.get(uuid, 0):
            raise ValueError("track %d: time %d before the previous event's %d" % (uuid, ts, self.last_ts[uuid]))
        self.last_ts[uuid] = ts
        name = one(fs, 23, LEN)
        iid = one(fs, 10, VARINT)
        if iid is not None:
            if iid not in s["names"]:
                raise ValueError("name iid %d is not interned on its sequence" % iid)
            name = s["names"][iid]
        elif name is not None:
            name = name.decode("utf-8")
        args = {}
        for f, wt, v in fs:
            if f != 4:
                continue
            a = fields(v, "debug annotation")
            key = one(a, 10, LEN)
            key = key.decode("utf-8") if key is not None else s["anns"].get(one(a, 1, VARINT))
            if key is None:
                raise ValueError("an annotation whose name iid is not interned")
            args[key], typ = value_text(a)
            self.kinds[typ] = self.kinds.get(typ, 0) + 1
        stack = self.stacks.setdefault(uuid, [])
        ev = {"ts": ts / 1000.0, "pid": t["pid"], "tid": t["tid"] if t["tid"] is not None else t["pid"]}
        if kind == 1:
            if name is None:
                raise ValueError("a slice begins without a name")
            if t["process"]:
                raise ValueError("a slice on the process's track")
            stack.append(name)
            self.events.append(dict(ev, name=name, ph="B", **({"args": args} if args else {})))
        elif kind == 2:
            if not stack:
                raise ValueError("track %d: a slice ends, none is open" % uuid)
            begun = stack.pop()
            if "errno" in args and "ret" in args:
                args["ret"] += " (%s)" % args.pop("errno")
            out = dict(ev, name=begun, ph="E")
            if args:
                out["args"] = {k: (True if v == "true" and k != "ret" else v) for k, v in args.items()}
            self.events.append(out)
        elif kind == 3:
            self.events.append(dict(ev, name=name or "", ph="i", args=args))
        else:
            raise ValueError("event type %s" % kind)


def main():
    if len(sys.argv) != 2:
        print("usage: perfetto_trace.py TRACE", file=sys.stderr)
        return 2
    r = Reader(sys.argv[1]).read()
    for e in r.events:
        print(json.dumps(e))
    for e in r.errors:
        print(e, file=sys.stderr)
    return 1 if r.errors else 0


if __name__ == "__main__":
    sys.exit(main())
