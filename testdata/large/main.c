// SPDX-License-Identifier: GPL-2.0-only
/* Links weak.c and override.c (or debug.c) into a program. */
#include "weak.h"

int main(int argc, char **argv)
{
	(void)argv;
	return rmc_calls_weak(argc) == 41 ? 0 : 1;
}
