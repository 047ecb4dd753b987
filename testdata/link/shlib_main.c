// SPDX-License-Identifier: GPL-2.0-only
/* Exit status 0 when the library computed what it should. */
#include <stdio.h>
#include "shlib.h"

int main(int argc, char **argv)
{
	int got = shlib_outer(argc);	/* 1 * 5 + 2 */

	(void)argv;
	printf("%d\n", got);
	return got == 7 ? 0 : 1;
}
