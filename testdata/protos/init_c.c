// SPDX-License-Identifier: GPL-2.0-only
/*
 * Three local functions named init in one program (init_a.c and init_b.c
 * return int, this one long): records are keyed by address, so each must
 * keep its own prototype after the link.
 */
#define noinline __attribute__((noinline))

extern void sink(long v);

static noinline long init(void)
{
	sink(3);
	return 3;
}

long init_c(void)
{
	return init() + 3;
}
