/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * objpatch attach --list PID (objpatch/attach/attach_list.c): the traceable
 * functions of a running process, read from the files it has mapped,
 * without stopping or tracing it.
 */
#ifndef OBJPATCH_ATTACH_ATTACH_LIST_H
#define OBJPATCH_ATTACH_ATTACH_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Prints every module of process `pid` that has recorded call sites, with
 * its functions as `objpatch list` prints them (json: one object per
 * module).  0; 1 when a module could not be read; 2 after one line when
 * the process is refused (none, exited, its maps unreadable, no module
 * with recorded sites).
 */
int attach_list(pid_t pid, bool json);

/* The refusal of a process with no recorded call sites: one line, status 2. */
int attach_refuse_unrecorded(pid_t pid);

#endif
