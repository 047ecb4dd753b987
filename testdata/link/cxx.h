/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by both C++ units: an inline member function and a function
 * template, so that each unit emits its own COMDAT copy and the linker keeps
 * one.  noinline keeps the copies as real functions.
 */
#ifndef CXX_H
#define CXX_H

struct counter {
	long n = 0;

	__attribute__((noinline)) long bump(long by)
	{
		n += by;
		return n;
	}
};

template <typename T> __attribute__((noinline)) T twice(T x)
{
	return x + x;
}

long unit_one(long x);
long unit_two(long x);

#endif
