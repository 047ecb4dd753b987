// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's word to `objpatch run` (objpatch/cli/run.c), which sets
 * OBJPATCH_STATUS to a file of its own: as each traced process exits, one
 * line "PID SITES WRITTEN FUNCTIONS TRACED" appended to it, the sites its
 * modules recorded (dlopen()ed ones included), 1 if its trace was written
 * whole, the functions with sites and how many of them the filter traced.
 * From them the command tells a program with nothing to trace, a filter
 * that selects nothing, or a trace that was lost, from a run that worked:
 * the exit status is the program's.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "objpatch/lib/rt.h"

void rt_status_report(bool written)
{
	const char *path = getenv("OBJPATCH_STATUS");
	size_t sites = 0, funcs, traced;
	char line[96];
	int fd, n;

	if (!path || !*path)
		return;
	for (size_t i = 0; i < runtime.nmods; i++)
		sites += runtime.mods[i]->nsites;
	rt_count_functions(&funcs, &traced);
	n = snprintf(line, sizeof(line), "%d %zu %d %zu %zu\n", (int)getpid(), sites, written, funcs, traced);
	/* One write to an O_APPEND file: lines of processes exiting together do not mix. */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "objpatch: %s: the status for objpatch run was not written\n", path);
	close(fd);
}
