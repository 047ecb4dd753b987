// SPDX-License-Identifier: GPL-2.0-only
/* A shared library with traced functions: its table must need no dynamic relocation. */
#include "shlib.h"

__attribute__((noinline)) int shlib_inner(int x)
{
	return x * 5;
}

int shlib_outer(int x)
{
	return shlib_inner(x) + 2;
}
