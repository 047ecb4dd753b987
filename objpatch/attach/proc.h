/* SPDX-License-Identifier: GPL-2.0-only */
/* What /proc says about another process (objpatch attach). */
#ifndef OBJPATCH_ATTACH_PROC_H
#define OBJPATCH_ATTACH_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A field of /proc/PID/status ("TracerPid"), its value without the blanks; false if absent. */
bool proc_status_field(pid_t pid, const char *field, char *out, size_t len);

/*
 * Whether thread (or process) `tid` has exited: a zombie, or gone.  A
 * process whose main thread called pthread_exit() runs on with that
 * thread a zombie, whose /proc entry has no memory, maps or exe left.
 */
bool proc_exited(pid_t tid);

/* A thread of `pid` that has not exited, 0 if none: where /proc shows the process's memory. */
pid_t proc_live_thread(pid_t pid);

/* The ELF header's e_machine and class of /proc/PID/exe; false when it is not ELF or unreadable. */
bool proc_exe_machine(pid_t pid, uint16_t *machine, uint8_t *elfclass);

/* A file mapped into the process: the first whose path `want` accepts. */
struct proc_module {
	char path[4096];	/* as the process names it */
	uint64_t base;		/* the start of its mapping of file offset 0 */
};

bool proc_find_module(pid_t pid, bool (*want)(const char *path), struct proc_module *m);

/* Every file mapped from its offset 0, once each, in *out (free it): their number, or -1 (out of memory). */
ssize_t proc_modules(pid_t pid, struct proc_module **out);


#endif
