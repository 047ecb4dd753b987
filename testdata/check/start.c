// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compiled without -pg: the entry point of a libc-less static link, and a
 * do-nothing profiling hook named by -DHOOK=... .  Linked, never run.
 */
#include "check.h"

void HOOK(void);

void HOOK(void)
{
}

void _start(void);

void _start(void)
{
	volatile int sink = a_two(1);

	(void)sink;
	for (;;)
		;
}
