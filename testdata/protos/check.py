#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check `objpatch list --json` output against what testdata/protos declares.

  check.py valid FILE...   (each file must be UTF-8 JSON)
  check.py SET JSON [--ptr N] [--long N] [--ldbl N] [--elf FILE] [--gc] [--only NAMES]
                    [--all-unknown | --unknown-ok]

SET names the expectations below (types, clones, member, nodw, prog, comdat);
they are written by hand from the C and C++ sources, never from the tool's
output.  --ptr/--long/--ldbl are the sizes of void *, long and long double on
the target (t/60-protos.t has them per arch, and types.c asserts them to the
compiler).  --elf FILE: also check every record's address against FILE's
symbol table (which names the function there, and which source file a local
function comes from).  --gc: the functions a --gc-sections link drops must
have no record.  --only: check just these functions (comma-separated).
--all-unknown: every function must come out unknown; --unknown-ok: unknown
functions pass, the described ones must be right (never a guess).

Prints one line per mismatch and exits 1 if there is any.
"""
import argparse
import json
import re
import subprocess
import sys

# gcc and clang spell some base types differently: compare in clang's words.
SPELLINGS = [
    (r"\blong long unsigned int\b", "unsigned long long"),
    (r"\blong long int\b", "long long"),
    (r"\blong unsigned int\b", "unsigned long"),
    (r"\blong int\b", "long"),
    (r"\bshort unsigned int\b", "unsigned short"),
    (r"\bshort int\b", "short"),
]


def norm(text):
    if text is None:
        return None
    for pat, rep in SPELLINGS:
        text = re.sub(pat, rep, text)
    return text


def T(cls, size, text=None, enum=None):
    """An expected type: class, size, optionally C text and (name, enumerators)."""
    return {"class": cls, "size": size, "text": text, "enum": enum}


def F(ret, params, proto=None, varargs=False, reliable=True):
    """An expected function: params is [(name, T)], or None not to check them."""
    return {"ret": ret, "params": params, "proto": proto, "varargs": varargs,
            "reliable": reliable}


STATE = ("state", [("ST_NEG", -5), ("ST_IDLE", 0), ("ST_RUN", 7), ("ST_MAX", 0x7FFFFFFF)])
WIDE = ("wide", [("W_NEG", -0x123456789), ("W_ZERO", 0), ("W_POS", 0x123456789)])
FLAGS = ("flags", [("FL_LOW", 1), ("FL_TOP", 0x80000000)])
HUGE = ("huge", [("H_ONE", 1), ("H_TOP", 0xFEDCBA9876543210)])


def types_c(P, L, LD):
    """testdata/protos/types.c."""
    # man/mcount-tables.5: class float is a 4, 8, 12 (i386's x87 long
    # double) or 16-byte floating type.
    ldcls = "float" if LD in (4, 8, 12, 16) else "unknown"
    i4 = T("int", 4, "int")
    u4 = T("uint", 4, "unsigned int")
    return {
        "f_void": F(T("void", 0, "void"), [], "void f_void(void)"),
        "f_bool": F(T("bool", 1, "_Bool"), [("b", T("bool", 1, "_Bool"))], "_Bool f_bool(_Bool b)"),
        "f_s8": F(T("int", 1, "signed char"),
                  [("a", T("int", 1, "signed char")), ("b", T("uint", 1, "unsigned char"))],
                  "signed char f_s8(signed char a, unsigned char b)"),
        "f_s16": F(T("int", 2, "short"),
                   [("a", T("int", 2, "short")), ("b", T("uint", 2, "unsigned short"))],
                   "short f_s16(short a, unsigned short b)"),
        "f_s32": F(i4, [("a", i4), ("b", u4)], "int f_s32(int a, unsigned int b)"),
        "f_s64": F(T("int", 8, "long long"),
                   [("a", T("int", 8, "long long")), ("b", T("uint", 8, "unsigned long long"))]),
        "f_long": F(T("uint", L, "unsigned long"),
                    [("a", T("int", L, "long")), ("b", T("uint", L, "unsigned long"))],
                    "unsigned long f_long(long a, unsigned long b)"),
        "f_char": F(T("char", 1, "char"), [("c", T("char", 1, "char"))], "char f_char(char c)"),
        "f_enum": F(T("enum", 4, "enum state", STATE), [("s", T("enum", 4, "enum state", STATE))],
                    "enum state f_enum(enum state s)"),
        "f_wide": F(T("enum", 8, "enum wide", WIDE), [("w", T("enum", 8, "enum wide", WIDE))]),
        "f_flags": F(T("enum", 4, "enum flags", FLAGS),
                     [("f", T("enum", 4, "enum flags", FLAGS)), ("h", T("enum", 8, "enum huge", HUGE))]),
        "f_ptr": F(T("pointer", P, "int *"),
                   [("p", T("pointer", P, "int *")), ("v", T("pointer", P, "void *")),
                    ("cv", T("pointer", P, "const void *")), ("sc", T("pointer", P, "signed char *")),
                    ("uc", T("pointer", P, "unsigned char *")), ("pp", T("pointer", P, "char **"))]),
        "f_str": F(T("string", P, "const char *"),
                   [("s", T("string", P, "char *")), ("cs", T("string", P, "const char *"))],
                   "const char *f_str(char *s, const char *cs)"),
        "f_float": F(T("float", 4, "float"), [("f", T("float", 4, "float")), ("d", T("float", 8, "double"))],
                     "float f_float(float f, double d)"),
        "f_ldouble": F(T(ldcls, LD, "long double"), [("x", T(ldcls, LD, "long double"))]),
        # struct pair { int a; long b; }: b is long-aligned on every target here
        "f_struct": F(T("struct", 2 * L, "struct pair"), [("p", T("struct", 2 * L, "struct pair"))],
                      "struct pair f_struct(struct pair p)"),
        "f_union": F(T("union", 8, "union word"), [("w", T("union", 8, "union word"))],
                     "union word f_union(union word w)"),
        "f_fnptr": F(i4, [("cb", T("pointer", P, "int (*)(int, const char *)")),
                          ("done", T("pointer", P, "void (*)(void)"))],
                     "int f_fnptr(int (*cb)(int, const char *), void (*done)(void))"),
        "f_varargs": F(i4, [("fmt", T("string", P, "const char *"))],
                       "int f_varargs(const char *fmt, ...)", varargs=True),
        "f_typedef": F(T("uint", 4, "u32"),
                       [("x", T("uint", 4, "u32")), ("pp", T("pointer", P, "pair_t *")),
                        ("s", T("enum", 4, "state_t", STATE)), ("str", T("string", P, "str_t")),
                        ("c", T("uint", 4, "counter_t"))],
                       "u32 f_typedef(u32 x, pair_t *pp, state_t s, str_t str, counter_t c)"),
        "f_qual": F(i4, [("ci", T("int", 4, "const int")), ("vl", T("int", L, "volatile long")),
                         ("cvs", T("uint", 2)), ("cp", T("string", P, "char *const")),
                         ("vcp", T("string", P, "const char *volatile"))]),
    }


def clones_c(P, L, LD):
    """testdata/protos/clones.c at gcc -O2: the clones' names carry gcc's suffixes."""
    lng = T("int", L, "long")
    return {
        # Whatever a clone's parameters are, its code does not take the
        # declared ones: only the return type is the source's.
        "isra_me.isra.*": F(lng, None, reliable=False),
        "constprop_me.constprop.*": F(lng, None, reliable=False),
        "part_me.part.*": F(lng, None, reliable=False),
        "use_clones": F(lng, [("b", T("pointer", P, "struct big *")), ("x", lng)]),
        "split_sum": F(lng, [("a", T("pointer", P, "const long *")), ("n", T("int", 4, "int"))],
                       "long split_sum(const long *a, int n)"),
        "squash": F(T("uint", 2, "unsigned short"),
                    [("v", T("uint", L, "unsigned long")), ("why", T("string", P, "const char *"))],
                    "unsigned short squash(unsigned long v, const char *why)"),
        "use_inline": F(lng, [("v", T("uint", L, "unsigned long"))], "long use_inline(unsigned long v)"),
    }


def member_cc(P, L, LD):
    """testdata/protos/member.cc: `this` is a real (first) argument."""
    return {
        "S::get": F(T("int", 4, "int"), [("this", T("pointer", P)), ("k", T("int", 4, "int"))]),
        "S::count": F(T("int", L, "long"), [("what", T("string", P, "const char *")),
                                            ("n", T("uint", 4, "unsigned int"))],
                      "long S::count(const char *what, unsigned int n)"),
        "geo::Point::dot": F(T("float", 8, "double"), [("this", T("pointer", P)), ("o", T("pointer", P))]),
        "use_members": F(T("int", L, "long"), [("s", T("pointer", P)), ("p", T("pointer", P))]),
    }


UNKNOWN = "unknown"


def nodw_c(P, L, LD):
    """types.c (with DWARF) and nodw.c (without) in one `ld -r` object."""
    exp = types_c(P, L, LD)
    exp["nodw_add"] = UNKNOWN
    exp["nodw_mul"] = UNKNOWN
    return exp


GC_DROPPED = ["unused_scale", "unused_name"]


def prog_c(P, L, LD, gc=False):
    """types.c, init_[abc].c and prog.c linked (or `ld -r`'d) together."""
    exp = {} if gc else types_c(P, L, LD)
    if gc:  # what main reaches
        t = types_c(P, L, LD)
        exp = {"f_s32": t["f_s32"], "f_str": t["f_str"]}
    i4 = T("int", 4, "int")
    exp.update({
        "init": None,  # three of them, checked by address
        "init_a": F(i4, [], "int init_a(void)"),
        "init_b": F(i4, [], "int init_b(void)"),
        "init_c": F(T("int", L, "long"), [], "long init_c(void)"),
        "sink": F(T("void", 0, "void"), [("v", T("int", L, "long"))], "void sink(long v)"),
        "main": F(i4, [("argc", i4), ("argv", T("pointer", P, "char **"))],
                  "int main(int argc, char **argv)"),
    })
    if not gc:
        exp["unused_scale"] = F(T("float", 8, "double"), [("x", T("float", 8, "double")),
                                                          ("k", T("float", 4, "float"))])
        exp["unused_name"] = F(T("string", P, "const char *"), [("which", i4)])
    return exp


# The local `init` of each file, by the file it comes from.
def init_by_file(P, L, LD):
    return {"init_a.c": F(T("int", 4, "int"), [], "int init(void)"),
            "init_b.c": F(T("int", 4, "int"), [], "int init(void)"),
            "init_c.c": F(T("int", L, "long"), [], "long init(void)")}


def comdat_cc(P, L, LD):
    """testdata/protos/comdat_{one,two}.cc linked: one Acc::add."""
    lng = T("int", L, "long")
    return {
        "Acc::add": F(lng, [("this", T("pointer", P)), ("by", lng), ("why", T("string", P, "const char *"))]),
        "comdat_one": F(lng, [("x", lng)], "long comdat_one(long x)"),
        "comdat_two": F(lng, [("x", lng)], "long comdat_two(long x)"),
        "main": F(T("int", 4, "int"), [], "int main(void)"),
    }


SETS = {"types": types_c, "clones": clones_c, "member": member_cc, "nodw": nodw_c,
        "prog": prog_c, "comdat": comdat_cc}


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, msg):
        self.errors.append(msg)

    def type(self, where, got, exp):
        if got.get("class") != exp["class"]:
            self.err(f"{where}: class {got.get('class')!r}, expected {exp['class']!r}")
        if got.get("size") != exp["size"]:
            self.err(f"{where}: size {got.get('size')!r}, expected {exp['size']!r}")
        if exp["text"] is not None and norm(got.get("type")) != norm(exp["text"]):
            self.err(f"{where}: type {got.get('type')!r}, expected {exp['text']!r}")
        if exp["enum"] is not None:
            name, values = exp["enum"]
            if got.get("enum") != name:
                self.err(f"{where}: enum name {got.get('enum')!r}, expected {name!r}")
            items = list((got.get("enumerators") or {}).items())
            if items != values:
                self.err(f"{where}: enumerators {items}, expected {values}")

    def function(self, name, rec, exp):
        if exp == UNKNOWN:
            if (rec.get("prototype") is not None or rec.get("return") != {"class": "unknown"}
                    or rec.get("params") or rec.get("reliable") is not False):
                self.err(f"{name}: has no DWARF, must be unknown: {json.dumps(rec)}")
            return
        if rec.get("reliable") is not exp["reliable"]:
            self.err(f"{name}: reliable {rec.get('reliable')!r}, expected {exp['reliable']!r}")
        if rec.get("varargs") is not exp["varargs"]:
            self.err(f"{name}: varargs {rec.get('varargs')!r}, expected {exp['varargs']!r}")
        if rec.get("prototype") is None:
            self.err(f"{name}: no prototype")
        self.type(f"{name}: return", rec.get("return", {}), exp["ret"])
        if exp["params"] is not None:
            names = [p.get("name") for p in rec.get("params", [])]
            want = [n for n, _ in exp["params"]]
            if names != want:
                self.err(f"{name}: parameters {names}, expected {want}")
            else:
                for p, (pname, ptype) in zip(rec["params"], exp["params"]):
                    self.type(f"{name}: {pname}", p, ptype)
        if exp["proto"] is not None and norm(rec.get("prototype")) != norm(exp["proto"]):
            self.err(f"{name}: prototype {rec.get('prototype')!r}, expected {exp['proto']!r}")


def match(pattern, name):
    """`isra_me.isra.*` matches isra_me.isra.0, isra_me.isra.12 ..."""
    if pattern.endswith(".*"):
        return re.fullmatch(re.escape(pattern[:-2]) + r"\.\d+", name) is not None
    return pattern == name


# ---- the symbol table, to check addresses ----

def readelf(args, path):
    return subprocess.run(["readelf", "-W"] + args + [path], check=True, capture_output=True,
                          text=True).stdout


def symbols(path):
    """FUNC symbols: (name without parameters, section name, value, size, file of a local)."""
    secs = {}
    for line in readelf(["-S"], path).splitlines():
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            secs[int(m.group(1))] = m.group(2)
    arm = "ARM" in re.search(r"Machine:\s*(.*)", readelf(["-h"], path)).group(1).split()
    out, cur_file = [], None
    for line in readelf(["-s", "-C"], path).splitlines():
        if line.startswith("Symbol table"):
            cur_file = None
            continue
        # Vis may be followed by a note: "DEFAULT [<localentry>: 8]" on ppc64le
        m = re.match(r"^\s*\d+:\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+(?:\s+\[[^]]*\])?\s+(\S+)\s+(.*)$",
                     line)
        if not m:
            continue
        value, size, typ, bind, ndx, name = m.groups()
        if typ == "FILE":
            cur_file = name.rsplit("/", 1)[-1]
            continue
        if typ not in ("FUNC", "IFUNC") or not ndx.isdigit():
            continue
        value = int(value, 16)
        if arm:
            value &= ~1
        out.append({"name": name.split("(")[0], "sec": secs.get(int(ndx)), "value": value,
                    "size": int(size, 0), "file": cur_file if bind == "LOCAL" else None})
    return out


def check_addresses(c, recs, syms, exp_by_file):
    linked = any(r.get("address") is not None for r in recs)
    for r in recs:
        name = r["function"]
        if linked and (r.get("section") is not None or r.get("offset") is not None):
            c.err(f"{name}: a linked file's record has a section or offset")
        if linked:
            found = [s for s in syms if s["name"] == name and s["value"] == r["address"]]
        else:
            found = [s for s in syms if s["name"] == name and s["sec"] == r["section"]
                     and s["value"] == r["offset"]]
        if not found:
            where = r["address"] if linked else f"{r['section']}+{r['offset']}"
            c.err(f"{name}: no function symbol {name} at {where}")
            continue
        s = found[0]
        start = s["value"]
        for site in r["sites"]:
            if not start <= site < start + max(s["size"], 1):
                c.err(f"{name}: site {site} is not inside {name} [{start}, +{s['size']})")
        if name == "init" and exp_by_file is not None:
            exp = exp_by_file.get(s["file"])
            if exp is None:
                c.err(f"init at {r.get('address')}: from unexpected file {s['file']!r}")
            else:
                c.function(f"init from {s['file']}", r, exp)
    if exp_by_file is not None:
        files = sorted(s["file"] or "?" for s in syms if s["name"] == "init" and any(
            (r.get("address") if linked else r.get("offset")) == s["value"]
            for r in recs if r["function"] == "init"))
        if files != sorted(exp_by_file):
            c.err(f"the init records are those of {files}, expected {sorted(exp_by_file)}")


def valid_json(paths):
    """`check.py valid FILE...`: each file is UTF-8 JSON (a reader must not choke)."""
    bad = 0
    for p in paths:
        try:
            with open(p, "rb") as f:
                json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError) as e:
            print(f"{p}: {e}")
            bad += 1
    return 1 if bad else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "valid":
        return valid_json(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("set", choices=sorted(SETS))
    ap.add_argument("json")
    ap.add_argument("--ptr", type=int, default=8)
    ap.add_argument("--long", type=int, default=8)
    ap.add_argument("--ldbl", type=int, default=16)
    ap.add_argument("--elf")
    ap.add_argument("--gc", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--all-unknown", action="store_true",
                    help="every function must be unknown (no DWARF for any)")
    ap.add_argument("--unknown-ok", action="store_true",
                    help="unknown functions pass; the others must be right")
    a = ap.parse_args()

    c = Checker()
    try:
        with open(a.json) as f:
            recs = json.load(f)
    except (OSError, ValueError) as e:
        print(f"not JSON: {e}")
        return 1
    args = (a.ptr, a.long, a.ldbl)
    exp = prog_c(*args, gc=a.gc) if a.set == "prog" else SETS[a.set](*args)
    if a.all_unknown:
        exp = {k: (None if v is None else UNKNOWN) for k, v in exp.items()}
    if a.only:
        exp = {k: v for k, v in exp.items() if k in a.only.split(",")}
        recs = [r for r in recs if any(match(k, r["function"]) for k in exp)]

    seen = {k: 0 for k in exp}
    for r in recs:
        keys = [k for k in exp if match(k, r["function"])]
        if not keys:
            c.err(f"{r['function']}: a record that no source declares")
            continue
        seen[keys[0]] += 1
        if a.unknown_ok and r.get("prototype") is None:
            c.function(r["function"], r, UNKNOWN)
        elif exp[keys[0]] is not None:
            c.function(r["function"], r, exp[keys[0]])
    for k, n in seen.items():
        want = 3 if k == "init" else 1
        if n != want:
            c.err(f"{k}: {n} records, expected {want}")
    # one record per function: never two at one place
    places = [(r.get("section"), r.get("offset"), r.get("address")) for r in recs]
    for p in {p for p in places if places.count(p) > 1}:
        c.err(f"{places.count(p)} records at {p}")
    if a.gc:
        for k in GC_DROPPED:
            if any(r["function"] == k for r in recs):
                c.err(f"{k}: collected by --gc-sections but still has a record")
    if a.elf:
        check_addresses(c, recs, symbols(a.elf), init_by_file(*args) if a.set == "prog" else None)
    for e in c.errors:
        print(e)
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main())
