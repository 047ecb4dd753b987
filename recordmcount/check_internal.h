/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of recordmcount --check share: a file's report and its
 * findings (check.c), the pad state both kinds of file keep
 * (check_patchable.c), a linked file's decoded calls (tables/calls.c) and
 * the state of its check that --fix rewrites the tables from
 * (check_linked.c, check_fix.c).  Not for other callers: check.h is the
 * interface.
 */
#ifndef RECORDMCOUNT_CHECK_INTERNAL_H
#define RECORDMCOUNT_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf/elfobj.h"
#include "elf/functions.h"
#include "recordmcount/check.h"
#include "tables/calls.h"
#include "tables/tables.h"

/* ---- check.c: findings, places, entries in order ---- */

struct finding {
	enum check_kind kind;
	const char *func;	/* the function holding the place, else the nearest one before it */
	uint64_t func_off;
	bool inside;
	uint32_t sec;
	uint64_t off, addr;
	char why[240];
};

struct report {
	struct elfobj *obj;
	bool linked;
	struct finding *f;
	size_t nf, cap;
	size_t count[CHECK_NKINDS];
	size_t entries, zeroed, calls, nops, unverified, sites;
	bool pad_table;		/* the file has __patchable_function_entries */
	size_t patchable;	/* its entries at good pads */
	bool sorted;
	/* --fix */
	bool fix_tried, written;
	size_t fix_zeroed, remaining;
	char fix_error[512];	/* why --fix did nothing; the check itself stands */
};

/* NULL (obj->err set) when memory is out. */
struct finding *add_finding(struct report *r, enum check_kind kind, const struct funcs *fs,
			    uint32_t sec, uint64_t off, uint64_t addr, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
const char *section_name(const struct elfobj *obj, uint32_t sec);
size_t nop_at(const struct elfobj *obj, uint32_t sec, uint64_t off);
size_t compiler_nop_at(const struct elfobj *obj, uint32_t sec, uint64_t off);
size_t recorded_prefix_at(const struct elfobj *obj, const struct table_entry *e);
size_t *entry_order(const struct table_entry *e, size_t n);
int cmp_u64(const void *a, const void *b);

/* ---- check_patchable.c ---- */

/* The pad's shape: M units (m_bytes) before the function, N in all. */
struct pad_shape {
	unsigned n, m;
	uint64_t m_bytes;
	size_t count;
};

struct patchable {
	bool any;		/* the file has a patchable table */
	bool producer;		/* N and M from DW_AT_producer */
	unsigned pn, pm;
	bool *covered;		/* per function of the index */
	struct pad_shape shapes[8];
	size_t nshapes;
	size_t good;
};

int patchable_init(struct patchable *pt, struct elfobj *obj, const struct table_entry *te, size_t nte,
		   const struct funcs *fs);
int patchable_entry(struct report *r, struct patchable *pt, const struct funcs *fs, const struct table_entry *e);
int patchable_missing(struct report *r, const struct patchable *pt, const struct funcs *fs);

/* ---- check_object.c ---- */

int check_object(struct report *r);

/* ---- check_linked.c ---- */

struct linked_state {
	struct table_entry *te;
	size_t nte;
	bool *drop;		/* per entry: --fix zeroes it */
	struct table_span *spans;
	size_t nspans;
	struct patchable pt;
};

unsigned span_entsize(const struct elfobj *obj, const struct table_span *s);
int check_linked(struct report *r, const char *fix_target);

/* ---- check_fix.c ---- */

int fix_tables(struct report *r, struct linked *l, struct linked_state *st, const char *target);

#endif
