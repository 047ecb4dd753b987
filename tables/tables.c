// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>
#include "elf/functions.h"
#include "tables/tables.h"
#include "util/array.h"

struct entries {
	struct table_entry *v;
	size_t n, cap;
};

static int push(struct elfobj *obj, struct entries *e, struct table_entry t)
{
	if (!grow_array(&e->v, e->n, &e->cap, sizeof(*e->v)))
		return elfobj_error(obj, "out of memory"), -1;
	e->v[e->n++] = t;
	return 0;
}

static int64_t sign_extend(uint64_t v, unsigned bytes)
{
	unsigned shift = 64 - 8 * bytes;

	return bytes >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

/* Is `name` a site table, and which kind: false for any other section. */
static bool table_kind(const char *name, struct table_entry *kind)
{
	*kind = (struct table_entry){ .entry = strcmp(name, ENTRY_TABLE) == 0,
				      .patchable = strcmp(name, PATCHABLE_TABLE) == 0 };
	kind->user = kind->entry || strcmp(name, USER_TABLE) == 0;
	return kind->user || kind->patchable || strcmp(name, KERNEL_TABLE) == 0;
}

/* `kind`: the flags every entry of this table gets. */
static int read_object_table(struct elfobj *obj, size_t t, size_t ri, struct table_entry kind,
			     struct entries *e)
{
	const struct section *tab = &obj->sec[t];
	unsigned entsize = kind.user ? 4 : (obj->is64 ? 8 : 4);
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
		kind.sec = sym->shndx < obj->nsec ? sym->shndx : 0;
		kind.off = sym->s.st_value + (uint64_t)addend;
		if (!obj->is64)	/* a 32-bit linker's sum wraps */
			kind.off = (uint32_t)kind.off;
		if (push(obj, e, kind) < 0)
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

/* A dynamic relocation's place and addend. */
struct relative {
	uint64_t at;
	int64_t addend;
};

static int cmp_relative(const void *a, const void *b)
{
	uint64_t x = ((const struct relative *)a)->at, y = ((const struct relative *)b)->at;

	return x < y ? -1 : x > y;
}

/*
 * The RELATIVE relocations of a PIE or shared object's dynamic RELA
 * sections that fall in [lo, hi), sorted: the absolute words there hold
 * base + addend at run time.  ld.bfd writes the addend into the word too,
 * lld leaves it 0.  Returns how many (0 also when there is nothing to
 * read), -1 on error.
 */
static ssize_t relatives_in(struct elfobj *obj, uint64_t lo, uint64_t hi, struct relative **out)
{
	uint32_t type = obj->arch ? obj->arch->reloc_relative : 0;
	struct relative *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	/* (MIPS64's r_info is not gelf's; its dynamic relocations are REL anyway.) */
	if (!type || obj->ehdr.e_type != ET_DYN || obj->arch->rinfo_decode)
		return 0;
	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *s = &obj->sec[i];
		Elf_Data *d;
		GElf_Rela r;

		/* Dynamic relocations name .dynsym, not .symtab: read here, not by elfobj_parse_relocs. */
		if (s->sh.sh_type != SHT_RELA || !(s->sh.sh_flags & SHF_ALLOC) || !s->scn ||
		    !(d = elf_getdata(s->scn, NULL)))
			continue;
		for (int k = 0; gelf_getrela(d, k, &r); k++) {
			if (GELF_R_TYPE(r.r_info) != type || r.r_offset < lo || r.r_offset >= hi)
				continue;
			if (!grow_array(&v, n + 1, &cap, sizeof(*v)))
				return free(v), elfobj_error(obj, "out of memory"), -1;
			v[n++] = (struct relative){ r.r_offset, r.r_addend };
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_relative);
	*out = v;
	return (ssize_t)n;
}

static uint64_t relative_at(const struct relative *v, size_t n, uint64_t at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].at == at ? (uint64_t)v[lo].addend : 0;
}

static int read_linked_span(struct elfobj *obj, const struct table_span *span, struct entries *e)
{
	struct relative *rel = NULL;
	ssize_t nrel = 0;
	const struct section *tab = &obj->sec[span->sec];
	struct table_entry kind = { .user = span->user, .entry = span->entry, .patchable = span->patchable };
	unsigned entsize = span->user ? 4 : (obj->is64 ? 8 : 4);
	uint64_t base = tab->sh.sh_addr + span->from, size = span->to - span->from;
	uint32_t sec = 0;

	if (tab->sh.sh_type == SHT_NOBITS || span->to > tab->size || size % entsize)
		return elfobj_error(obj, "%s: size %llu is not a multiple of %u", tab->name,
				    (unsigned long long)size, entsize), -1;
	/* The count is known: one allocation instead of a doubling chain. */
	if (e->n + size / entsize > e->cap) {
		struct table_entry *v = realloc(e->v, (e->n + size / entsize) * sizeof(*v));

		if (!v)
			return elfobj_error(obj, "out of memory"), -1;
		e->v = v;
		e->cap = e->n + size / entsize;
	}
	/* Self-relative tables need no dynamic relocation; absolute ones in a PIE do. */
	if (!span->user && (nrel = relatives_in(obj, base, base + size, &rel)) < 0)
		return -1;
	for (uint64_t i = 0; i < size / entsize; i++) {
		uint64_t w = elfobj_read_word(obj, tab->bytes + span->from + i * entsize, entsize);
		uint64_t addr;
		const GElf_Shdr *last = &obj->sec[sec].sh;

		if (!w && nrel)
			w = relative_at(rel, (size_t)nrel, base + i * entsize);
		addr = span->user ? base + i * entsize + (uint64_t)sign_extend(w, 4) : w;

		/* A self-relative 0 would point at the table itself, never at code. */
		kind.zeroed = w == 0;
		if (kind.zeroed)
			addr = 0;
		/* Entries come in address order: most fall in the previous one's section. */
		else if (!sec || addr < last->sh_addr || addr >= last->sh_addr + last->sh_size)
			sec = section_at(obj, addr);
		kind.sec = kind.zeroed ? 0 : sec;
		kind.addr = addr;
		kind.off = kind.sec ? addr - obj->sec[sec].sh.sh_addr : 0;
		if (push(obj, e, kind) < 0)
			return free(rel), -1;
	}
	free(rel);
	return 0;
}

static const struct symbol *find_symbol(const struct elfobj *obj, const char *name)
{
	for (size_t i = 1; i < obj->nsym; i++)
		if (obj->sym[i].shndx && strcmp(obj->sym[i].name, name) == 0)
			return &obj->sym[i];
	return NULL;
}

/*
 * A kernel image has no __mcount_loc section: its linker script gathers the
 * objects' tables between two symbols inside another section.
 */
static int symbol_span(struct elfobj *obj, struct table_span *span)
{
	const struct symbol *start = find_symbol(obj, KERNEL_TABLE_START);
	const struct symbol *stop = find_symbol(obj, KERNEL_TABLE_STOP);
	uint64_t from, to;

	if (!start || !stop)
		return 0;
	from = start->s.st_value;
	to = stop->s.st_value;
	if (from == to)
		return 0;	/* no object had a table: the linker may have placed nothing there */
	for (size_t i = 1; i < obj->nsec; i++) {
		const GElf_Shdr *sh = &obj->sec[i].sh;

		if (sh->sh_type == SHT_NOBITS || !(sh->sh_flags & SHF_ALLOC) || from < sh->sh_addr ||
		    to > sh->sh_addr + obj->sec[i].size || from > to)
			continue;
		*span = (struct table_span){ .sec = (uint32_t)i, .from = from - sh->sh_addr,
					     .to = to - sh->sh_addr };
		return 1;
	}
	return elfobj_error(obj, "%s..%s (0x%llx..0x%llx) is not inside one section", KERNEL_TABLE_START,
			    KERNEL_TABLE_STOP, (unsigned long long)from, (unsigned long long)to), -1;
}

int tables_spans(struct elfobj *obj, struct table_span **out, size_t *n)
{
	struct table_span *v = NULL, sym;
	size_t k = 0, cap = 0;
	bool kernel = false;
	int rc;

	*out = NULL;
	*n = 0;
	if (obj->ehdr.e_type == ET_REL)
		return 0;
	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *s = &obj->sec[i];
		struct table_entry kind;

		if (!table_kind(s->name, &kind))
			continue;
		kernel |= !kind.user && !kind.patchable;
		if (!grow_array(&v, k, &cap, sizeof(*v)))
			return free(v), elfobj_error(obj, "out of memory"), -1;
		v[k++] = (struct table_span){ .sec = (uint32_t)i, .to = s->size, .user = kind.user,
					      .entry = kind.entry, .patchable = kind.patchable };
	}
	rc = kernel || obj->symbols_deferred ? 0 : symbol_span(obj, &sym);
	if (rc < 0 || (rc > 0 && !grow_array(&v, k, &cap, sizeof(*v)))) {
		if (rc > 0)
			elfobj_error(obj, "out of memory");
		free(v);
		return -1;
	}
	if (rc > 0)
		v[k++] = sym;
	*out = v;
	*n = k;
	return 0;
}

/* Tables come one per function: find every section's relocations in one pass. */
static uint32_t *relocation_sections(struct elfobj *obj)
{
	uint32_t *relocs_of = calloc(obj->nsec, sizeof(*relocs_of));

	if (!relocs_of)
		return elfobj_error(obj, "out of memory"), NULL;
	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].rela_for)
			relocs_of[obj->sec[i].rela_for] = (uint32_t)i;
	return relocs_of;
}

static int read_linked_tables(struct elfobj *obj, struct table_entry **out, size_t *n)
{
	struct entries e = { 0 };
	struct table_span *spans;
	size_t nspans;

	if (tables_spans(obj, &spans, &nspans) < 0)
		return -1;
	for (size_t i = 0; i < nspans; i++) {
		if (read_linked_span(obj, &spans[i], &e) < 0) {
			free(e.v);
			free(spans);
			return -1;
		}
	}
	free(spans);
	*out = e.v;
	*n = e.n;
	return 0;
}

int tables_read(struct elfobj *obj, struct table_entry **out, size_t *n)
{
	struct entries e = { 0 };
	uint32_t *relocs_of;

	if (obj->ehdr.e_type != ET_REL)
		return read_linked_tables(obj, out, n);
	relocs_of = relocation_sections(obj);
	if (!relocs_of)
		return -1;
	for (size_t i = 1; i < obj->nsec; i++) {
		struct table_entry kind;
		int rc;

		/* A table recordmcount --mode=user took over (recorded_to_user). */
		if (!table_kind(obj->sec[i].name, &kind) || (obj->sec[i].sh.sh_flags & SHF_EXCLUDE))
			continue;
		rc = read_object_table(obj, i, relocs_of[i], kind, &e);
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

/* ---- prototype records ---- */

struct protos {
	struct proto_entry *v;
	size_t n, cap;
};

static int push_proto(struct elfobj *obj, struct protos *p, struct proto_entry e)
{
	if (!grow_array(&p->v, p->n, &p->cap, sizeof(*p->v)))
		return elfobj_error(obj, "out of memory"), -1;
	p->v[p->n++] = e;
	return 0;
}

/* A NUL-terminated string at `off` in section `sec`, or NULL. */
static const char *string_at(const struct elfobj *obj, uint32_t sec, uint64_t off)
{
	const struct section *s;

	if (!sec || sec >= obj->nsec)
		return NULL;
	s = &obj->sec[sec];
	if (s->sh.sh_type == SHT_NOBITS || (s->sh.sh_flags & SHF_COMPRESSED) || off >= s->size ||
	    !memchr(s->bytes + off, 0, s->size - off))
		return NULL;
	return (const char *)s->bytes + off;
}

/*
 * Where a record's fields are: the full form's function address is absolute
 * and pointer-sized, the compact form's 32-bit and self-relative, and the
 * compact form keeps no name or size (the symbol table has them).
 */
struct proto_layout {
	unsigned size;		/* of a record */
	unsigned addr_width;	/* the address is at 0 */
	bool self_relative;
	unsigned size_at, name_at, sig_at;	/* 0: no such field */
};

static struct proto_layout proto_layout(const struct elfobj *obj, bool compact)
{
	unsigned ptr = obj->is64 ? 8 : 4;

	if (compact)
		return (struct proto_layout){ PROTO_RET_RECORD, 4, true, 0, 0, 4 };
	return (struct proto_layout){ ptr + 12, ptr, false, ptr, ptr + 4, ptr + 8 };
}

/*
 * The compact form's names and sizes (its records have no name yet), from
 * the function symbols at the records' places, once for every table of the
 * file; a record whose function has no symbol cannot be named: left out.
 */
static int name_from_symbols(struct elfobj *obj, struct protos *p)
{
	size_t nf = 0, k = 0;
	struct func_sym *f;

	if (elfobj_load_symbols(obj) < 0)
		return -1;
	if (!(f = function_index(obj, &nf)))
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < p->n; i++) {
		struct proto_entry *e = &p->v[i];
		const struct func_sym *fs = e->name ? NULL : function_before(f, nf, e->where.sec, e->where.off);

		if (fs && fs->off == e->where.off) {
			e->name = fs->name;
			e->size = fs->size > UINT32_MAX ? 0 : (uint32_t)fs->size;
		}
		if (e->name)
			p->v[k++] = *e;
	}
	p->n = k;
	free(f);
	return 0;
}

/* Objects: every field comes from its relocation. */
static int read_object_protos(struct elfobj *obj, size_t t, size_t ri, struct proto_layout l,
			      struct protos *p)
{
	const struct section *tab = &obj->sec[t];
	size_t nrec = tab->size / l.size;
	unsigned all = l.name_at ? 7 : 5;
	const struct section *rs;
	struct proto_entry *recs;
	uint8_t *seen;
	int rc = -1;

	if (!ri)
		return elfobj_error(obj, "%s has no relocations", tab->name), -1;
	if (tab->size % l.size)
		return elfobj_error(obj, "%s: size %zu is not a multiple of %u", tab->name, tab->size,
				    l.size), -1;
	if (elfobj_parse_relocs(obj, ri) < 0)
		return -1;
	rs = &obj->sec[ri];
	recs = calloc(nrec ? nrec : 1, sizeof(*recs));
	seen = calloc(nrec ? nrec : 1, 1);
	if (!recs || !seen) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rs->nrelocs; i++) {
		const struct reloc *r = &rs->relocs[i];
		const struct symbol *sym = &obj->sym[r->sym];
		size_t rec = r->offset / l.size;
		unsigned field = (unsigned)(r->offset % l.size), width = field ? 4 : l.addr_width;
		int64_t addend = r->addend;
		uint64_t value;

		if (r->type == obj->arch->reloc_none)
			continue;
		if (rec >= nrec || (field && field != l.name_at && field != l.sig_at)) {
			elfobj_error(obj, "%s: relocation at 0x%llx is not on a field", tab->name,
				     (unsigned long long)r->offset);
			goto out;
		}
		if (rs->sh.sh_type == SHT_REL || obj->arch->addend_in_place)
			addend += sign_extend(elfobj_read_word(obj, tab->bytes + r->offset, width), width);
		/* a self-relative field's target too: its relocation adds the place itself */
		value = sym->s.st_value + (uint64_t)addend;
		if (!obj->is64)
			value = (uint32_t)value;
		if (field == 0) {
			recs[rec].where = (struct table_entry){ .sec = sym->shndx < obj->nsec ? sym->shndx : 0,
								.off = value };
			seen[rec] |= 1;
			continue;
		}
		const char *str = string_at(obj, sym->shndx, value);

		if (!str) {
			elfobj_error(obj, "%s: record %zu names a string outside %s", tab->name, rec,
				     PROTO_STRINGS);
			goto out;
		}
		if (field == l.name_at)
			recs[rec].name = str;
		else
			recs[rec].sig = str;
		seen[rec] |= field == l.name_at ? 2 : 4;
	}
	for (size_t i = 0; i < nrec; i++) {
		if (seen[i] != all || (l.name_at && !recs[i].name))
			continue;	/* a discarded function's record: its relocations are gone */
		if (l.size_at)
			recs[i].size = (uint32_t)elfobj_read_word(obj, tab->bytes + i * l.size + l.size_at, 4);
		if (push_proto(obj, p, recs[i]) < 0)
			goto out;
	}
	rc = 0;
out:
	free(recs);
	free(seen);
	return rc;
}

static size_t find_section(const struct elfobj *obj, const char *name)
{
	for (size_t i = 1; i < obj->nsec; i++)
		if (strcmp(obj->sec[i].name, name) == 0)
			return i;
	return 0;
}

/* Linked files: link-time addresses and offsets into the one merged string section. */
static int read_linked_protos(struct elfobj *obj, size_t t, struct proto_layout l, struct protos *p)
{
	const struct section *tab = &obj->sec[t];
	uint32_t str = (uint32_t)find_section(obj, PROTO_STRINGS);

	if (tab->sh.sh_type == SHT_NOBITS || tab->size % l.size)
		return elfobj_error(obj, "%s: size %zu is not a multiple of %u", tab->name, tab->size,
				    l.size), -1;
	for (size_t i = 0; i < tab->size / l.size; i++) {
		const uint8_t *r = tab->bytes + i * l.size;
		uint64_t word = elfobj_read_word(obj, r, l.addr_width);
		uint64_t addr = l.self_relative ? tab->sh.sh_addr + i * l.size + (uint64_t)sign_extend(word, 4) : word;
		struct proto_entry e = {
			.where = { .addr = addr, .sec = section_at(obj, addr) },
			.size = l.size_at ? (uint32_t)elfobj_read_word(obj, r + l.size_at, 4) : 0,
			.name = l.name_at ? string_at(obj, str, elfobj_read_word(obj, r + l.name_at, 4)) : NULL,
			.sig = string_at(obj, str, elfobj_read_word(obj, r + l.sig_at, 4)),
		};

		if (!obj->is64)
			e.where.addr = (uint32_t)addr;
		if ((l.name_at && !e.name) || !e.sig)
			return elfobj_error(obj, "%s: record %zu names a string outside %s", tab->name, i,
					    PROTO_STRINGS), -1;
		if (!word || !e.where.sec)
			continue;	/* a function the linker dropped */
		e.where.off = e.where.addr - obj->sec[e.where.sec].sh.sh_addr;
		if (push_proto(obj, p, e) < 0)
			return -1;
	}
	return 0;
}

int protos_read(struct elfobj *obj, struct proto_entry **out, size_t *n)
{
	struct protos p = { 0 };
	uint32_t *relocs_of = NULL;
	int rc = -1;

	if (obj->ehdr.e_type == ET_REL && !(relocs_of = relocation_sections(obj)))
		return -1;
	bool any_compact = false;

	for (size_t i = 1; i < obj->nsec; i++) {
		bool compact = strcmp(obj->sec[i].name, PROTO_RET_TABLE) == 0;
		struct proto_layout l = proto_layout(obj, compact);

		if (!compact && strcmp(obj->sec[i].name, PROTO_TABLE) != 0)
			continue;
		any_compact |= compact;
		if (obj->ehdr.e_type == ET_REL ? read_object_protos(obj, i, relocs_of[i], l, &p) < 0
					       : read_linked_protos(obj, i, l, &p) < 0)
			goto out;
	}
	if (any_compact && name_from_symbols(obj, &p) < 0)
		goto out;
	*out = p.v;
	*n = p.n;
	p.v = NULL;
	rc = 0;
out:
	free(p.v);
	free(relocs_of);
	return rc;
}
