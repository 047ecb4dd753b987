// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's trace: its threads' event chunks fed to the trace writer
 * (trace/writer.c), with names from the loaded modules, into the output
 * file; or, for raw recordings, to rt_raw.c.  Runs under runtime.lock, never on
 * the recording path: at exit, on objpatch_flush(), from any thread, and
 * every OBJPATCH_FLUSH_MS in a writer thread of its own, which streams the
 * trace while the program runs and frees the chunks it has formatted, so
 * that memory stays within OBJPATCH_BUFFER_MB whatever the trace's length.
 *
 * A flush before the end writes the events up to the instant it began,
 * merged by time: later ones wait for the next, so that a thread that
 * commits its events late (its chunk not full, or idle) still has them in
 * their place.  An entry waits for the event after it too, which says
 * whether it is a leaf (one line) or opens a block.  One case is left: a
 * thread preempted between taking an event's time and committing it, for
 * longer than a pass, has that event written after later ones of other
 * threads (its own events stay in order).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "objpatch/lib/rt.h"
#include "trace/writer.h"
#include "util/array.h"

/* ---- time ---- */

static uint64_t ts0, ns0;		/* the first sample */
static double ns_per_tick = 1.0;
static uint64_t rated_ns;		/* when ns_per_tick was measured; 0: not yet */

uint64_t rt_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Both clocks at one instant: the tick half-way between two read around the
 * clock, from the tightest of a few tries (a thread preempted between two
 * reads would otherwise pair times milliseconds apart).
 */
static void sample_clocks(uint64_t *ts, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t before = rt_timestamp(), mono = rt_mono_ns(), after = rt_timestamp();

		if (after >= before && after - before < best) {
			best = after - before;
			*ts = before + best / 2;
			*ns = mono;
		}
	}
	if (best == UINT64_MAX) {
		*ts = rt_timestamp();
		*ns = rt_mono_ns();
	}
}

/*
 * The rate from the longest interval there is, start-up to now, measured
 * again each time that interval has doubled: each rate then rests on at
 * least half the run, and a long run has a few dozen of them.  A trace
 * written within a millisecond of start-up waits for one, so that its
 * durations are right too.  Returns the tick the new rate applies from, 0
 * when the rate stays.
 */
static uint64_t calibrate(void)
{
	uint64_t ts, ns;

	while (rt_mono_ns() < ns0 + 1000000)
		;
	if (rated_ns && rt_mono_ns() - ns0 < 2 * (rated_ns - ns0))
		return 0;
	sample_clocks(&ts, &ns);
	if (ts > ts0 && ns > ns0)
		ns_per_tick = (double)(ns - ns0) / (double)(ts - ts0);
	rated_ns = ns;
	return ts;
}

/* ---- this machine, as the writer reads its events ---- */

static struct trace_machine machine;

void rt_output_init(void)
{
	sample_clocks(&ts0, &ns0);
	rated_ns = 0;
	trace_machine_native(rt_arch_host.desc, &machine);
}

/*
 * The writer's names by return address: every event names its function
 * by the site's ra, and rt_func_for_ra() searches the modules' sites (a
 * tenth of the writer's instructions on work.c).  A module is never
 * removed and the first module holding ra answers, so a function found
 * stays the answer for that ra: only those are kept (a miss may yet be
 * found in a module loaded later).  Used under runtime.lock.
 */
#define NAME_CACHE 1024u	/* a power of 2 */
static struct name_cache {
	uint64_t ra;
	struct sym_func *f;
} name_cache[NAME_CACHE];

static struct sym_func *symbolize(void *ctx, uint64_t ra)
{
	struct name_cache *e = &name_cache[(ra ^ ra >> 10) & (NAME_CACHE - 1)];
	struct sym_func *f;

	(void)ctx;
	if (e->f && e->ra == ra)
		return e->f;
	f = rt_func_for_ra((uintptr_t)ra);
	if (f)
		*e = (struct name_cache){ ra, f };
	return f;
}

/* The module whose function table holds `f`: the flame graph's colour family. */
static const char *module_of(void *ctx, const struct sym_func *f)
{
	(void)ctx;
	for (size_t i = 0; i < runtime.nmods; i++) {
		const struct sym_table *s = &runtime.mods[i]->syms;

		/* The program is read through /proc/self/exe: its name says more. */
		if (s->nfuncs && (uintptr_t)f >= (uintptr_t)s->funcs && (uintptr_t)f < (uintptr_t)(s->funcs + s->nfuncs))
			return strcmp(runtime.mods[i]->path, "/proc/self/exe") ? runtime.mods[i]->path : rt_program_name();
	}
	return NULL;
}

/* ---- names of the process and its threads ---- */

void rt_thread_comm(struct tstate *t)
{
	char path[64], name[sizeof(t->comm)];
	ssize_t n;
	int fd;

	if (atomic_load(&t->dead))
		return;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = 0;
	name[strcspn(name, "\n")] = 0;
	memcpy(t->comm, name, sizeof(name));
}

const char *rt_program_name(void)
{
	return program_invocation_short_name;
}

/* Every thread's name as it is now, for the writer's metadata. */
static void name_threads(void)
{
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		rt_thread_comm(t);
		if (t->out)
			trace_thread_name(t->out, t->comm);
	}
}

/* ---- the output file, and a writer for it, per process ---- */

static int out_fd = -1;
static pid_t out_pid;
static struct trace_writer *writer;
/*
 * A flush writes what the threads recorded before it began, while they go
 * on recording; the final one (last_pass), what they recorded before the
 * exit instant, where every thread's open frames close.
 */
static uint64_t limit = UINT64_MAX;	/* this flush writes the events up to this time */
static bool last_pass;			/* no later flush: an entry is written without its next event */
static bool finished;			/* the final flush is done: nothing more is written */
static _Atomic bool writer_running, writer_wanted;	/* the writer thread (at the end) */

static enum trace_format writer_format(void)
{
	static const enum trace_format formats[] = { [FMT_TEXT] = TRACE_TEXT, [FMT_JSON] = TRACE_JSON,
						     [FMT_FOLDED] = TRACE_FOLDED, [FMT_SVG] = TRACE_SVG,
						     [FMT_PERFETTO] = TRACE_PERFETTO };

	return (unsigned)runtime.format < sizeof(formats) / sizeof(formats[0]) ? formats[runtime.format] : TRACE_TEXT;
}

/*
 * OBJPATCH_OUTPUT for process `pid`: the name itself for the first process,
 * and for every other one the name with ".PID" before its extension, so
 * that the format's extension stays last (t.json: t.1490.json; t: t.1490).
 * No stdio: rt_raw.c calls it where only async-signal-safe code may run.
 */
int rt_output_path(char *buf, size_t size, pid_t pid)
{
	const char *name = runtime.output, *base = strrchr(name, '/'), *dot;
	size_t len = strlen(name), ext, at, k = 0;
	char digits[16];

	if (len + 18 > size)
		return -1;
	base = base ? base + 1 : name;
	dot = strrchr(base, '.');
	ext = dot && dot > base ? (size_t)(dot - name) : len;	/* ".trace" is a name, not an extension */
	memcpy(buf, name, ext);
	at = ext;
	if (pid != runtime.output_pid) {
		for (unsigned long p = (unsigned long)pid; p && k < sizeof(digits); p /= 10)
			digits[k++] = (char)('0' + p % 10);
		buf[at++] = '.';
		while (k)
			buf[at++] = digits[--k];
	}
	memcpy(buf + at, name + ext, len - ext + 1);
	return 0;
}

static int open_file(void)
{
	char path[4096];

	if (!runtime.output) {
		out_fd = 2;
		return 0;
	}
	if (rt_output_path(path, sizeof(path), out_pid) < 0) {
		fprintf(stderr, "objpatch: OBJPATCH_OUTPUT=%s: the name is too long: use a shorter one\n", runtime.output);
		return -1;
	}
	out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_output(void)
{
	struct trace_settings s = { .format = writer_format(), .depth = runtime.depth, .hex = runtime.hex,
				    .errno_names = runtime.errno_names, .process_name = rt_program_name(),
				    .strlen_max = runtime.strlen_max, .machine = &machine, .symbolize = symbolize,
				    .module_of = module_of, .read_args = rt_read_own };

	if (out_fd >= 0 && out_pid == getpid())
		return 0;
	out_pid = getpid();
	trace_writer_free(writer);
	writer = NULL;
	if (open_file() < 0)
		return -1;
	s.pid = (int)out_pid;
	s.fd = out_fd;
	writer = trace_writer_new(&s);
	return writer ? 0 : -1;
}

/* The parent's writer and its threads are the parent's: the child makes its own. */
void rt_output_fork_child(void)
{
	finished = false;
	atomic_store(&writer_running, false);	/* the parent's */
	out_fd = -1;
	trace_writer_free(writer);
	writer = NULL;
}

/* ---- the threads' chunks, read in place ---- */


/*
 * Whether the thread has committed an event after the one at `pos` of
 * chunk `c`, and after its arguments for an entry (committed with it).
 */
static bool has_next(const struct chunk *c, uint32_t pos, uint32_t count)
{
	const struct chunk *next;
	uint32_t after = pos + ev_words(c->w[pos + 1]);

	if (ev_type(c->w[pos + 1]) == EV_ENTRY && after < count && ev_type(c->w[after + 1]) == EV_ARGS)
		after += ev_words(c->w[after + 1]);
	if (after < count)
		return true;
	next = atomic_load_explicit(&c->next, memory_order_acquire);
	return next && atomic_load_explicit(&next->count, memory_order_acquire) > next->consumed;
}

/* Whether the event at `pos` is for a later flush. */
static bool later(const struct tstate *t, const struct chunk *c, uint32_t pos, uint32_t count)
{
	const uint64_t *ev = &c->w[pos];

	bool entry = ev_type(ev[1]) == EV_ENTRY;

	/*
	 * Past the flush's time only the event right after an entry shows (its
	 * exit makes the entry a leaf's one line), and nothing past the exit
	 * instant.  An entry waits for the event after it, which says whether
	 * it is a leaf, even right after another entry: written without it, a
	 * leaf's entry and exit went to two flushes (t/90's rt_toggle, under
	 * load).
	 */
	if (ev[0] > limit && (last_pass || !t->after_entry || entry))
		return true;
	/*
	 * But not while the budget is spent: threads then wait for the chunks
	 * this one holds, and an entry that waits for them is a stall (t/91
	 * under load); a leaf may then print as two lines.
	 */
	return entry && !last_pass && !has_next(c, pos, count) && !rt_room_short();
}

/* A thread's next event, or NULL; frees chunks the thread has left behind. */
static const uint64_t *chunk_peek(void *ctx)
{
	struct tstate *t = ctx;

	for (;;) {
		struct chunk *c = t->read, *next;
		uint32_t count;

		if (!c)
			return NULL;
		next = atomic_load_explicit(&c->next, memory_order_acquire);
		count = atomic_load_explicit(&c->count, memory_order_acquire);
		if (t->read_pos < count)
			return later(t, c, t->read_pos, count) ? NULL : &c->w[t->read_pos];
		if (!next)
			return NULL;
		/* The owner moved on and never writes this chunk again. */
		atomic_store(&t->head, next);
		rt_free_chunk(c);
		t->read = next;
		t->read_pos = next->consumed;
	}
}

static void chunk_consume(void *ctx, size_t words)
{
	struct tstate *t = ctx;

	unsigned type = ev_type(t->read->w[t->read_pos + 1]);

	/* An entry's arguments are part of it: the event after them still shows. */
	t->after_entry = type == EV_ENTRY || (type == EV_ARGS && t->after_entry);
	t->read_pos += (uint32_t)words;
	t->read->consumed = t->read_pos;
}

/*
 * Every thread the writer can read, in rt_threads' order (newest first),
 * which decides between events of the same time; a thread first seen is
 * read from the oldest chunk it has.
 */
static struct trace_thread **threads;
static size_t nthreads, cap_threads;

static int gather_threads(void)
{
	nthreads = 0;
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		if (!t->out) {
			struct trace_events src = { chunk_peek, chunk_consume, t };

			t->read = atomic_load(&t->head);
			t->read_pos = t->read ? t->read->consumed : 0;
			t->out = trace_thread_new(writer, (int)t->tid, &src);
		}
		if (!t->out)
			continue;	/* out of memory: its events wait */
		if (!grow_array(&threads, nthreads, &cap_threads, sizeof(*threads)))
			return -1;
		threads[nthreads++] = t->out;
	}
	return 0;
}

static struct trace_counts counts(void)
{
	struct trace_counts c = { 0 };

	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		c.missed_depth += t->missed_depth;
		c.missed_busy += t->missed_busy;
		c.lost += t->lost;
	}
	return c;
}

/*
 * The frames each thread still has: deeper ones the writer holds open lost
 * their exit.  Only a thread that lost events can have such frames; any
 * other one's open frames all run at the end (a thread still running after
 * the exit instant has moved on from the depth it had then).
 */
static void running_frames(void)
{
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next)
		if (t->out && t->lost)
			trace_thread_running(t->out, t->depth);
}

/*
 * A process none of whose modules has a recorded site (the shell `objpatch
 * run` started the traced programs through) has nothing to trace: it
 * writes no file, which would only stand beside the programs' own.
 */
static bool anything_traceable(void)
{
	for (size_t i = 0; i < runtime.nmods; i++)
		if (runtime.mods[i]->nsites)
			return true;
	return false;
}

void rt_raw_begin(void)
{
	if (runtime.format == FMT_RAW && anything_traceable())
		rt_raw_start(ts0, ns0);
}

int rt_flush(bool final)
{
	uint64_t now = final ? rt_stop() : rt_timestamp();
	struct trace_counts c;

	if (!anything_traceable() || (finished && out_pid == getpid()))
		return 0;
	if (runtime.format == FMT_RAW)
		return rt_raw_flush(final, ts0, ns0);
	if (open_output() < 0)
		return -1;
	trace_writer_clock(writer, ts0, ns_per_tick, calibrate());	/* 0: the rate goes on */
	trace_writer_note(writer, runtime.note);	/* objpatch_enable() may have cleared it */
	if (gather_threads() < 0)
		return -1;
	limit = now;
	last_pass = final;
	/* A file always gets a whole trace. */
	trace_write(writer, threads, nthreads, runtime.output != NULL);
	limit = UINT64_MAX;
	finished = final;
	if (final) {
		name_threads();
		running_frames();
		c = counts();
		trace_write_end(writer, threads, nthreads, now, &c);
		/* Events lost or too deep: a function may have run unseen. */
		if (!c.lost && !c.missed_depth && !c.missed_busy && !rt_attached)
			rt_report_uncalled();
	}
	return trace_writer_failed(writer) ? -1 : 0;
}

/* ---- the writer thread ---- */

static pthread_t writer_id;

/* Sleeps a period, or less when a thread waits for room. */
static void writer_sleep(void)
{
	const struct timespec ms = { 0, 1000000L };

	for (unsigned i = 0; i < runtime.flush_ms && !atomic_exchange(&writer_wanted, false); i++)
		nanosleep(&ms, NULL);
}

/* A signal is ending the process: the writer thread finishes the trace (rt_output_finish). */
static _Atomic bool finish_wanted, finish_done;

static void *writer_main(void *arg)
{
	(void)arg;
	for (;;) {
		bool final;

		writer_sleep();
		final = atomic_load(&finish_wanted);
		pthread_mutex_lock(&runtime.lock);
		if (final && !finished)
			rt_status_report(rt_flush(true) == 0);
		else if (!finished)
			rt_flush(false);
		pthread_mutex_unlock(&runtime.lock);
		if (final)
			atomic_store(&finish_done, true);
	}
	return NULL;
}

/*
 * qemu-user, which does not implement process_vm_readv: with a writer
 * thread, rt_toggle's live patching under 8 threads crashes the aarch64
 * guest (t/95-rt-aarch64.t), not yet understood; there the trace is
 * written at exit, as before.
 */
static bool under_qemu(void)
{
	uint64_t probe = 1, copy = 0;
	struct iovec local = { &copy, sizeof(copy) }, remote = { &probe, sizeof(probe) };
	int saved = errno;
	bool qemu = syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL) < 0 && errno == ENOSYS;

	errno = saved;
	return qemu;
}

/*
 * Raw recordings need none: each thread writes its own chunk when full.
 * The thread takes no signal: the program's handlers run on its own.
 */
void rt_writer_start(void)
{
	sigset_t all, old;

	atomic_store(&writer_running, false);
	if (runtime.format == FMT_RAW || !anything_traceable())
		return;
	if (!runtime.flush_ms || under_qemu()) {
		rt_record_without_writer();
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&writer_id, NULL, writer_main, NULL) == 0) {
		pthread_detach(writer_id);
		atomic_store(&writer_running, true);
	} else {
		rt_record_without_writer();
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * Whether this thread holds runtime.lock, which the writer needs: a signal
 * handler's traced calls on a thread that is toggling filters or flushing.
 * The lock checks errors: a lock attempt that is already past its
 * deadline says EDEADLK for its owner, without blocking anyone.
 */
static bool holds_lock(void)
{
	const struct timespec past = { 0, 0 };
	int e = pthread_mutex_timedlock(&runtime.lock, &past);

	if (e == 0)
		pthread_mutex_unlock(&runtime.lock);
	return e == EDEADLK;
}

bool rt_writer_can_wait(void)
{
	if (runtime.drop || !atomic_load(&writer_running) || finished || pthread_equal(pthread_self(), writer_id) ||
	    holds_lock())
		return false;
	atomic_store(&writer_wanted, true);
	return true;
}

/* ---- a signal ends the process (rt_signals.c) ---- */

/* Past it, the trace is left as it is: the process dies rather than hang. */
#define FINISH_TIMEOUT_MS 30000

/*
 * No writer thread (a forked child, qemu-user): the signalled thread writes
 * the end itself, as at exit.  It may have been stopped holding a lock the
 * writer needs (malloc's): SIGALRM's default action then ends the wait.
 */
static void finish_here(bool (*give_up)(void))
{
	const struct timespec ms = { 0, 1000000L };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t alrm;
	unsigned waited = 0;

	while (pthread_mutex_trylock(&runtime.lock) != 0) {
		if (++waited >= FINISH_TIMEOUT_MS || give_up())
			return;
		nanosleep(&ms, NULL);
	}
	sigaction(SIGALRM, &dfl, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	alarm(FINISH_TIMEOUT_MS / 1000);
	rt_status_report(rt_flush(true) == 0);
	alarm(0);
	pthread_mutex_unlock(&runtime.lock);
}

void rt_output_finish(bool (*give_up)(void))
{
	const struct timespec ms = { 0, 1000000L };

	if (runtime.format == FMT_RAW || !anything_traceable() || holds_lock())
		return;
	/* The signal's instant ends every thread's trace, as exit's does. */
	rt_stop();
	if (!atomic_load(&writer_running)) {
		finish_here(give_up);
		return;
	}
	atomic_store(&finish_wanted, true);
	atomic_store(&writer_wanted, true);
	for (unsigned waited = 0; !atomic_load(&finish_done) && waited < FINISH_TIMEOUT_MS && !give_up(); waited++)
		nanosleep(&ms, NULL);
}
