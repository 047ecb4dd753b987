// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/78-analyses.t's program: calls whose counts it knows and prints
 * ("calls NAME N", one line per function), recursion (fib), two threads,
 * and one call that takes at least 20 ms (slow: nanosleep) while every
 * other call takes far less than a millisecond, so that --min-duration
 * 10ms keeps exactly slow and its callers whatever the machine's speed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

enum { LEAF, MID, FIB, SLOW, WORKER, MAIN, NFUNCS };
static const char *const names[NFUNCS] = { "leaf", "mid", "fib", "slow", "worker", "main" };
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

int main(void)
{
	pthread_t t[2];

	atomic_fetch_add(&calls[MAIN], 1);
	for (int i = 0; i < 10; i++)
		sink += mid(i);
	sink += fib(8);
	sink += slow();
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NFUNCS; i++)
		printf("calls %s %lu\n", names[i], (unsigned long)atomic_load(&calls[i]));
	return 0;
}
