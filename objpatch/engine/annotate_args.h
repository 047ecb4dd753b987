/* SPDX-License-Identifier: GPL-2.0-only */
/* The argument lists of funcgraph-args lines (objpatch/engine/annotate_args.c). */
#ifndef OBJPATCH_ENGINE_ANNOTATE_ARGS_H
#define OBJPATCH_ENGINE_ANNOTATE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tables/sig.h"
#include "trace/format.h"

/*
 * A number as the kernel prints one in a trace: "0x1f" (%lx) or "-22"
 * (%ld), the whole of s[i, end).
 */
bool annotate_number(const char *s, size_t i, size_t end, uint64_t *out);

/* A scalar the formatter types whole from one register (at most its width): an argument's or a return's. */
bool annotate_one_register(const struct sig_type *t, const struct format_target *tg);

/*
 * The argument list s[from, to) of an entry or leaf line, inside its
 * parentheses, rewritten by the parameters of `sig` (NULL: a function the
 * tables cannot vouch for) with the value rules of `o` (its target and
 * hex; errno names are for return values only).  Returns the new text
 * (malloc'd), or NULL when the list stays as it is.  *malformed: the list
 * does not split into the kernel's "name=value, ..." items.
 */
char *annotate_args(const char *s, size_t from, size_t to, const struct signature *sig,
		    const struct format_opts *o, bool *malformed);

#endif
