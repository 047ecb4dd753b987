// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holding a process with ptrace (objpatch/attach/inject.h), from the facts
 * of ptrace(2):
 * - PTRACE_SEIZE then PTRACE_INTERRUPT stops a thread without sending it
 *   a signal, so the process sees nothing; a thread blocked in a system
 *   call leaves it with a restart pending, which the kernel performs when
 *   the thread resumes with the same registers.
 * - A thread only ever comes to be by clone() from a running one: once
 *   every thread that /proc/PID/task lists is stopped, a listing that
 *   shows no new one is the whole process.
 * - A signal that arrives for a traced thread stops it instead
 *   (signal-delivery-stop) and is delivered only if the tracer passes it
 *   on.  Those that arrive while the process is held are kept and handed
 *   back at the detach: as its signal for a thread detached from a
 *   signal-delivery-stop, by tgkill for the rest.
 * - When the tracer dies, the kernel detaches its tracees and they run
 *   on from whatever state they are in (so objpatch's calls are safe
 *   calls where the port can: see safe_call()).
 * - At a system call's entry stop, the registers the tracer sets are the
 *   ones the thread goes on with, and the system call run is the number
 *   it leaves in orig ax (-1: none, ax kept).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "elf/elfobj.h"
#include "objpatch/attach/inject.h"
#include "objpatch/attach/proc.h"
#include "util/array.h"

/*
 * How long a call may take before the other threads are suspected of
 * holding a lock it needs; OBJPATCH_ATTACH_ALONE_MS=N (for tests) sets it,
 * 0 makes every call that may share the process share it at once.
 */
#define CALL_ALONE_MS 2000
/* And then with the other threads running, before objpatch says it still waits. */
#define CALL_SHARED_MS 10000
/* Rounds of letting the process run while a thread is inside malloc or the loader. */
#define PICK_ROUNDS 200
/* How much of a stack is searched for return addresses into the code to avoid. */
#define STACK_SCAN 16384

static int fail(struct inject *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void keep_others_running(struct inject *in, const struct inject_thread *caller);

/*
 * OBJPATCH_ATTACH_KILL_AFTER=N (for tests): objpatch SIGKILLs itself right
 * after its Nth ptrace request (a register set's save or restore counts
 * once), so that every instant of a hold can be tried.
 */
static void count_request(void)
{
	static long left = -1;
	const char *v;

	if (left < 0)
		left = (v = getenv("OBJPATCH_ATTACH_KILL_AFTER")) && atol(v) > 0 ? atol(v) : 0;
	if (left > 0 && --left == 0)
		raise(SIGKILL);
}

static long request(enum __ptrace_request r, pid_t tid, void *addr, void *data)
{
	long rc = ptrace(r, tid, addr, data);
	int e = errno;

	count_request();
	errno = e;
	return rc;
}

static int port_save(const struct inject *in, pid_t tid, struct remote_state *s)
{
	int rc = in->port->save(tid, s);

	count_request();
	return rc;
}

static int port_restore(const struct inject *in, pid_t tid, const struct remote_state *s)
{
	int rc = in->port->restore(tid, s);
	int e = errno;

	count_request();
	errno = e;
	return rc;
}

static int fail(struct inject *in, const char *fmt, ...)
{
	va_list ap;

	in->errnum = errno;
	va_start(ap, fmt);
	vsnprintf(in->err, sizeof(in->err), fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

uint64_t inject_now_ms(void)
{
	return now_ms();
}


/*
 * SIGCHLD while the process is held: blocked, and not ignored (an ignored
 * one is never sent), so that a thread's ptrace stop, which the kernel
 * tells its tracer with SIGCHLD, ends wait_child() at once.
 */
static void take_sigchld(struct inject *in)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	sigset_t chld, before;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &before);
	in->chld_blocked = sigismember(&before, SIGCHLD);
	in->chld_ignored = sigaction(SIGCHLD, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
	if (in->chld_ignored)
		sigaction(SIGCHLD, &dfl, NULL);
}

static void give_back_sigchld(const struct inject *in)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t chld;

	if (in->chld_ignored)
		sigaction(SIGCHLD, &ign, NULL);	/* discards the SIGCHLD pending */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (!in->chld_blocked)
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
}

/*
 * Waits for the next ptrace stop of a thread (its SIGCHLD), at most 1 ms:
 * a poll of waitpid() every millisecond cost a millisecond per system
 * call of the borrowed thread, the most of a hold.
 */
static void wait_child(void)
{
	const struct timespec slice = { 0, 1000000 };
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (sigtimedwait(&chld, NULL, &slice) < 0 && errno == EINTR)
		;
}

void inject_step(struct inject *in, const char *what)
{
	uint64_t t = now_ns();

	if (in->nsteps < INJECT_STEPS_MAX)
		in->steps[in->nsteps++] = (typeof(in->steps[0])){ what, t - in->step_ns };
	in->step_ns = t;
}

static void hold_signal(struct inject_thread *t, int sig)
{
	for (unsigned i = 0; i < t->nsigs; i++)
		if (t->sigs[i] == sig)
			return;	/* a standard signal pending twice is delivered once */
	if (t->nsigs < INJECT_SIGS_MAX)
		t->sigs[t->nsigs++] = sig;
}

/*
 * Waits for thread t's next stop: the interrupt's (PTRACE_EVENT_STOP), or
 * a signal's first, whose signal is then held.
 */
static int wait_stop(struct inject *in, struct inject_thread *t)
{
	int st;

	for (;;) {
		pid_t r = waitpid(t->tid, &st, __WALL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			t->gone = true;
			return 0;
		}
		if (!WIFSTOPPED(st))
			continue;
		t->signal_stop = (st >> 16) == 0;
		if (t->signal_stop)
			hold_signal(t, WSTOPSIG(st));
		else if (WSTOPSIG(st) != SIGTRAP)
			in->group_stop = true;	/* PTRACE_EVENT_STOP with a stop signal: a group-stop */
		return 0;
	}
}

static bool known_thread(const struct inject *in, pid_t tid)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->t[i].tid == tid)
			return true;
	return false;
}

/* Seizes and interrupts `tid`; a thread that ended meanwhile is no error. */
static int seize(struct inject *in, pid_t tid)
{
	/*
	 * Threads are seized in the order /proc lists them, the same for
	 * every objpatch: of two attaching at once, the one that gets the
	 * first thread gets them all, and the other holds none.
	 */
	if (request(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD) < 0) {
		if (errno == ESRCH)
			return 0;
		in->failed_tid = tid;
		return fail(in, "%d: thread %d: PTRACE_SEIZE: %s", (int)in->pid, (int)tid, strerror(errno));
	}
	if (!grow_array(&in->t, in->n, &in->cap, sizeof(*in->t))) {
		request(PTRACE_DETACH, tid, NULL, NULL);
		return fail(in, "%d: out of memory", (int)in->pid);
	}
	in->t[in->n++] = (struct inject_thread){ .tid = tid };
	if (request(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 && errno != ESRCH)
		return fail(in, "%d: thread %d: PTRACE_INTERRUPT: %s", (int)in->pid, (int)tid, strerror(errno));
	return 0;
}

/* Seizes the threads not held yet, until a listing shows none. */
static int stop_new_threads(struct inject *in)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)in->pid);
	for (;;) {
		size_t before = in->n;
		struct dirent *e;
		DIR *d = opendir(path);

		if (!d)
			return fail(in, "%d: %s: %s", (int)in->pid, path, strerror(errno));
		while ((e = readdir(d)))
			/* A zombie thread never stops: nothing of it runs anyway. */
			if (e->d_name[0] != '.' && !known_thread(in, (pid_t)atoi(e->d_name)) &&
			    !proc_exited((pid_t)atoi(e->d_name)) && seize(in, (pid_t)atoi(e->d_name)) < 0)
				break;
		closedir(d);
		/* Those seized are waited for even after a failure: only a stopped thread can be let go. */
		for (size_t i = before; i < in->n; i++)
			wait_stop(in, &in->t[i]);
		if (in->err[0])
			return -1;
		if (in->n == before)
			return 0;
	}
}

static bool all_gone(const struct inject *in)
{
	for (size_t i = 0; i < in->n; i++)
		if (!in->t[i].gone)
			return false;
	return true;
}

int inject_stop(struct inject *in, pid_t pid, const struct remote_port *port)
{
	char path[64];

	memset(in, 0, sizeof(*in));
	take_sigchld(in);
	in->held_ns = in->step_ns = now_ns();
	in->pid = pid;
	in->port = port;
	in->mem = -1;
	if (stop_new_threads(in) < 0) {
		inject_detach(in);
		return -1;
	}
	if (all_gone(in)) {
		inject_detach(in);
		return fail(in, "%d: the process exited", (int)pid);
	}
	/* A call would resume a stopped process: left as it is, stopped. */
	if (in->group_stop) {
		inject_detach(in);
		errno = ESRCH;
		return fail(in, "%d: the process is stopped (by a signal): continue it first (kill -CONT %d)", (int)pid,
			    (int)pid);
	}
	/* Through a live thread: a zombie main thread's entry has no memory. */
	for (size_t i = 0; i < in->n; i++)
		if (!in->t[i].gone) {
			snprintf(path, sizeof(path), "/proc/%d/mem", (int)in->t[i].tid);
			break;
		}
	if ((in->mem = open(path, O_RDWR | O_CLOEXEC)) < 0) {
		fail(in, "%d: %s: %s", (int)pid, path, strerror(errno));
		inject_detach(in);
		return -1;
	}
	return 0;
}

/* Lets every thread but `except` run (their held signals stay held). */
static void resume_others(struct inject *in, const struct inject_thread *except)
{
	for (size_t i = 0; i < in->n; i++) {
		struct inject_thread *t = &in->t[i];

		if (t == except || t->gone)
			continue;
		if (request(PTRACE_CONT, t->tid, NULL, NULL) < 0)
			t->gone = errno == ESRCH;
		t->signal_stop = false;
	}
}

/* Stops again every thread but `except`, and any that appeared meanwhile. */
static int restop_others(struct inject *in, const struct inject_thread *except)
{
	pid_t keep = except ? except->tid : 0;

	for (size_t i = 0; i < in->n; i++)
		if (in->t[i].tid != keep && !in->t[i].gone && request(PTRACE_INTERRUPT, in->t[i].tid, NULL, NULL) == 0)
			wait_stop(in, &in->t[i]);
	return stop_new_threads(in);
}

int inject_read(struct inject *in, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = pread(in->mem, buf, len, (off_t)addr);

	if (n != (ssize_t)len)
		return fail(in, "%d: reading %zu bytes at 0x%" PRIx64 ": %s", (int)in->pid, len, addr,
			    n < 0 ? strerror(errno) : "short read");
	return 0;
}

int inject_write(struct inject *in, uint64_t addr, const void *buf, size_t len)
{
	ssize_t n = pwrite(in->mem, buf, len, (off_t)addr);

	if (n != (ssize_t)len)
		return fail(in, "%d: writing %zu bytes at 0x%" PRIx64 ": %s", (int)in->pid, len, addr,
			    n < 0 ? strerror(errno) : "short write");
	return 0;
}

/* The target's words are this host's byte order: only native machines have a port. */
static uint64_t word_at(const struct inject *in, const uint8_t *p)
{
	uint32_t w4;
	uint64_t w8;

	if (in->port->word == 4) {
		memcpy(&w4, p, 4);
		return w4;
	}
	memcpy(&w8, p, 8);
	return w8;
}

int inject_read_word(struct inject *in, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];

	if (inject_read(in, addr, b, in->port->word) < 0)
		return -1;
	*v = word_at(in, b);
	return 0;
}

int inject_write_word(struct inject *in, uint64_t addr, uint64_t v)
{
	uint32_t w4 = (uint32_t)v;

	return in->port->word == 4 ? inject_write(in, addr, &w4, 4) : inject_write(in, addr, &v, 8);
}

static bool in_ranges(uint64_t a, const struct inject_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a >= r[i].lo && a < r[i].hi)
			return true;
	return false;
}

/*
 * Whether thread t is inside code of `avoid`: its pc there, or a return
 * address into it near the top of its stack (a caller's frame).  A stale
 * word may say so wrongly; that only makes another thread preferred.
 */
static bool thread_inside(struct inject *in, struct inject_thread *t, struct remote_state *s,
			  const struct inject_range *avoid, size_t navoid)
{
	uint8_t buf[4096];
	uint64_t sp;

	if (port_save(in, t->tid, s) < 0)
		return true;
	if (in_ranges(in->port->pc(s), avoid, navoid))
		return true;
	sp = in->port->sp(s);
	for (uint64_t at = sp; at < sp + STACK_SCAN; at += sizeof(buf)) {
		ssize_t got = pread(in->mem, buf, sizeof(buf), (off_t)at);

		for (ssize_t k = 0; k + (ssize_t)in->port->word <= got; k += in->port->word)
			if (in_ranges(word_at(in, buf + k), avoid, navoid))
				return true;
		if (got < (ssize_t)sizeof(buf))
			break;	/* the stack's end */
	}
	return false;
}

/*
 * The first thread not inside `avoid`, or -1; *clear: no thread at all
 * is inside (none holds a lock the call could wait for).
 */
static ssize_t first_free(struct inject *in, struct remote_state *s, const struct inject_range *avoid,
			  size_t navoid, bool *clear)
{
	ssize_t free_one = -1;

	*clear = true;
	for (size_t i = 0; i < in->n; i++) {
		if (in->t[i].gone)
			continue;
		if (thread_inside(in, &in->t[i], s, avoid, navoid))
			*clear = false;
		else if (free_one < 0 && !in->t[i].signal_stop)
			free_one = (ssize_t)i;
	}
	return free_one;
}

ssize_t inject_pick(struct inject *in, const struct inject_range *avoid, size_t navoid)
{
	struct remote_state *s = malloc(sizeof(*s));
	ssize_t pick = -1;
	bool clear = false;

	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	/* Best: no thread inside; else, after a while, at least not the one that calls. */
	for (int round = 0; round < PICK_ROUNDS && !all_gone(in); round++) {
		pick = first_free(in, s, avoid, navoid, &clear);
		if (clear && pick >= 0)
			break;
		if (inject_let_run(in, round, 0, 0) < 0)
			break;
	}
	if (!in->err[0] && !clear)
		pick = first_free(in, s, avoid, navoid, &clear);
	free(s);
	if (in->err[0])
		return -1;
	/* All still inside: any thread, and the call's time limit will tell. */
	for (size_t i = 0; pick < 0 && i < in->n; i++)
		if (!in->t[i].gone)
			pick = (ssize_t)i;
	if (pick < 0)
		return fail(in, "%d: the process exited", (int)in->pid);
	return pick;
}

/* Whether `pc` is inside one of the `len`-byte places starting at the sorted addresses `at`. */
static bool inside_place(uint64_t pc, const uint64_t *at, size_t n, unsigned len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (at[mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < at[lo - 1] + len;
}

/*
 * Whether a held thread is where the pad-joining call must not find it:
 * inside fork() (by the runtime's count), its pc in a pad, or inside
 * `avoid` (by pc, or `deep`: by its stack too).
 */
static bool any_in_the_way(struct inject *in, struct remote_state *s, const struct inject_places *p, bool deep)
{
	int forking = 0;

	if (p->forking && (inject_read(in, p->forking, &forking, sizeof(forking)) < 0 || forking))
		return true;
	for (size_t i = 0; i < in->n; i++) {
		struct inject_thread *t = &in->t[i];

		if (t->gone)
			continue;
		if (deep ? thread_inside(in, t, s, p->avoid, p->navoid) :
			   port_save(in, t->tid, s) < 0 || in_ranges(in->port->pc(s), p->avoid, p->navoid))
			return true;
		if (inside_place(in->port->pc(s), p->at, p->n, p->len))
			return true;
	}
	return false;
}

/*
 * Rounds of letting the process run, first until no thread is in the way
 * by pc or stack; a stack may keep a stale word that only looks like a
 * caller's frame (a thread blocked for good), so then by pc alone.
 */
ssize_t inject_settle(struct inject *in, const struct inject_places *p)
{
	struct remote_state *s = malloc(sizeof(*s));
	uint64_t fork_deadline = now_ms() + INJECT_FORK_WAIT_MS;
	bool settled = false;

	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	for (int round = 0; round < 2 * PICK_ROUNDS && !in->err[0] && !all_gone(in); round++) {
		if (!any_in_the_way(in, s, p, round < PICK_ROUNDS)) {
			settled = true;
			break;
		}
		inject_let_run(in, round, p->forking, fork_deadline);
	}
	free(s);
	if (in->err[0])
		return -1;
	if (!settled && !all_gone(in))
		return fail(in, "%d: a thread stayed inside a -fpatchable-function-entry pad, malloc, the loader or fork() "
			    "for %d rounds: try again", (int)in->pid, 2 * PICK_ROUNDS);
	/* Any thread: none is in the way. */
	for (size_t i = 0; settled && i < in->n; i++)
		if (!in->t[i].gone && !in->t[i].signal_stop)
			return (ssize_t)i;
	return fail(in, "%d: the process exited", (int)in->pid);
}

/*
 * The threads run on for a millisecond, each signal that stops one
 * (signal-delivery-stop) passed on as it comes: a thread left stopped
 * there may be the one inside fork() the others wait for.
 */
static void run_a_millisecond(struct inject *in)
{
	pause_ms(1);
	keep_others_running(in, NULL);
}

/*
 * A fork() interrupted starts again from nothing (ERESTARTNOINTR): one
 * slower than a round, as on a loaded machine, would never end.  So while
 * the int at `forking` says a thread is inside one, the threads run on
 * (the count is read without stopping anyone), until `deadline`.
 */
int inject_let_run(struct inject *in, int round, uint64_t forking, uint64_t deadline)
{
	int n = 0;

	resume_others(in, NULL);
	/* Longer each round, since each hold interrupts what they do: 1 ms at first, 400 rounds 8.2 s in all. */
	for (int ms = 0; ms < 1 + round / 10; ms++)
		run_a_millisecond(in);
	while (forking && now_ms() < deadline && inject_read(in, forking, &n, sizeof(n)) == 0 && n)
		run_a_millisecond(in);
	return restop_others(in, NULL) < 0 || in->err[0] ? -1 : 0;
}

int inject_stack_top(struct inject *in, size_t i, uint64_t *top)
{
	struct remote_state *s = malloc(sizeof(*s));

	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	if (port_save(in, in->t[i].tid, s) < 0) {
		free(s);
		return fail(in, "%d: thread %d: its registers: %s", (int)in->pid, (int)in->t[i].tid, strerror(errno));
	}
	*top = in->port->sp(s) - in->port->red_zone;
	free(s);
	return 0;
}

/* The stop that ends a call: SIGSEGV at pc 0, the return address it was given. */
static int call_ended(struct inject *in, struct inject_thread *t, const char *what, uint64_t *ret)
{
	struct remote_state *s = malloc(sizeof(*s));
	int rc = 0;

	t->signal_stop = true;	/* SIGSEGV's: not held, never delivered */
	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	if (port_save(in, t->tid, s) < 0)
		rc = fail(in, "%d: thread %d: its registers: %s", (int)in->pid, (int)t->tid, strerror(errno));
	else if (in->port->pc(s) != 0)
		rc = fail(in, "%d: %s crashed in thread %d (SIGSEGV at pc 0x%" PRIx64 ")", (int)in->pid, what,
			  (int)t->tid, in->port->pc(s));
	else
		*ret = in->port->retval(s);
	free(s);
	return rc;
}

/* Stop signals stay held while the process is borrowed: delivered now, they would stop threads the call waits for. */
static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * While a call runs with the other threads let go, a signal stops the
 * thread it is for (signal-delivery-stop).  Left stopped, that thread
 * may hold the very lock the call waits for (fork() holds every malloc
 * arena's while its child exits and SIGCHLD comes): each is passed on at
 * once, as it would be without objpatch, and the thread goes on.
 */
static void keep_others_running(struct inject *in, const struct inject_thread *caller)
{
	for (size_t i = 0; i < in->n; i++) {
		struct inject_thread *t = &in->t[i];
		int st, sig = 0;
		pid_t r;

		if (t == caller || t->gone)
			continue;
		while ((r = waitpid(t->tid, &st, __WALL | WNOHANG)) < 0 && errno == EINTR)
			;
		if (r == 0)
			continue;
		if (r < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			t->gone = true;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == 0 && is_stop_signal(WSTOPSIG(st)))
			hold_signal(t, WSTOPSIG(st));
		else if ((st >> 16) == 0)
			sig = WSTOPSIG(st);
		if (request(PTRACE_CONT, t->tid, NULL, (void *)(long)sig) < 0)
			t->gone = errno == ESRCH;
	}
}

/* Whether the user asked objpatch to stop (those signals are blocked while the process is held). */
static bool stop_asked(void)
{
	sigset_t pending;

	return sigpending(&pending) == 0 && (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
					     sigismember(&pending, SIGHUP) || sigismember(&pending, SIGQUIT));
}

/*
 * Waits for the call to end.  When it takes long, a stopped thread may
 * hold a lock it waits for (malloc's arena, the loader's): the others run
 * until it returns.  It is waited for however long it takes: a thread
 * left inside the call would return to address 0 and kill the process.
 */
/*
 * A safe call's end: the rt_sigreturn of its return code, seen at that
 * system call's entry stop (PTRACE_SYSCALL); `want_nr`'s value on the way
 * (mmap's, whose return code keeps no value) in *got.
 */
struct safe_end {
	uint64_t end_pc;	/* the address after the return code's system call instruction */
	bool value_kept;	/* the return code kept the call's value below the stack pointer */
	long want_nr;
	uint64_t got;
	bool ended;
	long entered_nr;	/* the system call of the last entry stop (an exit stop does not say) */
	int signal;		/* the return code's signal to the thread itself (0: none, every system call stops) */
	uint64_t signal_pc;	/* the address after its tgkill */
	bool by_signal;		/* the call ended at that signal's stop */
};

/* What a system call stop of a safe call shows: whether an entry, the call's number, pc, sp, value. */
struct syscall_stop {
	bool entry;
	long nr;
	uint64_t pc, sp, value;
};

/*
 * The stop's system call by PTRACE_GET_SYSCALL_INFO: one request, where
 * the port's save reads every register and the vector state (2.5 KB),
 * at each of the borrowed thread's system calls.  0 read, 1 the kernel
 * has no such request (before 5.3), -1 failed.
 */
static int syscall_info(struct inject *in, struct inject_thread *t, struct safe_end *e, struct syscall_stop *f)
{
	struct __ptrace_syscall_info info;
	long n;

	if (in->no_syscall_info)
		return 1;
	memset(&info, 0, sizeof(info));
	n = request(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info), &info);
	if (n < 0 && errno == EIO) {
		in->no_syscall_info = true;
		return 1;
	}
	if (n < 0)
		return fail(in, "%d: thread %d: its system call: %s", (int)in->pid, (int)t->tid, strerror(errno));
	if (info.op != PTRACE_SYSCALL_INFO_ENTRY && info.op != PTRACE_SYSCALL_INFO_EXIT)
		return fail(in, "%d: thread %d: a system call stop without its system call", (int)in->pid, (int)t->tid);
	f->entry = info.op == PTRACE_SYSCALL_INFO_ENTRY;
	if (f->entry)
		e->entered_nr = (long)info.entry.nr;
	f->nr = e->entered_nr;
	f->pc = info.instruction_pointer;
	f->sp = info.stack_pointer;
	f->value = f->entry ? 0 : (uint64_t)info.exit.rval;
	return 0;
}

/* The same from the port's registers: an exit stop is one whose value is no longer entry's -ENOSYS. */
static int syscall_regs(struct inject *in, struct inject_thread *t, struct syscall_stop *f)
{
	struct remote_state *s = malloc(sizeof(*s));

	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	if (port_save(in, t->tid, s) < 0) {
		free(s);
		return fail(in, "%d: thread %d: its registers: %s", (int)in->pid, (int)t->tid, strerror(errno));
	}
	f->nr = in->port->syscall_nr(s);
	f->pc = in->port->pc(s);
	f->sp = in->port->sp(s);
	f->value = in->port->retval(s);
	f->entry = (int64_t)f->value == -ENOSYS;
	free(s);
	return 0;
}

/* A stop of PTRACE_SYSCALL in a safe call: 1 when it is the call's end (*ret set), 0 to go on, -1 failed. */
static int safe_stop(struct inject *in, struct inject_thread *t, struct safe_end *e, uint64_t *ret)
{
	struct syscall_stop f = { 0 };
	int rc = syscall_info(in, t, e, &f);

	if (rc == 1)
		rc = syscall_regs(in, t, &f);
	if (rc < 0)
		return -1;
	if (f.entry && f.nr == in->port->sigreturn_nr && f.pc == e->end_pc) {
		e->ended = true;
		if (e->value_kept && inject_read_word(in, f.sp - in->port->word, ret) < 0)
			return -1;
		return 1;
	}
	if (!f.entry && f.nr == e->want_nr)
		e->got = f.value;	/* the exit stop's value */
	return 0;
}

/*
 * A stop for the return code's signal: 1 when it is the call's end (the
 * thread at the address after its tgkill; *ret set), 0 when the signal
 * came from elsewhere, -1 failed.
 */
static int signal_stop_end(struct inject *in, struct inject_thread *t, struct safe_end *e, uint64_t *ret)
{
	struct remote_state *s = malloc(sizeof(*s));
	int rc = 0;

	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	if (port_save(in, t->tid, s) < 0)
		rc = fail(in, "%d: thread %d: its registers: %s", (int)in->pid, (int)t->tid, strerror(errno));
	else if (in->port->pc(s) == e->signal_pc)
		rc = inject_read_word(in, in->port->sp(s) - in->port->word, ret) < 0 ? -1 : 1;
	free(s);
	if (rc == 1) {
		e->ended = e->by_signal = true;
		t->signal_stop = true;	/* the signal's: not held, never delivered */
	}
	return rc;
}

static uint64_t call_alone_ms(void)
{
	const char *v = getenv("OBJPATCH_ATTACH_ALONE_MS");
	char *end;
	unsigned long long ms = v ? strtoull(v, &end, 10) : 0;

	/* Not a number of milliseconds: the default, not 0 (which would share every call). */
	return v && *v >= '0' && *v <= '9' && !*end ? ms : CALL_ALONE_MS;
}

static int wait_call(struct inject *in, struct inject_thread *t, const char *what, uint64_t *ret, struct safe_end *e)
{
	enum __ptrace_request go = e && !e->signal ? PTRACE_SYSCALL : PTRACE_CONT;
	int end;

	uint64_t alone_ms = call_alone_ms(), deadline = now_ms() + alone_ms;
	bool shared = false, told_stop = false;
	int st;

	for (;;) {
		pid_t r = waitpid(t->tid, &st, __WALL | WNOHANG);

		if (r == 0) {
			if (shared)
				keep_others_running(in, t);
			if (!told_stop && stop_asked()) {
				fprintf(stderr, "objpatch attach: %d: waiting for %s to return in thread %d: leaving the "
					"process now would crash it\n", (int)in->pid, what, (int)t->tid);
				told_stop = true;
			}
			if (now_ms() < deadline) {
				wait_child();
			} else if (in->alone) {
				fprintf(stderr, "objpatch attach: %d: %s has not returned in thread %d after %g s: it joins "
					"-fpatchable-function-entry pads, safe only while the other threads stay stopped "
					"(none is inside malloc or the loader): objpatch waits for it\n", (int)in->pid, what,
					(int)t->tid, alone_ms / 1000.0);
				deadline = UINT64_MAX;
			} else if (!shared) {
				fprintf(stderr, "objpatch attach: %d: %s has not returned in thread %d after %g s: another "
					"thread holds a lock it needs (malloc's or the loader's); the other threads run until "
					"it returns\n", (int)in->pid, what, (int)t->tid, alone_ms / 1000.0);
				resume_others(in, t);
				shared = true;
				deadline = now_ms() + CALL_SHARED_MS;
			} else {
				fprintf(stderr, "objpatch attach: %d: %s has still not returned in thread %d: objpatch waits "
					"for it, since leaving the process inside the call would crash it\n", (int)in->pid,
					what, (int)t->tid);
				deadline = UINT64_MAX;
			}
		} else if (r < 0 && errno == EINTR) {
			continue;
		} else if (r < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			t->gone = true;
			return fail(in, "%d: the process ended during the call of %s", (int)in->pid, what);
		} else if (e && WIFSTOPPED(st) && WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			end = safe_stop(in, t, e, ret);

			if (end == 0) {
				request(go, t->tid, NULL, NULL);
				continue;
			}
			if (shared)
				keep_others_running(in, t);
			return end < 0 || (shared && restop_others(in, t) < 0) ? -1 : 0;
		} else if (e && e->signal && WIFSTOPPED(st) && (st >> 16) == 0 && WSTOPSIG(st) == e->signal &&
			   (end = signal_stop_end(in, t, e, ret)) != 0) {
			if (shared)
				keep_others_running(in, t);
			return end < 0 || (shared && restop_others(in, t) < 0) ? -1 : 0;
		} else if (WIFSTOPPED(st) && (st >> 16) == 0 && WSTOPSIG(st) == SIGSEGV) {
			int rc = call_ended(in, t, what, ret);

			if (shared)
				keep_others_running(in, t);
			return shared && restop_others(in, t) < 0 ? -1 : rc;
		} else {
			/* Another signal: kept for the detach, the call goes on. */
			if (WIFSTOPPED(st) && (st >> 16) == 0)
				hold_signal(t, WSTOPSIG(st));
			request(go, t->tid, NULL, NULL);
		}
	}
}

static int start_call(struct inject *in, struct inject_thread *t, const struct remote_state *saved,
		      const struct remote_call *c, enum __ptrace_request go)
{
	struct remote_state *s = malloc(sizeof(*s));
	uint8_t frame[REMOTE_FRAME_MAX];
	uint64_t at = 0;
	size_t len;
	int rc = -1;

	if (!s)
		return fail(in, "%d: out of memory", (int)in->pid);
	*s = *saved;
	len = in->port->prepare(s, c, frame, &at);
	if (inject_write(in, at, frame, len) == 0) {
		if (port_restore(in, t->tid, s) < 0 || request(go, t->tid, NULL, NULL) < 0)
			fail(in, "%d: thread %d: starting the call: %s", (int)in->pid, (int)t->tid, strerror(errno));
		else
			rc = 0;
	}
	free(s);
	t->signal_stop = false;
	return rc;
}

/* The call that returns to address 0: objpatch must outlive it (environ swapped by objpatch around it). */
static int plain_call(struct inject *in, struct inject_thread *t, const struct remote_state *saved, const char *what,
		      const struct remote_call *c, uint64_t *ret)
{
	int rc = 0;

	if (in->swap_addr)
		rc = inject_write_word(in, in->swap_addr, in->swap_new);
	if (rc == 0)
		rc = start_call(in, t, saved, c, PTRACE_CONT);
	if (rc == 0)
		rc = wait_call(in, t, what, ret, NULL);
	/* Back as it was: in the middle of its code, or in a system call that restarts. */
	if (!t->gone && port_restore(in, t->tid, saved) < 0)
		rc = fail(in, "%d: thread %d: its registers could not be put back: %s", (int)in->pid, (int)t->tid,
			  strerror(errno));
	if (in->swap_addr && inject_write_word(in, in->swap_addr, in->swap_old) < 0)
		rc = -1;
	return rc;
}

/* Offsets in the page of safe calls: the entry code, the return code. */
#define PAGE_ENTRY 0
#define PAGE_RETURN 128

/* Bit `sig` of a /proc/PID/status mask or a signal mask. */
static bool in_mask(uint64_t mask, int sig)
{
	return mask >> (sig - 1) & 1;
}

/*
 * The signal the return code sends the borrowed thread, whose stop ends
 * a call run with PTRACE_CONT (no stop at each of its system calls): one
 * whose default action is to be ignored, which the process does not catch
 * (/proc/PID/status's SigCgt) and the thread does not block (`blocked`),
 * so that if objpatch is gone by then the kernel discards it and the
 * thread goes on to its rt_sigreturn.  0 when none is (or the port has no
 * such return code): every system call stops then.
 */
static int end_signal(struct inject *in, uint64_t blocked)
{
	static const int quiet[] = { SIGURG, SIGWINCH };
	char caught[32];

	if (!in->port->stub_signal || !proc_status_field(in->pid, "SigCgt", caught, sizeof(caught)))
		return 0;
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (!in_mask(strtoull(caught, NULL, 16), quiet[i]) && !in_mask(blocked, quiet[i]))
			return quiet[i];
	return 0;
}

/*
 * A call safe from objpatch's death at every instant: a signal frame of
 * the thread's own state below the call's data; the call entered through
 * code of the page (or, `ret_libc`, directly: mmap before the page is),
 * returning into code that puts environ back and makes rt_sigreturn.  Until
 * the registers are set, nothing of the thread changed; from then on the
 * thread gets back to its state by itself, whether objpatch watches or not.
 * Watching, objpatch stops it at that rt_sigreturn and puts the state back
 * itself, there (a system call it was in goes again).  That took a stop at
 * every system call of the call (PTRACE_SYSCALL: dlopen makes some 45,
 * each a round trip through objpatch, most of the hold); where the port
 * and the process allow (end_signal()), the return code first sends the
 * thread a signal the kernel would discard untraced, and the call runs
 * with PTRACE_CONT until that signal's stop.
 */
static int safe_call(struct inject *in, struct inject_thread *t, const struct remote_state *saved, const char *what,
		     const struct remote_call *c, uint64_t *ret, bool ret_libc, struct safe_end *e)
{
	struct remote_state *back = malloc(sizeof(*back));
	uint8_t *frame = malloc(REMOTE_SIGFRAME_MAX), code[REMOTE_STUB_MAX];
	struct remote_call call = *c;
	uint64_t mask = 0, at = 0, addr, scratch;
	size_t len;
	int rc = -1;

	if (!back || !frame) {
		fail(in, "%d: out of memory", (int)in->pid);
		goto out;
	}
	if (request(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(mask), &mask) < 0) {
		fail(in, "%d: thread %d: its signal mask: %s", (int)in->pid, (int)t->tid, strerror(errno));
		goto out;
	}
	if (!(len = in->port->sigframe(saved, mask, c->below, frame, REMOTE_SIGFRAME_MAX, &at))) {
		fail(in, "%d: the signal frame does not fit", (int)in->pid);
		goto out;
	}
	if (inject_write(in, at, frame, len) < 0)
		goto out;
	/* Without environ to swap, the words go to the slot below the return address, the callee's. */
	scratch = at - 2 * in->port->word;
	addr = in->swap_addr ? in->swap_addr : scratch;
	call.below = at;
	if (ret_libc) {
		call.ret = in->sigreturn;
		e->end_pc = in->sigreturn + in->port->sigreturn_len;
	} else {
		size_t n = in->port->entry(addr, in->swap_addr ? in->swap_new : 0, c->fn, code);

		if (inject_write(in, in->page + PAGE_ENTRY, code, n) < 0)
			goto out;
		size_t signal_end = 0;

		e->signal = end_signal(in, mask);
		if (e->signal)
			n = in->port->stub_signal(addr, in->swap_addr ? in->swap_old : 0, (int)in->pid, (int)t->tid,
						  e->signal, code, &signal_end);
		else
			n = in->port->stub(addr, in->swap_addr ? in->swap_old : 0, code);
		if (inject_write(in, in->page + PAGE_RETURN, code, n) < 0)
			goto out;
		e->signal_pc = in->page + PAGE_RETURN + signal_end;
		call.fn = in->page + PAGE_ENTRY;
		call.ret = in->page + PAGE_RETURN;
		e->end_pc = in->page + PAGE_RETURN + n;
		e->value_kept = true;
	}
	rc = start_call(in, t, saved, &call, e->signal ? PTRACE_CONT : PTRACE_SYSCALL);
	if (rc == 0)
		rc = wait_call(in, t, what, ret, e);
	if (t->gone)
		goto out;
	*back = *saved;
	/*
	 * At the rt_sigreturn's entry: instead of it, the thread's own system
	 * call again, or none.  At the signal's stop, as at the stop that
	 * held it: the kernel restarts the system call it was in itself.
	 */
	if (e->ended && !e->by_signal)
		in->port->set_syscall_nr(back, in->port->restart_nr(saved));
	if (port_restore(in, t->tid, back) < 0)
		rc = fail(in, "%d: thread %d: its registers could not be put back: %s", (int)in->pid, (int)t->tid,
			  strerror(errno));
	/* A call that crashed: the return code never ran, environ is objpatch's to put back. */
	if (!e->ended && in->swap_addr && inject_write_word(in, in->swap_addr, in->swap_old) < 0)
		rc = -1;
out:
	free(back);
	free(frame);
	return rc;
}

/* The page of the safe calls' code: mapped by libc's mmap in thread `t`, a safe call that returns into libc. */
static int map_page(struct inject *in, size_t i, const struct remote_state *saved, uint64_t below)
{
	struct safe_end e = { .want_nr = SYS_mmap, .entered_nr = -1 };
	struct remote_call c = { .fn = in->mmap_fn, .nargs = 6,
				 .args = { 0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0 } };
	uint64_t ignored = 0, swap = in->swap_addr;
	int rc;

	c.below = below;	/* below the data the next call has written already */
	in->swap_addr = 0;
	rc = safe_call(in, &in->t[i], saved, "mmap", &c, &ignored, true, &e);
	in->swap_addr = swap;
	if (rc < 0)
		return -1;
	if (!e.got || e.got > (uint64_t)-4096)
		return fail(in, "%d: mmap of a page for the calls' code failed (%" PRId64 ")", (int)in->pid,
			    (int64_t)e.got);
	in->page = e.got;
	in->page_thread = i;
	return 0;
}

void inject_safe_calls(struct inject *in, uint64_t sigreturn, uint64_t mmap_fn, uint64_t munmap_fn)
{
	if (!in->port->sigframe || !sigreturn || !mmap_fn || !munmap_fn)
		return;
	in->sigreturn = sigreturn;
	in->mmap_fn = mmap_fn;
	in->munmap_fn = munmap_fn;
}

int inject_call(struct inject *in, size_t i, const char *what, const struct remote_call *c, uint64_t *ret)
{
	struct inject_thread *t = &in->t[i];
	struct remote_state *saved = malloc(sizeof(*saved));
	struct safe_end e = { .want_nr = -2, .entered_nr = -1 };
	int rc = 0;

	if (!saved)
		return fail(in, "%d: out of memory", (int)in->pid);
	if (port_save(in, t->tid, saved) < 0) {
		free(saved);
		return fail(in, "%d: thread %d: its registers: %s", (int)in->pid, (int)t->tid, strerror(errno));
	}
	if (!in->sigreturn) {
		rc = plain_call(in, t, saved, what, c, ret);
	} else if (!in->page && (rc = map_page(in, i, saved, c->below)) == 0) {
		inject_step(in, "mmap");
	}
	if (in->sigreturn && rc == 0)
		rc = safe_call(in, t, saved, what, c, ret, false, &e);
	inject_step(in, what);
	free(saved);
	return rc < 0 ? -1 : 0;
}

/* The page unmapped, by a safe call that returns into libc (never into the page it unmaps). */
static void unmap_page(struct inject *in)
{
	struct inject_thread *t = &in->t[in->page_thread];
	struct remote_state *saved = malloc(sizeof(*saved));
	struct safe_end e = { .want_nr = -2, .entered_nr = -1 };
	struct remote_call c = { .fn = in->munmap_fn, .nargs = 2, .args = { in->page, 4096 } };
	uint64_t ignored = 0;

	in->swap_addr = 0;
	if (saved && !t->gone && port_save(in, t->tid, saved) == 0) {
		c.below = in->port->sp(saved) - in->port->red_zone;
		safe_call(in, t, saved, "munmap", &c, &ignored, true, &e);
	}
	free(saved);
	in->page = 0;
}

void inject_detach(struct inject *in)
{
	if (in->page && in->mem >= 0)
		unmap_page(in);
	for (size_t i = 0; i < in->n; i++) {
		struct inject_thread *t = &in->t[i];
		unsigned first = t->signal_stop && t->nsigs ? 1 : 0;

		if (t->gone)
			continue;
		request(PTRACE_DETACH, t->tid, NULL, (void *)(long)(first ? t->sigs[0] : 0));
		for (unsigned k = first; k < t->nsigs; k++)
			syscall(SYS_tgkill, (int)in->pid, (int)t->tid, t->sigs[k]);
	}
	/* The hold ends when the last thread is let go. */
	inject_step(in, "let go");
	in->held_ns = in->step_ns - in->held_ns;
	give_back_sigchld(in);
	if (in->mem >= 0)
		close(in->mem);
	free(in->t);
	in->t = NULL;
	in->n = in->cap = 0;
	in->mem = -1;
}
