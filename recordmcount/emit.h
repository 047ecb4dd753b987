/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Building new sections whose fields are set by relocations: the one
 * mechanism behind every table recordmcount writes.
 */
#ifndef RECORDMCOUNT_EMIT_H
#define RECORDMCOUNT_EMIT_H

#include "elf/elfobj.h"
#include "tables/tables.h"

enum table_mode {
	MODE_KERNEL,	/* one __mcount_loc of absolute pointers, as Kbuild expects */
	MODE_USER,	/* __mcount_rel per function section: link-order, COMDAT- and PIE-safe */
	/*
	 * Not an option: user mode's repair of gcc 12's -fpatchable-function-entry
	 * table, the compiler's absolute entries in one table per text section.
	 */
	MODE_PATCHABLE,
};

struct site {
	uint32_t sec;
	uint64_t off;
	bool entry;	/* calls an entry hook (arch.h): user mode puts it in __fentry_rel */
	bool patchable;	/* the compiler's patchable entry: its function starts at or after it */
};

/* The symbol a field is relocated against, and the addend it needs. */
struct entry_base {
	uint32_t sym;
	int64_t addend;
};

/*
 * Bases for locations (sorted by section): section symbols (added where the
 * assembler dropped them), or, for code on architectures whose linker moves
 * code, a local symbol per location.  `code`: the locations are in code.
 */
int choose_bases(struct elfobj *obj, const struct site *locs, size_t n, bool code,
		 struct entry_base *base);

/* One relocated field of a new section. */
struct field {
	uint64_t offset;
	uint8_t width;		/* bytes */
	uint32_t rtype;
	struct entry_base base;
};

/*
 * Add section `name` with contents `bytes` (taken over) and its relocation
 * section `relname`, the fields' addends written where the target expects
 * them.  `linked` != 0 makes it SHF_LINK_ORDER to that section and a member of
 * its group.  Returns the new section's index, 0 on error.
 */
size_t emit_relocated_section(struct elfobj *obj, const char *name, const char *relname,
			      const GElf_Shdr *sh, uint8_t *bytes, size_t size,
			      const struct field *f, size_t n, size_t linked);

/* The call-site tables of `sites` (sorted by (sec, off)), in `mode`'s form. */
int emit_tables(struct elfobj *obj, const struct site *sites, size_t nsites, enum table_mode mode);

#endif
