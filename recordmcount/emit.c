// SPDX-License-Identifier: GPL-2.0-only
/*
 * Emitting the tables.  Kernel mode: one __mcount_loc of pointer-sized
 * absolute entries, as Kbuild, the linker scripts and the module loader expect.
 * User mode: one __mcount_rel per text section, 32-bit self-relative entries,
 * SHF_LINK_ORDER to its function's section and a member of that section's
 * COMDAT group, so that a discarded or collected function takes its entries
 * with it and a PIE needs no dynamic relocation for them.
 */
#include <stdlib.h>
#include <string.h>
#include "record.h"

/* The symbol each entry is relocated against, and the addend it needs. */
struct entry_base {
	uint32_t sym;
	int64_t addend;
};

/*
 * Entries are based on section symbols (never a weak symbol an override could
 * move, never an ARM STT_FUNC with its Thumb bit), or on a symbol of their own
 * where the linker moves code.  Missing ones are added in one insertion.
 */
static int choose_bases(struct elfobj *obj, const struct recording *rec, struct entry_base *base)
{
	const struct arch *arch = obj->arch;
	size_t need = 0, k = 0;
	GElf_Sym *syms;
	uint32_t *shndx, *idx;
	int rc = -1;

	for (size_t i = 0; i < rec->nsites; i++)
		if (arch->site_symbols || (!obj->sec[rec->sites[i].sec].secsym &&
					   (i == 0 || rec->sites[i - 1].sec != rec->sites[i].sec)))
			need++;
	syms = calloc(need + 1, sizeof(*syms));
	shndx = calloc(need + 1, sizeof(*shndx));
	idx = calloc(need + 1, sizeof(*idx));
	if (!syms || !shndx || !idx) {
		elfobj_error(obj, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < rec->nsites; i++) {
		const struct site *s = &rec->sites[i];

		if (arch->site_symbols) {
			syms[k] = (GElf_Sym){ .st_info = GELF_ST_INFO(STB_LOCAL, STT_NOTYPE),
					      .st_value = s->off };
			shndx[k++] = s->sec;
		} else if (!obj->sec[s->sec].secsym && (i == 0 || rec->sites[i - 1].sec != s->sec)) {
			syms[k] = (GElf_Sym){ .st_info = GELF_ST_INFO(STB_LOCAL, STT_SECTION) };
			shndx[k++] = s->sec;
		}
	}
	if (elfobj_insert_locals(obj, syms, shndx, k, idx) < 0)
		goto out;
	k = 0;
	for (size_t i = 0; i < rec->nsites; i++) {
		const struct site *s = &rec->sites[i];
		struct section *text = &obj->sec[s->sec];

		if (arch->site_symbols) {
			base[i] = (struct entry_base){ idx[k++], 0 };
			continue;
		}
		if (!text->secsym)
			text->secsym = idx[k++];
		base[i] = (struct entry_base){ text->secsym, (int64_t)s->off };
	}
	rc = 0;
out:
	free(syms);
	free(shndx);
	free(idx);
	return rc;
}

/*
 * One table section and its relocation section for sites [from, to).
 * `linked` (user mode) is the text section the table follows, 0 for none.
 */
static int emit_one_table(struct elfobj *obj, const struct entry_base *base, size_t from, size_t to, size_t linked)
{
	bool user = linked != 0;
	unsigned entsize = user ? 4 : (obj->is64 ? 8 : 4);
	size_t n = to - from;
	uint32_t rtype = user ? obj->arch->reloc_rel32 : obj->arch->reloc_abs;
	uint8_t *table = calloc(n ? n : 1, entsize);
	struct reloc *rel = calloc(n ? n : 1, sizeof(*rel));
	GElf_Shdr sh = { 0 };
	size_t tidx, ridx;
	uint32_t group = linked ? obj->sec[linked].group : 0;

	if (!table || !rel) {
		free(table);
		free(rel);
		return elfobj_error(obj, "out of memory"), -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct entry_base *b = &base[from + i];

		rel[i] = (struct reloc){ .offset = i * entsize, .sym = b->sym, .type = rtype };
		if (obj->uses_rela)
			rel[i].addend = b->addend;
		else
			elfobj_write_word(obj, table + i * entsize, entsize, (uint64_t)b->addend);
	}
	sh.sh_type = SHT_PROGBITS;
	sh.sh_flags = SHF_ALLOC | (user ? SHF_LINK_ORDER : 0);
	sh.sh_link = (Elf64_Word)linked;
	sh.sh_addralign = entsize;
	sh.sh_entsize = entsize;
	tidx = elfobj_add_section(obj, user ? USER_TABLE : KERNEL_TABLE, &sh, table, n * entsize);
	if (!tidx) {
		free(table);
		free(rel);
		return -1;
	}

	sh = (GElf_Shdr){ 0 };
	sh.sh_type = obj->uses_rela ? SHT_RELA : SHT_REL;
	sh.sh_flags = SHF_INFO_LINK;
	sh.sh_link = (Elf64_Word)obj->symtab;
	sh.sh_info = (Elf64_Word)tidx;
	sh.sh_addralign = obj->is64 ? 8 : 4;
	sh.sh_entsize = gelf_fsize(obj->elf, obj->uses_rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	ridx = elfobj_add_section(obj, obj->uses_rela ? (user ? ".rela" USER_TABLE : ".rela" KERNEL_TABLE)
						      : (user ? ".rel" USER_TABLE : ".rel" KERNEL_TABLE),
				  &sh, NULL, 0);
	if (!ridx) {
		free(rel);
		return -1;
	}
	elfobj_set_relocs(obj, ridx, rel, n);
	if (group && (elfobj_add_to_group(obj, group, tidx) < 0 ||
		      elfobj_add_to_group(obj, group, ridx) < 0))
		return -1;
	return 0;
}

int emit_tables(struct elfobj *obj, const struct recording *rec, enum table_mode mode)
{
	struct entry_base *base;
	int rc = -1;

	if (!rec->nsites)
		return 0;
	base = calloc(rec->nsites, sizeof(*base));
	if (!base)
		return elfobj_error(obj, "out of memory"), -1;
	if (choose_bases(obj, rec, base) < 0)
		goto out;
	if (mode == MODE_KERNEL) {
		rc = emit_one_table(obj, base, 0, rec->nsites, 0);
		goto out;
	}
	for (size_t from = 0, to; from < rec->nsites; from = to) {
		for (to = from + 1; to < rec->nsites && rec->sites[to].sec == rec->sites[from].sec; to++)
			;
		if (emit_one_table(obj, base, from, to, rec->sites[from].sec) < 0)
			goto out;
	}
	rc = 0;
out:
	free(base);
	return rc;
}
