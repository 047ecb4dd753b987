// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process that exits while its threads are busy in traced code
 * (t/93-exit-threads.t):
 *
 *   exit_threads MODE [WORKERS]
 *
 * WORKERS threads (default 3) recurse through traced functions forever.
 * Once each has made CALLS_BEFORE_EXIT rounds (so that every one of them
 * is in traced code from then on), the process exits while they run:
 *   thread  another thread calls exit(3) from traced code;
 *   main    the main thread calls exit(4) from deep in traced recursion;
 *   signal  the main thread is busy in traced recursion when another thread
 *           sends it SIGINT, whose (traced) handler calls exit(2), as
 *           zstd's does.
 * Anything else: exit status 64 and one line.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRACED __attribute__((noinline, used))
#define MAX_WORKERS 8
#define CALLS_BEFORE_EXIT 30
#define SHORT_WORK 20000	/* rounds of a leaf's loop: some 20 us */
#define LONG_WORK 400000

int descend(int n, int work);
void *worker(void *arg);
void *exiter(void *arg);
void *kicker(void *arg);
void leave(int status);
int descend_then_exit(int n, int status);
void on_sigint(int sig);
void busy_forever(void);
void wait_for_workers(void);

static volatile int sink;
static int nworkers = 3;
static _Atomic long rounds[MAX_WORKERS];
static pthread_t main_thread;

/*
 * Not a tail call, so every level is a frame of its own; the deepest one
 * works `work` rounds, so that a thread spends its time inside traced
 * frames while its trace stays small.
 */
TRACED int descend(int n, int work)
{
	int r = 0;

	if (n > 0)
		r = descend(n - 1, work);
	else
		for (int i = 0; i < work; i++)
			sink = i;

	sink = r;
	return r + 1;
}

TRACED void busy_forever(void)
{
	for (unsigned i = 0;; i++)
		sink = descend(1 + (int)(i % 9), LONG_WORK);
}

TRACED void *worker(void *arg)
{
	_Atomic long *mine = arg;

	/* Slower once it has done its share: a loaded machine may take long to run the others. */
	for (unsigned i = 0;; i++) {
		sink = descend(1 + (int)(i % 7), i < CALLS_BEFORE_EXIT ? SHORT_WORK : LONG_WORK);
		atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
	}
	return NULL;
}

/* Until every worker has been running traced code for a while: progress, not time. */
TRACED void wait_for_workers(void)
{
	struct timespec pause = { 0, 200000 };

	for (int i = 0; i < nworkers; i++)
		while (atomic_load_explicit(&rounds[i], memory_order_relaxed) < CALLS_BEFORE_EXIT)
			nanosleep(&pause, NULL);
}

/* Returns on a negative status: the compiler cannot take descend_then_exit for endless. */
TRACED void leave(int status)
{
	if (status >= 0)
		exit(status);
}

TRACED int descend_then_exit(int n, int status)
{
	if (n <= 0) {
		leave(status);
		return 0;
	}
	return descend_then_exit(n - 1, status) + 1;
}

TRACED void *exiter(void *arg)
{
	(void)arg;
	wait_for_workers();
	descend_then_exit(4, 3);
	return NULL;
}

TRACED void on_sigint(int sig)
{
	(void)sig;
	leave(2);
}

/* Sends SIGINT to the busy main thread, then is busy itself until the process ends. */
TRACED void *kicker(void *arg)
{
	(void)arg;
	wait_for_workers();
	pthread_kill(main_thread, SIGINT);
	busy_forever();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t t;

	if (argc > 2)
		nworkers = atoi(argv[2]);
	if (nworkers < 1 || nworkers > MAX_WORKERS || (strcmp(mode, "thread") && strcmp(mode, "main") &&
						      strcmp(mode, "signal"))) {
		fprintf(stderr, "usage: exit_threads thread|main|signal [WORKERS, 1 to %d]\n", MAX_WORKERS);
		return 64;
	}
	main_thread = pthread_self();
	signal(SIGINT, on_sigint);
	for (int i = 0; i < nworkers; i++)
		if (pthread_create(&t, NULL, worker, &rounds[i]))
			return 70;
	if (!strcmp(mode, "thread")) {
		if (pthread_create(&t, NULL, exiter, NULL))
			return 70;
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "main")) {
		wait_for_workers();
		descend_then_exit(6, 4);
	} else {
		if (pthread_create(&t, NULL, kicker, NULL))
			return 70;
		busy_forever();
	}
	return 1;	/* not reached: exit() ends the process */
}
