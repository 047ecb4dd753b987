// SPDX-License-Identifier: GPL-2.0-only
/* One of three `static ... init(void)` in one program: see init_c.c. */
#define noinline __attribute__((noinline))

extern void sink(long v);

static noinline int init(void)
{
	sink(1);
	return 1;
}

int init_a(void)
{
	return init() + 1;
}
