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
	hashtab_free(&t->index);
	calltree_init(t, t->size);
}

static struct calltree_link *link_of(const struct calltree *t, uint32_t i)
{
	return calltree_node(t, i);
}

/* Where a probe starts: keys are pointers or small numbers, both spread by a multiply. */
static size_t hash_of(uint32_t parent, uintptr_t key)
{
	uint64_t h = hash_mix64(key) ^ parent * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 17);
}

static size_t node_hash(const void *ctx, uint32_t node)
{
	const struct calltree_link *l = link_of(ctx, node);

	return hash_of(l->parent, l->key);
}

/* What a probe looks for. */
struct probe {
	const struct calltree *t;
	uint32_t parent;
	uintptr_t key;
};

static bool same_link(const void *ctx, uint32_t node)
{
	const struct probe *p = ctx;
	const struct calltree_link *l = link_of(p->t, node);

	return l->parent == p->parent && l->key == p->key;
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
	uint32_t *slot;

	if (!calltree_root(t) || !hashtab_room(&t->index, node_hash, t))
		return 0;
	slot = hashtab_slot(&t->index, hash_of(parent, key), same_link, &(struct probe){ t, parent, key });
	if (*slot)
		return *slot - 1;
	if (!add_node(t, parent, key))
		return 0;
	hashtab_put(&t->index, slot, (uint32_t)(t->n - 1));
	*made = true;
	return (uint32_t)(t->n - 1);
}
