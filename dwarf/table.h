/* SPDX-License-Identifier: GPL-2.0-only */
/* Emitting the prototype tables (__mcount_proto, __mcount_str) into an object. */
#ifndef DWARF_TABLE_H
#define DWARF_TABLE_H

#include "../recordmcount/elfobj.h"
#include "../recordmcount/record.h"


/*
 * Describe every function with a recorded site from the object's DWARF and
 * append the tables; nothing is added when the object has no DWARF.
 */
int emit_protos(struct elfobj *obj, const struct recording *rec);

#endif
