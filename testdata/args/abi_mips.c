// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/96-args.t's MIPS program: the placing rules args.c does not reach.
 * o32: floats in $f12/$f14 only while every argument before was FP and
 * among the first two, else in $a0-$a3 by their word (a double in an
 * even pair) or on the stack past the home space.  n64: one slot counter
 * for $a(i) and $f(12+i), long double at an even slot, aggregates taking
 * their slots.  The values each call shows are in expect_n64.txt
 * and expect_o32.txt (long double is double on o32), on either byte order.
 */
#define N __attribute__((noinline, noclone))

struct f2 { float a, b; };
struct c3 { char a, b, c; };
struct d1 { double d; };

N double a1(float x, int i, float y, double z)
{
	return x + i + y + z;
}

N double a2(double x, float y, float z, int w)
{
	return x + y + z + w;
}

N double a3(float x, float y, float z)
{
	return x + y + z;
}

N double a4(int i, double d, float f, long long l)
{
	return i + d + f + l;
}

N double a5(long double ld, int i, double d)
{
	return (double)ld + i + d;
}

N double a6(int i, long double ld, float f, int j)
{
	return (double)ld + i + f + j;
}

N double a7(struct f2 s, float f, struct c3 c, int j, struct d1 d, float g)
{
	return s.a + f + c.a + j + d.d + g;
}

N double a8(int a, int b, int c, int d, int e, int f, int g, struct d1 s, float h, double k)
{
	return a + b + c + d + e + f + g + s.d + h + k;
}

N long long a9(long long a, int b, long long c, char d, short e, long long f)
{
	return a + b + c + d + e + f;
}

int main(void)
{
	struct f2 s = { 1, 2 };
	struct c3 c = { 3, 4, 5 };
	struct d1 d = { 6 };
	/* Kept, so that no argument is optimized away. */
	static volatile double r;

	r = a1(1.5f, 2, 3.5f, 4.5) + a2(5.5, 6.5f, 7.5f, 8) + a3(9.5f, 10.5f, 11.5f) +
	    a4(12, 13.5, 14.5f, -15) + a5(16.5L, 17, 18.5) + a6(19, 20.5L, 21.5f, 22) +
	    a7(s, 23.5f, c, 24, d, 25.5f) + a8(1, 2, 3, 4, 5, 6, 7, d, 26.5f, 27.5) +
	    a9(-1, 2, 3000000000LL, 'x', -5, 7);

	return 0;
}
