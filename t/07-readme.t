#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# README's workflow is what the tools do: the commands between its
# <!-- workflow --> markers run on testdata/demo/demo.c in a scratch
# directory with build/ first on PATH, and what they print (each command's
# standard output, then its standard error) is the block between the
# <!-- workflow-output --> markers, once process IDs and durations, which
# change from run to run, are set aside.  No heading appears twice.  Under
# 2 seconds.
import os, re, shutil, subprocess, sys, tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
n = failed = 0

def ok(good, desc, why=()):
    global n, failed
    n += 1
    print(('ok %d - %s' if good else 'not ok %d - %s') % (n, desc))
    if not good:
        failed += 1
        for w in why:
            sys.stderr.write('# %s\n' % w)

def block(text, marker):
    m = re.search(r'<!-- %s -->\n(.*?)<!-- /%s -->' % (marker, marker), text, re.S)
    return [l[4:] for l in m.group(1).splitlines() if l.startswith('    ')] if m else []

def normal(line):
    line = re.sub(r'\bpid \d+', 'pid N', line)
    # "  22874) +   40.975 us  |  main() {" -> "TID) DURATION |  main() {"
    return re.sub(r'^\s*\d+\)\s*(?:[+!#*@]?\s*[\d.]+ [mun]?s)?\s*\|', 'TID) DURATION |', line).rstrip()

readme = open(os.path.join(TOP, 'README.md')).read()
# A section pasted twice (an edit gone wrong) reads as two truths: each heading once.
headings = [l for l in readme.splitlines() if re.match(r'#{2,3} ', l)]
twice = sorted({h for h in headings if headings.count(h) > 1})
ok(not twice, 'no README heading appears twice (%d headings)' % len(headings), ['twice: %r' % twice])
commands, expected = block(readme, 'workflow'), block(readme, 'workflow-output')
ok(len(commands) >= 5 and len(expected) >= 5, 'README has the workflow and its output',
   ['commands: %r' % commands, 'output: %r' % expected])

work = tempfile.mkdtemp(prefix='rmc-readme.')
try:
    shutil.copy(os.path.join(TOP, 'testdata/demo/demo.c'), work)
    env = dict(os.environ, PATH=os.path.join(TOP, 'build') + os.pathsep + os.environ['PATH'])
    got = []
    for cmd in commands:
        r = subprocess.run(['bash', '-c', cmd.split('#')[0]], cwd=work, env=env,
                           capture_output=True, text=True, timeout=120)
        ok(r.returncode == 0, 'exit 0: %s' % cmd.split('#')[0].strip(), [r.stderr])
        got += r.stdout.splitlines() + r.stderr.splitlines()
    got, want = [normal(l) for l in got], [normal(l) for l in expected]
    first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    if first is None and len(got) != len(want):
        first = min(len(got), len(want))
    ok(first is None, 'the output is README\'s (%d lines)' % len(want),
       [] if first is None else ['line %d' % (first + 1),
                                 'got:      %r' % (got[first] if first < len(got) else None),
                                 'expected: %r' % (want[first] if first < len(want) else None)])
finally:
    shutil.rmtree(work)
print('1..%d' % n)
sys.exit(1 if failed else 0)
