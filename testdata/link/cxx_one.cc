// SPDX-License-Identifier: GPL-2.0-only
#include "cxx.h"

long unit_one(long x)
{
	counter c;

	c.bump(x);
	return twice(x) + c.bump(1);
}
