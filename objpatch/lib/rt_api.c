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

/*
 * Threads between our fork handlers: they hold runtime.lock, and malloc's
 * locks while in the system call.  objpatch attach reads it: a thread it
 * holds there would make the call that joins pads wait for ever.
 */
API volatile int objpatch_attach_forking;

static void before_fork(void)
{
	__atomic_add_fetch(&objpatch_attach_forking, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&runtime.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&runtime.lock);
	__atomic_sub_fetch(&objpatch_attach_forking, 1, __ATOMIC_SEQ_CST);
}

/*
 * The child's thread is not the one that took runtime.lock (another tid): an
 * error-checking mutex (rt_modules.c) refuses its unlock, so it is made
 * anew, free.
 */
static void reset_lock(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&runtime.lock, &a);
	pthread_mutexattr_destroy(&a);
}

static void after_fork_child(void)
{
	if (rt_attached)
		rt_attach_fork_child();
	rt_record_fork_child();
	rt_output_fork_child();
	reset_lock();
	objpatch_attach_forking = 0;	/* the child's one thread is past fork() */
	/*
	 * No writer thread in a forked child: a thread created there aborts
	 * qemu-user (t/95-rt-aarch64.t).  The child's trace is written at
	 * its exit, with the buffers it had before streaming (rt_record.c).
	 */
	rt_record_without_writer();
}

int rt_fork_handlers(void)
{
	return pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/*
 * OBJPATCH_FILTER's patterns that name no function are mistakes (a typo,
 * a name the compiler changed): one line each.  When nothing at all is
 * traced, the trace says so too, so that an empty trace is not taken for
 * a program that called nothing.  A process without recorded sites (a
 * shell that starts the traced program) has nothing to match: no word.
 */
static void check_filter(void)
{
	const char *f = getenv("OBJPATCH_FILTER"), *status = getenv("OBJPATCH_STATUS");
	/* objpatch run set the variable from its --filter (-F), and says itself when nothing is traced. */
	bool run = status && *status;
	size_t funcs, traced;
	char note[512];

	rt_count_functions(&funcs, &traced);
	if (!funcs || !runtime.nstart_filters)
		return;
	for (size_t i = 0; i < runtime.nstart_filters && (traced || !run); i++)
		if (!rt_count_matches(runtime.start_filters[i].glob))
			fprintf(stderr, "objpatch: %s \"%s\" matches none of the %zu functions with a call site: see "
				"their names with `objpatch list PROGRAM`\n", run ? "--filter" : "OBJPATCH_FILTER:",
				runtime.start_filters[i].glob, funcs);
	if (traced)
		return;
	snprintf(note, sizeof(note), "no function traced: %s%s selects none of the %zu functions with a call site",
		 run ? "--filter " : "OBJPATCH_FILTER=", f, funcs);
	runtime.note = strdup(note);
}

/*
 * Whether `objpatch attach` is loading the runtime: environ is read
 * itself, as objpatch wrote it, since a program may have a getenv() of
 * its own that reads something else (bash's reads its variable table).
 */
static bool attaching(void)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++)
		if (!strcmp(*e, RT_ATTACH_VAR "=1"))
			return true;
	return false;
}

/*
 * The environment's filter is applied before the first scan, so that the
 * start-up pass writes every site once, straight to its final state.
 *
 * Loaded into a running process by `objpatch attach` (whose environment
 * holds OBJPATCH_ATTACH for the length of that dlopen), the runtime stays
 * dormant: the process's own OBJPATCH_* variables were not set for this
 * attach, and a runtime that started would change what the process does
 * (its sites rewritten, a writer thread, a trace at exit, a variable its
 * children inherit).  Nothing is set up until objpatch asks
 * (objpatch_attach_start(), rt_attach.c).
 */
__attribute__((constructor)) static void rt_init(void)
{
	uint64_t t0, cpu0, wall, cpu;
	size_t patched = 0;
	char err[256];

	if (attaching()) {
		rt_attached = true;
		atomic_store(&rt_dormant, true);
		return;
	}
	rt_read_settings();
	rt_timestamp_init();
	rt_output_init();
	rt_record_init(runtime.buffer_mb);
	/* The patcher's fork handler first: ours then run first, in lock order. */
	if (patch_init(err, sizeof(err)) < 0)
		fprintf(stderr, "objpatch: %s\n", err);
	rt_fork_handlers();
	pthread_mutex_lock(&runtime.lock);
	rt_set_filters(runtime.start_filters, runtime.nstart_filters, false);
	t0 = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (rt_scan_modules(&patched) < 0)
		fprintf(stderr, "objpatch: %s\n", runtime.err[0] ? runtime.err : "out of memory");
	wall = clock_ns(CLOCK_MONOTONIC) - t0;
	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	ready = true;
	rt_raw_begin();
	rt_writer_start();
	rt_signals_install();
	/* The checks below are not start-up's cost: they come after the figures. */
	check_filter();
	if (runtime.stats) {
		size_t sites = 0;

		for (size_t i = 0; i < runtime.nmods; i++)
			sites += runtime.mods[i]->nsites;
		fprintf(stderr, "objpatch: %zu sites in %zu modules, %zu patched in %" PRIu64 " ns (%" PRIu64
			" ns of CPU)\n", sites, runtime.nmods, patched, wall, cpu);
		rt_report_unrecorded(0);
	}
	pthread_mutex_unlock(&runtime.lock);
}

/*
 * The exit instant is taken first, before waiting for the lock: threads
 * still running go on, but the trace ends there for all of them.
 */
__attribute__((destructor)) static void rt_fini(void)
{
	if (rt_attached)
		rt_attach_exit();
	if (!ready)
		return;
	rt_stop();
	pthread_mutex_lock(&runtime.lock);
	rt_status_report(rt_flush(true) == 0);
	pthread_mutex_unlock(&runtime.lock);
}

/*
 * A malformed pattern is refused; one that names no function of the
 * loaded modules is -1 as well (a typo would otherwise pass for a
 * function never called), though it is kept for modules loaded later.
 */
static int set_filter(const char *glob, bool on)
{
	const char *what = on ? "objpatch_enable" : "objpatch_disable", *why;
	size_t matched = 0;
	int rc;

	if (!glob) {
		rt_error("%s: no pattern (NULL)", what);
		return -1;
	}
	if ((why = rt_pattern_error(glob))) {
		rt_error("%s(\"%s\"): %s", what, glob, why);
		return -1;
	}
	pthread_mutex_lock(&runtime.lock);
	rc = rt_set_filter(glob, on, &matched);
	if (rc > 0 && on) {
		free(runtime.note);	/* the trace is no longer empty by the filter's doing */
		runtime.note = NULL;
	}
	if (rc >= 0 && !matched) {
		rt_error("%s(\"%s\"): no function with a call site matches (kept for modules loaded later)", what, glob);
		rc = -1;
	}
	pthread_mutex_unlock(&runtime.lock);
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

	pthread_mutex_lock(&runtime.lock);
	rc = rt_flush(false);
	pthread_mutex_unlock(&runtime.lock);
	return rc;
}

API int objpatch_rescan(void)
{
	int rc;

	pthread_mutex_lock(&runtime.lock);
	rc = rt_scan_modules(NULL);
	if (ready)
		rt_raw_begin();
	pthread_mutex_unlock(&runtime.lock);
	return rc;
}

API const char *objpatch_error(void)
{
	return runtime.err;
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
