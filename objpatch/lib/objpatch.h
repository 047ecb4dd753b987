/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libobjpatch: function-graph tracing of a running program through the
 * call-site tables recordmcount writes (man/libobjpatch.3).
 *
 * Link with -lobjpatch (or LD_PRELOAD libobjpatch.so, or `objpatch run`).
 * At start-up every recorded site becomes a NOP, except the functions that
 * OBJPATCH_FILTER names.  These calls may come from any thread at any time
 * (not from signal handlers) and are serialised.
 */
#ifndef OBJPATCH_LIB_OBJPATCH_H
#define OBJPATCH_LIB_OBJPATCH_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Trace (enable) or stop tracing (disable) the functions whose names match
 * the fnmatch(3) pattern, in every module loaded now and later.  Returns how
 * many sites changed (0: every matching function was already so), or -1
 * (see objpatch_error()): a malformed pattern (an unclosed '[', a trailing
 * '\\', an empty one), which is not applied, or a pattern that matches no
 * function with a call site in the modules loaded now, which is still
 * applied to modules loaded later.
 */
int objpatch_enable(const char *glob);
int objpatch_disable(const char *glob);

/* Writes what the threads have recorded so far to the output; 0 or -1. */
int objpatch_flush(void);

/* Loads the tables of modules loaded since (dlopen() does this by itself). */
int objpatch_rescan(void);

/* Why the last call failed. */
const char *objpatch_error(void);

#ifdef __cplusplus
}
#endif

#endif
