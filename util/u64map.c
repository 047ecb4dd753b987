// SPDX-License-Identifier: LGPL-2.1-or-later
/* 64-bit keys' values (util/u64map.h). */
#include <stdbool.h>
#include <stdlib.h>
#include "util/hash.h"
#include "util/u64map.h"

/* Code addresses share their low and high bits: the multiply spreads the middle ones. */
static size_t slot_of(const struct u64map *m, uint64_t key)
{
	size_t k = (size_t)(hash_mix64(key) >> 20) & (m->size - 1);

	while (m->slots[k].key && m->slots[k].key != key)
		k = (k + 1) & (m->size - 1);
	return k;
}

/* Twice the entries (at first 1024); the map is unchanged when memory is out. */
static bool grow(struct u64map *m)
{
	struct u64map_entry *old = m->slots;
	size_t n = m->size;

	m->size = n ? 2 * n : 1024;
	if (!(m->slots = calloc(m->size, sizeof(*m->slots)))) {
		m->slots = old;
		m->size = n;
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].key)
			m->slots[slot_of(m, old[i].key)] = old[i];
	free(old);
	return true;
}

struct u64map_entry *u64map_find(struct u64map *m, uint64_t key)
{
	/* At most half full, with room for the one u64map_add may put in. */
	if (2 * (m->used + 1) > m->size && !grow(m))
		return NULL;
	return &m->slots[slot_of(m, key)];
}

void u64map_add(struct u64map *m, struct u64map_entry *e, uint64_t key, uint32_t value)
{
	*e = (struct u64map_entry){ key, value };
	m->used++;
}

void u64map_free(struct u64map *m)
{
	free(m->slots);
	*m = (struct u64map){ 0 };
}
