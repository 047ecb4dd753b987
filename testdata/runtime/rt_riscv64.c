// SPDX-License-Identifier: GPL-2.0-only
/*
 * riscv64 lp64d's return conventions (t/95-rt-riscv64.t), beyond
 * rt_test.c's:
 *  - long double is IEEE binary128 and comes back in the INTEGER registers
 *    a0:a1 (low half in a0), not in an FP register: the trace shows 0.1
 *    only when both halves were captured, as binary128 (a0 alone, or fa0,
 *    would print something else);
 *  - float comes back NaN-boxed in fa0 (the upper 32 bits all ones);
 *  - __int128 in a0:a1.
 * Prints "ok - ..."/"not ok - ..." and "done"; exits 0 when every check
 * passed.
 */
#include <stdio.h>
#include "traced.h"

static int failed;

static void check(int good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

TRACED long double rv_ldbl_tenth(void)
{
	OPAQUE();
	return 0.1L;
}

TRACED long double rv_ldbl_neg_big(void)
{
	OPAQUE();
	return -1e600L;
}

TRACED long double rv_ldbl_half(void)
{
	OPAQUE();
	return 1.5L;
}

TRACED float rv_float_third(void)
{
	OPAQUE();
	return 1.0f / 3.0f;
}

TRACED __int128 rv_int128_high(void)
{
	OPAQUE();
	return (__int128)3 << 64 | 5;
}

int main(void)
{
	check(rv_ldbl_tenth() == 0.1L, "long double 0.1");
	check(rv_ldbl_neg_big() == -1e600L, "long double -1e600");
	check(rv_ldbl_half() == 1.5L, "long double 1.5");
	check(rv_float_third() == 1.0f / 3.0f, "float 1/3");
	check(rv_int128_high() == ((__int128)3 << 64 | 5), "__int128 3 << 64 | 5");
	printf("done\n");
	return failed != 0;
}
