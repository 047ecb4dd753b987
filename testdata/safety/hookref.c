// SPDX-License-Identifier: GPL-2.0-only
/*
 * Refers to the profiling hook without calling it (compiled without -pg):
 * the hook symbol exists, but there is no call site to record.
 */
extern void mcount(void);

void (*rmc_hook)(void) = mcount;

int rmc_plain(int x)
{
	return x + 2;
}
