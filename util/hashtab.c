// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one hash table's growth (util/hashtab.h); its probe is inline there. */
#include <stdlib.h>
#include "util/hashtab.h"

/* While growing, no item is a match: every probe ends at a free slot. */
static bool none(const void *ctx, uint32_t item)
{
	(void)ctx;
	(void)item;
	return false;
}

bool hashtab_grow(struct hashtab *t, hashtab_hash_fn *hash, const void *ctx)
{
	struct hashtab old = *t;

	/* Slots hold item + 1: more items than that cannot be told apart. */
	if (t->used >= UINT32_MAX - 1)
		return false;
	t->size = old.size ? 2 * old.size : 256;
	if (t->size < old.size || !(t->slots = calloc(t->size, sizeof(*t->slots)))) {
		*t = old;
		return false;
	}
	for (size_t i = 0; i < old.size; i++)
		if (old.slots[i])
			*hashtab_slot(t, hash(ctx, old.slots[i] - 1), none, NULL) = old.slots[i];
	free(old.slots);
	return true;
}

void hashtab_free(struct hashtab *t)
{
	free(t->slots);
	*t = (struct hashtab){ 0 };
}
