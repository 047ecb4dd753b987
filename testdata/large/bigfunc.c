// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function larger than 64 KiB in the middle of .text: the calls of the
 * functions after it lie beyond offset 0x10000, so table addends (RELA) and
 * in-place values (REL) need more than 16 bits.
 */
int rmc_before(int x)
{
	return x + 1;
}

int rmc_big(int x)
{
	/* Never executed: only its size matters. */
	__asm__ volatile(".skip 70000");
	return x * 2;
}

int rmc_after(int x)
{
	return rmc_big(x) + rmc_before(x);
}

int rmc_last(int x)
{
	return rmc_after(x) - 3;
}
