// SPDX-License-Identifier: GPL-2.0-only
/*
 * Weak definitions, each alone in its section with -ffunction-sections: with
 * no unwind tables nothing refers to those sections, so the assembler emits
 * no section symbol and the weak symbol is the only one there.  An override
 * in another object must not capture their table entries.
 */
#include "weak.h"

__attribute__((weak)) int rmc_weak(int x)
{
	return x * 7;
}

__attribute__((weak)) int rmc_weak_kept(int x)
{
	return x + 9;
}

int rmc_calls_weak(int x)
{
	return rmc_weak(x) + rmc_weak_kept(x);
}
