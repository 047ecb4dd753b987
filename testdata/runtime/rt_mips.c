// SPDX-License-Identifier: GPL-2.0-only
/*
 * MIPS o32 and n64 return conventions (t/95-rt-mips*.t), beyond
 * rt_test.c's, where a port that got the byte order wrong shows other
 * values:
 *  - long double: n64's IEEE binary128 in $f0:$f2, the half at the lower
 *    address in $f0 (the most significant on big-endian); o32's is a
 *    double in $f0:$f1;
 *  - float in $f0, the low 32 bits of the register the trampoline saves
 *    (its last 4 bytes on big-endian);
 *  - long long with different halves: o32 returns it in v0:v1, the low
 *    word in v0 on little-endian, the high word on big-endian;
 *  - an unsigned int with its top bit set, which n64 returns
 *    sign-extended;
 *  - n64: structs under 16 bytes in v0:v1, in the registers' high-order
 *    bytes on big-endian (as if loaded with ld) and their low-order bytes
 *    on little-endian (o32 returns every struct in memory: not built).
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

TRACED long double mips_ldbl_tenth(void)
{
	OPAQUE();
	return 0.1L;
}

TRACED long double mips_ldbl_neg_big(void)
{
	OPAQUE();
	return -1e300L;
}

TRACED float mips_float_third(void)
{
	OPAQUE();
	return 1.0f / 3.0f;
}

TRACED float mips_float_neg(void)
{
	OPAQUE();
	return -0.75f;
}

TRACED long long mips_llong_halves(void)
{
	OPAQUE();
	return 0x0123456789abcdefLL;
}

TRACED unsigned long long mips_ullong_high(void)
{
	OPAQUE();
	return 0xfedcba9876543210ULL;
}

TRACED unsigned int mips_uint_high(void)
{
	OPAQUE();
	return 3000000000u;
}

#if _MIPS_SIM == _ABI64
struct s2 {
	short a, b;
};

struct s3 {
	int a, b, c;
};

TRACED struct s2 mips_struct4(void)
{
	OPAQUE();
	return (struct s2){ -3, 4 };
}

TRACED struct s3 mips_struct12(void)
{
	OPAQUE();
	return (struct s3){ 5, -6, 7 };
}
#endif

int main(void)
{
	check(mips_ldbl_tenth() == 0.1L, "long double 0.1");
	check(mips_ldbl_neg_big() == -1e300L, "long double -1e300");
	check(mips_float_third() == 1.0f / 3.0f, "float 1/3");
	check(mips_float_neg() == -0.75f, "float -0.75");
	check(mips_llong_halves() == 0x0123456789abcdefLL, "long long 0x0123456789abcdef");
	check(mips_ullong_high() == 0xfedcba9876543210ULL, "unsigned long long 0xfedcba9876543210");
	check(mips_uint_high() == 3000000000u, "unsigned int 3000000000");
#if _MIPS_SIM == _ABI64
	{
		struct s2 s = mips_struct4();
		struct s3 t = mips_struct12();

		check(s.a == -3 && s.b == 4, "struct of two shorts {-3, 4}");
		check(t.a == 5 && t.b == -6 && t.c == 7, "struct of three ints {5, -6, 7}");
	}
#endif
	printf("done\n");
	return failed != 0;
}
