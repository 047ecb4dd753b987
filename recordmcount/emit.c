// SPDX-License-Identifier: GPL-2.0-only
/*
 * Emitting the tables.  Kernel mode: one __mcount_loc of pointer-sized
 * absolute entries, as Kbuild, the linker scripts and the module loader expect.
 * User mode: one __mcount_rel per text section, 32-bit self-relative entries,
 * SHF_LINK_ORDER to its function's section and a member of that section's
 * COMDAT group, so that a discarded or collected function takes its entries
 * with it and a PIE needs no dynamic relocation for them.  Calls to an entry
 * hook (__fentry__) go to a __fentry_rel of the same form instead: a runtime
 * finds the traced function's return address at a different place for them,
 * and a stripped file with its calls NOP'd has nothing else to tell it.
 */
#include <stdlib.h>
#include <string.h>
#include "recordmcount/emit.h"

/*
 * Entries are based on section symbols (never a weak symbol an override could
 * move, never an ARM STT_FUNC with its Thumb bit), or on a symbol of their own
 * where the linker moves code.  Missing ones are added in one insertion.
 */
int choose_bases(struct elfobj *obj, const struct site *locs, size_t n, bool code,
		 struct entry_base *base)
{
	bool own_symbols = code && obj->arch->site_symbols;
	size_t k = 0;
	GElf_Sym *syms = calloc(n + 1, sizeof(*syms));
	uint32_t *shndx = calloc(n + 1, sizeof(*shndx));
	uint32_t *idx = calloc(n + 1, sizeof(*idx));
	int rc = -1;

	if (!syms || !shndx || !idx) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct site *s = &locs[i];

		if (own_symbols) {
			syms[k] = (GElf_Sym){ .st_info = GELF_ST_INFO(STB_LOCAL, STT_NOTYPE),
					      .st_value = s->off };
			shndx[k++] = s->sec;
		} else if (!obj->sec[s->sec].secsym && (i == 0 || locs[i - 1].sec != s->sec)) {
			syms[k] = (GElf_Sym){ .st_info = GELF_ST_INFO(STB_LOCAL, STT_SECTION) };
			shndx[k++] = s->sec;
		}
	}
	if (elfobj_insert_locals(obj, syms, shndx, k, idx) < 0)
		goto out;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct site *s = &locs[i];
		struct section *sec = &obj->sec[s->sec];

		if (own_symbols) {
			base[i] = (struct entry_base){ idx[k++], 0 };
			continue;
		}
		if (!sec->secsym)
			sec->secsym = idx[k++];
		/* The linker adds a section symbol's value, 0 but in odd objects. */
		base[i] = (struct entry_base){ sec->secsym,
					       (int64_t)(s->off - obj->sym[sec->secsym].s.st_value) };
	}
	rc = 0;
out:
	free(syms);
	free(shndx);
	free(idx);
	return rc;
}

size_t emit_relocated_section(struct elfobj *obj, const char *name, const char *relname,
			      const GElf_Shdr *shdr, uint8_t *bytes, size_t size,
			      const struct field *f, size_t n, size_t linked)
{
	/* REL targets, and SH's RELA in GNU ld, take the addend from the field. */
	bool in_place = !obj->uses_rela || obj->arch->addend_in_place;
	struct reloc *rel = calloc(n ? n : 1, sizeof(*rel));
	uint32_t group = linked ? obj->sec[linked].group : 0;
	GElf_Shdr sh = *shdr;
	size_t tidx, ridx;

	if (!rel) {
		free(bytes);
		return elfobj_error(obj, "out of memory"), 0;
	}
	for (size_t i = 0; i < n; i++) {
		rel[i] = (struct reloc){ .offset = f[i].offset, .sym = f[i].base.sym, .type = f[i].rtype };
		if (in_place)
			elfobj_write_word(obj, bytes + f[i].offset, f[i].width, (uint64_t)f[i].base.addend);
		else
			rel[i].addend = f[i].base.addend;
	}
	if (linked) {
		sh.sh_flags |= SHF_LINK_ORDER;
		sh.sh_link = (Elf64_Word)linked;
	}
	tidx = elfobj_add_section(obj, name, &sh, bytes, size);
	if (!tidx) {
		free(bytes);
		free(rel);
		return 0;
	}
	sh = (GElf_Shdr){ 0 };
	sh.sh_type = obj->uses_rela ? SHT_RELA : SHT_REL;
	sh.sh_flags = SHF_INFO_LINK;
	sh.sh_link = (Elf64_Word)obj->symtab;
	sh.sh_info = (Elf64_Word)tidx;
	sh.sh_addralign = obj->is64 ? 8 : 4;
	sh.sh_entsize = gelf_fsize(obj->elf, obj->uses_rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	ridx = elfobj_add_section(obj, relname, &sh, NULL, 0);
	if (!ridx) {
		free(rel);
		return 0;
	}
	elfobj_set_relocs(obj, ridx, rel, n);
	if (group && (elfobj_add_to_group(obj, group, tidx) < 0 ||
		      elfobj_add_to_group(obj, group, ridx) < 0))
		return 0;
	return tidx;
}

/* The section names live as long as the object: elfobj keeps the pointers. */
struct table_names {
	const char *name, *rel, *rela;
};

#define TABLE_NAMES(n) { n, ".rel" n, ".rela" n }
static const struct table_names kernel_table = TABLE_NAMES(KERNEL_TABLE);
static const struct table_names user_tables[2] = { TABLE_NAMES(USER_TABLE), TABLE_NAMES(ENTRY_TABLE) };
static const struct table_names patchable_table = TABLE_NAMES(PATCHABLE_TABLE);

/*
 * One call-site table of `n` entries.  `linked` is the text section the
 * table follows, 0 for none; its entries are self-relative (user mode)
 * unless `absolute` (the kernel's, and the compiler's patchable ones, which
 * are writable like gcc's so that a PIE needs no text relocation).
 */
static int emit_site_table(struct elfobj *obj, const struct table_names *names,
			   const struct entry_base *base, size_t n, size_t linked, bool absolute)
{
	bool user = !absolute;
	unsigned entsize = user ? 4 : (obj->is64 ? 8 : 4);
	uint8_t *table = calloc(n ? n : 1, entsize);
	struct field *f = calloc(n ? n : 1, sizeof(*f));
	GElf_Shdr sh = { .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | (absolute && linked ? SHF_WRITE : 0),
			 .sh_addralign = entsize, .sh_entsize = entsize };
	size_t idx;

	if (!table || !f) {
		free(table);
		free(f);
		return elfobj_error(obj, "out of memory"), -1;
	}
	for (size_t i = 0; i < n; i++)
		f[i] = (struct field){ .offset = i * entsize, .width = (uint8_t)entsize,
				       .rtype = user ? obj->arch->reloc_rel32 : obj->arch->reloc_abs,
				       .base = base[i] };
	idx = emit_relocated_section(obj, names->name, obj->uses_rela ? names->rela : names->rel, &sh,
				     table, n * entsize, f, n, linked);
	free(f);
	return idx ? 0 : -1;
}

/*
 * The user-mode tables of one text section's sites [from, to): one per kind
 * of hook present.  `scratch` has room for to - from bases.
 */
static int emit_user_tables(struct elfobj *obj, const struct site *sites, const struct entry_base *base,
			    size_t from, size_t to, struct entry_base *scratch)
{
	for (int entry = 0; entry <= 1; entry++) {
		size_t n = 0;

		for (size_t i = from; i < to; i++)
			if (sites[i].entry == entry)
				scratch[n++] = base[i];
		if (n && emit_site_table(obj, &user_tables[entry], scratch, n, sites[from].sec, false) < 0)
			return -1;
	}
	return 0;
}

int emit_tables(struct elfobj *obj, const struct site *sites, size_t nsites, enum table_mode mode)
{
	struct entry_base *base, *scratch = NULL;
	int rc = -1;

	if (!nsites)
		return 0;
	base = calloc(nsites, sizeof(*base));
	if (!base)
		return elfobj_error(obj, "out of memory"), -1;
	if (choose_bases(obj, sites, nsites, true, base) < 0)
		goto out;
	if (mode == MODE_KERNEL) {
		rc = emit_site_table(obj, &kernel_table, base, nsites, 0, true);
		goto out;
	}
	scratch = calloc(nsites, sizeof(*scratch));
	if (!scratch) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	for (size_t from = 0, to; from < nsites; from = to) {
		for (to = from + 1; to < nsites && sites[to].sec == sites[from].sec; to++)
			;
		if (mode == MODE_PATCHABLE ?
		    emit_site_table(obj, &patchable_table, base + from, to - from, sites[from].sec, true) < 0 :
		    emit_user_tables(obj, sites, base, from, to, scratch) < 0)
			goto out;
	}
	rc = 0;
out:
	free(scratch);
	free(base);
	return rc;
}
