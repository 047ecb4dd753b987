# SPDX-License-Identifier: GPL-2.0-only
"""TAP for the Python tests (t/0*.t): ok() prints a numbered result and,
when it failed, its reasons on standard error; done() prints the plan and
exits with the suite's status."""
import sys

n = failed = 0


def ok(good, desc, why=()):
    global n, failed
    n += 1
    print(('ok %d - %s' if good else 'not ok %d - %s') % (n, desc))
    if not good:
        failed += 1
        for w in why:
            sys.stderr.write('# %s\n' % w)
    return good


def done():
    print('1..%d' % n)
    sys.exit(1 if failed else 0)
