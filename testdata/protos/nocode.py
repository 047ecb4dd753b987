#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Print the names of the top-level subprogram DIEs that have no code:
neither DW_AT_low_pc/DW_AT_ranges nor a top-level concrete DIE pointing at
them through DW_AT_abstract_origin.  Reads `readelf --debug-dump=info`."""
import re
import sys

dies = {}       # offset -> {"name", "code", "origin"}
cur = None
for line in sys.stdin:
    m = re.match(r"\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: \d+ \((\w+)\)", line)
    if m:
        cur = None
        if m.group(1) == "1" and m.group(3) == "DW_TAG_subprogram":
            cur = dies.setdefault(int(m.group(2), 16), {"name": None, "code": False, "origin": None})
        continue
    if cur is None:
        continue
    m = re.search(r"DW_AT_(name|low_pc|ranges|abstract_origin|declaration)\s*:\s*(.*)", line)
    if not m:
        continue
    attr, val = m.groups()
    if attr == "name":
        cur["name"] = val.split(": ")[-1].strip()
    elif attr in ("low_pc", "ranges"):
        cur["code"] = True
    elif attr == "abstract_origin":
        cur["origin"] = int(re.search(r"<0x([0-9a-f]+)>", val).group(1), 16)
    else:
        cur["decl"] = True
covered = {d["origin"] for d in dies.values() if d["code"] and d["origin"] is not None}
for off, d in sorted(dies.items()):
    if d["name"] and not d["code"] and not d.get("decl") and off not in covered:
        print(d["name"])
