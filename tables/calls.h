/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A linked file's calls to its profiling hook, found by decoding the code
 * of its functions (tables/calls.c): what proves a table complete, and
 * what finds the functions a table leaves out.
 */
#ifndef TABLES_CALLS_H
#define TABLES_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf/elfobj.h"
#include "elf/functions.h"
#include "tables/tables.h"

struct funcs {
	struct func_sym *v;
	size_t n;
};

struct hook_range;

struct dynrel {
	uint64_t off;
	int64_t addend;
	const char *name;	/* "" when the relocation has no symbol */
};

struct linked {
	struct elfobj *obj;
	struct funcs fs;
	struct hook_range *hooks;
	size_t nhooks, cap_hooks;
	struct dynrel *dyn;
	size_t ndyn, cap_dyn;
	struct proto_entry *pe;	/* the caller's, freed by linked_close() */
	size_t np;
};

enum target_kind {
	TARGET_NONE,		/* no call form matched */
	TARGET_OTHER,		/* a call to something else */
	TARGET_UNKNOWN,		/* a call form whose target the file does not give */
	TARGET_HOOK,
};

struct target {
	enum target_kind kind;
	uint64_t addr;		/* TARGET_OTHER: where it goes (0: through a slot) */
	const char *name;	/* TARGET_HOOK: the hook; TARGET_OTHER: a dynamic symbol, or NULL */
	bool entry;		/* TARGET_HOOK: an entry hook */
	uint8_t len;		/* decode_call: the call's bytes */
};

/* The file's function index, hooks and dynamic relocations; -1 with obj->err set. */
int linked_open(struct linked *l, struct elfobj *obj);
void linked_close(struct linked *l);
int collect_hooks(struct linked *l);
int collect_dynrels(struct linked *l);
bool is_code(const struct elfobj *obj, uint32_t sec);
const struct hook_range *hook_at(const struct linked *l, uint64_t addr);
uint32_t section_holding(const struct elfobj *obj, uint64_t addr, uint64_t len, bool code);
/*
 * What the code at a place calls.  `whole`: only a sequence that goes on to
 * call (the decoders' calls_after) counts; an entry names the first word of
 * its site, whose call word a --nop build may have replaced, so entries are
 * decoded without it.
 */
struct target decode_call(const struct linked *l, uint32_t sec, uint64_t off, bool whole);
/* The same for the arch's jump decoders (`ref`): a jump into the hook at the place. */
struct target decode_ref(const struct linked *l, uint32_t sec, uint64_t off);
/*
 * The next call to the hook at or after *p in the part of function `f`
 * where compilers put it (the arch's window); *p is set to it.  Start with
 * *p = 0.  false: no more.
 */
bool next_hook_call(const struct linked *l, const struct func_sym *f, uint64_t *p, struct target *t);
/*
 * How many functions call the hook at a place not in `addrs` (sorted
 * ascending), and the name of the first: functions of objects nobody
 * recorded.
 */
size_t unrecorded_functions(const struct linked *l, const uint64_t *addrs, size_t naddrs, const char **first);

#endif
