/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The calls objpatch attach makes in a thread of the process it holds
 * (objpatch/attach/inject.h): libc's dlopen() to load the runtime, and the
 * runtime's objpatch_attach_start() to begin a session (and its
 * objpatch_attach_enable_held() to join pads), each with the
 * process's environment swapped for one objpatch wrote, for the length of
 * the call.
 */
#ifndef OBJPATCH_ATTACH_ATTACH_CALL_H
#define OBJPATCH_ATTACH_ATTACH_CALL_H

#include <stddef.h>
#include <stdint.h>
#include "objpatch/attach/inject.h"

#define ATTACH_AVOID_MAX 32
/*
 * What the runtime's calls return when a thread objpatch holds has the
 * runtime's lock (inside fork(), by its atfork handler): let the threads
 * run a while, then call again (objpatch/lib/rt.h).
 */
#define ATTACH_BUSY 3
/* What the runtime looks for in its environment to stay dormant (objpatch/lib/rt.h, RT_ATTACH_VAR). */
#define ATTACH_VAR "OBJPATCH_ATTACH=1"

/* What the calls need of the process: its libc's functions and the environment's address. */
struct target_syms {
	uint64_t dlopen, dlerror, environ;
	uint64_t mmap, munmap, sigreturn;	/* for calls safe from objpatch's death (inject_safe_calls) */
	struct inject_range avoid[ATTACH_AVOID_MAX];	/* code a borrowed thread must not be inside */
	size_t navoid;
};

/* The runtime's functions, where the process has it loaded. */
struct runtime_syms {
	uint64_t start, error;	/* objpatch_attach_start, objpatch_error */
	uint64_t owner;		/* objpatch_attach_owner (0: a runtime without it) */
	uint64_t enable_held;	/* objpatch_attach_enable_held */
	uint64_t forking;	/* objpatch_attach_forking (0: a runtime without it) */
	struct inject_range patcher;	/* its patcher's handlers (0, 0: none), where pads are not joined */
};

/*
 * dlopen(lib, RTLD_NOW) in thread `thread`, the environment the process's
 * own with ATTACH_VAR first: 0 with the handle, or -1 with in->err set
 * (dlerror()'s words when dlopen refused).
 */
int call_load(struct inject *in, size_t thread, const struct target_syms *t, const char *lib, uint64_t *handle);

/*
 * objpatch_attach_start() in thread `thread`, the environment `vars`
 * alone: 0 when the session runs; 1 when another session runs (the
 * runtime's words in in->err); ATTACH_BUSY; or -1 with in->err set (the
 * runtime's objpatch_error() when it refused).
 */
int call_start(struct inject *in, size_t thread, const struct target_syms *t, const struct runtime_syms *r,
	       const char *const *vars, size_t nvars);

/*
 * objpatch_attach_enable_held() in thread `thread`, after call_start()
 * with OBJPATCH_ATTACH_HELD and inject_settle(): the sites with pads
 * enabled while no other thread runs.  0, ATTACH_BUSY, or -1 with
 * in->err set.
 */
int call_enable_held(struct inject *in, size_t thread, const struct runtime_syms *r);

#endif
