// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program t/77-svg.t draws as a flame graph: two worker threads and
 * the main thread, recursion (depth_sum), typed returns (bool, enum,
 * strings, among them markup characters XML must escape), and a function
 * of a second module (flame_lib.c, its own colour family).  Every traced
 * call does some work of its own, so that no frame is so narrow that the
 * picture leaves it out.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

long lib_scale(long x);

/* Not a function: no call site, no frame of its own. */
#define WORK(n)                                        \
	do {                                           \
		for (volatile int w_ = 0; w_ < (n); w_++) \
			;                              \
	} while (0)

enum shape { SHAPE_ROUND, SHAPE_SQUARE, SHAPE_STAR };

__attribute__((noinline)) bool is_even(int x)
{
	WORK(20000);
	return x % 2 == 0;
}

__attribute__((noinline)) enum shape classify(int x)
{
	WORK(20000);
	return (enum shape)(x % 3);
}

/* Five values, so that the tooltip shows three and counts the others. */
__attribute__((noinline)) const char *colour_name(int i)
{
	static const char *const names[] = { "red", "<b>&\"blue\"", "green", "red", "red", "cyan", "magenta" };

	WORK(20000);
	return names[i % 7];
}

__attribute__((noinline)) int depth_sum(int n)
{
	WORK(20000);
	return n ? n + depth_sum(n - 1) : 0;
}

__attribute__((noinline)) int round_of(int i)
{
	int r = depth_sum(4);

	WORK(20000);
	r += is_even(i) + (int)classify(i);
	r += colour_name(i)[0];
	return r + (int)lib_scale(i);
}

static void *worker(void *arg)
{
	long sum = 0;

	for (int i = 0; i < 8; i++)
		sum += round_of(i + (int)(long)arg);
	return (void *)sum;
}

int main(void)
{
	pthread_t t[2];
	void *r;

	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	worker(0);
	for (int i = 0; i < 2; i++)
		if (pthread_join(t[i], &r))
			return 1;
	printf("done\n");
	return 0;
}
