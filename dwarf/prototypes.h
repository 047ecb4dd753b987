/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Prototypes from DWARF: for functions of a relocatable object, what they
 * return and what they take, as type descriptors (man/mcount-tables.5):
 *
 *   CLASS US SIZE US CTEXT [US ENUM-NAME US ENUMERATORS]
 *
 * e.g. "int\x1f4\x1fint @" or "enum\x1f4\x1fenum state @\x1fstate\x1fST_IDLE=0,ST_RUN=5".
 * CTEXT is the C declaration with '@' where the declared name goes, so a
 * prototype is the return type's CTEXT with '@' replaced by "name(params)".
 * Control characters separate fields because C and C++ type names may hold
 * any printable character ("std::map<int, char>").
 */
#ifndef DWARF_PROTOTYPES_H
#define DWARF_PROTOTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tables/tables.h"
#include "elf/elfobj.h"

struct proto_param {
	char *name;		/* "" when unnamed */
	char *type;
};

struct func_proto {
	uint32_t sec;		/* the function's entry: section and offset */
	uint64_t off;
	char *name;
	char *ret;
	struct proto_param *params;
	size_t nparams;
	uint8_t flags;
};

/* A function to describe: where it starts and its symbol's name. */
struct func_query {
	uint32_t sec;
	uint64_t off;
	const char *symbol;
	/*
	 * The symbol's size, 0 if unknown.  A subprogram whose DW_AT_low_pc
	 * lies inside [off, off + size) is this function when none starts at
	 * off: gcc's -fpatchable-function-entry on AArch64 puts low_pc after
	 * the NOPs that follow the symbol.
	 */
	uint64_t size;
};

struct proto_set {
	struct func_proto *v;	/* one per query that DWARF describes */
	size_t n;
	bool has_dwarf;		/* false: the object carries no DWARF at all */
	/*
	 * One line each (without the tool's and the file's name) about what
	 * DWARF left in doubt: two descriptions of a function that disagree.
	 */
	char **warnings;
	size_t nwarnings;
};

/*
 * Describe the queried functions of the relocatable object `obj` (its DWARF
 * is read from the bytes as loaded, never from the file again).  Returns 0,
 * or -1 with obj->err set.
 */
int protos_from_dwarf(struct elfobj *obj, const struct func_query *q, size_t nq, struct proto_set *out);
void protos_free(struct proto_set *set);

#endif
