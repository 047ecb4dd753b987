// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/96-args.t's program: every class of parameter, in first and later
 * positions, more of them than any machine has registers for, integers
 * and floating point mixed, aggregates by value, long double, varargs and
 * recursion.  Each function returns something computed from every
 * argument, which main prints, so that no argument is optimized away.
 * The values each call shows are in expect.txt.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define N __attribute__((noinline, noclone))

enum color { RED, GREEN = 5, BLUE = -3 };
struct small { int x, y; };
struct big { long a, b, c, d; };
struct pair { double a, b; };

N long narrow(signed char a, unsigned char b, short c, unsigned short d)
{
	return a + b + c + d;
}

N long wide(int a, unsigned b, long c, unsigned long d, long long e, unsigned long long f)
{
	return a + (long)b + c + (long)d + (long)e + (long)f;
}

N long kinds(bool t, bool f, char c, enum color e, enum color odd, void *p, void *null, const char *s)
{
	return t + f + c + e + odd + (p != 0) + (null != 0) + s[0];
}

N double fp(float a, double b, float c, double d)
{
	return a + b + c + d;
}

N long ten_ints(int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10;
}

N double ten_doubles(double d1, double d2, double d3, double d4, double d5, double d6, double d7, double d8,
		     double d9, double d10)
{
	return d1 + d2 + d3 + d4 + d5 + d6 + d7 + d8 + d9 + d10;
}

N double mixed(int a, double b, int c, float d, long e, double f, int g, double h, int i, double j, int k, float l)
{
	return a + b + c + d + e + f + g + h + i + j + k + l;
}

N long thirteen(int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10, int a11, int a12,
		int a13)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13;
}

N long small_value(struct small s, int after)
{
	return s.x + s.y + after;
}

N long big_value(struct big b, int after)
{
	return b.a + b.b + b.c + b.d + after;
}

N double pair_value(struct pair p, double after)
{
	return p.a + p.b + after;
}

N double ldbl(long double x, int after)
{
	return (double)x + after;
}

/* Returned in memory on most machines: its address comes first, and every argument moves along. */
N struct big make_big(long a, int b)
{
	return (struct big){ a, b, a + b, a - b };
}

/* Returned in registers (i386: in memory too). */
N struct small make_small(int x, int y)
{
	return (struct small){ x + y, x - y };
}

N int sum_varargs(const char *what, int n, ...)
{
	va_list ap;
	int s = what[0] == 'x';

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

N int fact(int n)
{
	int r;

	if (n <= 1)
		return 1;
	r = fact(n - 1);
	/* Opaque to the compiler, which would otherwise turn the recursion into a loop. */
	__asm__ volatile("" : "+r"(r));
	return n * r;
}

int main(void)
{
	static int object;

	printf("%ld\n", narrow(-1, 200, -2, 65535));
	printf("%ld\n", wide(-5, 4000000000u, -7, 8, -9, 10));
	printf("%ld\n", kinds(true, false, 'A', BLUE, (enum color)7, &object, NULL, "hi"));
	printf("%g\n", fp(1.5f, -2.25, 0.1f, 1e100));
	printf("%ld\n", ten_ints(1, 2, 3, 4, 5, 6, 7, 8, 9, -10));
	printf("%g\n", ten_doubles(1, 2, 3, 4, 5, 6, 7, 8, 9.5, -10.5));
	printf("%g\n", mixed(1, 2.5, 3, 4.5f, 5, 6.5, 7, 8.5, 9, 10.5, 11, 12.5f));
	printf("%ld\n", thirteen(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13));
	printf("%ld\n", small_value((struct small){ 1, 2 }, 3));
	printf("%ld\n", big_value((struct big){ 1, 2, 3, 4 }, 5));
	printf("%g\n", pair_value((struct pair){ 0.5, 1.5 }, 2.5));
	printf("%g\n", ldbl(1.25L, 6));
	struct big mb = make_big(7, -8);
	printf("%ld\n", mb.a + mb.b + mb.c + mb.d);
	struct small ms = make_small(3, 4);
	printf("%d\n", ms.x * ms.y);
	printf("%d\n", sum_varargs("x", 3, 10, 20, 30));
	printf("%d\n", fact(4));
	return 0;
}
