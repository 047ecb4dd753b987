// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/96-args.t's second program on s390x: the corners of its ABI that
 * args.c does not reach.  Values returned in memory (every struct, long
 * double, __int128) take r2 for their address, which moves every
 * argument along by one register; aggregates of 1, 2, 4 or 8 bytes go as
 * an integer (a struct whose one member is a float: as a float, which the
 * table's members do not tell from a union's or an array's, so nothing
 * after it is placed); narrow values lie at the end of their stack slot.
 * Expected: s390x_expect.txt.
 */
#include <stdio.h>

#define N __attribute__((noinline, noclone))

struct big { long a, b, c, d; };
struct one { float f; };
struct two { float a, b; };
union either { float f; int i; };

N struct big ret_big(int a, long b, int c, int d, int e, int f, double g)
{
	struct big r = { a + b + c, d + e, f, (long)g };

	return r;
}

N long double ret_ldbl(int a, float b, int c, int d, int e, int f)
{
	return a + b + c + d + e + f;
}

N __int128 ret_i128(long a, int b)
{
	return (__int128)a * b;
}

/* Several members go as an integer, floats or not; after a lone float member nothing is placed. */
N double take_small(struct two t, union either u, double x, int k, struct one o, int after)
{
	return t.a + t.b + u.i + x + k + o.f + after;
}

N long take_wide(__int128 v, int after, long double l, int last)
{
	return (long)v + after + (long)l + last;
}

N double take_stack(int a1, int a2, int a3, int a4, int a5, signed char c, short s, double d1, double d2,
		    double d3, double d4, float f)
{
	return a1 + a2 + a3 + a4 + a5 + c + s + d1 + d2 + d3 + d4 + f;
}

int main(void)
{
	struct big b = ret_big(1, 2, 3, 4, 5, 6, 7.5);

	printf("%ld\n", b.a + b.b + b.c + b.d);
	printf("%g\n", (double)ret_ldbl(1, 2.5f, 3, 4, 5, -6));
	printf("%ld\n", (long)ret_i128(-7, 3));
	printf("%g\n", take_small((struct two){ 1, 2 }, (union either){ .i = 3 }, 2.5, 9, (struct one){ 1.5f }, 4));
	printf("%ld\n", take_wide(5, 6, 7.0L, 8));
	printf("%g\n", take_stack(1, 2, 3, 4, 5, -6, -7, 1.5, 2.5, 3.5, 4.5, 5.5f));
	return 0;
}
