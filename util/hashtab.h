/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tree's one hash table: an open-addressing index of item numbers.
 * The caller keeps its items (names, nodes, entries) in its own array, in
 * the order it made them, and the table holds only their numbers, so that
 * what a program prints from the items never depends on where the table
 * put them, and growing moves 4 bytes an item.  The caller gives the hash
 * of what it looks for and says whether an item is it: every table's
 * probing and growth is the code below.
 *
 * Slots hold item + 1 (0: free); the size is a power of two and the table
 * is at most half full, so that a linear probe soon meets a free slot.
 */
#ifndef UTIL_HASHTAB_H
#define UTIL_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashtab {
	uint32_t *slots;	/* zeroed: an empty table, with no room yet */
	size_t size, used;
};

/* Whether `item` is what the caller looks for (described by ctx). */
typedef bool hashtab_eq_fn(const void *ctx, uint32_t item);
/* The hash the caller gave when it put `item` in: growing puts it again. */
typedef size_t hashtab_hash_fn(const void *ctx, uint32_t item);

/* Twice the slots (at first 256), every item put again; false: out of memory, the table as it was. */
bool hashtab_grow(struct hashtab *t, hashtab_hash_fn *hash, const void *ctx);

/*
 * Room for one more item, which a lookup needs too (an empty table has no
 * slots); false: out of memory (or of item numbers), the table as it was.
 */
static inline bool hashtab_room(struct hashtab *t, hashtab_hash_fn *hash, const void *ctx)
{
	return 2 * (t->used + 1) <= t->size || hashtab_grow(t, hash, ctx);
}

/*
 * The slot of the item `eq` accepts among those put with this hash
 * (*slot - 1 is its number), or, when there is none, the free slot where
 * hashtab_put puts it; valid until the table next changes.  The table has
 * room (hashtab_room).  Inline, so that a caller's eq is inlined too on
 * the paths that run per event.
 */
static inline uint32_t *hashtab_slot(const struct hashtab *t, size_t hash, hashtab_eq_fn *eq, const void *ctx)
{
	size_t mask = t->size - 1, k = hash & mask;

	while (t->slots[k] && !eq(ctx, t->slots[k] - 1))
		k = (k + 1) & mask;
	return &t->slots[k];
}

/* Fill the free slot hashtab_slot gave with `item` (below UINT32_MAX). */
static inline void hashtab_put(struct hashtab *t, uint32_t *slot, uint32_t item)
{
	*slot = item + 1;
	t->used++;
}

void hashtab_free(struct hashtab *t);

#endif
