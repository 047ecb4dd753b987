// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Relocation types by name, for messages that point at a relocation the way
 * `readelf -r` shows it.  The table is generated at build time from the C
 * library's <elf.h> (the Makefile's reloc_names.inc rule), so it follows
 * the system's definitions instead of a copy kept here.  Only the tools
 * link it; the runtime never names relocations.
 */
#include <elf.h>
#include <stddef.h>
#include "arch/arch.h"

static const struct reloc_name {
	uint16_t machine;
	uint32_t type;
	const char *name;
} reloc_names[] = {
#include <arch/reloc_names.inc>
};

const char *arch_reloc_name(const struct arch *arch, uint32_t type)
{
	if (arch->reloc_id_mask)
		type &= arch->reloc_id_mask;
	for (size_t i = 0; i < ARRAY_SIZE(reloc_names); i++)
		if (reloc_names[i].machine == arch->machine && reloc_names[i].type == type)
			return reloc_names[i].name;
	return NULL;
}
