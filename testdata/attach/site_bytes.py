#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The first bytes of a function in a running process, in hex
(t/99-attach-stress.t: a site the runtime patched reads otherwise).

  site_bytes.py PID EXE FUNCTION [COUNT]

EXE is the process's executable (its symbols kept), FUNCTION one of its
functions; COUNT bytes (default 8) are read from /proc/PID/mem at the
function's address: its symbol's value, plus the load address for a PIE
(the start of the executable's mapping at file offset 0).  Exits 1 with
one line when the function or the process is not found.
"""
import os
import subprocess
import sys


def symbol(exe, name):
    out = subprocess.run(["nm", "--defined-only", exe], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        w = line.split()
        if len(w) == 3 and w[2] == name and w[1] in "tT":
            return int(w[0], 16)
    return None


def is_pie(exe):
    with open(exe, "rb") as f:
        head = f.read(18)
    return int.from_bytes(head[16:18], "little") == 3     # ET_DYN


def load_base(pid, exe):
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            w = line.split()
            if len(w) >= 6 and int(w[2], 16) == 0 and w[5] == os.path.realpath(exe):
                return int(w[0].split("-")[0], 16)
    return None


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.split("\n\n")[1].strip())
        return 2
    pid, exe, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) == 5 else 8
    addr = symbol(exe, name)
    if addr is None:
        print("%s: no function %s" % (exe, name))
        return 1
    try:
        if is_pie(exe):
            base = load_base(pid, exe)
            if base is None:
                print("%d: %s is not mapped" % (pid, exe))
                return 1
            addr += base
        with open("/proc/%d/mem" % pid, "rb") as mem:
            mem.seek(addr)
            print(mem.read(count).hex())
    except OSError as e:
        print("%d: %s" % (pid, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
