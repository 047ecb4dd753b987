// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount --check on a relocatable object: its table is compared with
 * what the recorder itself finds in it (record_sites), entry by entry, and
 * each function with an entry must have a prototype record when the
 * object has a prototype table.
 */
#include <stdlib.h>
#include <string.h>
#include "recordmcount/check_internal.h"
#include "recordmcount/proto_tables.h"
#include "recordmcount/record.h"

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

static bool same_place(const struct table_entry *a, const struct table_entry *b)
{
	return a->addr == b->addr && a->sec == b->sec && a->off == b->off;
}

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
	bool *had_nop;		/* per entry: a NOP (the compiler's too) was there before record_sites ran */
	struct recording rec;
	bool *covered;		/* per site */
	struct funcs fs;
	struct proto_entry *pe;
	size_t np;
	struct patchable pt;
};

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
	/* Tables recordmcount writes never list an untraced call (traced_function), not even its NOP. */
	if (e->user && !section_is_traceable(sname)) {
		*fn = NULL;
		return add_finding(r, CHECK_UNTRACED, &st->fs, e->sec, e->off, 0,
				   "in %s, a section that is not traced (its calls become NOPs)", sname) ? 0 : -1;
	}
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
	/*
	 * gcc's -mnop-mcount: the entry hook's NOP, the compiler's own, with no
	 * relocation left; in gcc's __mcount_loc, or in __fentry_rel once user
	 * mode took that table over (never in __mcount_rel: no NOP there is an
	 * entry hook's).
	 */
	if ((!e->user || e->entry) && obj->arch->entry_hooks && compiler_nop_at(obj, e->sec, e->off) &&
	    e->off == (*fn)->off + function_landing_pad(obj, e->sec, (*fn)->off)) {
		r->nops++;
		return 0;
	}
	*fn = NULL;
	/*
	 * gcc's own __mcount_loc (-mrecord-mcount) lists the calls of every
	 * section, and kernel mode leaves it as the kernel's build does (the
	 * kernel disables every entry at boot): an entry of an untraced
	 * section is no finding there when it names the hook's call (which
	 * record_sites NOP'd in memory) or the compiler's NOP.  Tables of
	 * user mode never list one (traced_function).
	 */
	if (!e->user && !section_is_traceable(sname) &&
	    compiler_nop_at(obj, e->sec, e->off + recorded_prefix_at(obj, e))) {
		if (st->had_nop[i])
			r->nops++;
		else
			r->calls++;
		return 0;
	}
	if (!section_is_traceable(sname))
		return add_finding(r, CHECK_UNTRACED, &st->fs, e->sec, e->off, 0,
				   "in %s, a section that is not traced (its calls become NOPs)", sname) ? 0 : -1;
	return add_finding(r, CHECK_NOT_CALL, &st->fs, e->sec, e->off, 0,
			   "neither a call to the hook nor its NOP") ? 0 : -1;
}

/*
 * A function without a prototype prints its values untyped: a note, not an
 * error, with the reason.  A record missing from a prototype table that
 * exists is a finding (no-proto).
 */
static int object_protos(struct report *r, struct object_state *st, const struct func_sym *fn)
{
	struct proto_entry key = { .where = { .sec = fn->sec, .off = fn->off } };
	const struct proto_entry *p = st->np ? bsearch(&key, st->pe, st->np, sizeof(*st->pe), cmp_proto_place) : NULL;

	if (!st->np)
		return add_finding(r, CHECK_UNTYPED, &st->fs, fn->sec, fn->off, 0, "%s has no prototype: %s", fn->name,
				   object_has_dwarf(r->obj) ? "the object has DWARF but no " PROTO_TABLE
						       " (recorded with --no-protos, or by another tool)" :
						       "the object has no DWARF (compile with -g)") ? 0 : -1;
	if (p && strcmp(p->sig, PROTO_SIG_UNKNOWN) == 0)
		return add_finding(r, CHECK_UNTYPED, &st->fs, fn->sec, fn->off, 0,
				   "%s has no prototype: the object's DWARF does not describe it", fn->name) ? 0 : -1;
	if (p)
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

/* An object with functions and no table: why, and what to do. */
static const char *no_table_why(const struct object_state *st)
{
	if (st->rec.nsites)
		return "no " KERNEL_TABLE " or " USER_TABLE " table: recordmcount never ran on it, so none of its "
		       "functions is traceable; run recordmcount --mode=user on it (kernel mode for the kernel)";
	return "no " KERNEL_TABLE " or " USER_TABLE " table and no call to the hook: none of its functions is "
	       "traceable; if it should be, compile it with -pg and run recordmcount --mode=user on it";
}

int check_object(struct report *r)
{
	struct elfobj *obj = r->obj;
	struct object_state st = { 0 };
	bool has_table = elfobj_has_tables(obj);
	uint32_t *relocs_of = NULL;
	int rc = -1;

	if (tables_read(obj, &st.te, &st.nte) < 0 || protos_read(obj, &st.pe, &st.np) < 0)
		goto out;
	st.nop = calloc(st.nte ? st.nte : 1, sizeof(*st.nop));
	st.had_nop = calloc(st.nte ? st.nte : 1, sizeof(*st.had_nop));
	relocs_of = relocation_sections(obj);
	if (!st.nop || !st.had_nop || !relocs_of)
		goto oom;
	/* record_sites NOPs the calls outside traced sections, in memory: look first. */
	for (size_t i = 0; i < st.nte; i++) {
		st.nop[i] = replaced_call_at(obj, relocs_of, st.te[i].sec, st.te[i].off);
		st.had_nop[i] = st.te[i].sec && !st.te[i].patchable &&
				compiler_nop_at(obj, st.te[i].sec, st.te[i].off + recorded_prefix_at(obj, &st.te[i]));
	}
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
	if (!has_table && st.fs.n &&
	    !add_finding(r, st.rec.nsites ? CHECK_NO_TABLE : CHECK_NOT_TRACEABLE, &st.fs, 0, 0, 0, "%s",
			 no_table_why(&st)))
		goto out;
	for (size_t i = 0; i < st.rec.nstrays; i++) {
		const struct stray_ref *s = &st.rec.strays[i];
		char buf[32];

		if (!add_finding(r, CHECK_HOOK_REF, &st.fs, s->sec, s->off, 0,
				 "%s against %s is not a call to the hook recordmcount knows: not recorded",
				 stray_type(obj, s, buf, sizeof(buf)), s->sym))
			goto out;
	}
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
	free(st.had_nop);
	free(st.covered);
	free(st.pt.covered);
	free(st.fs.v);
	free(st.pe);
	recording_free(&st.rec);
	return rc;
}
