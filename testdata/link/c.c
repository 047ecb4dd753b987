// SPDX-License-Identifier: GPL-2.0-only
/* A weak function, and one that calls across both other units. */
#include "link.h"

__attribute__((weak)) int c_weak(int x)
{
	return x - link_table[3];
}

int c_third(int x)
{
	if (x > 100)
		return a_first(x - 1) + c_weak(x);
	return link_counter + c_weak(x);
}
