// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdlib.h>
#include <string.h>
#include "elf/functions.h"

static int cmp_func(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->rank - y->rank;
}

static int symbol_rank(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/*
 * Where function symbols name descriptors (ppc64 ELFv1 .opd), whose first
 * word is relocated to the code the sites and the DWARF know: the
 * descriptor section's relocations, sorted by offset, or NULL.
 */
static const struct section *descriptor_relocs(struct elfobj *obj)
{
	if (!obj->arch->func_descriptors)
		return NULL;
	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *rs = &obj->sec[i];

		if (!rs->rela_for || strcmp(obj->sec[rs->rela_for].name, obj->arch->func_descriptors) != 0 ||
		    elfobj_parse_relocs(obj, i) < 0)
			continue;
		for (size_t j = 1; j < rs->nrelocs; j++)
			if (rs->relocs[j - 1].offset >= rs->relocs[j].offset)
				return NULL;	/* not as assemblers write it */
		return rs;
	}
	return NULL;
}

/* The code a descriptor at `value` points to. */
static bool descriptor_entry(const struct elfobj *obj, const struct section *rs, uint64_t value,
		      uint32_t *sec, uint64_t *off)
{
	size_t lo = 0, hi = rs->nrelocs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rs->relocs[mid].offset < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == rs->nrelocs || rs->relocs[lo].offset != value ||
	    rs->relocs[lo].type != obj->arch->reloc_abs || rs->relocs[lo].sym >= obj->nsym)
		return false;
	const struct symbol *t = &obj->sym[rs->relocs[lo].sym];

	if (!t->shndx || t->shndx >= obj->nsec)
		return false;
	*sec = t->shndx;
	*off = t->s.st_value + (uint64_t)rs->relocs[lo].addend;
	return true;
}

/*
 * Linked files have no relocations for the descriptors: their first word
 * holds the code's address.  gcc's .size of such a symbol is the code's.
 */
static bool linked_descriptor_entry(const struct elfobj *obj, uint32_t dsec, uint64_t value,
				    uint32_t *sec, uint64_t *off)
{
	const struct section *d = &obj->sec[dsec];
	unsigned ptr = obj->is64 ? 8 : 4;
	uint64_t addr;

	if (d->sh.sh_type == SHT_NOBITS || value > d->size || d->size - value < ptr)
		return false;
	addr = elfobj_read_word(obj, d->bytes + value, ptr);
	for (size_t i = 1; i < obj->nsec; i++) {
		const GElf_Shdr *sh = &obj->sec[i].sh;

		if ((sh->sh_flags & SHF_EXECINSTR) && addr >= sh->sh_addr && addr - sh->sh_addr < sh->sh_size) {
			*sec = (uint32_t)i;
			*off = addr - sh->sh_addr;
			return true;
		}
	}
	return false;
}

/* Defined function symbols, one per address, sorted by (section, offset). */
struct func_sym *function_index(struct elfobj *obj, size_t *n)
{
	struct func_sym *f = malloc((obj->nsym ? obj->nsym : 1) * sizeof(*f));
	const struct section *opd = descriptor_relocs(obj);
	size_t k = 0;

	if (!f)
		return NULL;
	for (size_t i = 1; i < obj->nsym; i++) {
		const struct symbol *s = &obj->sym[i];
		int type = GELF_ST_TYPE(s->s.st_info);
		uint32_t sec = s->shndx;
		uint64_t value = s->s.st_value, size = s->s.st_size;

		/* linked files: symbols hold addresses, places are section offsets */
		if (obj->ehdr.e_type != ET_REL && sec && sec < obj->nsec)
			value -= obj->sec[sec].sh.sh_addr;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sec || sec >= obj->nsec)
			continue;
		if (obj->arch->func_symbol_mask)	/* ARM's Thumb bit */
			value &= obj->arch->func_symbol_mask;
		/* A descriptor's size is not the code's: unknown. */
		if (opd && opd->rela_for == sec && !descriptor_entry(obj, opd, value, &sec, &value))
			continue;
		if (opd && sec != s->shndx)
			size = 0;
		if (obj->arch->func_descriptors && obj->ehdr.e_type != ET_REL &&
		    strcmp(obj->sec[sec].name, obj->arch->func_descriptors) == 0 &&
		    !linked_descriptor_entry(obj, sec, value, &sec, &value))
			continue;
		f[k++] = (struct func_sym){ sec, value, size, s->name, symbol_rank(&s->s) };
	}
	qsort(f, k, sizeof(*f), cmp_func);
	size_t u = 0;

	for (size_t i = 0; i < k; i++)
		if (!u || f[u - 1].sec != f[i].sec || f[u - 1].off != f[i].off)
			f[u++] = f[i];
	*n = u;
	return f;
}

const struct func_sym *function_before(const struct func_sym *f, size_t n, uint32_t sec, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f[mid].sec < sec || (f[mid].sec == sec && f[mid].off <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && f[lo - 1].sec == sec ? &f[lo - 1] : NULL;
}

const struct func_sym *function_at(const struct func_sym *f, size_t n, uint32_t sec, uint64_t off)
{
	const struct func_sym *c = function_before(f, n, sec, off);

	return c && (!c->size || off < c->off + c->size) ? c : NULL;
}


const struct func_sym *function_from(const struct elfobj *obj, const struct func_sym *f, size_t n, uint32_t sec,
				     uint64_t off)
{
	const struct func_sym *c = function_before(f, n, sec, off);
	const struct func_sym *next = c ? c + 1 : f;

	/* At its start, or after the landing pad it starts with (endbr64, bti c). */
	if (c && off - c->off == function_landing_pad(obj, sec, c->off))
		return c;
	/*
	 * Inside another function's body: not the pad before a function.  A
	 * size of 0 says nothing (crtbegin's frame_dummy, ppc64 ELFv1
	 * descriptors): a function starting within a pad's reach decides.
	 */
	if (c && c->size && off < c->off + c->size)
		return NULL;
	if (c && !c->size && !(c + 1 < f + n && c[1].sec == sec && c[1].off - off <= PAD_REACH))
		return NULL;
	if (!c)	/* before the section's first function: find it */
		for (next = f; next < f + n && (next->sec < sec || (next->sec == sec && next->off <= off)); next++)
			;
	return next < f + n && next->sec == sec ? next : NULL;
}

size_t function_landing_pad(const struct elfobj *obj, uint32_t sec, uint64_t off)
{
	const struct section *s = &obj->sec[sec];

	if (s->sh.sh_type == SHT_NOBITS || off >= s->size)
		return 0;
	return arch_landing_pad_len(obj->arch, s->bytes + off, s->size - off, obj->code_big_endian);
}
