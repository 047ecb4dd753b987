/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch report (objpatch/engine/report.c). */
#ifndef OBJPATCH_ENGINE_REPORT_H
#define OBJPATCH_ENGINE_REPORT_H

int report_main(int argc, char **argv);
/*
 * objpatch report's work on argv (argv[0] and argv[1] are skipped, as
 * report_main's), its trace going to `fd` without --output: objpatch run
 * formats a recording of its own this way, to standard error.  Returns the
 * exit status.
 */
int report_run(int argc, char **argv, int fd);
/*
 * report_run()'s options checked, nothing read or written: 0, or -1 after
 * one line (objpatch attach checks them before it touches the process).
 */
int report_check(int argc, char **argv, int fd);
/*
 * The patterns the recorded session was traced with (objpatch attach's
 * --filter, in order, '!' excluding): after the trace, report_run() names
 * in one line on standard error, beginning with `cmd`, the functions they
 * matched that never ran (`why`: "", or when, as " while attached").
 * Not for "*" alone: pass none then.
 */
void report_name_uncalled(const char *cmd, const char *why, const char *const *globs, size_t nglobs);

/* The likely cause, when the whole run was seen: the runtime's line says the same. */
#define UNCALLED_INLINED                                                                                      \
	"inlined at every call site? a function the compiler inlined everywhere keeps its out-of-line copy, " \
	"which nothing calls"

#endif
