// SPDX-License-Identifier: LGPL-2.1-or-later
/* Return addresses' values (trace/retaddr_map.h). */
#include <stdbool.h>
#include <stdlib.h>
#include "trace/retaddr_map.h"

/* Code addresses share their low and high bits: a multiply spreads the middle ones. */
static size_t slot_of(const struct ramap *m, uint64_t ra)
{
	size_t k = (size_t)((ra * 0x9e3779b97f4a7c15ull) >> 20) & (m->size - 1);

	while (m->slots[k].ra && m->slots[k].ra != ra)
		k = (k + 1) & (m->size - 1);
	return k;
}

/* Twice the entries (at first 1024); the map is unchanged when memory is out. */
static bool grow(struct ramap *m)
{
	struct ramap_entry *old = m->slots;
	size_t n = m->size;

	m->size = n ? 2 * n : 1024;
	if (!(m->slots = calloc(m->size, sizeof(*m->slots)))) {
		m->slots = old;
		m->size = n;
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].ra)
			m->slots[slot_of(m, old[i].ra)] = old[i];
	free(old);
	return true;
}

struct ramap_entry *ramap_find(struct ramap *m, uint64_t ra)
{
	/* At most half full, with room for the one ramap_add may put in. */
	if (2 * (m->used + 1) > m->size && !grow(m))
		return NULL;
	return &m->slots[slot_of(m, ra)];
}

void ramap_add(struct ramap *m, struct ramap_entry *e, uint64_t ra, uint32_t value)
{
	*e = (struct ramap_entry){ ra, value };
	m->used++;
}

void ramap_free(struct ramap *m)
{
	free(m->slots);
	*m = (struct ramap){ 0 };
}
