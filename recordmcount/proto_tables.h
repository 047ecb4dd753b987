/* SPDX-License-Identifier: GPL-2.0-only */
/* Emitting the prototype tables (__mcount_proto or __mcount_ret, and __mcount_str) into an object. */
#ifndef RECORDMCOUNT_PROTO_TABLES_H
#define RECORDMCOUNT_PROTO_TABLES_H

#include "elf/elfobj.h"
#include "recordmcount/record.h"
#include "tables/tables.h"

/* The signature of a function its object's DWARF does not describe (mcount-tables.5). */
#define PROTO_SIG_UNKNOWN	PROTO_VERSION PROTO_US "0" PROTO_RS "unknown" PROTO_US "0" PROTO_US "?"

/*
 * Describe every function with a recorded site from the object's DWARF and
 * append the tables; nothing is added when the object has no DWARF.
 */
int emit_protos(struct elfobj *obj, const struct recording *rec, enum proto_form form);

#endif
