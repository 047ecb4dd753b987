// SPDX-License-Identifier: GPL-2.0-only
/* With -DSTRONG, the definition of chk_weak that wins over a.c's weak one. */
#include "check.h"

#ifdef STRONG
int chk_weak(int x)
{
	chk_table[0] = x;
	return x + 7 + chk_counter;
}
#endif

int b_one(int x)
{
	chk_counter += 2;
	return chk_weak(x) * 2 + chk_table[1];
}
