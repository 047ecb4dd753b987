#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# docs/porting.md against the tree it describes:
#  - the fields of struct arch, arch_values, arch_cc_form (arch/arch.h),
#    rt_arch and rt_arg_regs (arch/port.h), parsed from the headers, are
#    exactly the names the guide's lists give as theirs (the first cell of
#    each table row between <!-- fields: STRUCT --> and <!-- /fields -->):
#    a field added, renamed or removed on either side fails; the fields of
#    struct call_form, call_decoder and abs_reloc, which the guide describes
#    in prose, are each named in it;
#  - the column names of arch/machines.h's header row are exactly those of
#    its <!-- columns --> list, and every MACHINE(...) row has that many;
#  - the t/*.t files that read the machine table (scripts/machines.sh or
#    arch/machines.h) are exactly those of its <!-- tests: machines --> list;
#  - every row's descriptor arch_<desc> is defined once, in
#    arch/<family>/<family>.c; a row's port lives in the same family;
#  - the checklist's paths, placeholders expanded with each row's name,
#    family, port and desc, exist: <!-- checklist: row --> for every row,
#    <!-- checklist: port --> for every row with a port, <!-- checklist:
#    some --> for at least one of those (a line naming two paths joined by
#    "or" is satisfied by either);
#  - every other path the guide names in backticks exists.
# Under a second.
import glob, os, re, sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
GUIDE = os.path.join(TOP, 'docs/porting.md')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok as tap_ok, done  # noqa: E402

def ok(good, desc, why=()):
    # an empty list says nothing
    return tap_ok(good, desc, [w for w in why if not w.endswith(': ')])

def read(path):
    with open(os.path.join(TOP, path)) as f:
        return f.read()

# ---- the structs, from the headers ----

def c_code(text):
    # Comments and preprocessor lines (with their continuations) out.
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)

def matching_brace(text, i):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == '{':
            depth += 1
        elif text[j] == '}':
            depth -= 1
            if depth == 0:
                return j
    return -1

def split_top(text, sep):
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return parts

def declarator_names(decl):
    decl = decl.strip()
    if not decl:
        return []
    m = re.match(r'.*?\(\s*\*\s*(\w+)', decl, re.S)
    if m:	# a function pointer (or an array of them): the first (*name)
        return [m.group(1)]
    names = []
    for part in split_top(decl, ','):
        part = re.sub(r'\[[^\]]*\]', '', part)
        ids = re.findall(r'[A-Za-z_]\w*', part)
        if ids:
            names.append(ids[-1])
    return names

def structs(path):
    """Every struct with a body in the header, nested ones too: name -> fields."""
    code = c_code(read(path))
    out = {}
    for m in re.finditer(r'\bstruct\s+(\w+)\s*\{', code):
        start = m.end() - 1
        end = matching_brace(code, start)
        if end < 0:
            continue
        body = code[start + 1:end]
        # Nested bodies collapse to their type: `struct x { ... } name;` -> `struct x name;`
        flat, i = '', 0
        while i < len(body):
            if body[i] == '{':
                i = matching_brace(body, i) + 1
                continue
            flat += body[i]
            i += 1
        fields = []
        for decl in split_top(flat, ';'):
            fields += declarator_names(decl)
        out[m.group(1)] = fields
    return out

have = {}
have.update(structs('arch/arch.h'))
have.update(structs('arch/port.h'))

guide = open(GUIDE).read()

def blocks(kind):
    """Each <!-- KIND: X --> ... <!-- /KIND --> block (or <!-- KIND -->): [(X, text)]."""
    pat = r'<!-- %s(?::\s*(\w+))? -->(.*?)<!-- /%s -->' % (kind, kind)
    return [(m.group(1), m.group(2)) for m in re.finditer(pat, guide, re.S)]

def first_cells(text):
    """The backticked names of each table row's first cell."""
    names = []
    for line in text.splitlines():
        if line.startswith('|') and not re.match(r'\|[-| ]+\|?\s*$', line):
            names += re.findall(r'`([^`]+)`', line.split('|')[1])
    return names

claimed = {}
for name, text in blocks('fields'):
    claimed.setdefault(name, []).extend(first_cells(text))
for s, minimum in (('arch', 40), ('arch_values', 6), ('arch_cc_form', 2), ('rt_arch', 15), ('rt_arg_regs', 5)):
    fields = have.get(s, [])
    ok(len(fields) >= minimum, 'struct %s parsed from its header: %d fields' % (s, len(fields)),
       ['fields: %s' % ' '.join(fields)])
    got = claimed.get(s, [])
    missing = [f for f in fields if f not in got]
    ok(s in claimed and not missing, 'every field of struct %s is in the guide\'s list' % s,
       ['no <!-- fields: %s --> list' % s] if s not in claimed else ['not named: %s' % ' '.join(missing)])
    stale = sorted(set(g for g in got if g not in fields))
    ok(not stale, 'every name the guide lists as a field of struct %s is one' % s, ['no such field: %s' % ' '.join(stale)])
    twice = sorted(set(g for g in got if got.count(g) > 1))
    ok(not twice, 'each field of struct %s is listed once' % s, ['twice: %s' % ' '.join(twice)])
# The call forms and decoders the descriptor's arrays hold, and more_abs's
# entries, are described in prose: each of their fields is named there.
for s in ('call_form', 'call_decoder', 'abs_reloc'):
    fields = have.get(s, [])
    missing = [f for f in fields if '`%s`' % f not in guide]
    ok(fields and not missing, 'every field of struct %s is named in the guide (%d)' % (s, len(fields)),
       ['not named: %s' % ' '.join(missing)])
unknown = sorted(set(claimed) - {'arch', 'arch_values', 'arch_cc_form', 'rt_arch', 'rt_arg_regs'})
ok(not unknown, 'the guide\'s field lists are of the structs this test knows', unknown)

# ---- arch/machines.h: its columns and rows ----

machines = read('arch/machines.h')
lines = machines.splitlines()
first = next((i for i, l in enumerate(lines) if l.startswith('MACHINE(')), None)
header = []
if first is not None:
    for l in reversed(lines[:first]):
        if l.lstrip().startswith('/*'):
            header = re.sub(r'/\*|\*/', ' ', l).split()
            break
rows = []
for l in lines:
    m = re.match(r'MACHINE\((.*)\)\s*$', l)
    if m:
        rows.append([f.strip() for f in m.group(1).split(',')])
ok(len(header) >= 5 and len(rows) >= 2, 'arch/machines.h: %d columns in its header row, %d rows' % (len(header), len(rows)))
bad = [r[0] for r in rows if len(r) != len(header)]
ok(not bad, 'every row has one field per header column', ['rows: %s' % ' '.join(bad)])
cols = [c for name, text in blocks('columns') for c in first_cells(text)]
ok(set(cols) == set(header),
   "the guide's column list is machines.h's header row (%s)" % ' '.join(header),
   ['not in the guide: %s' % ' '.join(c for c in header if c not in cols),
    'not a column: %s' % ' '.join(c for c in cols if c not in header)])
rows = [dict(zip(header, r)) for r in rows if len(r) == len(header)]
need = [c for c in ('name', 'port', 'desc') if c not in header]
ok(not need, 'the header names the columns the checklist expands (name, port, desc)', need)
if need:
    rows = []

# ---- the tests that read the machine table ----

readers = sorted(os.path.relpath(f, TOP) for f in glob.glob(os.path.join(TOP, 't/*.t'))
                 if re.search(r'machines\.(sh|h)', open(f).read()) and os.path.basename(f) != '08-porting.t')
listed = [t for name, text in blocks('tests') for t in first_cells(text)]
ok(readers and set(listed) == set(readers),
   "the guide's list of tests that iterate the machines is the tree's (%d)" % len(readers),
   ['not in the guide: %s' % ' '.join(t for t in readers if t not in listed),
    'not a reader: %s' % ' '.join(t for t in listed if t not in readers)])

# ---- descriptors, families, ports ----

c_files = sorted(glob.glob(os.path.join(TOP, 'arch/*/*.c')))
sources = {os.path.relpath(f, TOP): open(f).read() for f in c_files}

def defined_in(desc):
    pat = re.compile(r'^const struct arch arch_%s\s*=' % re.escape(desc), re.M)
    return [f for f, text in sources.items() if pat.search(text)]

bad_desc, family_of = [], {}
for r in rows:
    where = defined_in(r['desc'])
    if len(where) != 1:
        bad_desc.append('%s: arch_%s defined in %s' % (r['name'], r['desc'], where or 'no arch/*/*.c'))
        continue
    fam = where[0].split('/')[1]
    if where[0] != 'arch/%s/%s.c' % (fam, fam):
        bad_desc.append('%s: arch_%s is in %s, not arch/%s/%s.c' % (r['name'], r['desc'], where[0], fam, fam))
    family_of[r['name']] = fam
ok(rows and not bad_desc, "every row's descriptor arch_<desc> is defined once, in arch/<family>/<family>.c", bad_desc)

ported = [r for r in rows if r['port'] != '-']
bad_port = []
for r in ported:
    s = sorted(glob.glob(os.path.join(TOP, 'arch/*/rt_%s.S' % r['port'])))
    fam = s[0].split(os.sep)[-2] if len(s) == 1 else None
    if fam is None or fam != family_of.get(r['name']):
        bad_port.append('%s: rt_%s.S in %s, descriptor in arch/%s' % (r['name'], r['port'],
                        [os.path.relpath(x, TOP) for x in s], family_of.get(r['name'])))
ok(ported and not bad_port, 'every port (%d rows) has one rt_<port>.S, in its descriptor\'s family' % len(ported), bad_port)

# ---- the checklist ----

def expand(path, r):
    subst = {'name': r['name'], 'port': r['port'], 'desc': r['desc'], 'family': family_of.get(r['name'], '?')}
    return re.sub(r'<(\w+)>', lambda m: subst.get(m.group(1), m.group(0)), path)

def exists(path):
    return any(glob.glob(os.path.join(TOP, p.rstrip('/'))) for p in path.split('|'))

# One item per path, or per line of paths joined by "or": its alternatives, '|'-separated.
def items(text):
    out = []
    for line in text.splitlines():
        paths = [p for p in re.findall(r'`([^`]+)`', line) if '/' in p]
        if re.search(r'`[^`]+` or `[^`]+`', line) and len(paths) == 2:
            out.append('|'.join(paths))
        else:
            out.extend(paths)
    return out

checklist = {name: items(text) for name, text in blocks('checklist')}
ok(set(checklist) == {'row', 'port', 'some'} and all(checklist.values()),
   'the checklist has its row, port and some lists, none empty', ['lists: %s' % ' '.join(sorted(checklist))])
placeholders = {'name', 'port', 'desc', 'family'}
odd = sorted(set(ph for paths in checklist.values() for p in paths for ph in re.findall(r'<(\w+)>', p)) - placeholders)
ok(not odd, 'the checklist uses only the placeholders <name>, <family>, <port>, <desc>', odd)
for group, of_rows in (('row', rows), ('port', ported)):
    for p in checklist.get(group, []):
        gone = [r['name'] for r in of_rows if not exists(expand(p, r))]
        ok(of_rows and not gone, '%s exists for every %s (%d)' % (p, 'row' if group == 'row' else 'row with a port', len(of_rows)),
           ['missing for: %s' % ' '.join('%s (%s)' % (g, expand(p, next(r for r in of_rows if r['name'] == g))) for g in gone)])
for p in checklist.get('some', []):
    found = [expand(p, r) for r in ported if exists(expand(p, r))]
    ok(found, '%s exists for some row with a port (%s)' % (p, found[0] if found else 'none'))

# ---- every other path the guide names ----

paths = sorted(set(p for p in re.findall(r'`([^`\s]+)`', guide)
                   if re.fullmatch(r'[\w.*-]+(/[\w.*-]+)+/?', p) and not p.startswith('build/')))
gone = [p for p in paths if not exists(p.split('#')[0])]
ok(len(paths) >= 20 and not gone, 'every path the guide names exists (%d)' % len(paths), ['no such path: %s' % ' '.join(gone)])

done()
