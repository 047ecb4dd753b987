// SPDX-License-Identifier: GPL-2.0-only
/*
 * The argument benchmark's hot loop (bench/args.sh): one function of two
 * integers called N times, for what `--args` adds to a traced call.
 *
 *   args2 N    runs N iterations; prints a result line with
 *              traced_calls=... (the calls of this file's functions, main
 *              included) and a checksum, so that no call is dropped
 *
 * add2 is noipa (gcc), so it is neither inlined, cloned nor hoisted, and
 * its prototype stays reliable: the table gives its parameters.
 */
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noipa, used))
#endif

int add2(int a, int b);

TRACED int add2(int a, int b)
{
	return a * 3 + b;
}

int main(int argc, char **argv)
{
	long n, i;
	long long acc = 0;

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) < 0) {
		fprintf(stderr, "usage: args2 N\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		acc += add2((int)i, (int)(i >> 3));
	printf("iterations=%ld traced_calls=%ld checksum=%lld\n", n, n + 1, acc);
	return 0;
}
