// SPDX-License-Identifier: GPL-2.0-only
/* Exit status 0 when the program computed what it should. */
#include <cstdio>
#include "cxx.h"

int main(int argc, char **argv)
{
	(void)argv;
	long x = argc + 4;	/* 5: not foldable */
	long got = unit_one(x) + unit_two(x);

	std::printf("%ld\n", got);
	return got == (2 * x + x + 1) + (x + 2 * x + 2 * x) ? 0 : 1;
}
