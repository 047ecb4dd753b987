/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 64-bit keys to 32-bit values (an index into the caller's array, or
 * bits), on util/hashtab.h: the entries are kept in the order they were
 * added, the table indexes them.  Key 0 marks a free entry, so it is never
 * a key.  What the tools decide once per return address (trace/filter.c's
 * matches, trace/summary.c's function), annotate's stacks per task and CPU
 * and the DWARF type cache are kept in it.
 */
#ifndef UTIL_U64MAP_H
#define UTIL_U64MAP_H

#include <stddef.h>
#include <stdint.h>
#include "util/hashtab.h"

struct u64map_entry {
	uint64_t key;		/* 0: free */
	uint32_t value;
};

struct u64map {
	struct hashtab index;		/* of the entries' numbers */
	struct u64map_entry *entries;	/* n made, room for cap */
	size_t n, cap;
};

/*
 * The entry of `key` (not 0): its own (e->key == key), or the free one where
 * u64map_add puts it, which is valid until the map next changes.  NULL:
 * out of memory (the map is as it was).
 */
struct u64map_entry *u64map_find(struct u64map *m, uint64_t key);
/* Fill the free entry u64map_find gave for `key`. */
void u64map_add(struct u64map *m, struct u64map_entry *e, uint64_t key, uint32_t value);
void u64map_free(struct u64map *m);

#endif
