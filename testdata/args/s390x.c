// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/96-args.t's second program on s390x: the corners of its ABI that
 * args.c does not reach.  Values returned in memory (every struct, long
 * double, __int128) take r2 for their address, which moves every
 * argument along by one register; aggregates of 1, 2, 4 or 8 bytes go as
 * an integer, or as a float when their one member is one; narrow values
 * lie at the end of their stack slot.  Expected: s390x_expect.txt.
 */
#include <stdio.h>

#define N __attribute__((noinline, noclone))

struct big { long a, b, c, d; };
struct one { float f; };
struct oned { double d; };
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

N double take_small(struct one o, double x, struct oned d, struct two t, int k)
{
	return o.f + x + d.d + t.a + t.b + k;
}

N long take_wide(__int128 v, int after, long double l, int last)
{
	return (long)v + after + (long)l + last;
}

N double take_stack(int a1, int a2, int a3, int a4, int a5, signed char c, short s, struct one f1, struct one f2,
		    struct one f3, float f, double g)
{
	return a1 + a2 + a3 + a4 + a5 + c + s + f1.f + f2.f + f3.f + f + g;
}

/* A union holding a float: where it goes is not known here, nor where what follows it goes. */
N long take_union(union either u, int after)
{
	return u.i + after;
}

int main(void)
{
	struct big b = ret_big(1, 2, 3, 4, 5, 6, 7.5);

	printf("%ld\n", b.a + b.b + b.c + b.d);
	printf("%g\n", (double)ret_ldbl(1, 2.5f, 3, 4, 5, -6));
	printf("%ld\n", (long)ret_i128(-7, 3));
	printf("%g\n", take_small((struct one){ 1.5f }, 2.5, (struct oned){ 3.5 }, (struct two){ 1, 2 }, 9));
	printf("%ld\n", take_wide(5, 6, 7.0L, 8));
	printf("%g\n", take_stack(1, 2, 3, 4, 5, -6, -7, (struct one){ 1 }, (struct one){ 2 }, (struct one){ 3 },
				  5.5f, 6.5));
	printf("%ld\n", take_union((union either){ .i = 3 }, 4));
	return 0;
}
