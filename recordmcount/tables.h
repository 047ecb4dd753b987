/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading the tables back: from objects (through their relocations) and from
 * linked files (kernel tables as absolute addresses, user tables as
 * self-relative offsets).  One reader for --list and the tests.
 */
#ifndef RECORDMCOUNT_TABLES_H
#define RECORDMCOUNT_TABLES_H

#include "elfobj.h"

struct table_entry {
	uint32_t sec;		/* section the entry points into, 0 if none */
	uint64_t off;		/* offset in that section */
	uint64_t addr;		/* linked files: the address; objects: 0 */
	bool user;		/* from a user-mode (self-relative) table */
};

int tables_read(struct elfobj *obj, struct table_entry **out, size_t *n);

#endif
