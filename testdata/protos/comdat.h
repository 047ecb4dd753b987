/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An inline member function that both C++ units use: each emits a COMDAT
 * copy with its own prototype record, and the link keeps one copy, so one
 * record.
 */
#ifndef PROTOS_COMDAT_H
#define PROTOS_COMDAT_H

struct Acc {
	long n = 0;

	__attribute__((noinline)) long add(long by, const char *why)
	{
		n += by + (why ? *why : 0);
		return n;
	}
};

long comdat_one(long x);
long comdat_two(long x);

#endif
