// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/78-analyses.t's program: calls whose counts it knows and prints
 * ("calls NAME N", one line per function), recursion (fib), two threads,
 * and one call that takes at least 20 ms (slow: nanosleep) while every
 * other call takes far less than a millisecond, so that --min-duration
 * 10ms keeps exactly slow and its callers whatever the machine's speed.
 * With a count, main calls mid that many times (to fill the buffers);
 * with "hang" after it, a thread is inside hanger() and hang() when the
 * program exits (frames the trace closes as unfinished), and main waits
 * 120 ms before it returns: main and those frames last 100 ms or more,
 * whose durations the text trace writes with more than 5 places, every
 * run (not only when a loaded machine stretches a call that far).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

enum { LEAF, MID, FIB, SLOW, WORKER, MAIN, HANG, HANGER, NFUNCS };
static const char *const names[NFUNCS] = { "leaf", "mid", "fib", "slow", "worker", "main", "hang", "hanger" };
static atomic_ulong calls[NFUNCS];
static volatile int sink;

NOINLINE static int leaf(int x)
{
	atomic_fetch_add(&calls[LEAF], 1);
	sink += x;
	return x + 1;
}

NOINLINE static int mid(int x)
{
	int r = 0;

	atomic_fetch_add(&calls[MID], 1);
	for (int i = 0; i < 3; i++)
		r += leaf(x + i);
	return r;
}

NOINLINE static int fib(int n)
{
	atomic_fetch_add(&calls[FIB], 1);
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

NOINLINE static int slow(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	atomic_fetch_add(&calls[SLOW], 1);
	while (nanosleep(&ts, &ts))	/* the whole 20 ms, even after a signal */
		;
	return leaf(7);
}

NOINLINE static void *worker(void *arg)
{
	atomic_fetch_add(&calls[WORKER], 1);
	for (int i = 0; i < 5; i++)
		sink += mid((int)(long)arg + i);
	return NULL;
}

static atomic_int hanging;

NOINLINE static void hang(void)
{
	atomic_fetch_add(&calls[HANG], 1);
	atomic_store(&hanging, 1);
	for (;;)
		pause();
}

NOINLINE static void *hanger(void *arg)
{
	atomic_fetch_add(&calls[HANGER], 1);
	hang();
	return arg;
}

/* argv[1]: how many times main calls mid (default 10): many, to overflow small buffers. */
int main(int argc, char **argv)
{
	int mids = argc > 1 ? atoi(argv[1]) : 10;
	pthread_t t[2];

	atomic_fetch_add(&calls[MAIN], 1);
	for (int i = 0; i < mids; i++)
		sink += mid(i);
	sink += fib(8);
	sink += slow();
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (argc > 2 && !strcmp(argv[2], "hang")) {
		pthread_t h;
		struct timespec ts = { 0, 120 * 1000 * 1000 };

		pthread_create(&h, NULL, hanger, NULL);
		while (!atomic_load(&hanging))
			sched_yield();
		while (nanosleep(&ts, &ts))	/* the whole 120 ms, even after a signal */
			;
	}
	for (int i = 0; i < NFUNCS; i++)
		if (atomic_load(&calls[i]))
			printf("calls %s %lu\n", names[i], (unsigned long)atomic_load(&calls[i]));
	return 0;
}
