#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# README's workflow is what the tools do: the commands between its
# <!-- workflow --> markers run on testdata/demo/demo.c in a scratch
# directory with build/ first on PATH, and what they print (each command's
# standard output, then its standard error) is the block between the
# <!-- workflow-output --> markers, once process IDs and durations, which
# change from run to run, are set aside.  No heading appears twice.  And
# what README and docs/ point at is there: the layout map between README's
# <!-- layout --> markers names every top-level folder of the tree (and
# every folder inside arch/, objpatch/, kernel/ and t/); docs/testing.md's
# table has a row for every t/*.t file; every relative Markdown link of
# README.md and docs/*.md names a file that exists, and a #fragment names
# a heading of that file.  Under 2 seconds.
import fnmatch, os, re, shutil, subprocess, sys, tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

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

def tracked_dirs():
    # The tree's folders as git has them (build/ and scratch folders aside);
    # without git, what is on disk but .git and build.
    try:
        files = subprocess.check_output(['git', '-C', TOP, 'ls-files'], text=True,
                                        stderr=subprocess.DEVNULL).split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), TOP) for d, ds, fs in os.walk(TOP)
                 for f in fs if not os.path.relpath(d, TOP).split(os.sep)[0] in ('.git', 'build')]
    return {os.path.dirname(f) for f in files if os.path.exists(os.path.join(TOP, f))}

dirs = set()
for d in tracked_dirs():
    parts = d.split('/')
    for i in range(1, len(parts) + 1):
        dirs.add('/'.join(parts[:i]))
m = re.search(r'<!-- layout -->\n(.*?)<!-- /layout -->', readme, re.S)
named = set(re.findall(r'(?:^|\s)([.\w-]+)/(?=\s|$)', m.group(1), re.M)) if m else set()
top = sorted(d for d in dirs if d and '/' not in d)
missing = [d + '/' for d in top if d not in named]
ok(m and not missing, "README's layout map names every top-level folder (%d)" % len(top),
   ['not in the map: %s' % ' '.join(missing)])
inner = sorted(d for d in dirs if d.count('/') == 1 and d.split('/')[0] in ('arch', 'objpatch', 'kernel', 't'))
missing = [d + '/' for d in inner if d.split('/')[1] not in named]
ok(m and not missing, "README's layout map names the folders inside arch/, objpatch/, kernel/, t/ (%d)" % len(inner),
   ['not in the map: %s' % ' '.join(missing)])

testing = open(os.path.join(TOP, 'docs/testing.md')).read()
rows = re.findall(r'^\| (t/\S+\.t) \|', testing, re.M)
tests = sorted('t/' + f for f in os.listdir(os.path.join(TOP, 't')) if f.endswith('.t'))
missing = [t for t in tests if not any(fnmatch.fnmatchcase(t, r) for r in rows)]
ok(not missing, "docs/testing.md's table has a row for every t/*.t file (%d)" % len(tests),
   ['no row: %s' % ' '.join(missing)])

def slugs(path):
    # GitHub's anchors: a heading lower-cased, punctuation dropped, spaces to hyphens.
    out = set()
    for line in open(path).read().splitlines():
        h = re.match(r'#{1,6} (.*)', line)
        if h:
            out.add(re.sub(r'[^\w\- ]', '', h.group(1).strip().lower()).replace(' ', '-'))
    return out

pages = ['README.md'] + sorted('docs/' + f for f in os.listdir(os.path.join(TOP, 'docs')) if f.endswith('.md'))
broken = []
for page in pages:
    text = open(os.path.join(TOP, page)).read()
    text = re.sub(r'^(    |\t).*$', '', text, flags=re.M)    # code blocks hold no links
    for target in re.findall(r'\]\(([^)\s]+)\)', text):
        if re.match(r'[a-z]+:', target):
            continue
        path, _, frag = target.partition('#')
        full = os.path.normpath(os.path.join(TOP, os.path.dirname(page), path)) if path else os.path.join(TOP, page)
        if not os.path.exists(full):
            broken.append('%s: %s (no such file)' % (page, target))
        elif frag and full.endswith('.md') and frag not in slugs(full):
            broken.append('%s: %s (no such heading)' % (page, target))
ok(not broken, 'every relative link of README.md and docs/*.md resolves (%d pages)' % len(pages), broken)

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
done()
