/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What names a trace's addresses: a module's recorded sites, read from its
 * tables, and its functions (names and signatures) by address.  The runtime
 * reads them from the modules it patches, a tool from the files a
 * recording names; an event's return address is found past its site, and
 * the site in its function.
 */
#ifndef TRACE_SYMBOLS_H
#define TRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf/elfobj.h"
#include "tables/sig.h"
#include "tables/tables.h"

/*
 * A module's sites as its tables record them (tables_read()), with the
 * compiler's entries, which name a place and not a hook (gcc's
 * __mcount_loc, -fpatchable-function-entry pads), resolved to the site and
 * its kind (te->entry) by the function they are in.  Entries that name no
 * site get addr 0: those no function fits, counted in *bad, and pads on a
 * machine that does not trace them (pad_site_len 0), counted in *pads.
 * Pads are traced as a site of pad_site_len bytes pad_site_offset bytes
 * into the function.  Free *te.
 */
int sym_read_sites(struct elfobj *obj, unsigned pad_site_len, unsigned pad_site_offset,
		   struct table_entry **te, size_t *nt, size_t *bad, size_t *pads);

struct sym_func {
	uint64_t addr;
	uint64_t size;		/* 0: unknown */
	const char *name;	/* never NULL: "0x..." when nothing names it */
	const char *sigtext;	/* the table's signature, NULL if none */
	struct signature *sig;	/* parsed on first use (sym_func_sig) */
	bool parsed;
	bool called;		/* the trace writer has written an entry of it */
	uint32_t name_len;	/* strlen(name) once the writer measured it; 0: not yet */
};

/* A module's functions; names and signatures point into its mapped file. */
struct sym_table {
	struct sym_func *funcs;	/* sorted by address (those naming bare sites at the end) */
	size_t nfuncs, cap;
	size_t sorted;		/* how many are sorted: the file's */
	char **made_names;	/* "0x..." names of code no symbol describes */
	size_t nmade;
};

/* The prototype table's functions, then the symbol table's, at their run-time addresses. */
int sym_load(struct sym_table *t, struct elfobj *obj, uint64_t bias);
void sym_free(struct sym_table *t);

/* Where a walk over a module's sites, in address order, has come to. */
struct sym_walk {
	size_t at;
};

/*
 * The function holding the site at `addr`, the sites given in address
 * order from a zeroed walk: its index in t->funcs.  A site no function
 * holds gets one of its own, named by its address.  SIZE_MAX: out of
 * memory.
 */
size_t sym_site_function(struct sym_table *t, struct sym_walk *w, uint64_t addr);

/* The function's parsed signature, or NULL; parsed once (the caller serialises). */
const struct signature *sym_func_sig(struct sym_func *f);

#endif
