// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compiled without -pg: the entry point, and a do-nothing profiling hook
 * named by -DHOOK=... so that a libc-less static link resolves it.  The
 * program is linked, never run.
 */
#include "link.h"

void HOOK(void);

void HOOK(void)
{
}

void _start(void);

void _start(void)
{
	volatile int sink = a_second(1) + b_second(2) + c_third(3);

	(void)sink;
	for (;;)
		;
}
