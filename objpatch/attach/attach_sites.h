/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What objpatch attach checks in a process's files before it touches the
 * process: that some module has recorded sites, and that each --filter
 * pattern names one of their functions.
 */
#ifndef OBJPATCH_ATTACH_ATTACH_SITES_H
#define OBJPATCH_ATTACH_ATTACH_SITES_H

#include <stddef.h>
#include <sys/types.h>

struct attach_sites {
	size_t modules;		/* files mapped with recorded sites */
	size_t funcs;		/* functions with a recorded site in them */
	size_t *matches;	/* per pattern: those functions its glob names (a '!' first excludes) */
	/* -fpatchable-function-entry pads: where they are in the process, sorted, and their length */
	uint64_t *pads;
	size_t npads;
	unsigned pad_len;
	/* The first file with sites and C++ frames whose unwinder the runtime cannot hook, NULL if none */
	char *cxx_unhooked;
};

/*
 * The sites of every file a process maps, read through `live`, a live
 * thread of it, where the process sees them; 0, or -1 when out of memory.
 * Free a->matches, a->pads and a->cxx_unhooked.
 */
int attach_sites_count(pid_t live, const char *const *globs, size_t nglobs, struct attach_sites *a);

#endif
