// SPDX-License-Identifier: GPL-2.0-only
/*
 * The prototype tables (man/mcount-tables.5): a record per function, keyed by
 * the function's address through a relocation, pointing at its name and its
 * signature in a mergeable string section so the linker keeps one copy of
 * each across objects.  Records follow their text section (SHF_LINK_ORDER,
 * same group) like user-mode site tables, so COMDAT discards and
 * --gc-sections take them along; they are not allocated.
 *
 * The compact form (PROTO_RET_TABLE) is for kernels, whose tracer prints
 * return values and finds names through kallsyms: 8 bytes per function, the
 * address self-relative and the signature reduced to the return type, so
 * that a few hundred distinct strings serve every function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "recordmcount/emit.h"
#include "elf/functions.h"
#include "dwarf/prototypes.h"
#include "recordmcount/proto_tables.h"
#include "util/hash.h"
#include "util/hashtab.h"

/* ---- a string table with each string once ---- */

struct strtab {
	uint8_t *bytes;
	size_t size, cap;
	struct hashtab index;	/* of the strings' offsets in bytes */
	bool oom;
};

static size_t string_hash(const void *ctx, uint32_t off)
{
	const struct strtab *t = ctx;

	return hash_fnv1a64((const char *)t->bytes + off);
}

/* What a probe looks for. */
struct probe {
	const struct strtab *t;
	const char *s;
};

static bool same_string(const void *ctx, uint32_t off)
{
	const struct probe *p = ctx;

	return strcmp((const char *)p->t->bytes + off, p->s) == 0;
}

/* Room for len more bytes. */
static bool strtab_room(struct strtab *t, size_t len)
{
	size_t cap = (t->size + len) * 2;
	uint8_t *b;

	if (t->size + len <= t->cap)
		return true;
	if (!(b = realloc(t->bytes, cap)))
		return false;
	t->bytes = b;
	t->cap = cap;
	return true;
}

/* The string's offset: the first copy's, or a new one at the end. */
static uint32_t strtab_add(struct strtab *t, const char *s)
{
	size_t len = strlen(s) + 1;
	uint32_t *slot;

	if (t->oom)
		return 0;
	if (!hashtab_room(&t->index, string_hash, t) || t->size + len > UINT32_MAX) {
		t->oom = true;
		return 0;
	}
	slot = hashtab_slot(&t->index, hash_fnv1a64(s), same_string, &(struct probe){ t, s });
	if (*slot)
		return *slot - 1;
	if (!strtab_room(t, len)) {
		t->oom = true;
		return 0;
	}
	memcpy(t->bytes + t->size, s, len);
	hashtab_put(&t->index, slot, (uint32_t)t->size);
	t->size += len;
	return (uint32_t)(t->size - len);
}

/* ---- which functions ---- */

/* Bytes from f to the next function of its section, or to the section's end. */
static uint64_t extent(const struct elfobj *obj, const struct func_sym *all, size_t nf, const struct func_sym *f)
{
	if (f + 1 < all + nf && f[1].sec == f->sec)
		return f[1].off - f->off;
	return obj->sec[f->sec].size > f->off ? obj->sec[f->sec].size - f->off : 0;
}

/*
 * The functions that hold a recorded site, each once, in (section, offset)
 * order, and for each how far its code may reach (its size, else up to the
 * next function: ppc64 ELFv1 descriptors say nothing of the code's size).
 */
static struct func_sym *traced_functions(struct elfobj *obj, const struct recording *rec, size_t *n,
					 uint64_t **reach)
{
	size_t nf = 0, k = 0;
	struct func_sym *all = function_index(obj, &nf);
	struct func_sym *out = calloc(rec->nsites ? rec->nsites : 1, sizeof(*out));

	*reach = calloc(rec->nsites ? rec->nsites : 1, sizeof(**reach));
	if (!all || !out || !*reach) {
		free(all);
		free(out);
		free(*reach);
		*reach = NULL;
		return NULL;
	}
	for (size_t i = 0; i < rec->nsites; i++) {
		const struct site *s = &rec->sites[i];
		const struct func_sym *f = s->patchable ? function_from(obj, all, nf, s->sec, s->off) :
				     function_at(all, nf, s->sec, s->off);

		if (f && (!k || out[k - 1].sec != f->sec || out[k - 1].off != f->off)) {
			(*reach)[k] = f->size ? f->size : extent(obj, all, nf, f);
			out[k++] = *f;
		}
	}
	free(all);
	*n = k;
	return out;
}

/* ---- signatures ---- */

static char *append(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n + 1);
	return p + n;
}

static char *signature(const struct func_proto *fp, enum proto_form form)
{
	size_t len = 16 + (fp ? strlen(fp->ret) : 32);
	char flags[4], *s, *p;
	unsigned fl;

	for (size_t i = 0; fp && i < fp->nparams; i++)
		len += strlen(fp->params[i].name) + strlen(fp->params[i].type) + 2;
	s = p = malloc(len);
	if (!s)
		return NULL;
	if (!fp)	/* no DWARF for this function: unknown, never guessed */
		return strcpy(s, PROTO_SIG_UNKNOWN);
	/* without its parameters, whether a function takes more is nothing to print */
	fl = form == PROTOS_COMPACT ? (fp->flags & ~(unsigned)PROTO_VARARGS) | PROTO_RET_ONLY : fp->flags;
	snprintf(flags, sizeof(flags), "%u", fl & 0x1f);
	p = append(p, PROTO_VERSION PROTO_US);
	p = append(p, flags);
	p = append(p, PROTO_RS);
	p = append(p, fp->ret);
	for (size_t i = 0; form == PROTOS_FULL && i < fp->nparams; i++) {
		p = append(p, PROTO_RS);
		p = append(p, fp->params[i].name);
		p = append(p, PROTO_US);
		p = append(p, fp->params[i].type);
	}
	return s;
}

/* ---- emission ---- */

struct plan {
	enum proto_form form;
	struct func_sym *funcs;
	size_t n;
	struct proto_set protos;
	const struct func_proto **by_func;	/* protos matched to funcs, NULL = unknown */
	uint32_t *name_off, *sig_off;
	struct strtab strings;
};

static void plan_free(struct plan *p)
{
	free(p->funcs);
	protos_free(&p->protos);
	free(p->by_func);
	free(p->name_off);
	free(p->sig_off);
	free(p->strings.bytes);
	hashtab_free(&p->strings.index);
}

static int plan_strings(struct elfobj *obj, struct plan *p)
{
	p->by_func = calloc(p->n, sizeof(*p->by_func));
	p->name_off = calloc(p->n, sizeof(*p->name_off));
	p->sig_off = calloc(p->n, sizeof(*p->sig_off));
	if (!p->by_func || !p->name_off || !p->sig_off)
		return elfobj_error(obj, "out of memory"), -1;
	/* protos come back in query order, a subset of the functions */
	for (size_t i = 0, j = 0; i < p->n && j < p->protos.n; i++)
		if (p->protos.v[j].sec == p->funcs[i].sec && p->protos.v[j].off == p->funcs[i].off)
			p->by_func[i] = &p->protos.v[j++];
	for (size_t i = 0; i < p->n; i++) {
		char *sig = signature(p->by_func[i], p->form);

		if (!sig)
			return elfobj_error(obj, "out of memory"), -1;
		if (p->form == PROTOS_FULL)
			p->name_off[i] = strtab_add(&p->strings, p->by_func[i] ? p->by_func[i]->name :
							      p->funcs[i].name);
		p->sig_off[i] = strtab_add(&p->strings, sig);
		free(sig);
	}
	return p->strings.oom ? (elfobj_error(obj, "out of memory"), -1) : 0;
}

/* The full form: {address, size, name, signature}; the compact one: {address - here, signature}. */
static int emit_records(struct elfobj *obj, struct plan *p, const struct entry_base *fbase,
			struct entry_base strbase, size_t from, size_t to)
{
	bool compact = p->form == PROTOS_COMPACT;
	unsigned ptr = obj->is64 ? 8 : 4, recsize = compact ? PROTO_RET_RECORD : ptr + 12;
	const char *name = compact ? PROTO_RET_TABLE : PROTO_TABLE;
	size_t n = to - from;
	uint8_t *bytes = calloc(n ? n : 1, recsize);
	struct field *f = calloc(3 * n + 1, sizeof(*f));
	GElf_Shdr sh = { .sh_type = SHT_PROGBITS, .sh_addralign = 4, .sh_entsize = recsize };
	char relname[32];
	size_t k = 0;

	if (!bytes || !f) {
		free(bytes);
		free(f);
		return elfobj_error(obj, "out of memory"), -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t at = i * recsize, fi = from + i;
		struct entry_base sig = { strbase.sym, strbase.addend + p->sig_off[fi] };

		if (compact) {
			f[k++] = (struct field){ at, 4, obj->arch->reloc_rel32, fbase[fi] };
			f[k++] = (struct field){ at + 4, 4, obj->arch->reloc_abs32, sig };
			continue;
		}
		struct entry_base fname = { strbase.sym, strbase.addend + p->name_off[fi] };
		uint64_t size = p->funcs[fi].size > UINT32_MAX ? 0 : p->funcs[fi].size;

		f[k++] = (struct field){ at, (uint8_t)ptr, obj->arch->reloc_abs, fbase[fi] };
		elfobj_write_word(obj, bytes + at + ptr, 4, size);
		f[k++] = (struct field){ at + ptr + 4, 4, obj->arch->reloc_abs32, fname };
		f[k++] = (struct field){ at + ptr + 8, 4, obj->arch->reloc_abs32, sig };
	}
	snprintf(relname, sizeof(relname), "%s%s", obj->uses_rela ? ".rela" : ".rel", name);
	size_t idx = emit_relocated_section(obj, name, relname, &sh, bytes, n * recsize, f, k,
					    p->funcs[from].sec);
	free(f);
	return idx ? 0 : -1;
}

static int emit_plan(struct elfobj *obj, struct plan *p)
{
	GElf_Shdr sh = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_MERGE | SHF_STRINGS,
			 .sh_addralign = 1, .sh_entsize = 1 };
	struct site *locs = calloc(p->n, sizeof(*locs));
	struct entry_base *fbase = calloc(p->n, sizeof(*fbase)), strbase;
	size_t stridx;
	int rc = -1;

	if (!locs || !fbase) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	stridx = elfobj_add_section(obj, PROTO_STRINGS, &sh, p->strings.bytes, p->strings.size);
	if (!stridx)
		goto out;
	p->strings.bytes = NULL;	/* the section owns it now */
	for (size_t i = 0; i < p->n; i++)
		locs[i] = (struct site){ .sec = p->funcs[i].sec, .off = p->funcs[i].off };
	if (choose_bases(obj, locs, p->n, true, fbase) < 0 ||
	    choose_bases(obj, &(struct site){ .sec = (uint32_t)stridx }, 1, false, &strbase) < 0)
		goto out;
	for (size_t from = 0, to; from < p->n; from = to) {
		for (to = from + 1; to < p->n && p->funcs[to].sec == p->funcs[from].sec; to++)
			;
		if (emit_records(obj, p, fbase, strbase, from, to) < 0)
			goto out;
	}
	rc = 0;
out:
	free(locs);
	free(fbase);
	return rc;
}

int emit_protos(struct elfobj *obj, const struct recording *rec, enum proto_form form)
{
	struct plan p = { .form = form };
	struct func_query *q = NULL;
	uint64_t *reach = NULL;
	int rc = -1;

	if (!rec->nsites || form == PROTOS_NONE)
		return 0;
	p.funcs = traced_functions(obj, rec, &p.n, &reach);
	if (!p.funcs)
		return elfobj_error(obj, "out of memory"), -1;
	if (!p.n) {
		rc = 0;
		goto out;
	}
	q = calloc(p.n, sizeof(*q));
	if (!q) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < p.n; i++)
		q[i] = (struct func_query){ p.funcs[i].sec, p.funcs[i].off, p.funcs[i].name, reach[i] };
	if (protos_from_dwarf(obj, q, p.n, &p.protos) < 0)
		goto out;
	for (size_t i = 0; i < p.protos.nwarnings; i++)
		fprintf(stderr, "recordmcount: %s: warning: %s\n", obj->path, p.protos.warnings[i]);
	if (!p.protos.has_dwarf) {
		rc = 0;
		goto out;
	}
	if (plan_strings(obj, &p) < 0 || emit_plan(obj, &p) < 0)
		goto out;
	rc = 0;
out:
	free(q);
	free(reach);
	plan_free(&p);
	return rc;
}
