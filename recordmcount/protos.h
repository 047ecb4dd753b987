/* SPDX-License-Identifier: GPL-2.0-only */
/* Emitting the prototype tables (__mcount_proto, __mcount_str) into an object. */
#ifndef RECORDMCOUNT_PROTOS_H
#define RECORDMCOUNT_PROTOS_H

#include "elf/elfobj.h"
#include "recordmcount/record.h"


/*
 * Describe every function with a recorded site from the object's DWARF and
 * append the tables; nothing is added when the object has no DWARF.
 */
int emit_protos(struct elfobj *obj, const struct recording *rec);

#endif
