// SPDX-License-Identifier: GPL-2.0-only
/*
 * sh4's own cases (t/95-rt-sh4.t), the corners of the SH-4 ABI (gcc 14,
 * FPU in double mode) that rt_test.c does not reach, where a port that
 * kept the wrong register or read the wrong slot shows other values:
 *  - long long in r0:r1, the low word in r0;
 *  - a float in fr0, which is the high word of dr0, and a double in dr0;
 *  - {int, int} in r0:r1 (gcc gives it DImode); {short, short} and a
 *    3-byte struct in memory at the address the caller passes in r2,
 *    which the function returns in r0 too;
 *  - arguments past r7 on the stack from the entry sp, a long long in
 *    r5:r6 after an int (no even-pair rule), floats in fr5, fr4, fr7 ...
 *    (each pair swapped) and doubles in dr4, dr6 ... (--args reads them);
 *  - a function taking a struct's address in r2 and arguments in r4-r7.
 * Prints "ok - ..."/"not ok - ..." and "done"; exits 0 when every check
 * passed.
 */
#include <stdio.h>
#include "traced.h"

static int failed;

static void check(int good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed |= !good;
}

struct sh_pair {
	int a, b;
};
struct sh_halves {
	short x, y;
};
struct sh_three {
	char c[3];
};

TRACED long long sh_ll(int x)
{
	OPAQUE();
	return 0x123456789LL * x;
}

TRACED unsigned long long sh_ull_max(void)
{
	OPAQUE();
	return ~0ULL;
}

TRACED float sh_float_third(void)
{
	OPAQUE();
	return 1.0f / 3.0f;
}

TRACED double sh_double_tenth(void)
{
	OPAQUE();
	return 0.1;
}

TRACED struct sh_pair sh_ret_pair(int a)
{
	OPAQUE();
	return (struct sh_pair){ a, -a };
}

TRACED struct sh_halves sh_ret_halves(void)
{
	OPAQUE();
	return (struct sh_halves){ 7, -8 };
}

TRACED struct sh_three sh_ret_three(int v)
{
	OPAQUE();
	return (struct sh_three){ { (char)v, 2, 3 } };
}

TRACED int sh_many(int a, int b, int c, int d, int e, int f, int g, int h)
{
	OPAQUE();
	return a + b + c + d + e + f + g + h;
}

TRACED long long sh_split(int a, long long b, int c, int d)
{
	OPAQUE();
	return a + b + c + d;
}

TRACED double sh_fargs(float a, double b, float c, float d, double e)
{
	OPAQUE();
	return a + b + c + d + e;
}

TRACED int sh_with_struct(struct sh_three *out, int v)
{
	OPAQUE();
	*out = sh_ret_three(v);
	return out->c[0];
}

int main(void)
{
	struct sh_pair p = sh_ret_pair(5);
	struct sh_halves hv = sh_ret_halves();
	struct sh_three t;

	check(sh_ll(2) == 0x2468ACF12LL, "long long returns in r0:r1");
	check(sh_ull_max() == ~0ULL, "unsigned long long all ones");
	check(sh_float_third() == 1.0f / 3.0f, "float returns in fr0");
	check(sh_double_tenth() == 0.1, "double returns in dr0");
	check(p.a == 5 && p.b == -5, "{int, int} in r0:r1");
	check(hv.x == 7 && hv.y == -8, "{short, short} in memory through r2");
	check(sh_ret_three(9).c[0] == 9, "a 3-byte struct in memory through r2");
	check(sh_many(1, 2, 3, 4, 5, 6, 7, 8) == 36, "eight arguments: r4-r7 and the stack");
	check(sh_split(1, 0x100000002LL, 3, 4) == 0x10000000aLL, "a long long in r5:r6 after an int");
	check(sh_fargs(1.5f, 2.25, 3.5f, 4.0f, 5.125) == 16.375, "floats and doubles in fr4-fr11");
	check(sh_with_struct(&t, 11) == 11 && t.c[2] == 3, "a struct's address in r2 under the arguments");
	printf("done\n");
	return failed;
}
