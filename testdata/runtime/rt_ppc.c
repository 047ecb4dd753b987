// SPDX-License-Identifier: GPL-2.0-only
/*
 * 32-bit PowerPC's own cases (t/95-rt-ppc.t), what rt_test.c does not reach
 * in this ABI:
 *
 * Variadic functions taking doubles: the caller sets CR bit 6 when it
 * passed FP arguments in f1-f8 (`creqv 6,6,6`), and the callee's prologue,
 * which gcc -pg puts after the hook, tests it to decide whether to save
 * f1-f8 for va_arg.  A hook that let CR1 change would make the function
 * read junk (or skip the FPRs): the trampoline keeps CR, and the values
 * must come back right.
 *
 * long double: IBM double-double here too, returned in f1 (the high part)
 * and f2 (the low part): 0.1L shows as "0.1" only when both were captured.
 *
 * Returns in memory: a struct of 24 bytes and a one-byte one, both through
 * the hidden pointer in r3 (every struct on ppc32), and a long long in
 * r3:r4 (the high word in r3) next to an argument in r5:r6, which an odd
 * register pair alignment put there.
 *
 * gcc's nested functions call the hook inside a frame that keeps r11.
 *
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

TRACED double ppc_sum_doubles(int n, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return s;
}

TRACED long double ppc_ldbl_tenth(void)
{
	long double x = 0.1L;

	KEEP(x);
	return x;
}

TRACED long double ppc_ldbl_neg(void)
{
	long double x = -2.5L;

	KEEP(x);
	return x;
}

struct ppc_big {
	int a, b, c, d, e;
	short f;
};

struct ppc_byte {
	unsigned char v;
};

TRACED struct ppc_big ppc_ret_big(int base)
{
	struct ppc_big r = { base, base + 1, base + 2, base + 3, base + 4, -6 };

	OPAQUE();
	return r;
}

TRACED struct ppc_byte ppc_ret_byte(int v)
{
	struct ppc_byte r = { (unsigned char)v };

	OPAQUE();
	return r;
}

/* x in r3, y in r5:r6 (r4 skipped: a pair starts at an odd register). */
TRACED long long ppc_llong_pair(int x, long long y)
{
	OPAQUE();
	return y * x - 1;
}

TRACED int ppc_nest_leaf(int x)
{
	OPAQUE();
	return x + 1;
}

#ifndef __clang__
/*
 * A gcc nested function gets its static chain in r11 and wraps the hook
 * call in a frame that keeps it, so its `stw r0,4(r1)` misses the slot
 * (rt_ppc.S): traced, it must still return to its caller, with its value,
 * and so must the traced calls it makes.
 */
TRACED int ppc_nest_outer(int a)
{
	__attribute__((noinline)) int inner(int b)
	{
		return ppc_nest_leaf(a) * b;
	}
	int r = inner(3);

	KEEP(r);
	return r + inner(1);
}
#else
/* clang has no nested functions: the same calls and values, without inner. */
TRACED int ppc_nest_outer(int a)
{
	int r = ppc_nest_leaf(a) * 3;

	KEEP(r);
	return r + ppc_nest_leaf(a);
}
#endif

int main(void)
{
	struct ppc_big b;

	check(ppc_sum_doubles(3, 1.5, 2.25, -0.75) == 3.0, "variadic doubles: CR1 kept by the hook");
	check(ppc_sum_doubles(9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0) == 45.0,
	      "variadic doubles past f8");
	check(ppc_ldbl_tenth() == 0.1L && ppc_ldbl_neg() == -2.5L, "long double returns");
	b = ppc_ret_big(10);
	check(b.a == 10 && b.e == 14 && b.f == -6, "a 24-byte struct through the hidden pointer");
	check(ppc_ret_byte(200).v == 200, "a one-byte struct through the hidden pointer");
	check(ppc_llong_pair(3, 5000000000LL) == 14999999999LL, "long long in r5:r6 and in r3:r4");
	check(ppc_nest_outer(4) == 20, "a nested function (gcc)");
	printf("done\n");
	return failed;
}
