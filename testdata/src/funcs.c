// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ordinary C functions of every linkage and shape, freestanding so that
 * every cross compiler and clang build it: each one that is not notrace
 * calls the profiling hook once.
 */
#define notrace __attribute__((no_instrument_function))
#define noinline __attribute__((noinline))

extern void sink(long v);

static noinline int scale(int x)
{
	return x * 3 + 1;
}

int global_add(int a, int b)
{
	return scale(a) + b;
}

/* Recursion keeps gcc from inlining it away. */
noinline unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

noinline long sum_args(int n, ...)
{
	__builtin_va_list ap;
	long s = 0;

	__builtin_va_start(ap, n);
	while (n-- > 0)
		s += __builtin_va_arg(ap, long);
	__builtin_va_end(ap);
	return s;
}

notrace int untraced(int x)
{
	return x ^ 0x55;
}

static notrace noinline int untraced_static(int x)
{
	return x + untraced(x);
}

/* Its address escapes, so it must exist out of line. */
static int callback(int x)
{
	sink(x);
	return x - 1;
}

int (*get_callback(void))(int)
{
	return callback;
}

int (*const callback_table[])(int) = { callback, untraced };

long drive(int n)
{
	long r = sum_args(3, 1L, 2L, (long)n);

	r += global_add(n, untraced_static(n));
	r += (long)fib((unsigned)n & 7);
	sink(r);
	return r;
}
