// SPDX-License-Identifier: GPL-2.0-only
/* The strong definition that replaces weak.c's rmc_weak at link time. */
#include "weak.h"

int rmc_weak(int x)
{
	return x * 11;
}
