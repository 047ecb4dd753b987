// SPDX-License-Identifier: GPL-2.0-only
/*
 * A static function, a weak function that b.c built with -DSTRONG overrides
 * (its code stays in the link, between a_static and a_one, with its table
 * entry and no symbol), and calls between the units.
 */
#include "check.h"

int chk_counter;
int chk_table[4];

static __attribute__((noinline)) int a_static(int x)
{
	chk_table[x & 3] += x;
	return x * 3 + chk_counter;
}

__attribute__((weak, noinline)) int chk_weak(int x)
{
	chk_counter += x;
	return chk_table[(x + 1) & 3] - 1;
}

int a_one(int x)
{
	return a_static(x) + chk_weak(x + 2);
}

int a_two(int x)
{
	chk_counter ^= x;
	return a_one(x + 1) + b_one(x) + chk_table[2];
}
