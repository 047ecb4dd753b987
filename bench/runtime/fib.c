// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end-to-end benchmark's recursion (bench/e2e.sh): fib(N) the naive
 * way, every call a traced call.
 *
 *   fib N      prints fib(N) and traced_calls=..., the exact number of calls
 *              to functions of this file (main included).
 *
 * fib is noipa (gcc) so that the compiler does not inline it: every counted
 * call is made.
 */
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noipa, used))
#endif

long fib(int n);

TRACED long fib(int n)
{
	long a, b;

	if (n < 2)
		return n;
	a = fib(n - 1);
	b = fib(n - 2);
	/* Keeps gcc from turning the second call into a loop (tail recursion with an accumulator). */
	__asm__ volatile("" : "+r"(b));
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 28;
	long a = 0, b = 1, v = fib(n);

	/* fib(n) makes 2 * F(n + 1) - 1 calls; F counted here in a loop, which makes none. */
	for (int i = 0; i < n + 1; i++) {
		long next = a + b;

		a = b;
		b = next;
	}
	printf("fib(%d)=%ld traced_calls=%ld\n", n, v, 2 * a);	/* main's call too */
	return 0;
}
