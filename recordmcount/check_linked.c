// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount --check on a linked file (an executable, a shared object,
 * vmlinux): each entry is decoded (tables/calls.c) and must be a call to
 * the hook or its NOP inside a function, each function's first bytes are
 * searched for calls to the hook that no entry names, and each table must
 * be sorted.  What --fix needs (which entries to drop) is kept for
 * check_fix.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "recordmcount/check_internal.h"
#include "recordmcount/proto_tables.h"

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

/* Name a finding's place by a function no symbol names any more (a prototype record's). */
static void rename_finding(struct finding *x, const char *name, uint64_t off)
{
	x->func = name;
	x->func_off = off;
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
	t = decode_call(l, e->sec, e->off, false);
	if (t.kind != TARGET_HOOK && !e->user && recorded_prefix_at(r->obj, e))
		t = decode_call(l, e->sec, e->off + recorded_prefix_at(r->obj, e), false);
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

/*
 * The rest of every function: jumps into the hook (the arch's `ref`
 * decoders) anywhere, and calls to it past the window missing_calls
 * searches, that no entry names.  Hand-written code, or a compiler form the
 * recorder has never seen: a place the tracer would never patch.
 */
static int hook_references(struct report *r, const struct linked *l, const uint64_t *addrs, size_t naddrs)
{
	const struct elfobj *obj = r->obj;
	unsigned align = obj->arch->insn_align ? obj->arch->insn_align : 1;

	for (size_t i = 0; i < l->fs.n; i++) {
		const struct func_sym *f = &l->fs.v[i];
		const struct section *s = &obj->sec[f->sec];
		uint64_t start = s->sh.sh_addr + f->off, window = obj->arch->hook_window;

		if (!f->size || !is_code(obj, f->sec) || f->off >= s->size || hook_at(l, start))
			continue;
		for (uint64_t p = (start + align - 1) / align * align; p < start + f->size && p - s->sh.sh_addr < s->size;
		     p += align) {
			struct target t = decode_ref(l, f->sec, p - s->sh.sh_addr);
			bool jump = t.kind == TARGET_HOOK;

			if (!jump && window && p >= start + window)
				t = decode_call(l, f->sec, p - s->sh.sh_addr, true);
			if (t.kind != TARGET_HOOK || bsearch(&p, addrs, naddrs, sizeof(*addrs), cmp_u64))
				continue;
			if (!add_finding(r, CHECK_HOOK_REF, &l->fs, f->sec, p - s->sh.sh_addr, p,
					 jump ? "a jump to %s, not a call: never recorded" :
						"a call to %s past the function's first %u bytes, where compilers put "
						"it: no entry records it", t.name, (unsigned)window))
				return -1;
		}
	}
	return 0;
}

unsigned span_entsize(const struct elfobj *obj, const struct table_span *s)
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
		rc = hook_references(r, l, addrs, naddrs);
	if (rc == 0)
		rc = patchable_missing(r, &st->pt, &l->fs);
out:
	free(order);
	free(addrs);
	return rc;
}

static int cmp_proto_addr(const void *a, const void *b)
{
	const struct proto_entry *x = a, *y = b;

	return x->where.addr < y->where.addr ? -1 : x->where.addr > y->where.addr;
}

/* A note for a function with an entry whose values print untyped (no record, or an unknown one). */
static int untyped_function(struct report *r, const struct linked *l, const struct func_sym *f)
{
	struct proto_entry key = { .where = { .addr = r->obj->sec[f->sec].sh.sh_addr + f->off } };
	const struct proto_entry *p = l->np ? bsearch(&key, l->pe, l->np, sizeof(*l->pe), cmp_proto_addr) : NULL;

	if (p && strcmp(p->sig, PROTO_SIG_UNKNOWN) != 0)
		return 0;
	return add_finding(r, CHECK_UNTYPED, &l->fs, f->sec, f->off, key.where.addr, "%s has no prototype: %s",
			   f->name, p ? "its object's DWARF does not describe it" :
			   l->np ? "its object was compiled without -g (or recorded with --no-protos)" :
				   "no " PROTO_TABLE " at all: its objects were compiled without -g "
				   "(or recorded with --no-protos)") ? 0 : -1;
}

/* The functions of the good entries, each once, whose prototype is unknown. */
static int untyped_functions(struct report *r, struct linked *l, const struct linked_state *st)
{
	bool *seen = calloc(l->fs.n ? l->fs.n : 1, sizeof(*seen));
	int rc = 0;

	if (!seen)
		return elfobj_error(r->obj, "out of memory"), -1;
	if (l->np)
		qsort(l->pe, l->np, sizeof(*l->pe), cmp_proto_addr);
	for (size_t i = 0; rc == 0 && i < st->nte; i++) {
		const struct table_entry *e = &st->te[i];
		const struct func_sym *f = e->sec && !e->zeroed && !st->drop[i] ?
					   function_at(l->fs.v, l->fs.n, e->sec, e->off) : NULL;

		if (e->patchable && e->sec && !e->zeroed && !st->drop[i])
			f = function_from(r->obj, l->fs.v, l->fs.n, e->sec, e->off);
		if (!f || seen[f - l->fs.v])
			continue;
		seen[f - l->fs.v] = true;
		rc = untyped_function(r, l, f);
	}
	free(seen);
	return rc;
}

/* A linked file with functions and no table: why, and what to do. */
static const char *no_table_why(const struct report *r)
{
	if (r->sites)
		return "no " KERNEL_TABLE " or " USER_TABLE " table: its objects were compiled with -pg but never "
		       "recorded, so none of its functions is traceable; run recordmcount --mode=user on its "
		       "objects before linking";
	return "no " KERNEL_TABLE " or " USER_TABLE " table and no call to the hook: none of its functions is "
	       "traceable; compile its objects with -pg and run recordmcount --mode=user on them before linking";
}

static void linked_free(struct linked *l, struct linked_state *st)
{
	linked_close(l);
	free(st->te);
	free(st->drop);
	free(st->spans);
	free(st->pt.covered);
}

int check_linked(struct report *r, const char *fix_target)
{
	struct elfobj *obj = r->obj;
	struct linked l = { .obj = obj };
	struct linked_state st = { 0 };
	int rc = -1;

	if (!obj->symtab) {
		elfobj_error(obj, "no symbol table (stripped): its functions cannot be told apart");
		goto out;
	}
	if (linked_open(&l, obj) < 0 || tables_read(obj, &st.te, &st.nte) < 0 ||
	    tables_spans(obj, &st.spans, &st.nspans) < 0 || protos_read(obj, &l.pe, &l.np) < 0)
		goto out;
	st.drop = calloc(st.nte ? st.nte : 1, sizeof(*st.drop));
	if (!st.drop) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	if (patchable_init(&st.pt, obj, st.te, st.nte, &l.fs) < 0) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	r->pad_table = st.pt.any;
	r->entries = st.nte;
	r->sorted = tables_sorted(obj, &st);
	if (linked_entries(r, &l, &st) < 0 || untyped_functions(r, &l, &st) < 0)
		goto out;
	if (!st.nte && l.fs.n && !add_finding(r, CHECK_NO_TABLE, &l.fs, 0, 0, 0, "%s", no_table_why(r)))
		goto out;
	rc = 0;
	if (fix_target && fix_tables(r, &l, &st, fix_target) < 0)
		snprintf(r->fix_error, sizeof(r->fix_error), "%s", obj->err);
out:
	linked_free(&l, &st);
	return rc;
}
