// SPDX-License-Identifier: GPL-2.0-only
#include "cxx.h"

long unit_two(long x)
{
	counter c;

	return c.bump(x) + twice(x) + twice<int>((int)x);
}
