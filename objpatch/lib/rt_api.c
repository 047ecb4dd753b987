// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's public face: start-up from the environment, the API of
 * objpatch.h, dlopen(), fork and exit.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "objpatch/lib/objpatch.h"
#include "arch/patch.h"
#include "objpatch/lib/rt.h"

#define API __attribute__((visibility("default")))

static bool ready;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static size_t env_number(const char *name, size_t dflt, size_t lo, size_t hi)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 10);
	if (*end || v < lo || v > hi) {
		fprintf(stderr, "objpatch: %s=%s: not a number in %zu..%zu; using %zu\n", name, s, lo, hi,
			dflt);
		return dflt;
	}
	return (size_t)v;
}

static void read_settings(void)
{
	const char *fmt = getenv("OBJPATCH_FORMAT"), *outp = getenv("OBJPATCH_OUTPUT"),
		   *hex = getenv("OBJPATCH_HEX"), *stats = getenv("OBJPATCH_STATS"),
		   *errnos = getenv("OBJPATCH_ERRNO_NAMES");

	rt.depth = (unsigned)env_number("OBJPATCH_DEPTH", 256, 1, EV_DEPTH_MAX);
	rt.strlen_max = env_number("OBJPATCH_STRLEN", 64, 1, STRING_WORDS * 8 - 2);
	rt.buffer_mb = env_number("OBJPATCH_BUFFER_MB", 1024, 1, 1 << 20);
	rt.hex = hex && *hex && strcmp(hex, "0") != 0;
	rt.stats = stats && *stats && strcmp(stats, "0") != 0;
	rt.errno_names = errnos && *errnos && strcmp(errnos, "0") != 0;
	rt.format = FMT_TEXT;
	if (fmt && strcmp(fmt, "json") == 0)
		rt.format = FMT_JSON;
	else if (fmt && strcmp(fmt, "folded") == 0)
		rt.format = FMT_FOLDED;
	else if (fmt && strcmp(fmt, "raw") == 0)
		rt.format = FMT_RAW;
	else if (fmt && *fmt && strcmp(fmt, "text") != 0)
		fprintf(stderr, "objpatch: OBJPATCH_FORMAT=%s: not text, json, folded or raw; using text\n", fmt);
	rt.output = outp && *outp ? strdup(outp) : NULL;
	if (rt.format == FMT_RAW && !rt.output)
		rt.output = strdup("objpatch.data");	/* not a terminal's kind of output */
	rt.output_pid = getpid();
}

static void before_fork(void)
{
	pthread_mutex_lock(&rt.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&rt.lock);
}

static void after_fork_child(void)
{
	rt_record_fork_child();
	rt_output_fork_child();
	pthread_mutex_unlock(&rt.lock);
}

/*
 * The environment's filter is applied before the first scan, so that the
 * start-up pass writes every site once, straight to its final state.
 */
__attribute__((constructor)) static void rt_init(void)
{
	uint64_t t0, cpu0;
	size_t patched = 0;
	const char *f = getenv("OBJPATCH_FILTER");
	char *copy, *save = NULL, err[256];

	read_settings();
	rt_timestamp_init();
	rt_output_init();
	rt_record_init(rt.buffer_mb);
	/* The patcher's fork handler first: ours then run first, in lock order. */
	if (patch_init(err, sizeof(err)) < 0)
		fprintf(stderr, "objpatch: %s\n", err);
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	pthread_mutex_lock(&rt.lock);
	/* OBJPATCH_FILTER="a*,!b*,c": in order, enable or (with '!') disable. */
	if (f && *f && (copy = strdup(f))) {
		for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save))
			rt_set_filter(*g == '!' ? g + 1 : g, *g != '!');
		free(copy);
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (rt_scan_modules(&patched) < 0)
		fprintf(stderr, "objpatch: %s\n", rt.err[0] ? rt.err : "out of memory");
	ready = true;
	pthread_mutex_unlock(&rt.lock);
	if (rt.stats) {
		size_t sites = 0;

		for (size_t i = 0; i < rt.nmods; i++)
			sites += rt.mods[i]->nsites;
		fprintf(stderr, "objpatch: %zu sites in %zu modules, %zu patched in %" PRIu64 " ns (%" PRIu64
			" ns of CPU)\n", sites, rt.nmods, patched, clock_ns(CLOCK_MONOTONIC) - t0,
			clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
	}
}

__attribute__((destructor)) static void rt_fini(void)
{
	if (!ready)
		return;
	pthread_mutex_lock(&rt.lock);
	rt_status_report(rt_flush(true) == 0);
	pthread_mutex_unlock(&rt.lock);
}

static int set_filter(const char *glob, bool on)
{
	int rc;

	if (!glob) {
		rt_error("no pattern");
		return -1;
	}
	pthread_mutex_lock(&rt.lock);
	rc = rt_set_filter(glob, on);
	pthread_mutex_unlock(&rt.lock);
	return rc;
}

API int objpatch_enable(const char *glob)
{
	return set_filter(glob, true);
}

API int objpatch_disable(const char *glob)
{
	return set_filter(glob, false);
}

API int objpatch_flush(void)
{
	int rc;

	pthread_mutex_lock(&rt.lock);
	rc = rt_flush(false);
	pthread_mutex_unlock(&rt.lock);
	return rc;
}

API int objpatch_rescan(void)
{
	int rc;

	pthread_mutex_lock(&rt.lock);
	rc = rt_scan_modules(NULL);
	pthread_mutex_unlock(&rt.lock);
	return rc;
}

API const char *objpatch_error(void)
{
	return rt.err;
}

/*
 * A library loaded later gets its sites NOP'd or traced, as the filters say.
 * Its constructors have run by then, with its sites as the linker left them.
 */
API void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (!real)
		return NULL;
	h = real(file, mode);
	if (h && ready)
		objpatch_rescan();
	return h;
}
