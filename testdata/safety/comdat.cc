// SPDX-License-Identifier: GPL-2.0-only
// Inline functions and a template instance: COMDAT groups for the readers of
// SHT_GROUP (user mode adds its tables to them).
template <typename T> T rmc_twice(T x)
{
	return x + x;
}

inline int rmc_inline(int x)
{
	return rmc_twice(x) * 3;
}

int rmc_user(int x)
{
	return rmc_inline(x) + rmc_twice<long>(x);
}
