// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Dynamic symbols of a linked file (elf/dynsym.h), read with gelf from the
 * sections elfobj loaded: .dynsym, its string table and .gnu.version.
 */
#include <string.h>
#include "elf/dynsym.h"

/* Where the default version's entry is not hidden (.gnu.version's top bit). */
#define VERSYM_HIDDEN 0x8000

static size_t section_of_type(const struct elfobj *obj, uint32_t type)
{
	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].sh.sh_type == type && obj->sec[i].scn)
			return i;
	return 0;
}

static bool hidden_version(Elf_Data *versym, size_t i)
{
	GElf_Versym v;

	return versym && gelf_getversym(versym, (int)i, &v) && (v & VERSYM_HIDDEN);
}

bool dynsym_lookup(struct elfobj *obj, const char *name, GElf_Sym *out)
{
	size_t ds = section_of_type(obj, SHT_DYNSYM), vs = section_of_type(obj, SHT_GNU_versym);
	Elf_Data *syms = ds ? elf_getdata(obj->sec[ds].scn, NULL) : NULL;
	Elf_Data *versym = vs ? elf_getdata(obj->sec[vs].scn, NULL) : NULL;
	size_t n = syms && obj->sec[ds].sh.sh_entsize ? obj->sec[ds].sh.sh_size / obj->sec[ds].sh.sh_entsize : 0;
	bool found = false;

	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *sn;

		if (!gelf_getsym(syms, (int)i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		sn = elf_strptr(obj->elf, obj->sec[ds].sh.sh_link, s.st_name);
		if (!sn || strcmp(sn, name))
			continue;
		/* A hidden (non-default) version only until the default one turns up. */
		if (!found || !hidden_version(versym, i))
			*out = s;
		found = true;
		if (!hidden_version(versym, i))
			break;
	}
	return found;
}

bool dynsym_imports(struct elfobj *obj, const char *name)
{
	size_t ds = section_of_type(obj, SHT_DYNSYM);
	Elf_Data *syms = ds ? elf_getdata(obj->sec[ds].scn, NULL) : NULL;
	size_t n = syms && obj->sec[ds].sh.sh_entsize ? obj->sec[ds].sh.sh_size / obj->sec[ds].sh.sh_entsize : 0;

	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *sn;

		if (!gelf_getsym(syms, (int)i, &s) || s.st_shndx != SHN_UNDEF)
			continue;
		sn = elf_strptr(obj->elf, obj->sec[ds].sh.sh_link, s.st_name);
		if (sn && !strcmp(sn, name))
			return true;
	}
	return false;
}

bool dynsym_first_load(struct elfobj *obj, uint64_t *vaddr)
{
	size_t n = 0;

	if (elf_getphdrnum(obj->elf, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(obj->elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr - ph.p_offset;	/* where file offset 0 would be */
			return true;
		}
	}
	return false;
}
