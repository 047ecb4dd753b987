// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor under the cost of a traced call: the runtime reads the clock at
 * every entry and every exit (arch/x86/tsc.h: the TSC when the kernel's
 * clock source is the TSC, or kvm-clock over an invariant TSC; else
 * CLOCK_MONOTONIC), so two reads bound what recording a call can cost.
 *
 *   clock N    prints "rdtsc_ns=R clock_gettime_ns=C rdtscp_ns=P": CPU time
 *              per read, the fastest of 5 passes of N reads each (the least
 *              disturbed by other work on a shared machine).  rdtscp, the
 *              read LLVM XRay's runtime uses, is there for bench/xray.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static double cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static volatile uint64_t sink;

static uint64_t read_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return 0;
#endif
}

static uint64_t read_tscp(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int aux;

	return __rdtscp(&aux);
#else
	return 0;
#endif
}

static uint64_t read_monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_nsec;
}

/* The fastest of 5 passes, in ns per read. */
static double per_read(uint64_t (*read)(void), long n)
{
	double best = -1;

	for (int pass = 0; pass < 5; pass++) {
		double t0 = cpu_ns();
		uint64_t s = 0;

		for (long i = 0; i < n; i++)
			s += read();
		sink = s;
		double ns = (cpu_ns() - t0) / (double)n;
		if (best < 0 || ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	if (n <= 0) {
		fprintf(stderr, "usage: clock N (reads per pass, N > 0)\n");
		return 2;
	}
	printf("rdtsc_ns=%.1f clock_gettime_ns=%.1f rdtscp_ns=%.1f\n", per_read(read_tsc, n),
	       per_read(read_monotonic, n), per_read(read_tscp, n));
	return 0;
}
