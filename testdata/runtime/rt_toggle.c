// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracing switched on and off under load (t/90-runtime.t): linked with
 * libobjpatch.a, 8 threads call traced functions while the main thread
 * calls objpatch_enable("*") / objpatch_disable("*") 10,000 times (the
 * environment's RT_TOGGLES may say fewer), then traces tog_* until the
 * threads have made 8 rounds of calls, so that the trace surely holds
 * calls, joins the threads and flushes.
 * Calls entered while tracing was off must leave no half frames behind:
 * check_trace.py then finds the trace well-formed, every traced return with
 * its value (rt_toggle_expect.txt).
 *
 * Prints "ok - ..." / "not ok - ..." and "done" on stdout; exits 0 when every
 * check passed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "objpatch.h"
#include "traced.h"

#define NTHREADS 8
#define PAUSE_US 100
#define MAX_CALLS 20000	/* per thread: a bound on the trace's size */

static atomic_bool stop, last_phase;
static atomic_long last_rounds;	/* rounds of calls begun in the last phase */
static int failed;

static void check(bool good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * The threads spend most of their time between a traced entry and its exit
 * (asleep, so the toggling thread keeps a core), where a toggle matters
 * most, and make few enough calls to keep the trace small.
 */
TRACED int tog_leaf(int x)
{
	OPAQUE();
	return 3 + (x & 0);
}

TRACED int tog_mid(int x)
{
	sleep_us(PAUSE_US);
	int r = tog_leaf(x);

	KEEP(r);
	sleep_us(PAUSE_US);
	return r + 4;
}

TRACED void tog_void(void)
{
	OPAQUE();
}

/*
 * A thread stops calling after MAX_CALLS, a bound on the trace's size, but
 * calls again in the last phase, which waits for a round of calls begun
 * after it started (a sleep would be too short for a loaded machine).
 */
TRACED void *tog_thread(void *arg)
{
	long *calls = arg;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		bool last = atomic_load(&last_phase);

		if (*calls >= MAX_CALLS && !last) {
			sleep_us(1000);
			continue;
		}
		int r = tog_mid(1);

		KEEP(r);
		tog_void();
		*calls += r == 7;
		if (last)
			atomic_fetch_add(&last_rounds, 1);
	}
	return NULL;
}

/* Every call must succeed; the first failure is shown. */
static bool toggle(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		if (objpatch_enable("*") < 0 || objpatch_disable("*") < 0) {
			printf("# round %d: %s\n", i, objpatch_error());
			return false;
		}
	}
	return true;
}

int main(void)
{
	const char *env = getenv("RT_TOGGLES");
	int rounds = env ? atoi(env) : 10000, started = 0, enabled;
	pthread_t t[NTHREADS];
	long calls[NTHREADS] = { 0 }, total = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a crash keeps the lines before it */
	for (int i = 0; i < NTHREADS; i++)
		started += pthread_create(&t[i], NULL, tog_thread, &calls[i]) == 0;
	check(started == NTHREADS, "threads started");
	sleep_us(10000);
	check(toggle(rounds), "objpatch_enable(\"*\") / objpatch_disable(\"*\") while threads call");
	enabled = objpatch_enable("tog_*");
	check(enabled > 0, "objpatch_enable(\"tog_*\") enables sites");
	atomic_store(&last_phase, true);
	sleep_us(20000);
	for (int waited = 0; atomic_load(&last_rounds) < NTHREADS && waited < 60000; waited++)
		sleep_us(1000);
	check(atomic_load(&last_rounds) >= NTHREADS, "the threads called with tog_* enabled");
	check(objpatch_disable("*") >= 0, "objpatch_disable(\"*\")");
	atomic_store(&stop, true);
	for (int i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	check(total > 0, "the threads ran through the sites");
	check(objpatch_flush() >= 0, "objpatch_flush()");
	printf("# %d toggles, %ld calls\n", rounds, total);
	printf("done\n");
	return failed != 0;
}
