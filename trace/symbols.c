// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A module's sites and functions, as the trace names its addresses
 * (trace/symbols.h): read with the recorder's own table reader, link-time
 * addresses plus the load bias being the run-time ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elf/functions.h"
#include "trace/symbols.h"
#include "util/array.h"

/* ---- sites ---- */

/* The function symbols, for compiler-made tables only (others need none). */
static struct func_sym *compiler_table_functions(struct elfobj *obj, const struct table_entry *te, size_t nt,
						 size_t *nf)
{
	bool any = false;

	*nf = 0;
	for (size_t i = 0; i < nt && !any; i++)
		any = !te[i].user;
	if (!any || elfobj_load_symbols(obj) < 0)
		return NULL;
	return function_index(obj, nf);
}

/*
 * A pad in a stripped program: no symbol says where its function starts,
 * so the pad is taken to start it, as -fpatchable-function-entry=N puts it
 * (after a landing pad).  N,M with M > 0 puts M NOPs before the function:
 * a site there is never reached, so the function is not traced, but
 * nothing breaks; MIPS, whose gcc puts every NOP before, is left alone.
 */
static bool stripped_pad_site(const struct elfobj *obj, struct table_entry *te, unsigned pad_site_offset)
{
	uint64_t at = te->off + function_landing_pad(obj, te->sec, te->off) + pad_site_offset;

	if (obj->sec[te->sec].sh.sh_type == SHT_NOBITS)
		return false;
	te->entry = true;
	te->addr += at - te->off;
	te->off = at;
	return true;
}

/*
 * An entry of a table the compiler wrote (gcc's -mrecord-mcount
 * __mcount_loc, a -fpatchable-function-entry pad) names a place, not a
 * hook: the function it belongs to says where the site is and which kind.
 * A __mcount_loc site at its function's entry (after an endbr) calls an
 * entry hook; a pad's site is its function's entry, where a call leaves
 * the traced function's return address on top of the stack.  False when
 * no function fits (the entry is left alone).
 */
static bool compiler_site(const struct elfobj *obj, const struct func_sym *fs, size_t nf, struct table_entry *te,
			  unsigned pad_site_offset)
{
	const struct func_sym *f = te->patchable ? function_from(obj, fs, nf, te->sec, te->off) :
			     function_at(fs, nf, te->sec, te->off);
	uint64_t entry;

	if (!f && te->patchable && !nf && !obj->arch->pad_all_before)
		return stripped_pad_site(obj, te, pad_site_offset);
	if (!f || obj->sec[f->sec].sh.sh_type == SHT_NOBITS)
		return false;
	entry = f->off + function_landing_pad(obj, f->sec, f->off);
	te->entry = te->patchable || te->off == entry || te->off == f->off;
	if (te->patchable) {
		te->addr += entry + pad_site_offset - te->off;
		te->off = entry + pad_site_offset;
	}
	return true;
}

int sym_read_sites(struct elfobj *obj, unsigned pad_site_len, unsigned pad_site_offset,
		   struct table_entry **te, size_t *nt, size_t *bad, size_t *pads)
{
	struct func_sym *fs;
	size_t nf;

	*bad = *pads = 0;
	if (tables_read(obj, te, nt) < 0)
		return -1;
	fs = compiler_table_functions(obj, *te, *nt, &nf);
	for (size_t i = 0; i < *nt; i++) {
		struct table_entry *e = &(*te)[i];

		if (!e->addr || e->user)
			continue;
		if (e->patchable && !pad_site_len)
			++*pads, e->addr = 0;
		else if (!compiler_site(obj, fs, nf, e, pad_site_offset))
			++*bad, e->addr = 0;
	}
	free(fs);
	return 0;
}

/* ---- functions ---- */

/* Merges the sorted runs a[lo..mid) and a[mid..hi) into out[lo..hi), stably. */
static void merge_funcs(const struct sym_func *a, struct sym_func *out, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid || j < hi)
		out[k++] = j >= hi || (i < mid && a[i].addr <= a[j].addr) ? a[i++] : a[j++];
}

/*
 * Sorts by address, stably: the first np functions are the prototype
 * table's, the rest the symbol table's, so on equal addresses the prototype
 * comes first.  Both are mostly in address order already (a linker keeps
 * each object's table in order and places its sections one after another;
 * function_index() sorts), so this is a natural merge sort: it merges the
 * ascending runs that are there, a handful, instead of sorting 20,000
 * functions from scratch through a comparison callback.
 */
static int sort_functions(struct sym_table *t)
{
	size_t n = t->nfuncs, nruns = 0, *runs;
	struct sym_func *a = t->funcs, *b;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || a[i].addr < a[i - 1].addr)
			nruns++;
	if (nruns <= 1)
		return 0;
	runs = malloc((nruns + 1) * sizeof(*runs));
	b = malloc(t->cap * sizeof(*b));
	if (!runs || !b) {
		free(runs);
		free(b);
		return -1;
	}
	nruns = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || a[i].addr < a[i - 1].addr)
			runs[nruns++] = i;
	runs[nruns] = n;
	/* Pairs of neighbouring runs, until one is left: stable, log2(runs) passes. */
	while (nruns > 1) {
		struct sym_func *tmp;
		size_t k = 0;

		for (size_t r = 0; r < nruns; r += 2) {
			size_t hi = r + 2 <= nruns ? runs[r + 2] : n;

			merge_funcs(a, b, runs[r], r + 1 < nruns ? runs[r + 1] : hi, hi);
			runs[k++] = runs[r];
		}
		runs[k] = n;
		nruns = k;
		tmp = a;
		a = b;
		b = tmp;
	}
	free(runs);
	free(b);
	t->funcs = a;
	return 0;
}

/*
 * Functions by address: the prototype table's (with names and signatures),
 * then the symbol table's for the rest.  Their strings stay in the mapped
 * file.
 */
int sym_load(struct sym_table *t, struct elfobj *obj, uint64_t bias)
{
	struct proto_entry *pe = NULL;
	struct func_sym *fs;
	size_t np = 0, nf = 0;

	if (elfobj_load_symbols(obj) < 0 || protos_read(obj, &pe, &np) < 0)
		return -1;
	fs = function_index(obj, &nf);
	t->funcs = malloc((np + nf + 1) * sizeof(*t->funcs));
	if (!t->funcs) {
		free(pe);
		free(fs);
		return -1;
	}
	t->cap = np + nf + 1;
	for (size_t i = 0; i < np; i++)
		t->funcs[t->nfuncs++] = (struct sym_func){ .addr = pe[i].where.addr + bias, .size = pe[i].size,
							   .name = pe[i].name, .sigtext = pe[i].sig };
	for (size_t i = 0; i < nf; i++) {
		const struct func_sym *f = &fs[i];

		if (!f->sec || f->sec >= obj->nsec)
			continue;
		t->funcs[t->nfuncs++] = (struct sym_func){
			.addr = obj->sec[f->sec].sh.sh_addr + f->off + bias, .size = f->size, .name = f->name };
	}
	free(pe);
	free(fs);
	if (sort_functions(t) < 0) {
		sym_free(t);
		return -1;
	}
	t->sorted = t->nfuncs;
	return 0;
}

void sym_free(struct sym_table *t)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (t->funcs[i].sig) {
			sig_free(t->funcs[i].sig);
			free(t->funcs[i].sig);
		}
	for (size_t i = 0; i < t->nmade; i++)
		free(t->made_names[i]);
	free(t->made_names);
	free(t->funcs);
	*t = (struct sym_table){ 0 };
}

/*
 * The function holding `addr`, searching funcs[from..n) (sorted; the caller
 * knows none after n starts at or before addr), or SIZE_MAX.
 */
static size_t func_index_at(const struct sym_table *t, size_t from, size_t n, uint64_t addr)
{
	size_t lo = from, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == from)
		return SIZE_MAX;
	/* Several entries at one address: prefer the first (the prototype's). */
	lo--;
	while (lo && t->funcs[lo - 1].addr == t->funcs[lo].addr)
		lo--;
	/* Past its end: code no symbol describes. */
	for (size_t i = lo; i < n && t->funcs[i].addr == t->funcs[lo].addr; i++)
		if (!t->funcs[i].size || addr < t->funcs[i].addr + t->funcs[i].size)
			return lo;
	return SIZE_MAX;
}

/* A function of its own for a site no symbol describes, named by its address. */
static size_t name_site(struct sym_table *t, uint64_t addr)
{
	char buf[32], *name, **names;

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	name = strdup(buf);
	names = realloc(t->made_names, (t->nmade + 1) * sizeof(*names));
	if (!name || !names || !grow_array(&t->funcs, t->nfuncs, &t->cap, sizeof(*t->funcs))) {
		free(name);
		if (names)
			t->made_names = names;
		return SIZE_MAX;
	}
	t->made_names = names;
	t->made_names[t->nmade++] = name;
	t->funcs[t->nfuncs] = (struct sym_func){ .addr = addr, .name = name };
	return t->nfuncs++;
}

/* Sites and functions are both in address order: one walk over both. */
size_t sym_site_function(struct sym_table *t, struct sym_walk *w, uint64_t addr)
{
	size_t fi;

	while (w->at + 1 < t->sorted && t->funcs[w->at + 1].addr <= addr)
		w->at++;
	fi = func_index_at(t, w->at, t->sorted ? w->at + 1 : 0, addr);
	return fi != SIZE_MAX ? fi : name_site(t, addr);
}

const struct signature *sym_func_sig(struct sym_func *f)
{
	if (!f->parsed) {
		f->parsed = true;
		if (f->sigtext && (f->sig = malloc(sizeof(*f->sig))) && sig_parse(f->sigtext, f->sig) < 0) {
			free(f->sig);
			f->sig = NULL;
		}
	}
	return f->sig;
}
