// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Call trees (trace/calltree.h): the nodes live in their records, the table
 * holds only their indices, so growing it moves 4 bytes a node and a probe
 * reads the link it compares in the record the caller reads next anyway.
 */
#include <stdlib.h>
#include <string.h>
#include "trace/calltree.h"
#include "util/array.h"
#include "util/hash.h"

void calltree_init(struct calltree *t, size_t size)
{
	*t = (struct calltree){ .size = size };
}

void calltree_free(struct calltree *t)
{
	free(t->nodes);
	free(t->slots);
	calltree_init(t, t->size);
}

static struct calltree_link *link_of(const struct calltree *t, uint32_t i)
{
	return calltree_node(t, i);
}

/* The first slot to probe: keys are pointers or small numbers, both spread by a multiply. */
static size_t home(const struct calltree *t, uint32_t parent, uintptr_t key)
{
	uint64_t h = hash_mix64(key) ^ parent * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 17) & (t->nslots - 1);
}

static size_t next(const struct calltree *t, size_t k)
{
	return (k + 1) & (t->nslots - 1);
}

/* Twice the slots (at first 1024), every node but the root put in again. */
static bool grow_slots(struct calltree *t)
{
	size_t nslots = t->nslots ? 2 * t->nslots : 1024;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return false;
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	for (uint32_t i = 1; i < t->n; i++) {
		size_t k = home(t, link_of(t, i)->parent, link_of(t, i)->key);

		while (t->slots[k])
			k = next(t, k);
		t->slots[k] = i;
	}
	return true;
}

/* A zeroed record at the end: false when out of memory (or of 32-bit indices). */
static bool add_node(struct calltree *t, uint32_t parent, uintptr_t key)
{
	if (t->n >= UINT32_MAX || !grow_array(&t->nodes, t->n, &t->cap, t->size))
		return false;
	memset(calltree_node(t, (uint32_t)t->n), 0, t->size);
	*link_of(t, (uint32_t)t->n) = (struct calltree_link){ .key = key, .parent = parent };
	t->n++;
	return true;
}

bool calltree_root(struct calltree *t)
{
	return t->n || add_node(t, 0, 0);
}

uint32_t calltree_child(struct calltree *t, uint32_t parent, uintptr_t key, bool *made)
{
	size_t k;

	/* At most half full, so that a probe ends soon at a free slot. */
	if (!calltree_root(t) || (2 * t->n >= t->nslots && !grow_slots(t)))
		return 0;
	for (k = home(t, parent, key); t->slots[k]; k = next(t, k)) {
		const struct calltree_link *l = link_of(t, t->slots[k]);

		if (l->parent == parent && l->key == key)
			return t->slots[k];
	}
	if (!add_node(t, parent, key))
		return 0;
	t->slots[k] = (uint32_t)(t->n - 1);
	*made = true;
	return (uint32_t)(t->n - 1);
}
