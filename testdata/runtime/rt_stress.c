// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime under stress for a fixed time (t/91-stress.t), built with
 * ASan and UBSan and linked with libobjpatch.a: 8 threads call traced
 * functions (recursion, every return class) and check every result, while
 * one thread enables and disables every site in a loop, another sends
 * SIGUSR1 to the workers (whose handler calls a traced function), and the
 * workers fork now and then (the child calls traced functions, checks them
 * and exits).  A return address the runtime lost or restored wrongly shows
 * as a crash or a wrong result; the trace it writes is checked by
 * check_trace.py against rt_stress_expect.txt.
 *
 *   RT_STRESS_SECONDS   how long (default 60)
 *
 * Prints "ok - ..." / "not ok - ..." and "done" on stdout; exits 0 when
 * every check passed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "objpatch.h"
#include "traced.h"

#define NWORKERS 8
#define FORK_EVERY 4000		/* rounds of a worker between forks (worker 0 only) */

struct pair {
	long a, b;
};

static atomic_bool stop;
static atomic_long wrong, rounds_total, signals_seen, toggles, forks, fork_failures;
static pthread_t workers[NWORKERS];
static int failed;

static void check(bool good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

TRACED long stress_fib(int n)
{
	return n < 2 ? n : stress_fib(n - 1) + stress_fib(n - 2);
}

TRACED bool stress_odd(int x)
{
	return x & 1;
}

TRACED double stress_half(int x)
{
	return x / 2.0;
}

TRACED struct pair stress_pair(long x)
{
	return (struct pair){ x, -x };
}

TRACED const char *stress_name(int x)
{
	return x & 1 ? "odd" : "even";
}

TRACED void stress_void(int *x)
{
	*x += 1;
}

/* Called from the signal handler: the handler's frames interleave the worker's. */
TRACED int stress_in_signal(int x)
{
	return x * 3;
}

static void on_usr1(int sig)
{
	int r = stress_in_signal(sig);

	KEEP(r);
	if (r != sig * 3)
		atomic_fetch_add(&wrong, 1);
	atomic_fetch_add(&signals_seen, 1);
}

/* One round of every kind of call; the number of wrong results. */
TRACED int stress_round(int i)
{
	static const long fibs[] = { 0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55 };
	int n = i % 11, bad = 0, v = i;
	struct pair p = stress_pair(i);

	bad += stress_fib(n) != fibs[n];
	bad += stress_odd(i) != (i & 1);
	bad += stress_half(i) != i / 2.0;
	bad += p.a != i || p.b != -i;
	bad += strcmp(stress_name(i), i & 1 ? "odd" : "even") != 0;
	stress_void(&v);
	bad += v != i + 1;
	return bad;
}

/* A child of a worker: its calls are traced into its own file, then it exits. */
static void child(int i)
{
	int bad = 0;

	for (int k = 0; k < 20; k++)
		bad += stress_round(i + k);
	objpatch_flush();
	_exit(bad ? 3 : 0);
}

static void do_fork(int i)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		child(i);
	if (pid < 0) {
		atomic_fetch_add(&fork_failures, 1);
		return;
	}
	atomic_fetch_add(&forks, 1);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		atomic_fetch_add(&fork_failures, 1);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		int bad = stress_round(i);

		if (bad)
			atomic_fetch_add(&wrong, bad);
		atomic_fetch_add_explicit(&rounds_total, 1, memory_order_relaxed);
		if (id == 0 && i % FORK_EVERY == FORK_EVERY - 1)
			do_fork(i);
		/* Leave the toggling and signalling threads some of the 2 cores. */
		if (i % 64 == 0)
			sleep_us(200);
	}
	return NULL;
}

static void *toggler(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (objpatch_enable("*") < 0 || objpatch_disable("*") < 0) {
			printf("# toggle %ld: %s\n", atomic_load(&toggles), objpatch_error());
			atomic_fetch_add(&wrong, 1);
			return NULL;
		}
		atomic_fetch_add(&toggles, 1);
	}
	return NULL;
}

static void *signaller(void *arg)
{
	(void)arg;
	for (int k = 0; !atomic_load_explicit(&stop, memory_order_relaxed); k++) {
		pthread_kill(workers[k % NWORKERS], SIGUSR1);
		sleep_us(500);
	}
	return NULL;
}

int main(void)
{
	const char *env = getenv("RT_STRESS_SECONDS");
	long seconds = env ? atol(env) : 60, started = 0;
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	pthread_t tog, sig;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a crash keeps the lines before it */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (long i = 0; i < NWORKERS; i++)
		started += pthread_create(&workers[i], NULL, worker, (void *)i) == 0;
	check(started == NWORKERS, "workers started");
	if (started != NWORKERS)
		return 1;
	check(pthread_create(&tog, NULL, toggler, NULL) == 0, "toggling thread started");
	check(pthread_create(&sig, NULL, signaller, NULL) == 0, "signalling thread started");
	sleep_us(seconds * 1000000);
	/* Then every stress_* function traced for a moment: the trace surely holds each. */
	atomic_store(&stop, true);
	pthread_join(tog, NULL);
	pthread_join(sig, NULL);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(workers[i], NULL);
	check(objpatch_enable("stress_*") > 0, "objpatch_enable(\"stress_*\") after the storm");
	check(stress_round(7) == 0 && stress_in_signal(2) == 6, "every function traced once more, right results");
	check(objpatch_disable("*") >= 0, "objpatch_disable(\"*\")");
	check(atomic_load(&wrong) == 0, "no wrong result, no failed toggle");
	check(atomic_load(&toggles) > 0 && atomic_load(&rounds_total) > 0 && atomic_load(&signals_seen) > 0,
	      "toggles, calls and signals happened");
	check(atomic_load(&forks) > 0 && atomic_load(&fork_failures) == 0, "forked children ran and exited 0");
	check(objpatch_flush() >= 0, "objpatch_flush()");
	printf("# %ld s: %ld enable+disable rounds, %ld worker rounds, %ld signals, %ld forks, %ld wrong\n",
	       seconds, atomic_load(&toggles), atomic_load(&rounds_total), atomic_load(&signals_seen),
	       atomic_load(&forks), atomic_load(&wrong));
	printf("done\n");
	return failed != 0;
}
