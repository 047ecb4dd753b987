// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost of a traced call on i386 (t/95-rt-i386.t's numbers, the
 * report's): a loop calling one small traced function ARGV[1] times (default
 * 1,000,000), timed untraced and under `objpatch run`; the difference over
 * the count is the cost per traced call, the ratio the slowdown.
 */
#include <stdio.h>
#include <stdlib.h>
#include "traced.h"

TRACED int bench_leaf(int x)
{
	OPAQUE();
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int v = 0;

	for (long i = 0; i < n; i++)
		v = bench_leaf(v);
	printf("%d\n", v);
	return v != (int)n;
}
