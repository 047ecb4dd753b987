// SPDX-License-Identifier: GPL-2.0-only
/* Ordinary functions: a static one, calls between them, an external call. */
int rmc_ext(int x);

static __attribute__((noinline)) int rmc_helper(int x)
{
	return rmc_ext(x) * 3;
}

int rmc_one(int x)
{
	return rmc_helper(x) + 1;
}

int rmc_two(int x)
{
	return rmc_one(x) ^ rmc_ext(x + 1);
}
