// SPDX-License-Identifier: GPL-2.0-only
/* The example `make demo` records: a few functions of the usual kinds. */
#include <stdio.h>
#include <stdlib.h>

static int square(int x)
{
	return x * x;
}

__attribute__((weak)) int scale(int x)
{
	return 3 * x;
}

__attribute__((noinline)) int sum_squares(int n)
{
	int s = 0;

	for (int i = 1; i <= n; i++)
		s += square(scale(i));
	return s;
}

/* Outside the traced sections: its call to mcount becomes a NOP. */
__attribute__((section(".fixup.text"), noinline)) int fixup(int x)
{
	return x - 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	printf("sum of squares of 3i for i <= %d: %d\n", n, fixup(sum_squares(n) + 1));
	return 0;
}
