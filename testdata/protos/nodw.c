// SPDX-License-Identifier: GPL-2.0-only
/*
 * Built without -g and combined by `ld -r` with a unit that has DWARF: its
 * functions have sites but no description, so they must come out unknown.
 */
int nodw_add(int a, int b)
{
	return a + b;
}

long nodw_mul(long a)
{
	return a * 3;
}
