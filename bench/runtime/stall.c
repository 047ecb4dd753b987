// SPDX-License-Identifier: GPL-2.0-only
/*
 * A target for bench/attach-hold.sh: what a process sees of objpatch
 * attach's hold, as redis-cli --latency sees a server's.  A worker thread
 * calls a small traced function in a loop and keeps the longest gap
 * between two of its iterations (CLOCK_MONOTONIC); the main thread reads
 * standard input, and each line it reads makes it print that gap in
 * microseconds ("maxgap_us=N") and start a new window.  A gap is the
 * hold, or the machine giving the core to something else: the bench
 * measures windows without an attach too.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static _Atomic uint64_t max_gap_ns;
static atomic_bool reset;
volatile unsigned long sink;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* noipa: a call site of its own, never folded into the loop. */
__attribute__((noipa)) unsigned long step(unsigned long x);
__attribute__((noipa)) unsigned long step(unsigned long x)
{
	return x * 2654435761u + 1;
}

static void *worker(void *arg)
{
	uint64_t last = now_ns();

	(void)arg;
	for (;;) {
		uint64_t t;

		for (int i = 0; i < 64; i++)
			sink = step(sink);
		t = now_ns();
		if (atomic_exchange(&reset, false))
			atomic_store(&max_gap_ns, 0);
		else if (t - last > atomic_load(&max_gap_ns))
			atomic_store(&max_gap_ns, t - last);
		last = t;
	}
	return NULL;
}

int main(void)
{
	char line[64];
	pthread_t id;

	if (pthread_create(&id, NULL, worker, NULL))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		printf("maxgap_us=%llu\n", (unsigned long long)(atomic_load(&max_gap_ns) / 1000));
		atomic_store(&reset, true);
	}
	return 0;
}
