/* SPDX-License-Identifier: GPL-2.0-only */
/* Finding and running the real compiler, and the form of instrumentation for its target. */
#ifndef OBJPATCH_CC_COMPILER_H
#define OBJPATCH_CC_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include "objpatch/cc/cmdline.h"

/* The compiler command: a launcher (ccache) may come first. */
struct compiler {
	const char *words[2];	/* as the user named them */
	char *path;		/* words[0] found in PATH, never objpatch-cc itself */
	size_t nwords;
	bool clang;
};

extern bool cc_verbose;	/* OBJPATCH_CC_VERBOSE=1: print each command run */

/* Find `name` in PATH, skipping objpatch-cc itself; NULL with one line on stderr. */
char *find_compiler(const char *name);
/* Is this command a launcher (ccache, distcc) that takes the compiler as its first argument? */
bool is_launcher(const char *name);
/* Was the compiler, once its links are followed, clang? */
bool compiler_is_clang(const char *path, const char *name);

/* Run argv[0] (a path) and wait: its exit status, 128+N for signal N, 127 when it could not start. */
int run_wait(char *const argv[]);
/* Become argv[0] (a path); returns only when that failed, with one line on stderr. */
int run_exec(char *const argv[]);

/* The machine objpatch-cc compiles for, and how it instruments there. */
struct cc_target {
	char machine[64];	/* the name of its arch/machines.h row */
	const char *flags;	/* space-separated; NULL: no runtime port */
};

/* Ask the compiler (-dumpmachine with the command's target flags); -1 with one line on stderr. */
int cc_target_of(const struct compiler *cc, const struct cmdline *c, struct cc_target *t);

#endif
