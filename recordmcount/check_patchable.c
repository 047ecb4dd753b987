// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount --check: patchable entries (-fpatchable-function-entry=N,M),
 * in objects and linked files alike.  An entry names a function's NOP pad,
 * not a call: its pad is walked, its shape compared with the one
 * DW_AT_producer gives or most entries have, and functions that start with
 * that pad but have no entry are found.
 */
#include <stdlib.h>
#include <string.h>
#include "dwarf/producer.h"
#include "recordmcount/check_internal.h"
#include "recordmcount/record.h"

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

int patchable_init(struct patchable *pt, struct elfobj *obj, const struct table_entry *te, size_t nte,
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
int patchable_entry(struct report *r, struct patchable *pt, const struct funcs *fs, const struct table_entry *e)
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
int patchable_missing(struct report *r, const struct patchable *pt, const struct funcs *fs)
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
