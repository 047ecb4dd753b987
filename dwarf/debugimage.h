/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DWARF of a relocatable object, relocated and alone: a small ELF image
 * holding only the debug sections libdw reads, with their relocations
 * applied and each allocated section of the object given an address of its
 * own, so that DIE addresses map back to (section, offset).
 *
 * libdwfl does the same for every section of the object in general; doing
 * it here for the few sections that matter, with the relocation types the
 * arch descriptor names, costs a fraction of that on objects with thousands
 * of sections.
 */
#ifndef DWARF_DEBUGIMAGE_H
#define DWARF_DEBUGIMAGE_H

#include <elfutils/libdw.h>
#include "elf/elfobj.h"

struct debug_image {
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	uint64_t *base;		/* address given to each allocated section, by index */
	uint32_t *order;	/* allocated sections sorted by address */
	size_t norder;
};

/*
 * Returns 1 with `img` open, 0 when the object has no DWARF, -1 on error
 * (obj->err set).
 */
int debug_image_open(struct elfobj *obj, struct debug_image *img);
bool debug_image_locate(const struct debug_image *img, const struct elfobj *obj, uint64_t addr,
			uint32_t *sec, uint64_t *off);
void debug_image_close(struct debug_image *img);

#endif
