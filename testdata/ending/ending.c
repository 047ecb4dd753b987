// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/94-ending-signals.t's program: 4 threads call mid() and leaf() without
 * end; once each has made argv[1] rounds, the main thread ends the process
 * as argv[2] says: a signal number sent to its parent (objpatch, which
 * passes it on), or "abort", "segv", "kill" (SIGKILL to itself).  The
 * threads are still calling when it ends: the trace has frames open.
 * argv[3] "hot": no pause between rounds, the most events a second.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int ready;
static long rounds;
static int hot;
static volatile long sink;

__attribute__((noinline)) long leaf(long x)
{
	sink += x;
	__asm__ volatile("" ::: "memory");
	return x * 3 - 1;
}

__attribute__((noinline)) long mid(long x)
{
	return leaf(x) + leaf(x + 1);
}

static void *worker(void *arg)
{
	for (long i = 0;; i++) {
		mid(i);
		if (i == rounds)
			atomic_fetch_add(&ready, 1);
		if (!hot && !(i & 255))
			usleep(50);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 3)
		return 2;
	rounds = atol(argv[1]);
	hot = argc > 3 && !strcmp(argv[3], "hot");
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, worker, NULL);
	while (atomic_load(&ready) < 4)
		usleep(1000);
	if (!strcmp(argv[2], "abort"))
		abort();
	if (!strcmp(argv[2], "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(argv[2], "kill"))
		kill(getpid(), SIGKILL);
	kill(getppid(), atoi(argv[2]));
	for (;;)
		pause();
}
