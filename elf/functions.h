/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Function symbols by place: which function holds a (section, offset), in
 * objects and linked files alike, with the arch's quirks (the Thumb bit,
 * ppc64 ELFv1 descriptors) resolved to where the code is.
 */
#ifndef ELF_FUNCTIONS_H
#define ELF_FUNCTIONS_H

#include "elf/elfobj.h"

struct func_sym {
	uint32_t sec;
	uint64_t off;		/* in its section */
	uint64_t size;		/* 0: unknown */
	const char *name;
	int rank;		/* which symbol names an address: global, then weak, then local */
};

/* Defined function symbols, one per place, sorted by (section, offset); malloc'd. */
struct func_sym *function_index(struct elfobj *obj, size_t *n);
/* The last function starting at or before (sec, off) in its section, whatever its size. */
const struct func_sym *function_before(const struct func_sym *f, size_t n, uint32_t sec, uint64_t off);
/*
 * The function a patchable entry at (sec, off) belongs to: the one starting
 * there (or after its landing pad, endbr64 or bti c), or the first one after
 * it when the entry's NOPs begin before the function
 * (-fpatchable-function-entry=N,M with M > 0); NULL if none.
 */
const struct func_sym *function_from(const struct elfobj *obj, const struct func_sym *f, size_t n, uint32_t sec,
				     uint64_t off);
/* The landing pad (endbr64, bti) a function starts with at (sec, off): its length, or 0. */
size_t function_landing_pad(const struct elfobj *obj, uint32_t sec, uint64_t off);
/* How far before its function a pad may start when the symbol before it has no size. */
#define PAD_REACH 64
/* The function holding (sec, off), or NULL. */
const struct func_sym *function_at(const struct func_sym *f, size_t n, uint32_t sec, uint64_t off);

#endif
