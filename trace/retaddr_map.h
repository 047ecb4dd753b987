/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the tools decided about a return address, kept so that it is
 * decided once per address, not once per event: the filters' matches
 * (trace/filter.c), the summary's function (trace/summary.c).  A growing
 * open-addressing table; address 0 marks a free entry, so it is never a
 * key (callers decide it every time).
 */
#ifndef TRACE_RETADDR_MAP_H
#define TRACE_RETADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

struct ramap_entry {
	uint64_t ra;		/* 0: free */
	uint32_t value;
};

struct ramap {
	struct ramap_entry *slots;	/* zeroed: an empty map */
	size_t size, used;
};

/*
 * The entry of `ra` (not 0): its own (e->ra == ra), or the free one where
 * ramap_add puts it, which is valid until the map next changes.  NULL:
 * out of memory (the map is as it was).
 */
struct ramap_entry *ramap_find(struct ramap *m, uint64_t ra);
/* Fill the free entry ramap_find gave for `ra`. */
void ramap_add(struct ramap *m, struct ramap_entry *e, uint64_t ra, uint32_t value);
void ramap_free(struct ramap *m);

#endif
