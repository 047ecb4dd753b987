// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls in a held process (attach_call.h).  What a call needs goes below
 * the borrowed thread's stack pointer (past its red zone): strings, then
 * the environment array, then the call's frame.  environ is swapped for
 * that array for the length of the call only, so that the process and
 * the programs it starts later never see objpatch's variables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "objpatch/attach/attach_call.h"

#define RTLD_NOW_LINUX 2	/* <dlfcn.h>'s RTLD_NOW, the same on every Linux machine */
/* At most this much of the process's environment is copied below its stack pointer. */
#define ENV_COPY_MAX 65536
#define VARS_MAX 16

/* Places `len` bytes below *at (aligned to `align`) in the process's memory. */
static int push(struct inject *in, uint64_t *at, const void *data, size_t len, unsigned align)
{
	*at = (*at - len) & ~(uint64_t)(align - 1);
	return inject_write(in, *at, data, len);
}

/* The words of the process's environment array `environ_array`, at most `max`: how many (0 if unreadable). */
static size_t environment_length(struct inject *in, uint64_t environ_array, size_t max)
{
	unsigned w = in->port->word;
	uint64_t word = 0;
	size_t n = 0;

	while (environ_array && n < max && inject_read_word(in, environ_array + n * w, &word) == 0 && word)
		n++;
	return word ? 0 : n;	/* too long or unreadable: objpatch's variables alone */
}

/*
 * An environment array below *at, its address in *env: `vars` first, then
 * the words of the process's `environ_array` (0: none).  Past
 * ENV_COPY_MAX only `vars` are there: the runtime reads nothing else.
 */
static int push_environment(struct inject *in, uint64_t *at, uint64_t environ_array, const char *const *vars,
			    size_t nvars, uint64_t *env)
{
	unsigned w = in->port->word;
	uint64_t addr[VARS_MAX];
	size_t n;
	uint8_t *words;
	int rc;

	if (nvars > VARS_MAX)
		return snprintf(in->err, sizeof(in->err), "%d: too many variables", (int)in->pid), -1;
	for (size_t i = 0; i < nvars; i++) {
		if (push(in, at, vars[i], strlen(vars[i]) + 1, 1) < 0)
			return -1;
		addr[i] = *at;
	}
	n = environment_length(in, environ_array, ENV_COPY_MAX / w - nvars - 1);
	if (!(words = calloc(nvars + n + 1, w))) {
		snprintf(in->err, sizeof(in->err), "%d: out of memory", (int)in->pid);
		return -1;
	}
	for (size_t i = 0; i < nvars; i++)
		memcpy(words + i * w, &addr[i], w);	/* little-endian: the low bytes first */
	rc = n ? inject_read(in, environ_array, words + nvars * w, n * w) : 0;
	if (rc == 0)
		rc = push(in, at, words, (nvars + n + 1) * w, w);
	free(words);
	*env = *at;
	return rc;
}

/* A string of the process at `p`, into msg. */
static void read_string(struct inject *in, uint64_t p, char *msg, size_t len)
{
	memset(msg, 0, len);
	for (size_t i = 0; i + 1 < len && pread(in->mem, msg + i, 1, (off_t)(p + i)) == 1 && msg[i]; i++)
		;
}

/* fn() returning a string: its text into msg, or `none`. */
static void remote_text(struct inject *in, size_t thread, uint64_t fn, const char *what, uint64_t below,
			const char *none, char *msg, size_t len)
{
	struct remote_call c = { .fn = fn, .below = below };
	uint64_t p = 0;

	snprintf(msg, len, "%s", none);
	if (fn && inject_call(in, thread, what, &c, &p) == 0 && p)
		read_string(in, p, msg, len);
}

/*
 * c->fn in thread `thread` with environ swapped for an array of `vars`
 * and (environ_copy) the process's own, the call's data below *at.
 */
static int call_with_environment(struct inject *in, size_t thread, const struct target_syms *t, uint64_t *at,
				 bool environ_copy, const char *const *vars, size_t nvars, const char *what,
				 struct remote_call *c, uint64_t *ret)
{
	uint64_t env, saved_env = 0;
	int rc;

	if (inject_read_word(in, t->environ, &saved_env) < 0 ||
	    push_environment(in, at, environ_copy ? saved_env : 0, vars, nvars, &env) < 0)
		return -1;
	c->below = *at;
	/* Swapped by the call's own entry and return code where the port has it (inject.c). */
	in->swap_addr = t->environ;
	in->swap_new = env;
	in->swap_old = saved_env;
	rc = inject_call(in, thread, what, c, ret);
	in->swap_addr = 0;
	return rc;
}

/* RTLD_LOCAL (0), so that the runtime's own dlopen and unwinder do not interpose on the program's. */
int call_load(struct inject *in, size_t thread, const struct target_syms *t, const char *lib, uint64_t *handle)
{
	static const char *const vars[] = { ATTACH_VAR };
	struct remote_call c = { .fn = t->dlopen, .nargs = 2 };
	uint64_t at;
	char why[256];
	int rc;

	if (inject_stack_top(in, thread, &at) < 0 || push(in, &at, lib, strlen(lib) + 1, 1) < 0)
		return -1;
	c.args[0] = at;
	c.args[1] = RTLD_NOW_LINUX;
	rc = call_with_environment(in, thread, t, &at, true, vars, 1, "dlopen", &c, handle);
	if (rc == 0 && !*handle) {
		remote_text(in, thread, t->dlerror, "dlerror", at, "dlopen returned NULL", why, sizeof(why));
		snprintf(in->err, sizeof(in->err), "%d: loading %s: %s", (int)in->pid, lib, why);
		rc = -1;
	}
	return rc;
}

int call_start(struct inject *in, size_t thread, const struct target_syms *t, const struct runtime_syms *r,
	       const char *const *vars, size_t nvars)
{
	struct remote_call c = { .fn = r->start };
	uint64_t at, ret = 0;
	char why[512];

	if (inject_stack_top(in, thread, &at) < 0 ||
	    call_with_environment(in, thread, t, &at, false, vars, nvars, "objpatch_attach_start", &c, &ret) < 0)
		return -1;
	if ((uint32_t)ret == 0 || (uint32_t)ret == ATTACH_BUSY)
		return (int)(uint32_t)ret;
	remote_text(in, thread, r->error, "objpatch_error", at, "no reason given", why, sizeof(why));
	if ((uint32_t)ret == 2) {
		snprintf(in->err, sizeof(in->err), "%d: %s", (int)in->pid, why);
		return 1;
	}
	snprintf(in->err, sizeof(in->err), "%d: the runtime did not start tracing: %s", (int)in->pid, why);
	return -1;
}

int call_enable_held(struct inject *in, size_t thread, const struct runtime_syms *r)
{
	struct remote_call c = { .fn = r->enable_held };
	uint64_t ret = 0;
	char why[512];
	int rc;

	if (inject_stack_top(in, thread, &c.below) < 0)
		return -1;
	in->alone = true;
	rc = inject_call(in, thread, "objpatch_attach_enable_held", &c, &ret);
	in->alone = false;
	if (rc < 0)
		return -1;
	if ((uint32_t)ret == 0 || (uint32_t)ret == ATTACH_BUSY)
		return (int)(uint32_t)ret;
	remote_text(in, thread, r->error, "objpatch_error", c.below, "no reason given", why, sizeof(why));
	snprintf(in->err, sizeof(in->err), "%d: the runtime did not enable its sites: %s", (int)in->pid, why);
	return -1;
}
