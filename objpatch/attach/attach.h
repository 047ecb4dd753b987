/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch attach (objpatch/attach/attach.c), and what its files share. */
#ifndef OBJPATCH_ATTACH_ATTACH_H
#define OBJPATCH_ATTACH_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "elf/elfobj.h"
#include "objpatch/attach/attach_call.h"
#include "objpatch/attach/proc.h"

int attach_main(int argc, char **argv);

/* One line naming the process and why: returns 2, the status of a refusal (the process untouched). */
int attach_refuse(pid_t pid, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether process `p` is an objpatch (its name in /proc). */
bool attach_is_objpatch(pid_t p);
/* A process another tracer holds (`tracer`, its pid), another objpatch attach named as such: 2. */
int attach_refuse_tracer(pid_t pid, pid_t tracer);
/* The EPERM of PTRACE_SEIZE explained (Yama's scope, or the process's owner): 2. */
int attach_refuse_ptrace(pid_t pid);
/* A file of the process, read where the process sees it (its root may be a container's); `path` gets that. */
int attach_load_module(pid_t pid, const struct proc_module *m, struct elfobj *obj, char *path, size_t len);
/* What the process adds to the file's addresses. */
uint64_t attach_load_bias(struct elfobj *obj, const struct proc_module *m);
/*
 * Every thread of `pid` held, and *thread the one to call in: `tid`
 * (--thread) when given, else one not inside malloc or the loader (-1 with
 * in->err set when none).  0; or, nothing held, the status after one line
 * (2: refused, the process untouched; 1: failed).
 */
int attach_hold(struct inject *in, pid_t pid, const struct remote_port *port, const struct target_syms *t, pid_t tid,
		ssize_t *thread);

/* What a session asks for: the runtime's settings and objpatch report's options. */
struct attach_session {
	const char *lib;	/* the runtime to load when the process has none */
	const char *filter;	/* OBJPATCH_FILTER: ',' between the patterns; NULL: every function */
	const char *const *globs;	/* the patterns one by one, checked against the process's functions */
	size_t nglobs;
	bool args;
	const char *policy;	/* NULL: the runtime's default (wait) */
	pid_t thread;		/* 0: objpatch picks */
	double duration;	/* seconds, 0: until a signal */
	const char *const *report;	/* objpatch report's options */
	size_t nreport;
	const char *output;	/* report's --output, or NULL */
	bool verbose;		/* -v: the hold's length said */
};

/* -v's line: how long `in` held the process (after inject_detach()). */
void attach_say_held(pid_t pid, const struct inject *in);

/* objpatch attach without --inject-only (attach_trace.c): the exit status. */
int attach_trace(pid_t pid, pid_t live, const struct remote_port *port, const struct target_syms *t,
		 const struct attach_session *s);

#endif
