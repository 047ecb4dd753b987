// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hot and cold functions (.text.hot, .text.unlikely) and a function whose
 * unlikely path gcc -O2 splits into a `.cold` part in .text.unlikely: the
 * part has no hook call of its own.
 */
#define noinline __attribute__((noinline))

extern void sink(long v);
extern void report(const char *what, long v) __attribute__((cold));

__attribute__((cold)) noinline void slow_path(long v)
{
	sink(v);
	sink(v * 2);
}

__attribute__((hot)) noinline long fast_path(long v)
{
	return v * 7 + 3;
}

/*
 * gcc splits functions by default only on x86; elsewhere (but on 32-bit ARM,
 * which cannot) it has to be asked.
 */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__arm__)
#define split __attribute__((optimize("reorder-blocks-and-partition")))
#else
#define split
#endif

split long split_me(const long *a, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		if (__builtin_expect(a[i] < 0, 0)) {
			report("negative", a[i]);
			slow_path(a[i]);
			s -= a[i] * 3 + (long)i;
			report("after", s);
			continue;
		}
		s += fast_path(a[i]);
	}
	if (__builtin_expect(s == 12345, 0)) {
		report("magic", s);
		__builtin_trap();
	}
	return s;
}
