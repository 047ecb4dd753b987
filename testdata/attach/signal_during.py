#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run an `objpatch attach` and send its target one signal during it
(t/99-attach-stress.t).

  signal_during.py --when held|released --report FILE PID -- CMD...

Runs CMD and watches PID's TracerPid: with --when held, the signal goes
once a tracer holds PID (ptrace: threads stopped, the runtime being
loaded); with released, once the tracer let go again while CMD still runs
(the process traced by its runtime).  When CMD ends before that moment
came, the signal goes after it, so that one is sent in every case.
SIGINT and SIGTERM sent to this script go to CMD.  FILE
gets the word saying when: held, released or after.  Exits with CMD's
status (128+N when signal N ended it).
"""
import argparse
import os
import signal
import subprocess
import sys
import time


def tracer(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("TracerPid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--when", choices=("held", "released"), required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--signal", default="SIGUSR1")
    ap.add_argument("pid", type=int)
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    sig = getattr(signal, a.signal)
    proc = subprocess.Popen(a.cmd)
    # A SIGINT or SIGTERM for this one is for CMD (the test ends sessions with SIGINT).
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda n, _: proc.send_signal(n))
    held, when = False, "after"
    while proc.poll() is None:
        t = tracer(a.pid)
        held = held or t != 0
        if (a.when == "held" and t != 0) or (a.when == "released" and held and t == 0):
            when = a.when
            break
        time.sleep(0.0002)
    os.kill(a.pid, sig)
    with open(a.report, "w") as f:
        f.write(when + "\n")
    st = proc.wait()
    return 128 - st if st < 0 else st


if __name__ == "__main__":
    sys.exit(main())
