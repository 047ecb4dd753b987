// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount --check.  An object's table is compared with what the
 * recorder itself finds in it (record_sites); a linked file's entries are
 * decoded with the architecture's call forms (arch/), and its functions'
 * first bytes are searched for calls to the hook that have no entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dwarf/producer.h"
#include "recordmcount/check.h"
#include "elf/functions.h"
#include "recordmcount/record.h"

static const char *const kind_names[CHECK_NKINDS] = {
	[CHECK_MISSING] = "missing",
	[CHECK_STALE] = "stale",
	[CHECK_DUPLICATE] = "duplicate",
	[CHECK_NOT_CALL] = "not-call",
	[CHECK_UNTRACED] = "untraced",
	[CHECK_WRONG_TABLE] = "wrong-table",
	[CHECK_NO_PROTO] = "no-proto",
};

struct finding {
	enum check_kind kind;
	const char *func;	/* the function holding the place, else the nearest one before it */
	uint64_t func_off;
	bool inside;
	uint32_t sec;
	uint64_t off, addr;
	char why[240];
};

struct report {
	struct elfobj *obj;
	bool linked;
	struct finding *f;
	size_t nf, cap;
	size_t count[CHECK_NKINDS];
	size_t entries, zeroed, calls, nops, unverified, sites;
	bool pad_table;		/* the file has __patchable_function_entries */
	size_t patchable;	/* its entries at good pads */
	bool sorted;
	/* --fix */
	bool fix_tried, written;
	size_t fix_zeroed, remaining;
	char fix_error[512];	/* why --fix did nothing; the check itself stands */
};

/* ---- places and findings ---- */

struct funcs {
	struct func_sym *v;
	size_t n;
};

static struct finding *add_finding(struct report *r, enum check_kind kind, const struct funcs *fs,
				   uint32_t sec, uint64_t off, uint64_t addr, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static struct finding *add_finding(struct report *r, enum check_kind kind, const struct funcs *fs,
				   uint32_t sec, uint64_t off, uint64_t addr, const char *fmt, ...)
{
	const struct func_sym *f = sec ? function_at(fs->v, fs->n, sec, off) : NULL;
	struct finding *x;
	va_list ap;

	if (!grow_array(&r->f, r->nf, &r->cap, sizeof(*r->f)))
		return elfobj_error(r->obj, "out of memory"), NULL;
	x = &r->f[r->nf++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->sec = sec;
	x->off = off;
	x->addr = addr;
	x->inside = f != NULL;
	if (!f && sec)
		f = function_before(fs->v, fs->n, sec, off);
	if (f) {
		x->func = f->name;
		x->func_off = off - f->off;
	}
	va_start(ap, fmt);
	vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	r->count[kind]++;
	return x;
}

/* Name a finding's place by a function no symbol names any more (a prototype record's). */
static void rename_finding(struct finding *x, const char *name, uint64_t off)
{
	x->func = name;
	x->func_off = off;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static const char *section_name(const struct elfobj *obj, uint32_t sec)
{
	return sec && sec < obj->nsec ? obj->sec[sec].name : "?";
}

static bool is_code(const struct elfobj *obj, uint32_t sec)
{
	return sec && sec < obj->nsec && obj->sec[sec].sh.sh_type == SHT_PROGBITS &&
	       (obj->sec[sec].sh.sh_flags & SHF_EXECINSTR);
}

/* The arch's NOP for any of its call forms is at the place: its length, or 0. */
static size_t nop_at(const struct elfobj *obj, uint32_t sec, uint64_t off)
{
	const struct section *s = &obj->sec[sec];

	if (!is_code(obj, sec) || off >= s->size)
		return 0;
	for (size_t i = 0; i < obj->arch->ncalls; i++) {
		const struct insn_pattern *nop = &obj->arch->calls[i].nop;

		if (nop->n && insn_matches(nop, s->bytes + off, s->size - off, obj->code_big_endian))
			return insn_len(nop);
	}
	return 0;
}

/*
 * Objects: a NOP is a replaced call only where the recorder left the call's
 * relocation, as R_*_NONE; a compiler's own NOPs have none.
 */
static bool replaced_call_at(struct elfobj *obj, const uint32_t *relocs_of, uint32_t sec, uint64_t off)
{
	size_t len = nop_at(obj, sec, off), ri = len ? relocs_of[sec] : 0;

	if (!ri || elfobj_parse_relocs(obj, ri) < 0)
		return false;
	for (size_t i = 0; i < obj->sec[ri].nrelocs; i++) {
		const struct reloc *r = &obj->sec[ri].relocs[i];

		if (r->type == obj->arch->reloc_none && r->offset >= off && r->offset - off < len)
			return true;
	}
	return false;
}

/* Each section's relocation section, 0 if none. */
static uint32_t *relocation_sections(struct elfobj *obj)
{
	uint32_t *relocs_of = calloc(obj->nsec, sizeof(*relocs_of));

	if (!relocs_of)
		return elfobj_error(obj, "out of memory"), NULL;
	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].rela_for && obj->sec[i].rela_for < obj->nsec)
			relocs_of[obj->sec[i].rela_for] = (uint32_t)i;
	return relocs_of;
}

static const char *hook_name(const struct elfobj *obj, bool entry)
{
	const char *const *list = entry && obj->arch->entry_hooks ? obj->arch->entry_hooks : obj->arch->hooks;

	return list[0];
}

/* ---- patchable entries (-fpatchable-function-entry=N,M) ---- */

enum pad_kind { PAD_NONE, PAD_NOP, PAD_PATCHED };

/* A decoder that takes any word (SH's, which only reads a literal pool) tells no call from a NOP's loss. */
static bool pattern_selects(const struct insn_pattern *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->u[i].mask)
			return true;
	return false;
}

/*
 * One instruction of a pad at (sec, off): a NOP, or a call (any of the
 * arch's call forms, where a runtime patched the pad) or a patched form.
 * *len: its bytes; *units: what -fpatchable-function-entry counts it as.
 */
static enum pad_kind pad_insn_at(const struct elfobj *obj, uint32_t sec, uint64_t off, size_t *len, unsigned *units)
{
	const struct arch *a = obj->arch;
	const struct section *s = &obj->sec[sec];
	const uint8_t *c = s->bytes + off;
	size_t avail = off < s->size ? s->size - off : 0;
	bool x86 = a->pad_nop_len != NULL;	/* N and M count bytes */

	if (!avail)
		return PAD_NONE;
	*units = 1;
	if (x86 && (*len = a->pad_nop_len(c, avail)) != 0) {
		*units = (unsigned)*len;
		return PAD_NOP;
	}
	for (size_t i = 0; i < a->npad_nops; i++)
		if (insn_matches(&a->pad_nops[i], c, avail, obj->code_big_endian)) {
			*len = insn_len(&a->pad_nops[i]);
			return PAD_NOP;
		}
	for (size_t i = 0; i < a->npad_patched; i++)
		if (insn_matches(&a->pad_patched[i], c, avail, obj->code_big_endian)) {
			*len = insn_len(&a->pad_patched[i]);
			return PAD_PATCHED;
		}
	for (size_t i = 0; i < obj->arch->ndecoders; i++) {
		const struct call_decoder *d = &obj->arch->decoders[i];

		if (!d->jump && d->len && pattern_selects(&d->insn) && insn_matches(&d->insn, c, avail, obj->code_big_endian)) {
			*len = d->len;
			*units = x86 ? d->len : 1;
			return PAD_PATCHED;
		}
	}
	for (size_t i = 0; i < obj->arch->ncalls; i++) {
		const struct call_form *f = &obj->arch->calls[i];

		if (f->site.n && f->nop.n && insn_matches(&f->site, c, avail, obj->code_big_endian)) {
			*len = insn_len(&f->nop);
			*units = x86 ? (unsigned)*len : 1;
			return PAD_PATCHED;
		}
	}
	return PAD_NONE;
}

/* The pad's shape: M units (m_bytes) before the function, N in all. */
struct pad_shape {
	unsigned n, m;
	uint64_t m_bytes;
	size_t count;
};

struct patchable {
	bool any;		/* the file has a patchable table */
	bool producer;		/* N and M from DW_AT_producer */
	unsigned pn, pm;
	bool *covered;		/* per function of the index */
	struct pad_shape shapes[8];
	size_t nshapes;
	size_t good;
};

#define PAD_MAX_UNITS 64

/*
 * Walk pad instructions from `off` up to `end` (or, with end == 0, while
 * there are NOPs, at most `max` units): units counted, bytes walked;
 * `nops_only` stops at patched forms.
 */
static unsigned pad_walk(const struct elfobj *obj, uint32_t sec, uint64_t off, uint64_t end, unsigned max,
			 bool nops_only, uint64_t *walked)
{
	unsigned units = 0, u;
	uint64_t p = off;
	size_t len;
	enum pad_kind k;

	while ((end ? p < end : units < max) && (k = pad_insn_at(obj, sec, p, &len, &u)) != PAD_NONE) {
		if (nops_only && k != PAD_NOP)
			break;
		units += u;
		p += len;
	}
	*walked = p - off;
	return units;
}

/*
 * -fpatchable-function-entry=N[,M] as gcc recorded it in DW_AT_producer
 * (clang records no options).  Units that disagree, no DWARF or DWARF that
 * does not read leave it unknown: the entries alone tell then.
 */
static void producer_shape(struct elfobj *obj, struct patchable *pt)
{
	char val[32], *end;
	unsigned long n, m = 0;

	if (producer_option(obj, "-fpatchable-function-entry=", val, sizeof(val)) <= 0)
		return;
	n = strtoul(val, &end, 10);
	if (*end == ',')
		m = strtoul(end + 1, &end, 10);
	pt->producer = !*end && n > 0 && n <= 100000 && m <= n;
	pt->pn = (unsigned)n;
	pt->pm = (unsigned)m;
}

static void note_shape(struct patchable *pt, unsigned n, unsigned m, uint64_t m_bytes)
{
	size_t i;

	pt->good++;
	for (i = 0; i < pt->nshapes; i++)
		if (pt->shapes[i].n == n && pt->shapes[i].m == m && pt->shapes[i].m_bytes == m_bytes)
			break;
	if (i == pt->nshapes) {
		if (i == ARRAY_SIZE(pt->shapes))
			return;
		pt->shapes[pt->nshapes++] = (struct pad_shape){ n, m, m_bytes, 0 };
	}
	pt->shapes[i].count++;
}

static int patchable_init(struct patchable *pt, struct elfobj *obj, const struct table_entry *te, size_t nte,
			  const struct funcs *fs)
{
	memset(pt, 0, sizeof(*pt));
	for (size_t i = 0; i < nte; i++)
		pt->any |= te[i].patchable;
	if (!pt->any)
		return 0;
	pt->covered = calloc(fs->n ? fs->n : 1, sizeof(*pt->covered));
	if (!pt->covered)
		return -1;
	producer_shape(obj, pt);
	return 0;
}

/* A patchable entry whose place is not a pad: inside a body, or nowhere. */
static int pad_misplaced(struct report *r, const struct funcs *fs, const struct table_entry *e)
{
	const struct func_sym *in = function_at(fs->v, fs->n, e->sec, e->off);

	if (in)
		return add_finding(r, CHECK_NOT_CALL, fs, e->sec, e->off, e->addr,
				   "patchable entry inside %s's body, 0x%llx bytes after its start: "
				   "neither its pad nor the NOPs before it", in->name,
				   (unsigned long long)(e->off - in->off)) ? 1 : -1;
	return add_finding(r, CHECK_STALE, fs, e->sec, e->off, e->addr,
			   "patchable entry before no function in %s", section_name(r->obj, e->sec)) ? 1 : -1;
}

/* Returns 1 when the entry names no pad, 0 when it is good, -1 on error. */
static int patchable_entry(struct report *r, struct patchable *pt, const struct funcs *fs, const struct table_entry *e)
{
	struct elfobj *obj = r->obj;
	const struct func_sym *fn;
	uint64_t before, walked, after_walked;
	unsigned m, after;

	if (!e->sec || !is_code(obj, e->sec))
		return add_finding(r, CHECK_STALE, fs, e->sec, e->off, e->addr, "patchable entry %s%s",
				   e->sec ? "points into " : "points into no section",
				   e->sec ? section_name(obj, e->sec) : "") ? 1 : -1;
	fn = function_from(obj, fs->v, fs->n, e->sec, e->off);
	if (!fn)
		return pad_misplaced(r, fs, e);
	before = fn->off > e->off ? fn->off - e->off : 0;
	m = pad_walk(obj, e->sec, e->off, e->off + before, 0, false, &walked);
	if (walked != before)
		return add_finding(r, CHECK_NOT_CALL, fs, e->sec, e->off, e->addr,
				   "the pad before %s is not all NOPs: %u NOP units, then something else",
				   fn->name, m) ? 1 : -1;
	after = pt->producer && pt->pn <= m ? 0 : pad_walk(obj, e->sec, e->off + before, 0,
							  pt->producer ? pt->pn - m : PAD_MAX_UNITS, false, &after_walked);
	if (!before && !after)
		return add_finding(r, CHECK_NOT_CALL, fs, e->sec, e->off, e->addr,
				   "%s starts with neither a NOP nor a patched call", fn->name) ? 1 : -1;
	/* gcc's MIPS backend emits all N NOPs before the function's label, whatever M. */
	if (pt->producer && (m != pt->pm || m + after < pt->pn) &&
	    !(obj->arch->pad_all_before && m == pt->pn)) {
		if (!add_finding(r, CHECK_NOT_CALL, fs, e->sec, e->off, e->addr,
				 "%s's pad is %u+%u NOP units, DW_AT_producer says -fpatchable-function-entry=%u,%u",
				 fn->name, m, after, pt->pn, pt->pm))
			return -1;
		return 1;
	}
	if (pt->covered[fn - fs->v])
		return add_finding(r, CHECK_DUPLICATE, fs, e->sec, e->off, e->addr,
				   "a second patchable entry for %s", fn->name) ? 1 : -1;
	pt->covered[fn - fs->v] = true;
	note_shape(pt, m + after, m, before);
	r->patchable++;
	return 0;
}

/* The shape most entries have (the producer's, when it is known). */
static const struct pad_shape *usual_shape(const struct patchable *pt)
{
	const struct pad_shape *best = NULL;

	for (size_t i = 0; i < pt->nshapes; i++) {
		const struct pad_shape *s = &pt->shapes[i];

		if (pt->producer && (s->n != pt->pn || s->m != pt->pm))
			continue;
		if (!best || s->count > best->count)
			best = s;
	}
	return best;
}

/*
 * Functions in traced sections that start with the usual pad but have no
 * entry.  A function without NOPs is legitimately untraced (notrace,
 * patchable_function_entry(0)); a pad all before the function (N == M)
 * cannot be told from alignment, so that shape is not searched.
 */
static int patchable_missing(struct report *r, const struct patchable *pt, const struct funcs *fs)
{
	const struct elfobj *obj = r->obj;
	const struct pad_shape *s = usual_shape(pt);

	if (!pt->any || !s || s->n <= s->m)
		return 0;
	if (r->linked && obj->arch->linker_nops_at_entry)
		return 0;
	for (size_t i = 0; i < fs->n; i++) {
		const struct func_sym *f = &fs->v[i];
		uint64_t start, walked;

		if (pt->covered[i] || !is_code(obj, f->sec) || !section_is_traceable(obj->sec[f->sec].name) ||
		    f->off < s->m_bytes || f->off >= obj->sec[f->sec].size)
			continue;
		start = f->off - s->m_bytes;
		if (s->m_bytes && (function_at(fs->v, fs->n, f->sec, start) ||
				   pad_walk(obj, f->sec, start, f->off, 0, true, &walked) != s->m || walked != s->m_bytes))
			continue;
		if (pad_walk(obj, f->sec, f->off + function_landing_pad(obj, f->sec, f->off), 0, s->n - s->m, true,
			     &walked) < s->n - s->m)
			continue;
		if (!add_finding(r, CHECK_MISSING, fs, f->sec, start,
				 r->linked ? obj->sec[f->sec].sh.sh_addr + start : 0,
				 "%s starts with the pad of -fpatchable-function-entry=%u,%u but has no entry", f->name,
				 s->n, s->m))
			return -1;
	}
	return 0;
}

/* ---- entries in table order, and sorted ---- */

static const struct table_entry *sort_base;

static int cmp_entry_index(const void *a, const void *b)
{
	const struct table_entry *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Entry indices by place (objects: addr is 0, so by section and offset). */
static size_t *entry_order(const struct table_entry *e, size_t n)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_base = e;
	if (n)
		qsort(order, n, sizeof(*order), cmp_entry_index);
	return order;
}

static bool same_place(const struct table_entry *a, const struct table_entry *b)
{
	return a->addr == b->addr && a->sec == b->sec && a->off == b->off;
}

/* ---- objects ---- */

static const struct site *find_site(const struct recording *rec, uint32_t sec, uint64_t off)
{
	size_t lo = 0, hi = rec->nsites;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct site *s = &rec->sites[mid];

		if (s->sec < sec || (s->sec == sec && s->off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rec->nsites && rec->sites[lo].sec == sec && rec->sites[lo].off == off ? &rec->sites[lo]
											       : NULL;
}

static int cmp_proto_place(const void *a, const void *b)
{
	const struct proto_entry *x = a, *y = b;

	if (x->where.sec != y->where.sec)
		return x->where.sec < y->where.sec ? -1 : 1;
	return x->where.off < y->where.off ? -1 : x->where.off > y->where.off;
}

struct object_state {
	struct table_entry *te;
	size_t nte;
	bool *nop;		/* per entry: the arch's NOP was there before record_sites ran */
	struct recording rec;
	bool *covered;		/* per site */
	struct funcs fs;
	struct proto_entry *pe;
	size_t np;
	struct patchable pt;
};

/* A compiler's entry at the start of the call's sequence (s390): the call's distance from it, or 0. */
static size_t recorded_prefix_at(const struct elfobj *obj, const struct table_entry *e)
{
	const struct section *s = &obj->sec[e->sec];

	if (!e->sec || e->off >= s->size || s->sh.sh_type == SHT_NOBITS)
		return 0;
	return arch_recorded_prefix_len(obj->arch, s->bytes + e->off, s->size - e->off, obj->code_big_endian);
}

static int object_entry(struct report *r, struct object_state *st, size_t i, const struct func_sym **fn)
{
	struct elfobj *obj = r->obj;
	const struct table_entry *e = &st->te[i];
	const struct site *site;
	const char *sname = section_name(obj, e->sec);

	*fn = NULL;
	if (!e->sec)
		return add_finding(r, CHECK_STALE, &st->fs, 0, e->off, 0,
				   "relocated against no section (an undefined or absolute symbol)") ? 0 : -1;
	if (!is_code(obj, e->sec))
		return add_finding(r, CHECK_STALE, &st->fs, e->sec, e->off, 0, "points into %s, which is not code",
				   sname) ? 0 : -1;
	*fn = function_at(st->fs.v, st->fs.n, e->sec, e->off);
	if (!*fn)
		return add_finding(r, CHECK_STALE, &st->fs, e->sec, e->off, 0,
				   "not inside any function symbol") ? 0 : -1;
	site = find_site(&st->rec, e->sec, e->off);
	if (!site && !e->user)
		site = find_site(&st->rec, e->sec, e->off + recorded_prefix_at(obj, e));
	if (site) {
		st->covered[site - st->rec.sites] = true;
		r->calls++;
		if (e->user && e->entry != site->entry &&
		    !add_finding(r, CHECK_WRONG_TABLE, &st->fs, e->sec, e->off, 0,
				 "a call to %s recorded in %s", hook_name(obj, site->entry),
				 e->entry ? ENTRY_TABLE : USER_TABLE))
			return -1;
		return 0;
	}
	if (st->nop[i]) {
		r->nops++;
		return 0;
	}
	/* gcc's -mnop-mcount: the entry hook's NOP, the compiler's own, with no relocation left. */
	if (!e->user && obj->arch->entry_hooks && nop_at(obj, e->sec, e->off) &&
	    e->off == (*fn)->off + function_landing_pad(obj, e->sec, (*fn)->off)) {
		r->nops++;
		return 0;
	}
	*fn = NULL;
	if (!section_is_traceable(sname))
		return add_finding(r, CHECK_UNTRACED, &st->fs, e->sec, e->off, 0,
				   "in %s, a section that is not traced (its calls become NOPs)", sname) ? 0 : -1;
	return add_finding(r, CHECK_NOT_CALL, &st->fs, e->sec, e->off, 0,
			   "neither a call to the hook nor its NOP") ? 0 : -1;
}

static int object_protos(struct report *r, struct object_state *st, const struct func_sym *fn)
{
	struct proto_entry key = { .where = { .sec = fn->sec, .off = fn->off } };

	if (!st->np || bsearch(&key, st->pe, st->np, sizeof(*st->pe), cmp_proto_place))
		return 0;
	return add_finding(r, CHECK_NO_PROTO, &st->fs, fn->sec, fn->off, 0,
			   "%s has an entry but no record in %s", fn->name, PROTO_TABLE) ? 0 : -1;
}

static int object_entries(struct report *r, struct object_state *st)
{
	size_t *order = entry_order(st->te, st->nte);
	const struct func_sym *last_fn = NULL;
	int rc = -1;

	if (!order)
		return elfobj_error(r->obj, "out of memory"), -1;
	for (size_t k = 0; k < st->nte; k++) {
		const struct table_entry *e = &st->te[order[k]];
		const struct func_sym *fn;

		if (k && same_place(e, &st->te[order[k - 1]])) {
			if (!add_finding(r, CHECK_DUPLICATE, &st->fs, e->sec, e->off, 0, "listed again"))
				goto out;
			continue;
		}
		if (e->patchable) {
			/* A pad, not a hook call: record_sites has nothing to say. */
			if (patchable_entry(r, &st->pt, &st->fs, e) < 0)
				goto out;
			continue;
		}
		if (object_entry(r, st, order[k], &fn) < 0)
			goto out;
		if (fn && fn != last_fn && object_protos(r, st, fn) < 0)
			goto out;
		if (fn)
			last_fn = fn;
	}
	rc = 0;
out:
	free(order);
	return rc;
}

static int check_object(struct report *r)
{
	struct elfobj *obj = r->obj;
	struct object_state st = { 0 };
	bool has_table = elfobj_has_tables(obj);
	uint32_t *relocs_of = NULL;
	int rc = -1;

	if (tables_read(obj, &st.te, &st.nte) < 0 || protos_read(obj, &st.pe, &st.np) < 0)
		goto out;
	st.nop = calloc(st.nte ? st.nte : 1, sizeof(*st.nop));
	relocs_of = relocation_sections(obj);
	if (!st.nop || !relocs_of)
		goto oom;
	/* record_sites NOPs the calls outside traced sections, in memory: look first. */
	for (size_t i = 0; i < st.nte; i++)
		st.nop[i] = replaced_call_at(obj, relocs_of, st.te[i].sec, st.te[i].off);
	if (record_sites(obj, &st.rec, false, NULL) < 0)
		goto out;
	st.fs.v = function_index(obj, &st.fs.n);
	st.covered = calloc(st.rec.nsites ? st.rec.nsites : 1, sizeof(*st.covered));
	if (!st.fs.v || !st.covered)
		goto oom;
	if (st.np)
		qsort(st.pe, st.np, sizeof(*st.pe), cmp_proto_place);
	if (patchable_init(&st.pt, obj, st.te, st.nte, &st.fs) < 0)
		goto oom;
	r->pad_table = st.pt.any;
	r->entries = st.nte;
	r->sites = st.rec.nsites;
	r->sorted = true;
	if (object_entries(r, &st) < 0 || patchable_missing(r, &st.pt, &st.fs) < 0)
		goto out;
	for (size_t i = 0; i < st.rec.nsites; i++) {
		const struct site *s = &st.rec.sites[i];

		if (!st.covered[i] &&
		    !add_finding(r, CHECK_MISSING, &st.fs, s->sec, s->off, 0, "call to %s has no table entry%s",
				 hook_name(obj, s->entry), has_table ? "" : " (the object has no table: not processed)"))
			goto out;
	}
	rc = 0;
	goto out;
oom:
	elfobj_error(obj, "out of memory");
out:
	free(relocs_of);
	free(st.te);
	free(st.nop);
	free(st.covered);
	free(st.pt.covered);
	free(st.fs.v);
	free(st.pe);
	recording_free(&st.rec);
	return rc;
}

/* ---- linked files: where calls go ---- */

struct hook_range {
	uint64_t from, to;
	const char *name;
	bool entry;
};

struct dynrel {
	uint64_t off;
	int64_t addend;
	const char *name;	/* "" when the relocation has no symbol */
};

struct linked {
	struct elfobj *obj;
	struct funcs fs;
	struct hook_range *hooks;
	size_t nhooks, cap_hooks;
	struct dynrel *dyn;
	size_t ndyn, cap_dyn;
	struct proto_entry *pe;
	size_t np;
};

/* 0: not a hook; 1: a hook called after the prologue; 2: an entry hook. */
static int hook_kind(const struct arch *arch, const char *name)
{
	const char *const *lists[2] = { arch->hooks, arch->entry_hooks };

	if (name[0] == '.')
		name++;
	for (int k = 0; k < 2; k++)
		for (const char *const *h = lists[k]; h && *h; h++)
			if (strcmp(name, *h) == 0)
				return k + 1;
	return 0;
}

/*
 * Linker stubs that lead to the hook: ARM and AArch64 veneers
 * (__gnu_mcount_nc_veneer, ___mcount_veneer, __NAME_from_thumb) and
 * PowerPC long-branch and PLT-call stubs (00000018.long_branch._mcount).
 */
static int stub_kind(const struct arch *arch, const char *name)
{
	static const char *const suffixes[] = { "_veneer", "_from_thumb", "_from_arm" };
	static const char *const markers[] = { "long_branch", "plt_call", "plt_branch" };
	char buf[128];
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(markers); i++) {
		const char *dot = strrchr(name, '.');

		if (!strstr(name, markers[i]) || !dot)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(dot + 1, "+@"), dot + 1);
		return hook_kind(arch, buf);
	}
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);
		int k;

		if (len <= sl || len - sl >= sizeof(buf) || strcmp(name + len - sl, suffixes[i]) != 0)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)(len - sl), name);
		k = hook_kind(arch, buf);
		if (!k && strncmp(buf, "__", 2) == 0)
			k = hook_kind(arch, buf + 2);
		if (k)
			return k;
	}
	return 0;
}

static int push_hook(struct linked *l, uint64_t from, uint64_t size, const char *name, int kind)
{
	if (!grow_array(&l->hooks, l->nhooks, &l->cap_hooks, sizeof(*l->hooks)))
		return elfobj_error(l->obj, "out of memory"), -1;
	l->hooks[l->nhooks++] = (struct hook_range){ from, from + (size ? size : 1), name, kind == 2 };
	return 0;
}

/*
 * The hook's code, and the stubs that lead to it: a call anywhere into them
 * is a call to the hook (PowerPC ELFv2 calls the local entry, after the
 * global entry's TOC setup).
 */
static int collect_hooks(struct linked *l)
{
	struct elfobj *obj = l->obj;

	for (size_t i = 1; i < obj->nsym; i++) {
		const struct symbol *s = &obj->sym[i];
		int type = GELF_ST_TYPE(s->s.st_info), kind;
		uint64_t value = s->s.st_value;

		if (type == STT_SECTION || type == STT_FILE || !is_code(obj, s->shndx) || !s->name[0])
			continue;
		kind = hook_kind(obj->arch, s->name);
		if (!kind)
			kind = stub_kind(obj->arch, s->name);
		if (!kind)
			continue;
		if (obj->arch->func_symbol_mask)
			value &= obj->arch->func_symbol_mask;
		if (push_hook(l, value, s->s.st_size, s->name, kind) < 0)
			return -1;
	}
	/* Function descriptors (ppc64 ELFv1): the function index knows the code. */
	for (size_t i = 0; i < l->fs.n; i++) {
		const struct func_sym *f = &l->fs.v[i];
		int kind = hook_kind(obj->arch, f->name);

		if (kind && push_hook(l, obj->sec[f->sec].sh.sh_addr + f->off, f->size, f->name, kind) < 0)
			return -1;
	}
	return 0;
}

static const struct hook_range *hook_at(const struct linked *l, uint64_t addr)
{
	for (size_t i = 0; i < l->nhooks; i++)
		if (addr >= l->hooks[i].from && addr < l->hooks[i].to)
			return &l->hooks[i];
	return NULL;
}

static int cmp_dynrel(const void *a, const void *b)
{
	const struct dynrel *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static const char *dynrel_name(struct elfobj *obj, Elf_Data *syms, size_t strtab, uint32_t symi)
{
	GElf_Sym gs;
	const char *name;

	if (!syms || !symi || !gelf_getsym(syms, (int)symi, &gs))
		return "";
	name = elf_strptr(obj->elf, strtab, gs.st_name);
	return name ? name : "";
}

static int read_dynrel_section(struct linked *l, size_t i)
{
	struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[i];
	bool rela = s->sh.sh_type == SHT_RELA;
	size_t entsize = gelf_fsize(obj->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	Elf_Data *d = elf_getdata(s->scn, NULL), *syms = NULL;
	size_t strtab = 0;

	if (!d || s->sh.sh_entsize != entsize)
		return elfobj_error(obj, "%s: cannot read the dynamic relocations", s->name), -1;
	if (s->sh.sh_link && s->sh.sh_link < obj->nsec &&
	    (obj->sec[s->sh.sh_link].sh.sh_type == SHT_DYNSYM || obj->sec[s->sh.sh_link].sh.sh_type == SHT_SYMTAB)) {
		syms = elf_getdata(obj->sec[s->sh.sh_link].scn, NULL);
		strtab = obj->sec[s->sh.sh_link].sh.sh_link;
	}
	for (size_t k = 0; k < d->d_size / entsize; k++) {
		GElf_Rela ra = { 0 };
		GElf_Rel rl;
		uint32_t sym, type;

		if (rela ? !gelf_getrela(d, (int)k, &ra) : !gelf_getrel(d, (int)k, &rl))
			return elfobj_error(obj, "%s: %s", s->name, elf_errmsg(-1)), -1;
		if (!rela)
			ra = (GElf_Rela){ .r_offset = rl.r_offset, .r_info = rl.r_info };
		if (obj->arch->rinfo_decode) {
			obj->arch->rinfo_decode(ra.r_info, obj->big_endian, &sym, &type);
		} else {
			sym = (uint32_t)GELF_R_SYM(ra.r_info);
			type = (uint32_t)GELF_R_TYPE(ra.r_info);
		}
		(void)type;
		if (!grow_array(&l->dyn, l->ndyn, &l->cap_dyn, sizeof(*l->dyn)))
			return elfobj_error(obj, "out of memory"), -1;
		l->dyn[l->ndyn++] = (struct dynrel){ ra.r_offset, ra.r_addend, dynrel_name(obj, syms, strtab, sym) };
	}
	return 0;
}

/* Dynamic relocations: the allocated relocation sections (not --emit-relocs' ones). */
static int collect_dynrels(struct linked *l)
{
	struct elfobj *obj = l->obj;

	for (size_t i = 1; i < obj->nsec; i++) {
		const GElf_Shdr *sh = &obj->sec[i].sh;

		if ((sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL) && (sh->sh_flags & SHF_ALLOC) &&
		    read_dynrel_section(l, i) < 0)
			return -1;
	}
	if (l->ndyn)
		qsort(l->dyn, l->ndyn, sizeof(*l->dyn), cmp_dynrel);
	return 0;
}

static const struct dynrel *dynrel_at(const struct linked *l, uint64_t off)
{
	struct dynrel key = { .off = off };

	return l->ndyn ? bsearch(&key, l->dyn, l->ndyn, sizeof(*l->dyn), cmp_dynrel) : NULL;
}

/* The allocated section holding [addr, addr + len), or 0. */
static uint32_t section_holding(const struct elfobj *obj, uint64_t addr, uint64_t len, bool code)
{
	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *s = &obj->sec[i];

		if (!(s->sh.sh_flags & SHF_ALLOC) || s->sh.sh_type == SHT_NOBITS ||
		    (code && !(s->sh.sh_flags & SHF_EXECINSTR)))
			continue;
		if (addr >= s->sh.sh_addr && addr - s->sh.sh_addr < s->size && s->size - (addr - s->sh.sh_addr) >= len)
			return (uint32_t)i;
	}
	return 0;
}

enum target_kind {
	TARGET_NONE,		/* no call form matched */
	TARGET_OTHER,		/* a call to something else */
	TARGET_UNKNOWN,		/* a call form whose target the file does not give */
	TARGET_HOOK,
};

struct target {
	enum target_kind kind;
	uint64_t addr;		/* TARGET_OTHER: where it goes (0: through a slot) */
	const char *name;	/* TARGET_HOOK: the hook; TARGET_OTHER: a dynamic symbol, or NULL */
	bool entry;		/* TARGET_HOOK: an entry hook */
	uint8_t len;		/* decode_call: the call's bytes */
};

static struct target make_target(enum target_kind kind, uint64_t addr, const char *name, bool entry)
{
	return (struct target){ .kind = kind, .addr = addr, .name = name, .entry = entry };
}

static struct target resolve_address(const struct linked *l, uint64_t addr, int depth);

/* A pointer-sized slot the call goes through: its dynamic relocation, or its contents. */
static struct target resolve_slot(const struct linked *l, uint64_t slot, int depth)
{
	const struct elfobj *obj = l->obj;
	const struct dynrel *d = dynrel_at(l, slot);
	unsigned ptr = obj->is64 ? 8 : 4;
	uint32_t sec;
	int kind;

	if (d && d->name[0]) {
		kind = hook_kind(obj->arch, d->name);
		if (kind)
			return make_target(TARGET_HOOK, slot, d->name, kind == 2);
		return make_target(TARGET_OTHER, 0, d->name, false);
	}
	if (d)
		return resolve_address(l, (uint64_t)d->addend, depth + 1);
	sec = section_holding(obj, slot, ptr, false);
	if (!sec)
		return make_target(TARGET_UNKNOWN, 0, NULL, false);
	return resolve_address(l, elfobj_read_word(obj, obj->sec[sec].bytes + (slot - obj->sec[sec].sh.sh_addr), ptr),
			       depth + 1);
}

static bool is_plt(const char *name)
{
	return strncmp(name, ".plt", 4) == 0 || strncmp(name, ".iplt", 5) == 0;
}

/* A PLT entry's first instructions lead through a GOT slot. */
#define PLT_SEARCH 16

static struct target follow_plt(const struct linked *l, uint32_t sec, uint64_t addr, int depth)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[sec];
	unsigned align = obj->arch->insn_align ? obj->arch->insn_align : 1;

	for (uint64_t p = addr; p < addr + PLT_SEARCH && p - s->sh.sh_addr < s->size; p += align) {
		uint64_t off = p - s->sh.sh_addr, to;

		for (size_t i = 0; i < obj->arch->ndecoders; i++) {
			const struct call_decoder *d = &obj->arch->decoders[i];

			if (d->jump && d->target &&
			    insn_matches(&d->insn, s->bytes + off, s->size - off, obj->code_big_endian) &&
			    d->target(s->bytes + off, s->size - off, obj->code_big_endian, p, &to))
				return d->slot ? resolve_slot(l, to, depth) : resolve_address(l, to, depth + 1);
		}
	}
	return make_target(TARGET_UNKNOWN, addr, NULL, false);
}

static struct target resolve_address(const struct linked *l, uint64_t addr, int depth)
{
	const struct hook_range *h = hook_at(l, addr);
	uint32_t sec;

	if (h)
		return make_target(TARGET_HOOK, addr, h->name, h->entry);
	sec = section_holding(l->obj, addr, 1, true);
	if (sec && depth < 2 && is_plt(l->obj->sec[sec].name))
		return follow_plt(l, sec, addr, depth);
	return make_target(TARGET_OTHER, addr, NULL, false);
}

/*
 * What the code at `addr` calls, by the arch's decoders: the hook wins over
 * a call form that cannot be verified, which wins over another callee.
 */
static struct target decode_call(const struct linked *l, uint32_t sec, uint64_t off)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[sec];
	uint64_t addr = s->sh.sh_addr + off;
	struct target best = { .kind = TARGET_NONE };

	for (size_t i = 0; i < obj->arch->ndecoders && off < s->size; i++) {
		const struct call_decoder *d = &obj->arch->decoders[i];
		struct target t = { .kind = TARGET_UNKNOWN };
		uint64_t to;

		if (d->jump || !insn_matches(&d->insn, s->bytes + off, s->size - off, obj->code_big_endian))
			continue;
		if (d->target) {
			if (!d->target(s->bytes + off, s->size - off, obj->code_big_endian, addr, &to))
				continue;
			t = d->slot ? resolve_slot(l, to, 0) : resolve_address(l, to, 0);
		}
		t.len = d->len;
		if (t.kind > best.kind)
			best = t;
		if (best.kind == TARGET_HOOK)
			break;
	}
	return best;
}

/* ---- linked files: the checks ---- */

/* A prototype record whose function holds `addr` (it outlives its symbol). */
static const struct proto_entry *proto_holding(const struct linked *l, uint64_t addr)
{
	for (size_t i = 0; i < l->np; i++) {
		const struct proto_entry *p = &l->pe[i];

		if (addr >= p->where.addr && addr < p->where.addr + (p->size ? p->size : 1))
			return p;
	}
	return NULL;
}

static const struct symbol *symbol_named(const struct elfobj *obj, const char *name)
{
	for (size_t i = 1; i < obj->nsym; i++)
		if (obj->sym[i].shndx && strcmp(obj->sym[i].name, name) == 0)
			return &obj->sym[i];
	return NULL;
}

static int stale_entry(struct report *r, const struct linked *l, const struct table_entry *e)
{
	const struct proto_entry *p = e->sec ? proto_holding(l, e->addr) : NULL;
	const struct symbol *now = p ? symbol_named(r->obj, p->name) : NULL;
	struct finding *x;

	if (!e->sec)
		return add_finding(r, CHECK_STALE, &l->fs, 0, 0, e->addr, "not in any executable section") ? 0 : -1;
	if (now)
		x = add_finding(r, CHECK_STALE, &l->fs, e->sec, e->off, e->addr,
				"in code that no symbol covers, %s's by %s; the symbol %s is at 0x%llx: "
				"an overridden weak function", p->name, PROTO_TABLE, p->name,
				(unsigned long long)now->s.st_value);
	else if (p)
		x = add_finding(r, CHECK_STALE, &l->fs, e->sec, e->off, e->addr,
				"in code that no symbol covers, %s's by %s: a discarded or overridden function",
				p->name, PROTO_TABLE);
	else
		x = add_finding(r, CHECK_STALE, &l->fs, e->sec, e->off, e->addr,
				"not inside any function symbol: an overridden weak function, or padding");
	if (x && p)
		rename_finding(x, p->name, e->addr - p->where.addr);
	return x ? 0 : -1;
}

static int not_call(struct report *r, const struct linked *l, const struct table_entry *e, const struct target *t)
{
	const struct func_sym *callee = NULL;
	uint32_t sec;

	if (t->kind != TARGET_OTHER)
		return add_finding(r, CHECK_NOT_CALL, &l->fs, e->sec, e->off, e->addr,
				   "neither a call to the hook nor its NOP") ? 0 : -1;
	if (t->name)
		return add_finding(r, CHECK_NOT_CALL, &l->fs, e->sec, e->off, e->addr,
				   "a call through the slot of %s, not the hook", t->name) ? 0 : -1;
	sec = section_holding(r->obj, t->addr, 1, true);
	if (sec)
		callee = function_at(l->fs.v, l->fs.n, sec, t->addr - r->obj->sec[sec].sh.sh_addr);
	return add_finding(r, CHECK_NOT_CALL, &l->fs, e->sec, e->off, e->addr, "a call to %s (0x%llx), not the hook",
			   callee ? callee->name : "an address no function holds", (unsigned long long)t->addr)
		       ? 0 : -1;
}

/*
 * The next call to the hook at or after *p in the part of function `f`
 * where compilers put it (the arch's window); *p is set to it.  Start with
 * *p = 0.  false: no more.
 */
static bool next_hook_call(const struct linked *l, const struct func_sym *f, uint64_t *p, struct target *t)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[f->sec];
	unsigned align = obj->arch->insn_align ? obj->arch->insn_align : 1;
	uint64_t start = s->sh.sh_addr + f->off, len = f->size;

	if (!f->size || !obj->arch->ndecoders || !is_code(obj, f->sec) || f->off >= s->size || hook_at(l, start))
		return false;
	if (obj->arch->hook_window && len > obj->arch->hook_window)
		len = obj->arch->hook_window;
	if (*p < start)
		*p = (start + align - 1) / align * align;
	for (; *p < start + len && *p - s->sh.sh_addr < s->size; *p += align) {
		*t = decode_call(l, f->sec, *p - s->sh.sh_addr);
		if (t->kind == TARGET_HOOK)
			return true;
	}
	return false;
}

/*
 * A NOP is a replaced call only in a function that calls the hook nowhere
 * else (a --nop build replaced them all): otherwise it is the compiler's,
 * next to the real call (ppc64's TOC-restore slot, a delay slot).
 */
static int nop_entry(struct report *r, const struct linked *l, const struct table_entry *e, const struct func_sym *f)
{
	struct target t;
	uint64_t p = 0;

	if (!next_hook_call(l, f, &p, &t)) {
		r->nops++;
		return 0;
	}
	return add_finding(r, CHECK_NOT_CALL, &l->fs, e->sec, e->off, e->addr,
			   "a NOP, but the function's call to %s is at 0x%llx", t.name, (unsigned long long)p)
		       ? 1 : -1;
}

/* Returns 1 when the entry is stale (--fix zeroes it), 0 when it is good, -1 on error. */
static int linked_entry(struct report *r, const struct linked *l, const struct table_entry *e)
{
	const struct func_sym *f = e->sec ? function_at(l->fs.v, l->fs.n, e->sec, e->off) : NULL;
	struct target t;

	if (!f)
		return stale_entry(r, l, e) < 0 ? -1 : 1;
	t = decode_call(l, e->sec, e->off);
	if (t.kind != TARGET_HOOK && !e->user && recorded_prefix_at(r->obj, e))
		t = decode_call(l, e->sec, e->off + recorded_prefix_at(r->obj, e));
	if (t.kind == TARGET_HOOK) {
		r->calls++;
		if (e->user && e->entry != t.entry &&
		    !add_finding(r, CHECK_WRONG_TABLE, &l->fs, e->sec, e->off, e->addr, "a call to %s recorded in %s",
				 t.name, e->entry ? ENTRY_TABLE : USER_TABLE))
			return -1;
		return 0;
	}
	if (t.kind == TARGET_UNKNOWN) {
		r->unverified++;
		return 0;
	}
	if (nop_at(r->obj, e->sec, e->off))
		return nop_entry(r, l, e, f);
	return not_call(r, l, e, &t) < 0 ? -1 : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Calls to the hook in the first bytes of each function that no entry names. */
static int missing_calls(struct report *r, const struct linked *l, const uint64_t *addrs, size_t naddrs)
{
	unsigned align = r->obj->arch->insn_align ? r->obj->arch->insn_align : 1;

	for (size_t i = 0; i < l->fs.n; i++) {
		const struct func_sym *f = &l->fs.v[i];
		struct target t;

		for (uint64_t p = 0; next_hook_call(l, f, &p, &t); p += (t.len + align - 1) / align * align) {
			uint64_t off = p - r->obj->sec[f->sec].sh.sh_addr;

			r->sites++;
			if (!bsearch(&p, addrs, naddrs, sizeof(*addrs), cmp_u64) &&
			    !add_finding(r, CHECK_MISSING, &l->fs, f->sec, off, p, "call to %s has no table entry",
					 t.name))
				return -1;
			/* x86's `addr32 call` holds a `call` one byte in, to the same place: skip the call. */
			if (!t.len)
				t.len = 1;
		}
	}
	return 0;
}

struct linked_state {
	struct table_entry *te;
	size_t nte;
	bool *drop;		/* per entry: --fix zeroes it */
	struct table_span *spans;
	size_t nspans;
	struct patchable pt;
};

static unsigned span_entsize(const struct elfobj *obj, const struct table_span *s)
{
	return s->user ? 4 : (obj->is64 ? 8 : 4);
}

/* Each table's non-zero entries in ascending order. */
static bool tables_sorted(const struct elfobj *obj, const struct linked_state *st)
{
	size_t k = 0;

	for (size_t i = 0; i < st->nspans; i++) {
		size_t n = (st->spans[i].to - st->spans[i].from) / span_entsize(obj, &st->spans[i]);
		uint64_t last = 0;

		for (size_t j = 0; j < n && k < st->nte; j++, k++) {
			if (st->te[k].zeroed)
				continue;
			if (st->te[k].addr < last)
				return false;
			last = st->te[k].addr;
		}
	}
	return true;
}

static int linked_entries(struct report *r, const struct linked *l, struct linked_state *st)
{
	size_t *order = entry_order(st->te, st->nte);
	uint64_t *addrs = malloc((st->nte ? st->nte : 1) * sizeof(*addrs));
	size_t naddrs = 0;
	int rc = -1;

	if (!order || !addrs) {
		elfobj_error(r->obj, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < st->nte; k++) {
		const struct table_entry *e = &st->te[order[k]];
		int v;

		if (e->zeroed) {
			r->zeroed++;
			continue;
		}
		if (naddrs && addrs[naddrs - 1] == e->addr) {
			st->drop[order[k]] = true;
			if (!add_finding(r, CHECK_DUPLICATE, &l->fs, e->sec, e->off, e->addr, "listed again"))
				goto out;
			continue;
		}
		addrs[naddrs++] = e->addr;
		v = e->patchable ? patchable_entry(r, &st->pt, &l->fs, e) : linked_entry(r, l, e);
		if (v < 0)
			goto out;
		st->drop[order[k]] = v > 0;
	}
	rc = missing_calls(r, l, addrs, naddrs);
	if (rc == 0)
		rc = patchable_missing(r, &st->pt, &l->fs);
out:
	free(order);
	free(addrs);
	return rc;
}

static void linked_free(struct linked *l, struct linked_state *st)
{
	free(l->fs.v);
	free(l->hooks);
	free(l->dyn);
	free(l->pe);
	free(st->te);
	free(st->drop);
	free(st->spans);
	free(st->pt.covered);
}

static int fix_tables(struct report *r, struct linked *l, struct linked_state *st, const char *target);

static int check_linked(struct report *r, const char *fix_target)
{
	struct elfobj *obj = r->obj;
	struct linked l = { .obj = obj };
	struct linked_state st = { 0 };
	int rc = -1;

	if (!obj->symtab) {
		elfobj_error(obj, "no symbol table (stripped): its functions cannot be told apart");
		goto out;
	}
	if (tables_read(obj, &st.te, &st.nte) < 0 || tables_spans(obj, &st.spans, &st.nspans) < 0 ||
	    protos_read(obj, &l.pe, &l.np) < 0)
		goto out;
	st.drop = calloc(st.nte ? st.nte : 1, sizeof(*st.drop));
	l.fs.v = function_index(obj, &l.fs.n);
	if (!st.drop || !l.fs.v) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	if (collect_hooks(&l) < 0 || collect_dynrels(&l) < 0)
		goto out;
	if (patchable_init(&st.pt, obj, st.te, st.nte, &l.fs) < 0) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	r->pad_table = st.pt.any;
	r->entries = st.nte;
	r->sorted = tables_sorted(obj, &st);
	if (linked_entries(r, &l, &st) < 0)
		goto out;
	rc = 0;
	if (fix_target && fix_tables(r, &l, &st, fix_target) < 0)
		snprintf(r->fix_error, sizeof(r->fix_error), "%s", obj->err);
out:
	linked_free(&l, &st);
	return rc;
}

/* ---- --fix ---- */

/* The file as it is on disk, for patching: libelf's view of the image is not ours to write. */
static uint8_t *read_again(struct elfobj *obj, const char *target)
{
	int fd = open(target, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = malloc(obj->image_size ? obj->image_size : 1);
	size_t done = 0;
	struct stat sb;

	if (fd < 0 || !buf || fstat(fd, &sb) < 0 || (uint64_t)sb.st_size != obj->image_size) {
		elfobj_error(obj, "cannot read it again for --fix: %s", fd < 0 ? strerror(errno) : "it changed");
		goto fail;
	}
	while (done < obj->image_size) {
		ssize_t n = read(fd, buf + done, obj->image_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			elfobj_error(obj, "cannot read it again for --fix: %s", n < 0 ? strerror(errno) : "it shrank");
			goto fail;
		}
		done += (size_t)n;
	}
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Dynamic relocations inside a table: sorting would leave them on other entries. */
static size_t relocs_into(const struct linked *l, const struct table_span *sp)
{
	const GElf_Shdr *sh = &l->obj->sec[sp->sec].sh;
	size_t n = 0;

	for (size_t i = 0; i < l->ndyn; i++)
		if (l->dyn[i].off >= sh->sh_addr + sp->from && l->dyn[i].off < sh->sh_addr + sp->to)
			n++;
	return n;
}

static int refuse_fix(const struct report *r, const struct linked *l, const struct linked_state *st)
{
	for (size_t i = 0; i < st->nspans; i++) {
		size_t n = relocs_into(l, &st->spans[i]);

		if (n)
			return elfobj_error(r->obj, "--fix refused: %zu dynamic relocations (R_*_RELATIVE or others) "
					    "apply to entries of its %s table; sorting would leave them on the wrong "
					    "entries", n, st->spans[i].user ? "user-mode" : KERNEL_TABLE), -1;
	}
	return 0;
}

/*
 * One table, new contents: zeroed entries first (the kernel's sorttable
 * leaves them there too), then the kept ones in ascending order.
 */
static int fix_span(struct report *r, const struct table_span *sp, const struct table_entry *te, const bool *drop,
		    uint8_t *out)
{
	struct elfobj *obj = r->obj;
	unsigned es = span_entsize(obj, sp);
	size_t n = (sp->to - sp->from) / es;
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v));
	uint64_t base = obj->sec[sp->sec].sh.sh_addr + sp->from;

	if (!v)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t j = 0; j < n; j++) {
		v[j] = te[j].zeroed || drop[j] ? 0 : te[j].addr;
		r->fix_zeroed += !te[j].zeroed && drop[j];
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t j = 0; j < n; j++) {
		uint64_t w = v[j];

		if (sp->user && w) {
			int64_t rel = (int64_t)(w - (base + j * es));

			if (rel < INT32_MIN || rel > INT32_MAX) {
				free(v);
				return elfobj_error(obj, "--fix: entry 0x%llx is out of reach of a 32-bit offset",
						    (unsigned long long)w), -1;
			}
			w = (uint64_t)rel & 0xffffffffu;
		}
		elfobj_write_word(obj, out + j * es, es, w);
	}
	free(v);
	return 0;
}

static int write_fixed(struct report *r, const char *target, uint8_t *image)
{
	struct elfobj *obj = r->obj;
	uint8_t *mine = obj->image;
	struct stat sb;
	int rc;

	if (stat(target, &sb) < 0)
		return elfobj_error(obj, "cannot stat: %s", strerror(errno)), -1;
	/* elfobj_copy writes obj->image: lend it the patched copy. */
	obj->image = image;
	rc = elfobj_copy(obj, target, sb.st_mode);
	obj->image = mine;
	return rc;
}

static int fix_tables(struct report *r, struct linked *l, struct linked_state *st, const char *target)
{
	struct elfobj *obj = r->obj;
	uint8_t *image = NULL;
	bool changed = false;
	size_t k = 0;
	int rc = -1;

	r->fix_tried = true;
	if (refuse_fix(r, l, st) < 0 || !(image = read_again(obj, target)))
		return -1;
	for (size_t i = 0; i < st->nspans; i++) {
		const struct table_span *sp = &st->spans[i];
		const struct section *s = &obj->sec[sp->sec];
		size_t n = (sp->to - sp->from) / span_entsize(obj, sp);
		uint64_t at = s->sh.sh_offset + sp->from, len = sp->to - sp->from;

		if (!len)	/* an empty table has no bytes (s->bytes may be NULL) */
			continue;
		if (k + n > st->nte || at > obj->image_size || obj->image_size - at < len ||
		    memcmp(image + at, s->bytes + sp->from, len) != 0) {
			elfobj_error(obj, "--fix: the table is not where its section header says");
			goto out;
		}
		if (fix_span(r, sp, st->te + k, st->drop + k, image + at) < 0)
			goto out;
		changed |= memcmp(image + at, s->bytes + sp->from, len) != 0;
		k += n;
	}
	rc = changed ? write_fixed(r, target, image) : 0;
	r->written = changed && rc == 0;
out:
	free(image);
	return rc;
}

/* ---- output ---- */

static void json_string(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\u%04x", *p);	/* bytes, not UTF-8: symbol names need not be text */
		else
			putchar(*p);
	}
	putchar('"');
}

static void place_text(const struct report *r, const struct finding *x, char *buf, size_t size)
{
	if (r->linked)
		snprintf(buf, size, "0x%llx", (unsigned long long)x->addr);
	else
		snprintf(buf, size, "%s+0x%llx", section_name(r->obj, x->sec), (unsigned long long)x->off);
}

static void print_finding_text(const char *path, const struct report *r, const struct finding *x)
{
	char place[300];

	place_text(r, x, place, sizeof(place));
	if (x->func)
		printf("%s: %s: %s+0x%llx (%s): %s\n", path, kind_names[x->kind], x->func,
		       (unsigned long long)x->func_off, place, x->why);
	else
		printf("%s: %s: outside any function (%s): %s\n", path, kind_names[x->kind], place, x->why);
}

static void print_counts_text(const struct report *r)
{
	bool first = true;

	for (int k = 0; k < CHECK_NKINDS; k++) {
		if (!r->count[k])
			continue;
		printf("%s%s %zu", first ? " (" : ", ", kind_names[k], r->count[k]);
		first = false;
	}
	if (!first)
		putchar(')');
}

static void print_text(const char *path, const struct report *r)
{
	for (size_t i = 0; i < r->nf; i++)
		print_finding_text(path, r, &r->f[i]);
	printf("%s: ", path);
	if (r->nf) {
		printf("%zu finding%s", r->nf, r->nf == 1 ? "" : "s");
		print_counts_text(r);
	} else {
		printf("clean");
	}
	printf("; %s, %zu entr%s: %zu call%s, %zu NOP%s, %zu not verifiable, %zu zeroed; %zu call%s to the hook found%s\n",
	       r->linked ? "linked" : "object", r->entries, r->entries == 1 ? "y" : "ies", r->calls,
	       r->calls == 1 ? "" : "s", r->nops, r->nops == 1 ? "" : "s", r->unverified, r->zeroed, r->sites,
	       r->sites == 1 ? "" : "s", r->linked ? (r->sorted ? "; sorted" : "; not sorted") : "");
	if (r->pad_table)
		printf("%s: %zu patchable entr%s at a function's NOP pad\n", path, r->patchable,
		       r->patchable == 1 ? "y" : "ies");
	if (r->fix_tried && !r->fix_error[0])
		printf("%s: --fix: %s, %zu entr%s zeroed; %zu finding%s remain\n", path,
		       r->written ? "table rewritten" : "nothing to change", r->fix_zeroed,
		       r->fix_zeroed == 1 ? "y" : "ies", r->remaining, r->remaining == 1 ? "" : "s");
}

static void print_json_finding(const struct report *r, const struct finding *x)
{
	printf("{\"kind\":\"%s\",\"function\":", kind_names[x->kind]);
	if (x->func)
		json_string(x->func);
	else
		printf("null");
	printf(",\"function_offset\":%llu,\"inside\":%s,\"section\":", (unsigned long long)x->func_off,
	       x->inside ? "true" : "false");
	if (x->sec)
		json_string(section_name(r->obj, x->sec));
	else
		printf("null");
	printf(",\"section_offset\":%llu", (unsigned long long)x->off);
	/* Addresses as strings: kernel addresses do not fit a JSON reader's double. */
	if (r->linked)
		printf(",\"address\":\"0x%llx\"", (unsigned long long)x->addr);
	printf(",\"explanation\":");
	json_string(x->why);
	putchar('}');
}

static void print_json(const char *path, const struct report *r, const char *error, bool first)
{
	printf("%s\n{\"file\":", first ? "" : ",");
	json_string(path);
	if (error) {
		printf(",\"status\":\"error\",\"error\":");
		json_string(error);
		putchar('}');
		return;
	}
	printf(",\"type\":\"%s\",\"arch\":\"%s\",\"status\":\"%s\",\"entries\":%zu,\"calls\":%zu,\"nops\":%zu,"
	       "\"unverified\":%zu,\"zeroed\":%zu,\"hook_calls\":%zu", r->linked ? "linked" : "object",
	       r->obj->arch->name, r->nf ? "findings" : "clean", r->entries, r->calls, r->nops, r->unverified,
	       r->zeroed, r->sites);
	if (r->linked)
		printf(",\"sorted\":%s", r->sorted ? "true" : "false");
	printf(",\"patchable\":%zu", r->patchable);
	printf(",\"counts\":{");
	for (int k = 0; k < CHECK_NKINDS; k++)
		printf("%s\"%s\":%zu", k ? "," : "", kind_names[k], r->count[k]);
	printf("},\"findings\":[");
	for (size_t i = 0; i < r->nf; i++) {
		printf(i ? ",\n" : "\n");
		print_json_finding(r, &r->f[i]);
	}
	printf("]");
	if (r->fix_error[0]) {
		printf(",\"fix\":{\"error\":");
		json_string(r->fix_error);
		putchar('}');
	} else if (r->fix_tried) {
		printf(",\"fix\":{\"written\":%s,\"zeroed\":%zu,\"remaining\":%zu}", r->written ? "true" : "false",
		       r->fix_zeroed, r->remaining);
	}
	putchar('}');
}

/* ---- files ---- */

static int load_file(struct elfobj *obj, const char *path, const char *target)
{
	int fd = open(target, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		memset(obj, 0, sizeof(*obj));
		return elfobj_error(obj, "%s", strerror(errno)), -1;
	}
	rc = elfobj_load(obj, path, fd);
	close(fd);
	return rc;
}

static int check_loaded(struct report *r, const char *fix_target)
{
	int rc;

	switch (r->obj->ehdr.e_type) {
	case ET_REL:
		if (fix_target)
			return elfobj_error(r->obj, "--fix is for linked files: an object's table is relocated, "
					    "record the object again instead"), -1;
		r->linked = false;
		rc = check_object(r);
		break;
	case ET_EXEC:
	case ET_DYN:
		r->linked = true;
		rc = check_linked(r, fix_target);
		break;
	default:
		return elfobj_error(r->obj, "neither an object nor a linked file (ELF type %u)", r->obj->ehdr.e_type),
		       -1;
	}
	if (rc == 0 && r->nf)
		qsort(r->f, r->nf, sizeof(*r->f), cmp_finding);
	return rc;
}

/* After --fix wrote the file: what is left, counted the same way. */
static int recheck(struct report *r, const char *path, const char *target)
{
	struct elfobj obj;
	struct report again = { .obj = &obj };
	int rc = load_file(&obj, path, target);

	if (rc == 0)
		rc = check_loaded(&again, NULL);
	if (rc < 0)
		elfobj_error(r->obj, "after --fix: %.400s", obj.err);
	r->remaining = again.nf;
	free(again.f);
	elfobj_free(&obj);
	return rc;
}

void check_start(struct check_run *run)
{
	if (run->json)
		printf("{\"files\":[");
}

int check_file(struct check_run *run, const char *path, const char *target)
{
	struct elfobj obj;
	struct report r = { .obj = &obj };
	int rc = load_file(&obj, path, target), status;

	if (rc == 0)
		rc = check_loaded(&r, run->fix ? target : NULL);
	if (rc == 0 && r.written)
		rc = recheck(&r, path, target);
	if (rc < 0 || r.fix_error[0]) {
		fprintf(stderr, "recordmcount: %s: %s\n", path, rc < 0 ? obj.err : r.fix_error);
		status = CHECK_FAILED;
		run->failed++;
	} else {
		status = (r.fix_tried && r.written ? r.remaining : r.nf) ? CHECK_FINDINGS : CHECK_CLEAN;
		run->clean += status == CHECK_CLEAN;
		run->with_findings += status == CHECK_FINDINGS;
		for (int k = 0; k < CHECK_NKINDS; k++)
			run->count[k] += r.count[k];
	}
	if (run->json)
		print_json(path, &r, rc < 0 ? obj.err : NULL, run->files == 0);
	else if (rc == 0)
		print_text(path, &r);
	run->files++;
	free(r.f);
	elfobj_free(&obj);
	return status;
}

int check_finish(struct check_run *run)
{
	int status = run->failed ? CHECK_FAILED : run->with_findings ? CHECK_FINDINGS : CHECK_CLEAN;

	if (run->json) {
		printf("\n],\"summary\":{\"files\":%zu,\"clean\":%zu,\"with_findings\":%zu,\"failed\":%zu,\"counts\":{",
		       run->files, run->clean, run->with_findings, run->failed);
		for (int k = 0; k < CHECK_NKINDS; k++)
			printf("%s\"%s\":%zu", k ? "," : "", kind_names[k], run->count[k]);
		printf("}}}\n");
	}
	return status;
}
