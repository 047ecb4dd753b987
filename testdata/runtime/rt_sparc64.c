// SPDX-License-Identifier: GPL-2.0-only
/*
 * sparc64's own cases (t/95-rt-sparc64.t), what rt_test.c does not reach
 * in the SPARC V9 ABI, where a port that kept the wrong register or lost
 * a window shows other values:
 *  - long double: IEEE binary128 in %q0 (%f0-%f3);
 *  - float in %f0, the first half of %d0;
 *  - a struct over 32 bytes comes back in memory whose address the caller
 *    passed in %o0 (the callee's %i0), which no register holds at the
 *    return: the runtime keeps it from the entry; a one-byte struct comes
 *    back in %o0's high-order byte (left-justified, as if loaded);
 *  - arguments past %o5 in the caller's frame (%sp + 2047 + 176 on), a
 *    float in %f(2i + 1) and a double in %d(2i) for its slot i, a float
 *    past the sixth slot still in an FP register (--args reads them);
 *  - variadic doubles, which go in integer registers and the stack;
 *  - gcc's nested functions, whose static chain arrives in a global
 *    register the hook must keep;
 *  - deep recursion that spills register windows while the trampoline
 *    flushes them.
 * Prints "ok - ..."/"not ok - ..." and "done"; exits 0 when every check
 * passed.
 */
#include <stdarg.h>
#include <stdio.h>
#include "traced.h"

static int failed;

static void check(int good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed |= !good;
}

TRACED long double sp_ldbl_tenth(void)
{
	OPAQUE();
	return 0.1L;
}

TRACED long double sp_ldbl_neg(void)
{
	OPAQUE();
	return -2.5L;
}

TRACED float sp_float_third(void)
{
	OPAQUE();
	return 1.0f / 3.0f;
}

struct sp_big {
	long a, b, c, d, e;
};

struct sp_byte {
	unsigned char v;
};

TRACED struct sp_big sp_ret_big(long base)
{
	struct sp_big r = { base, base + 1, base + 2, base + 3, -5 };

	OPAQUE();
	return r;
}

TRACED struct sp_byte sp_ret_byte(int v)
{
	struct sp_byte r = { (unsigned char)v };

	OPAQUE();
	return r;
}

/* a-f in %i0-%i5, g and h on the stack, x in %d12 (slot 6), y in %f15 (slot 7). */
TRACED long sp_many(long a, long b, long c, long d, long e, long f, long g, int h, double x, float y)
{
	OPAQUE();
	return a + b + c + d + e + f + g + h + (long)x + (long)y;
}

TRACED double sp_sum_doubles(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return s;
}

TRACED long sp_deep(int n)
{
	long r;

	if (n == 0)
		return 0;
	r = sp_deep(n - 1) + 1;
	KEEP(r);
	return r;
}

TRACED int sp_nest_leaf(int x)
{
	OPAQUE();
	return x + 1;
}

#ifndef __clang__
/* The inner function reads `a` through its static chain. */
TRACED int sp_nest_outer(int a)
{
	__attribute__((noinline)) int inner(int b)
	{
		return sp_nest_leaf(a) * b;
	}
	int r = inner(3);

	KEEP(r);
	return r + inner(1);
}
#else
/* clang has no nested functions: the same calls and values, without inner. */
TRACED int sp_nest_outer(int a)
{
	int r = sp_nest_leaf(a) * 3;

	KEEP(r);
	return r + sp_nest_leaf(a);
}
#endif

int main(void)
{
	struct sp_big b;

	check(sp_ldbl_tenth() == 0.1L && sp_ldbl_neg() == -2.5L, "long double returns in %q0");
	check(sp_float_third() == 1.0f / 3.0f, "float returns in %f0");
	b = sp_ret_big(10);
	check(b.a == 10 && b.d == 13 && b.e == -5, "a 40-byte struct through the hidden pointer");
	check(sp_ret_byte(200).v == 200, "a one-byte struct in %o0");
	check(sp_many(1, 2, 3, 4, 5, 6, 7, 8, 9.5, 10.25f) == 55, "ten arguments: registers, stack, FP");
	check(sp_sum_doubles(3, 1.5, 2.25, -0.75) == 3.0, "variadic doubles");
	check(sp_sum_doubles(9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0) == 45.0, "variadic doubles past %o5");
	check(sp_deep(40) == 40, "40 frames deep: windows spilled and filled");
	check(sp_nest_outer(4) == 20, "a nested function (gcc)");
	printf("done\n");
	return failed;
}
