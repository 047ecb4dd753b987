// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls between functions and loads of globals come before most mcount
 * calls, so that RISC-V linker relaxation moves the later call sites.
 */
#include "link.h"

int link_counter;
int link_table[4];

static __attribute__((noinline)) int a_helper(int x)
{
	return x + link_counter;
}

int a_first(int x)
{
	link_counter += x;
	return a_helper(x) + b_first(x);
}

int a_second(int x)
{
	link_table[x & 3] = x;
	return a_first(x) + b_second(x) + link_table[(x + 1) & 3];
}
