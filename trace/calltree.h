/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Call trees, as folded stacks (trace/writer.c), flame graphs (trace/svg.c)
 * and --graph (trace/summary.c) aggregate calls: one node per (parent node,
 * key), found on every entry event, so the lookup is one hash and a short
 * linear probe.  The nodes are the caller's records, all of one size, each
 * starting with a struct calltree_link, in one array in the order they were
 * made: a node always comes after its parent.  Node 0 is the root, of no
 * key and in no table; index 0 also stands for "no node" (out of memory).
 */
#ifndef TRACE_CALLTREE_H
#define TRACE_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/hashtab.h"

/* The first member of every node: what the tree finds it by. */
struct calltree_link {
	uintptr_t key;		/* a name compared as a pointer, or a number */
	uint32_t parent;	/* 0: a child of the root */
};

struct calltree {
	unsigned char *nodes;	/* n records of `size` bytes */
	size_t size, n, cap;
	struct hashtab index;	/* of every node but the root */
};

/* An empty tree of records of `size` bytes (a struct calltree_link and more); allocates nothing. */
void calltree_init(struct calltree *t, size_t size);
void calltree_free(struct calltree *t);

/* Node 0, zeroed, made unless the tree has it: false when out of memory. */
bool calltree_root(struct calltree *t);

/*
 * The child of `parent` for `key`, made zeroed on first use (then *made is
 * set), with the root before it if need be; 0 when out of memory.
 */
uint32_t calltree_child(struct calltree *t, uint32_t parent, uintptr_t key, bool *made);

/* Node i's record; it moves when a node is made. */
static inline void *calltree_node(const struct calltree *t, uint32_t i)
{
	return t->nodes + (size_t)i * t->size;
}

#endif
