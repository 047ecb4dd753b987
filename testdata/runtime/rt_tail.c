// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tail calls between traced functions: `return g(x);` compiled to a jump,
 * so g starts with the return address its caller's hook already replaced
 * (objpatch/lib/rt_record.c).  Chains of two and of eleven (mutual recursion),
 * frames of different sizes each way (gcc's AArch64 frame record sits at
 * the bottom of the frame, so the two functions' slots differ), an FP and a
 * void tail call, and a longjmp out of a tail-called function.  Each
 * function is called once, so rt_tail_expect.txt can name every value.
 * Prints "ok"/"not ok" lines and "done".
 */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include "traced.h"

int tail_leaf(int x);
int tail_one(int x);
int tail_two(int x);
int tail_even(int n);
int tail_odd(int n);
int tail_big_leaf(int x);
int tail_from_big(int x);
int tail_small_leaf(int x);
int tail_to_big(int x);
int tail_big_callee(int x);
double tail_fp_leaf(double x);
double tail_fp(double x);
void tail_void_leaf(int x);
void tail_void(int x);
int tail_lj_b(jmp_buf *jb, int v);
int tail_lj_a(jmp_buf *jb);
int tail_after(void);
int tail_lj_outer(void);

static volatile int sink;
static int failures;

static void check(int ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	failures += !ok;
}

TRACED int tail_leaf(int x)
{
	OPAQUE();
	return x * 2;
}

TRACED int tail_one(int x)
{
	return tail_leaf(x + 1);
}

TRACED int tail_two(int x)
{
	return tail_one(x + 1);
}

TRACED int tail_even(int n)
{
	if (n == 0)
		return 1;
	return tail_odd(n - 1);
}

TRACED int tail_odd(int n)
{
	if (n == 0)
		return 0;
	return tail_even(n - 1);
}

/* A large frame jumping to a small one, and a small one to a large one. */
TRACED int tail_big_leaf(int x)
{
	OPAQUE();
	return x + 100;
}

TRACED int tail_from_big(int x)
{
	volatile int buf[64];

	for (int i = 0; i < 64; i++)
		buf[i] = x + i;
	return tail_big_leaf(buf[x & 63]);
}

TRACED int tail_big_callee(int x)
{
	volatile int buf[64];

	for (int i = 0; i < 64; i++)
		buf[i] = x * i;
	return buf[3] + 1;
}

TRACED int tail_to_big(int x)
{
	return tail_big_callee(x + 1);
}

TRACED double tail_fp_leaf(double x)
{
	OPAQUE();
	return x / 4;
}

TRACED double tail_fp(double x)
{
	return tail_fp_leaf(x * 2);
}

TRACED void tail_void_leaf(int x)
{
	sink = x;
}

TRACED void tail_void(int x)
{
	tail_void_leaf(x + 1);
}

TRACED int tail_lj_b(jmp_buf *jb, int v)
{
	OPAQUE();
	longjmp(*jb, v);
}

TRACED int tail_lj_a(jmp_buf *jb)
{
	return tail_lj_b(jb, 7);
}

TRACED int tail_after(void)
{
	OPAQUE();
	return 5;
}

TRACED int tail_lj_outer(void)
{
	jmp_buf jb;
	int v = setjmp(jb);

	if (v == 0) {
		v = tail_lj_a(&jb);
		KEEP(v);
		return -1;
	}
	return v + tail_after();
}

int main(void)
{
	int r;
	double d;

	r = tail_two(1);
	KEEP(r);
	check(r == 6, "a chain of two tail calls");
	r = tail_even(10);
	KEEP(r);
	check(r == 1, "mutual recursion by tail calls, eleven frames");
	r = tail_from_big(5);
	KEEP(r);
	check(r == 110, "a large frame's tail call to a small one");
	r = tail_to_big(2);
	KEEP(r);
	check(r == 10, "a small frame's tail call to a large one");
	d = tail_fp(3.0);
	/* In memory: clang 14 passes a double to "+r" as its low word only on big-endian ppc64. */
	__asm__ volatile("" : "+m"(d));
	check(d == 1.5, "an FP value through a tail call");
	tail_void(8);
	check(sink == 9, "a void tail call");
	r = tail_lj_outer();
	KEEP(r);
	check(r == 12, "longjmp out of a tail-called function");
	puts("done");
	return failures != 0;
}
