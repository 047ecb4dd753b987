// SPDX-License-Identifier: GPL-2.0-only
#include "link.h"

static __attribute__((noinline)) int b_helper(int x)
{
	link_table[1] += x;
	return link_table[2] - x;
}

int b_first(int x)
{
	return x + x + x + link_counter;
}

int b_second(int x)
{
	link_counter ^= x;
	return b_helper(x) + b_first(x + 1) - c_third(x);
}
