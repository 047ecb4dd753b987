// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime benchmark's hot loop: small functions called N times, for the
 * cost of a traced call (entry, exit and return value recorded) and of a
 * call whose site is a NOP.
 *
 *   calls N    runs N iterations; prints main_ns=..., then a result line
 *              with traced_calls=..., the exact number of calls to functions
 *              of this file (main included), which is what a tracer that
 *              traces every function records, and void_calls=..., those
 *              of them that return no value.
 *
 * Every iteration makes CALLS_PER_ITER calls: an int return, a void
 * function, a pointer return and a non-leaf function returning long that
 * calls the int one.  The functions are noipa (gcc) so that the compiler
 * neither inlines, clones, hoists nor drops a call: the counted calls are
 * the calls made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__clang__)
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noipa, used))
#endif

#define CALLS_PER_ITER 5

/* Global, so that they keep their names; declared for -Wmissing-prototypes. */
int ret_int(int x);
void do_void(int x);
int *ret_ptr(int x);
long ret_sum(int x);

static volatile int sink;
static int table[64];

TRACED int ret_int(int x)
{
	return x * 3 - 7;
}

TRACED void do_void(int x)
{
	sink = x;
}

TRACED int *ret_ptr(int x)
{
	return &table[x & 63];
}

TRACED long ret_sum(int x)
{
	return (long)ret_int(x ^ 5) + 1;
}

/*
 * Start-up time is measured to here: the launcher compares it with its own
 * clock.  Not instrumented, so that it adds no traced call at any -O level.
 */
__attribute__((no_instrument_function)) static void print_main_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("main_ns=%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

int main(int argc, char **argv)
{
	long n, i;
	long long acc = 0;

	print_main_ns();
	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) < 0) {
		fprintf(stderr, "usage: calls N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		acc += ret_int((int)i);
		do_void((int)i);
		acc += *ret_ptr((int)i);
		acc += ret_sum((int)i);
	}
	/* main itself is the one call outside the loop. */
	printf("iterations=%ld traced_calls=%lld void_calls=%ld checksum=%lld\n", n,
	       (long long)n * CALLS_PER_ITER + 1, n, acc);
	return 0;
}
