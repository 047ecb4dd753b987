// SPDX-License-Identifier: GPL-2.0-only
/* flame.c's second module: a shared library, traced too, drawn in a colour family of its own. */
#define WORK(n)                                        \
	do {                                           \
		for (volatile int w_ = 0; w_ < (n); w_++) \
			;                              \
	} while (0)

long lib_scale(long x);
__attribute__((noinline)) long lib_scale(long x)
{
	WORK(20000);
	return x * 3 - 7;
}
