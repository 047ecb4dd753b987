#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# arch/machines.h is the one list of the machines the project builds for:
# the Makefile, scripts, fuzz corpus generator, tests and benchmarks derive
# theirs from it (scripts/machines.sh's machine_rows, the Makefile's awk), so a new
# row reaches all of them.  A line of those files that names three or more
# machines (by the table's name, or by its cross triple) is a list written
# by hand, which a new row would silently miss: it fails here.  Under a
# second.
#
# REV=COMMIT scans that commit's files instead of the work tree (to see that
# the check finds the lists an older tree had).
import os, re, subprocess, sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
REV = os.environ.get('REV')
DIRS = ['Makefile', 'scripts', 'fuzz', 't', 'bench']
SHEBANG = re.compile(rb'^#!.*\b(sh|bash|python3?|perl)\b')
EXTENSIONS = ('.sh', '.t', '.py', '.pl', '.pm', '.mk')

# Not lists to run over, so not looked at: comments (prose that describes
# machines), and a case arm that gives its machines a value on its own line
# (`x86_64 | i386) echo call ;;`: data about each machine, where a machine
# missing falls to a default, not out of a loop).
COMMENT = re.compile(r'^\s*#')
VALUE_ARM = re.compile(r'^\s*[\w*|" -]+\)\s*(echo|printf)\b')

# Lines exempt by name: (path, text the line contains, why).
EXEMPT = [
    # Data: what each machine is, not which ones to run.
    ('t/20-differential.t', 'x86_64 | arm* | aarch64)',
     'the machines whose NOP bytes the kernel tool writes as ours do (compared byte for byte), '
     'knowledge of the kernel tool like kernel_fault'),
    ('scripts/kernel-matrix-test.sh', 'all_machines="arm arm-thumb2',
     'the kernels it can configure and boot (each has its arm of settings below; arm-thumb2 and ppc32 '
     'are configurations, not rows of the table)'),
    ('scripts/kernel-matrix-test.sh', 'mips | mipsel | mips64)', 'the MIPS kernels\' shared configuration'),
    # Samples chosen for run time: the slow tests and the benchmark corpus
    # run a few machines picked to cover both byte orders, both classes and
    # the call forms that differ, not every row.
    ('t/41-malformed.t', 'WANT="x86_64 arm mips ppc64 aarch64 mips64el"', 'a sample, for run time'),
    ('t/41-malformed.t', 'for name in x86_64 aarch64 mips64el ppc64 arm cxx', 'the same sample'),
    ('t/60-protos.t', 'O2_GCC=" x86_64 aarch64 ppc s390x riscv64 sparc64 "', 'a sample, for run time'),
    ('t/60-protos.t', 'USER_GCC=" x86_64 arm i386 s390x "', 'a sample, for run time'),
    ('t/60-protos.t', '[[ " ppc s390x ppc64 " ==', 'the big-endian sample'),
    ('bench/gen-corpus.sh', "LARGE_BIG_ARCHES=' x86_64 aarch64 arm ppc64le '", 'a sample, for compile time'),
    ('bench/gen-corpus.sh', "CLANG_ARCHES=' x86_64 aarch64 arm ppc64le '", 'a sample, for compile time'),
]

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402
used = set()

def git(*args):
    return subprocess.run(['git', '-C', TOP] + list(args), check=True, stdout=subprocess.PIPE).stdout

def read(path):
    if REV:
        return git('show', '%s:%s' % (REV, path))
    with open(os.path.join(TOP, path), 'rb') as f:
        return f.read()

def machines():
    """{lower-case name or triple: the row's name}, from arch/machines.h's rows."""
    known = {}
    for line in read('arch/machines.h').decode().splitlines():
        m = re.match(r'MACHINE\(([^)]*)\)', line)
        if not m:
            continue
        fields = [f.strip() for f in m.group(1).split(',')]
        name, triple = fields[0], fields[1].rstrip('-')
        known[name.lower()] = name
        known.setdefault(triple.lower(), name)
    return known

def scanned_files():
    """The shell, Python, Perl and make files of DIRS, as git has them."""
    listing = git('ls-tree', '-r', '--name-only', REV, '--', *DIRS) if REV else git('ls-files', '--', *DIRS)
    for path in listing.decode().splitlines():
        if path == 't/08-machine-lists.t':	# quotes the lines it exempts
            continue
        text = read(path)
        base = os.path.basename(path)
        if base == 'Makefile' or base.endswith(EXTENSIONS) or SHEBANG.match(text):
            yield path, text.decode(errors='replace')

def named(line, known):
    """The machines a line names: whole words (x86_64, arm-arm, X86_64 in
    a make variable), or a triple anywhere (gcc-aarch64-linux-gnu)."""
    found = set()
    for word in re.findall(r'[A-Za-z0-9_][A-Za-z0-9_.-]*', line):
        word = word.rstrip('.-').lower()
        if word in known:
            found.add(known[word])
    lower = line.lower()
    for key, name in known.items():
        if '-linux-' in key and key in lower:
            found.add(name)
    return found

def exempt(path, line):
    for entry in EXEMPT:
        if path == entry[0] and entry[1] in line:
            used.add(entry)
            return True
    return False

def main():
    known = machines()
    ok(len(set(known.values())) >= 3, 'arch/machines.h has rows to look for (%d machines)' % len(set(known.values())))
    lists = []
    for path, text in scanned_files():
        for number, line in enumerate(text.splitlines(), 1):
            if COMMENT.match(line) or VALUE_ARM.match(line):
                continue
            names = named(line, known)
            if len(names) >= 3 and not exempt(path, line):
                lists.append('%s:%d names %s: %s' % (path, number, ' '.join(sorted(names)), line.strip()))
    ok(not lists, 'no machine list written by hand outside arch/machines.h (%s)' % (REV or 'work tree'),
       lists + (['derive it from the table (scripts/machines.sh machine_rows, the Makefile\'s awk) or exempt it in '
                 't/08-machine-lists.t with the reason'] if lists else []))
    # An exemption whose line is gone (derived, or reworded) goes too.
    stale = ['%s: %s' % (p, text) for p, text, _ in EXEMPT if (p, text, _) not in used]
    ok(not stale, 'every exemption still names a line of the tree', stale)
    done()

main()
