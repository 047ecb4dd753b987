// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compiled without -pg (the Makefile's CFLAGS_REMOVE_notrace.o, as Kbuild's
 * CFLAGS_REMOVE_foo.o = $(CC_FLAGS_FTRACE)): no calls, so no entries.
 */
#include "example.h"

int notrace_checksum(const char *s)
{
	int sum = 0;

	while (*s)
		sum += *s++;
	return sum;
}

int notrace_min(int a, int b)
{
	return a < b ? a : b;
}
