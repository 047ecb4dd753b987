// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process for objpatch attach to load the runtime into (t/97-attach.t):
 * workers that check their own results in a loop (floating point kept in
 * vector registers across many instructions, integer hashes, malloc and
 * free of patterned blocks), a reader blocked in read() on standard
 * input, and a thread that sleeps.  Any value a stop and a remote call disturbed shows up as a wrong
 * result: the program says which and exits 3.
 *
 * It prints "ready" once every thread runs, then waits for a line on
 * standard input; with it, the workers stop, each prints its rounds, the
 * reader prints what it read, and the program exits 7.
 *
 * `target main-exits`: the main thread leaves with pthread_exit() once
 * all is running, and the reader finishes.
 *
 * `target hold-loader` also runs a thread that holds the loader's lock
 * (inside dl_iterate_phdr's callback, blocked reading fd 5) until a byte
 * comes on fd 5: a dlopen by another thread waits for it meanwhile.
 *
 * `target hold-loader-signal`: the same thread holds the lock until a
 * SIGUSR2 reaches it (every other thread blocks SIGUSR2), as a thread
 * inside fork() holds malloc's until its child's SIGCHLD is handled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4

static atomic_bool stop;
static atomic_int running;
static bool main_exits;

static void finish(const char *line);

static void wrong(const char *what, long round, double got, double want)
{
	printf("wrong: %s at round %ld: %.17g, expected %.17g\n", what, round, got, want);
	fflush(stdout);
	_exit(3);
}

/* The sum of k*k for k = 1..n in doubles, exact below 2^53: n(n+1)(2n+1)/6 (64-bit on i386 too). */
static void squares(long round)
{
	volatile long long n = 2000 + round % 7;
	double s = 0, k;

	for (k = 1; k <= n; k++)
		s += k * k;
	if (s != (double)(n * (n + 1) * (2 * n + 1) / 6))
		wrong("sum of squares", round, s, (double)(n * (n + 1) * (2 * n + 1) / 6));
}

/* An FNV-1a hash of the round's bytes, computed twice, once backwards through memmove'd copies. */
static void hashes(long round)
{
	unsigned char a[256], b[256];
	uint64_t h1 = 14695981039346656037u, h2 = 14695981039346656037u;

	for (int i = 0; i < 256; i++)
		a[i] = (unsigned char)(i * 31 + round);
	memmove(b, a, sizeof(a));
	memmove(b + 1, b, sizeof(b) - 1);
	for (int i = 0; i < 256; i++)
		h1 = (h1 ^ a[i]) * 1099511628211u;
	for (int i = 1; i < 256; i++)
		h2 = (h2 ^ b[i]) * 1099511628211u;
	h2 = (h2 ^ a[255]) * 1099511628211u;
	if (h1 != h2)
		wrong("hash", round, (double)h1, (double)h2);
}

/* Blocks of many sizes, filled, checked and freed: the allocator is busy all the time. */
static void allocations(long round)
{
	void *p[64];

	for (int i = 0; i < 64; i++) {
		size_t size = 16 + (size_t)((i * 977 + round) % 4000);

		if (!(p[i] = malloc(size)))
			wrong("malloc", round, 0, (double)size);
		memset(p[i], i, size);
	}
	for (int i = 0; i < 64; i++) {
		if (((unsigned char *)p[i])[0] != (unsigned char)i)
			wrong("block", round, ((unsigned char *)p[i])[0], i);
		free(p[i]);
	}
}

static void *worker(void *arg)
{
	long id = (long)arg, round = 0;
	char name[16];

	/* t/97 finds worker0, which never calls malloc, by its name. */
	snprintf(name, sizeof(name), "worker%ld", id);
	pthread_setname_np(pthread_self(), name);
	atomic_fetch_add(&running, 1);
	while (!atomic_load(&stop)) {
		squares(round);
		hashes(round);
		if (id % 2)
			allocations(round);
		round++;
	}
	return (void *)round;
}

static void *reader(void *arg)
{
	static char line[128];
	ssize_t n;

	(void)arg;
	atomic_fetch_add(&running, 1);
	do
		n = read(0, line, sizeof(line) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		printf("read failed: %s\n", strerror(errno));
	else
		line[n] = 0;
	atomic_store(&stop, true);
	if (main_exits)
		finish(n < 0 ? NULL : line);
	return n < 0 ? NULL : line;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Sleeps of 100 ms, each whole and without error: a sleep a remote call
 * interrupted restarts through restart_syscall (-ERESTART_RESTARTBLOCK)
 * for the time that was left.
 */
static void *sleeper(void *arg)
{
	const struct timespec d = { 0, 100 * 1000000 };
	long round = 0;

	(void)arg;
	atomic_fetch_add(&running, 1);
	for (; !atomic_load(&stop); round++) {
		uint64_t t0 = now_ns();
		int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);

		if (rc)
			wrong("clock_nanosleep's status", round, rc, 0);
		if (now_ns() - t0 < 100 * 1000000u)
			wrong("the time slept (ns)", round, (double)(now_ns() - t0), 100 * 1000000.0);
	}
	return (void *)round;
}

/* Blocked here, the thread holds the lock dlopen takes to add a module to the list. */
static int hold_in_callback(struct dl_phdr_info *info, size_t size, void *data)
{
	char c;

	(void)info;
	(void)size;
	(void)data;
	atomic_fetch_add(&running, 1);
	while (read(5, &c, 1) < 0 && errno == EINTR)
		;
	return 1;	/* no other module */
}

static volatile sig_atomic_t released;

static void release(int sig)
{
	(void)sig;
	released = 1;
}

/* The lock is let go only once the signal's handler ran in this thread. */
static int hold_until_signal(struct dl_phdr_info *info, size_t size, void *data)
{
	sigset_t none;

	(void)info;
	(void)size;
	(void)data;
	sigemptyset(&none);
	atomic_fetch_add(&running, 1);
	while (!released)
		sigsuspend(&none);
	return 1;
}

static void *holder(void *arg)
{
	dl_iterate_phdr(arg ? hold_until_signal : hold_in_callback, NULL);
	return NULL;
}

static pthread_t workers[WORKERS], sleeping, holding;
static bool held;

/* Every thread's result, then the exit: 7 when all is right. */
static void finish(const char *line)
{
	void *rounds;
	int bad = 0;

	for (int i = 0; i < WORKERS; i++) {
		pthread_join(workers[i], &rounds);
		printf("worker %d: %s\n", i, (long)rounds > 0 ? "ran, all right" : "never ran");
		bad |= (long)rounds <= 0;
	}
	pthread_join(sleeping, NULL);
	if (held)
		pthread_join(holding, NULL);
	printf("read: %s", line ? line : "(failed)\n");
	exit(bad || !line ? 1 : 7);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t r;
	void *line;
	int threads = WORKERS + 2;

	main_exits = !strcmp(mode, "main-exits");
	if (!strcmp(mode, "hold-loader-signal")) {
		sigset_t usr2;

		signal(SIGUSR2, release);
		sigemptyset(&usr2);
		sigaddset(&usr2, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &usr2, NULL);	/* inherited by every thread */
	}
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&workers[i], NULL, worker, (void *)i);
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&sleeping, NULL, sleeper, NULL);
	if (!strncmp(mode, "hold-loader", 11) &&
	    !pthread_create(&holding, NULL, holder, (void *)(uintptr_t)!strcmp(mode, "hold-loader-signal"))) {
		held = true;
		threads++;
	}
	while (atomic_load(&running) < threads)
		sched_yield();
	printf("ready\n");
	fflush(stdout);
	/* The process goes on without its main thread, a zombie: the reader finishes. */
	if (main_exits)
		pthread_exit(NULL);
	pthread_join(r, &line);
	finish(line);
}
