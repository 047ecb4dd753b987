// SPDX-License-Identifier: GPL-2.0-only
#include "comdat.h"

long comdat_two(long x)
{
	Acc a;

	a.add(x, nullptr);
	return a.add(1, "two");
}

int main()
{
	return comdat_one(1) + comdat_two(2) == 'o' + 1 + 3 + 't' ? 0 : 1;
}
