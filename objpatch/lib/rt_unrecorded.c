// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions that call the profiling hook without a table entry: an object
 * compiled with -pg whose recordmcount step was left out.  The runtime
 * never sees them (no site), so their calls vanish from the trace.  The
 * module's file is decoded as `recordmcount --check` and `objpatch list`
 * decode it (tables/calls.c): the file, not memory, since its sites are
 * NOPs or our calls by now.  It reads the first bytes of every function,
 * so it runs with OBJPATCH_STATS=1 only, after the start-up figures.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/lib/rt.h"
#include "tables/calls.h"

/* How many of the module's functions call the hook unrecorded, and the first one's name. */
static size_t module_unrecorded(struct rt_module *m, const char **first)
{
	uint64_t *addrs = malloc((m->nsites ? m->nsites : 1) * sizeof(*addrs));
	struct linked l;
	size_t n = 0;

	*first = NULL;
	if (!addrs || !m->file || !m->file->symtab || linked_open(&l, m->file) < 0) {
		free(addrs);
		return 0;
	}
	for (size_t i = 0; i < m->nsites; i++)	/* sorted, as the sites are */
		addrs[i] = m->sites[i].addr - m->bias;
	n = unrecorded_functions(&l, addrs, m->nsites, first);
	linked_close(&l);
	free(addrs);
	return n;
}

void rt_report_unrecorded(size_t first)
{
	for (size_t i = first; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];
		const char *name = strcmp(m->path, "/proc/self/exe") == 0 ? program_invocation_name : m->path;
		const char *example;
		size_t n = module_unrecorded(m, &example);

		if (n)
			fprintf(stderr, "objpatch: %s: %zu function%s call%s the profiling hook without a table entry "
				"(first: %s), not traced: run recordmcount --mode=user on %s object%s before the link; "
				"recordmcount --check %s lists them\n",
				name, n, n == 1 ? "" : "s", n == 1 ? "s" : "", example, n == 1 ? "its" : "their",
				n == 1 ? "" : "s", name);
	}
}
