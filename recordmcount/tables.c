// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "record.h"
#include "tables.h"

struct entries {
	struct table_entry *v;
	size_t n, cap;
};

static int push(struct elfobj *obj, struct entries *e, struct table_entry t)
{
	if (e->n == e->cap) {
		size_t cap = e->cap * 2 + 64;
		struct table_entry *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return elfobj_error(obj, "out of memory"), -1;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = t;
	return 0;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
	unsigned shift = 64 - 8 * bytes;

	return bytes >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

static int read_object_table(struct elfobj *obj, size_t t, size_t ri, bool user, struct entries *e)
{
	const struct section *tab = &obj->sec[t];
	unsigned entsize = user ? 4 : (obj->is64 ? 8 : 4);
	const struct section *rs;

	if (!ri)
		return elfobj_error(obj, "%s has no relocations", tab->name), -1;
	if (elfobj_parse_relocs(obj, ri) < 0)
		return -1;
	rs = &obj->sec[ri];
	for (size_t i = 0; i < rs->nrelocs; i++) {
		const struct reloc *r = &rs->relocs[i];
		const struct symbol *sym = &obj->sym[r->sym];
		int64_t addend = r->addend;

		if (r->type == obj->arch->reloc_none)
			continue;
		if (r->offset + entsize > tab->size || r->offset % entsize)
			return elfobj_error(obj, "%s: relocation at 0x%llx outside its entries", tab->name,
					    (unsigned long long)r->offset), -1;
		/*
		 * SH's word holds our addend, its r_addend the kernel tool's:
		 * the sum reads both (REL's r_addend is 0).
		 */
		if (rs->sh.sh_type == SHT_REL || obj->arch->addend_in_place)
			addend += sign_extend(elfobj_read_word(obj, tab->bytes + r->offset, entsize), entsize);
		if (push(obj, e, (struct table_entry){ .sec = sym->shndx < obj->nsec ? sym->shndx : 0,
						    .off = sym->s.st_value + (uint64_t)addend,
						    .user = user }) < 0)
			return -1;
	}
	return 0;
}

static uint32_t section_at(const struct elfobj *obj, uint64_t addr)
{
	for (size_t i = 1; i < obj->nsec; i++) {
		const GElf_Shdr *sh = &obj->sec[i].sh;

		if ((sh->sh_flags & SHF_EXECINSTR) && addr >= sh->sh_addr && addr < sh->sh_addr + sh->sh_size)
			return (uint32_t)i;
	}
	return 0;
}

static int read_linked_table(struct elfobj *obj, size_t t, bool user, struct entries *e)
{
	const struct section *tab = &obj->sec[t];
	unsigned entsize = user ? 4 : (obj->is64 ? 8 : 4);

	if (tab->sh.sh_type == SHT_NOBITS || tab->size % entsize)
		return elfobj_error(obj, "%s: size %zu is not a multiple of %u", tab->name, tab->size,
				    entsize), -1;
	for (size_t i = 0; i < tab->size / entsize; i++) {
		uint64_t w = elfobj_read_word(obj, tab->bytes + i * entsize, entsize);
		uint64_t addr = user ? tab->sh.sh_addr + i * entsize + (uint64_t)sign_extend(w, 4) : w;
		uint32_t sec = section_at(obj, addr);

		if (push(obj, e, (struct table_entry){ .sec = sec, .addr = addr, .user = user,
						    .off = sec ? addr - obj->sec[sec].sh.sh_addr : 0 }) < 0)
			return -1;
	}
	return 0;
}

int tables_read(struct elfobj *obj, struct table_entry **out, size_t *n)
{
	struct entries e = { 0 };
	/* User mode has a table per function: find their relocations in one pass. */
	uint32_t *relocs_of = calloc(obj->nsec, sizeof(*relocs_of));

	if (!relocs_of)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].rela_for)
			relocs_of[obj->sec[i].rela_for] = (uint32_t)i;
	for (size_t i = 1; i < obj->nsec; i++) {
		const char *name = obj->sec[i].name;
		bool user = strcmp(name, USER_TABLE) == 0;
		int rc;

		if (!user && strcmp(name, KERNEL_TABLE) != 0)
			continue;
		if (obj->ehdr.e_type == ET_REL)
			rc = read_object_table(obj, i, relocs_of[i], user, &e);
		else
			rc = read_linked_table(obj, i, user, &e);
		if (rc < 0) {
			free(e.v);
			free(relocs_of);
			return -1;
		}
	}
	free(relocs_of);
	*out = e.v;
	*n = e.n;
	return 0;
}
