// SPDX-License-Identifier: GPL-2.0-only
/* A "scheduler": global, static, __init and weak functions. */
#include "example.h"

static int runqueue[8];

static noinline int pick_next(int ticks)
{
	return runqueue[ticks & 7] + ticks;
}

static noinline void account(int ticks)
{
	runqueue[(ticks + 1) & 7] += ticks;
}

int schedule(int ticks)
{
	account(ticks);
	return pick_next(ticks);
}

__weak int arch_setup(void)
{
	return -1;
}

__weak int arch_idle(void)
{
	return 0;
}

int __init sched_init(void)
{
	int i;

	for (i = 0; i < 8; i++)
		runqueue[i] = i;
	return arch_setup() + arch_idle();
}
