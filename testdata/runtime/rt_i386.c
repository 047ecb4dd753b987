// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the i386 runtime (arch/x86/rt_i386.[cS]) must get right beyond
 * rt_test.c, for t/95-rt-i386.t; the trace must show rt_i386_expect.txt.
 *  - Every floating-point result comes back in x87's st(0): float,
 *    double, long double (80 bits), each printed in its own type (a float
 *    0.1 is not the double 0.10000000149011612).
 *  - The return trampoline must leave the x87 stack as the function did:
 *    one value for an FP result, empty otherwise (a value left behind
 *    overflows the stack after eight calls: NaNs), and the exception flags
 *    untouched (storing st(0) as a double for the trace rounds 0.1L).
 *  - The entry hook must keep regparm and fastcall arguments (eax, edx,
 *    ecx).
 *  - main and functions with over-aligned locals realign the stack with a
 *    DRAP register: 4(%ebp) is a copy of the return address, not the one
 *    the function returns through (ecx, or edi when ecx is an argument).
 *  - long long comes back in edx:eax; a struct through the hidden pointer
 *    the callee pops (`ret $4`), after which the caller's stack must be
 *    as before.
 * Untraced it checks its results the same way: "ok"/"not ok" and "done".
 */
#include <fenv.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "traced.h"

static int failed;

static void check(bool good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

TRACED float i386_float_tenth(void)
{
	OPAQUE();
	return 0.1f;
}

TRACED double i386_double_third(void)
{
	OPAQUE();
	return 1.0 / 3;
}

TRACED long double i386_ldbl_tenth(void)
{
	OPAQUE();
	return 0.1L;
}

TRACED long double i386_ldbl_neg_big(void)
{
	OPAQUE();
	return -1e4000L;
}

TRACED int i386_int(int x)
{
	OPAQUE();
	return x + 1;
}

TRACED long long i386_llong(long long x)
{
	OPAQUE();
	return x * 3;
}

TRACED __attribute__((regparm(3))) int i386_regparm(int a, int b, int c)
{
	OPAQUE();
	return a * 100 + b * 10 + c;
}

TRACED __attribute__((fastcall)) int i386_fastcall(int a, int b)
{
	OPAQUE();
	return a * 10 + b;
}

/* Not inlined: the aligned locals must live in memory. */
TRACED void i386_sink(int *p)
{
	OPAQUE();
	p[1] = 1;
}

/* A 32-byte aligned local: gcc realigns with DRAP in ecx. */
TRACED int i386_realigned(int x)
{
	int v[4] __attribute__((aligned(32)));

	v[0] = x;
	i386_sink(v);
	return v[1] + x * 2 - 1;
}

/* The same with ecx an argument: the DRAP register is edi, saved first. */
TRACED __attribute__((regparm(3))) int i386_realigned_rp(int a, int b, int c)
{
	int v[4] __attribute__((aligned(32)));

	v[0] = a;
	i386_sink(v);
	return v[1] + a + b + c - 1;
}

struct i386_triple {
	int a, b, c;
};

TRACED struct i386_triple i386_struct(int x)
{
	struct i386_triple t = { x, x + 1, x + 2 };

	OPAQUE();
	return t;
}

/* The x87 tag word: 0xffff when all eight registers are empty. */
static unsigned x87_tags(void)
{
	uint16_t env[14];

	__asm__ volatile("fnstenv %0\n\tfldenv %0" : "+m"(env));
	return env[4];
}

static void run_fp(void)
{
	volatile long double ld;
	double sum = 0;

	check(i386_float_tenth() == 0.1f, "float 0.1");
	check(i386_double_third() == 1.0 / 3, "double 1/3");
	feclearexcept(FE_ALL_EXCEPT);
	ld = i386_ldbl_tenth();
	check(!fetestexcept(FE_INEXACT), "no inexact flag: storing st(0) as a double did not leak into fenv");
	check(ld == 0.1L, "long double 0.1");
	check(i386_ldbl_neg_big() == -1e4000L, "long double -1e4000 (no double holds it)");
	for (int i = 0; i < 20; i++)
		sum += i386_int(i);
	check(sum == 210, "20 int calls, FP arithmetic around them");
	check(x87_tags() == 0xffff, "the x87 stack is empty after traced calls");
}

static void run_args(void)
{
	struct i386_triple t;
	char guard[32];
	int i;

	memset(guard, 0x5a, sizeof(guard));
	check(i386_llong(-5000000000LL) == -15000000000LL, "long long in edx:eax");
	check(i386_regparm(1, 2, 3) == 123, "regparm(3): eax, edx, ecx kept by the hook");
	check(i386_fastcall(4, 5) == 45, "fastcall: ecx, edx kept by the hook");
	check(i386_realigned(21) == 42, "realigned stack (DRAP in ecx)");
	check(i386_realigned_rp(1, 2, 3) == 6, "realigned stack + regparm(3) (DRAP in edi)");
	for (i = 0; i < 4; i++) {
		t = i386_struct(i);
		KEEP(i);
	}
	check(t.a == 3 && t.b == 4 && t.c == 5, "struct through the hidden pointer, `ret $4`, 4 times");
	for (i = 0; i < (int)sizeof(guard) && guard[i] == 0x5a; i++)
		;
	check(i == (int)sizeof(guard), "the caller's locals are intact");
}

int main(void)
{
	run_fp();
	run_args();
	printf("done\n");
	return failed != 0;
}
