// SPDX-License-Identifier: LGPL-2.1-or-later
/* 64-bit keys' values (util/u64map.h). */
#include <stdbool.h>
#include <stdlib.h>
#include "util/array.h"
#include "util/hash.h"
#include "util/u64map.h"

/* What a probe looks for. */
struct probe {
	const struct u64map_entry *entries;
	uint64_t key;
};

/* Code addresses share their low and high bits: the multiply spreads the middle ones. */
static size_t hash_of(uint64_t key)
{
	return (size_t)(hash_mix64(key) >> 20);
}

static size_t entry_hash(const void *ctx, uint32_t item)
{
	const struct u64map *m = ctx;

	return hash_of(m->entries[item].key);
}

static bool same_key(const void *ctx, uint32_t item)
{
	const struct probe *p = ctx;

	return p->entries[item].key == p->key;
}

static inline uint32_t *slot_of(const struct u64map *m, uint64_t key)
{
	return hashtab_slot(&m->index, hash_of(key), same_key, &(struct probe){ m->entries, key });
}

struct u64map_entry *u64map_find(struct u64map *m, uint64_t key)
{
	uint32_t *slot;

	/* With room for the one u64map_add may put in. */
	if (!hashtab_room(&m->index, entry_hash, m))
		return NULL;
	slot = slot_of(m, key);
	if (*slot)
		return &m->entries[*slot - 1];
	if (!grow_array(&m->entries, m->n, &m->cap, sizeof(*m->entries)))
		return NULL;
	m->entries[m->n] = (struct u64map_entry){ 0 };
	return &m->entries[m->n];
}

/* e is entries[n]; the slot is found again, once per key, so that e is all the caller keeps. */
void u64map_add(struct u64map *m, struct u64map_entry *e, uint64_t key, uint32_t value)
{
	*e = (struct u64map_entry){ key, value };
	hashtab_put(&m->index, slot_of(m, key), (uint32_t)(e - m->entries));
	m->n++;
}

void u64map_free(struct u64map *m)
{
	hashtab_free(&m->index);
	free(m->entries);
	*m = (struct u64map){ 0 };
}
