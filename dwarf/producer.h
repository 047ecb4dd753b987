/* SPDX-License-Identifier: GPL-2.0-only */
/* The options a compiler recorded in its units' DW_AT_producer. */
#ifndef DWARF_PRODUCER_H
#define DWARF_PRODUCER_H
#include <stddef.h>
#include "elf/elfobj.h"

/*
 * The value of option `opt` (e.g. "-fpatchable-function-entry=") in the
 * DW_AT_producer of the file's units, as written after it up to the next
 * space, in `val`: 1 when every unit that names it says the same, 0 when
 * none does, units disagree or there is no DWARF, -1 on error (obj->err).
 * gcc records its command line there; clang does not.
 */
int producer_option(struct elfobj *obj, const char *opt, char *val, size_t size);
/*
 * The debug level (0 to 3) a unit's DW_AT_producer records: its last -g,
 * -gN, -ggdb or -ggdbN option's; 2 when it names none (clang records no
 * options) or `producer` is NULL.
 */
int producer_debug_level(const char *producer);

#endif
