#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The first bytes of a function in a running process, in hex
(t/99-attach-stress.t: a site the runtime patched reads otherwise).

  site_bytes.py PID EXE FUNCTION [--until-not HEX [--while-alive PID2]]

EXE is the process's executable (its symbols kept), FUNCTION one of its
functions; its first 32 bytes (a -pg site comes after the prologue) are read from /proc/PID/mem at the
function's address: its symbol's value, plus the load address for a PIE
(the start of the executable's mapping at file offset 0), and printed.
With --until-not, they are read again every 10 ms until they differ from
HEX (the site was patched), for at most 60 s or, with --while-alive,
until process PID2 (the objpatch that patches) is gone; exit status 1
when they never changed.  Exits 1 with one line when the function or the
process is not found.
"""
import os
import subprocess
import sys
import time


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


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def read_at(pid, addr):
    with open("/proc/%d/mem" % pid, "rb") as mem:
        mem.seek(addr)
        return mem.read(32).hex()


def main():
    args = sys.argv[1:]
    until = watch = None
    if "--while-alive" in args:
        i = args.index("--while-alive")
        watch = int(args[i + 1])
        del args[i:i + 2]
    if "--until-not" in args:
        i = args.index("--until-not")
        until = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        print(__doc__.split("\n\n")[1].strip())
        return 2
    pid, exe, name = int(args[0]), args[1], args[2]
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
        now = read_at(pid, addr)
        end = time.monotonic() + 60
        while until is not None and now == until:
            if time.monotonic() > end or (watch is not None and not alive(watch)):
                break
            time.sleep(0.01)
            now = read_at(pid, addr)
    except OSError as e:
        print("%d: %s" % (pid, e))
        return 1
    print(now)
    return 1 if until is not None and now == until else 0


if __name__ == "__main__":
    sys.exit(main())
