// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions whose code does not have their declared signature: at -O2 gcc
 * makes .isra.N, .constprop.N and .part.N copies of them, which must be
 * marked unreliable.  A function split into a hot part and a `.cold` part
 * keeps its signature at its entry (the hot part).  An inline function whose
 * address is taken gets an out-of-line copy described through
 * DW_AT_abstract_origin.
 */
#define noinline __attribute__((noinline))

extern void sink(long v);
extern long ext(long v);
extern void report(const char *what, long v) __attribute__((cold));

struct big {
	long a, b, c, d;
};

/* Passed by value but only two fields read: IPA-SRA passes just those. */
static noinline long isra_me(struct big b, long k)
{
	sink(b.a);
	return b.c * 3 + k;
}

/* Only ever called with mode == 3: IPA-CP folds it into a copy. */
static noinline long constprop_me(long x, int mode)
{
	long r = x;

	for (int i = 0; i < mode; i++)
		r = ext(r) + i;
	return r;
}

/* A likely early exit and a big body: the test is inlined, the body split off. */
static long part_me(long x)
{
	if (__builtin_expect(x == 0, 1))
		return 0;
	for (int i = 0; i < 8; i++) {
		x = ext(x) * 3 + ext(x + i);
		sink(x);
		sink(ext(x * 5));
	}
	return x;
}

long use_clones(struct big *b, long x)
{
	return isra_me(*b, x) + isra_me(b[2], x + 1) + constprop_me(x, 3) +
	       constprop_me(x + 1, 3) + part_me(x) + part_me(x + 2);
}

/* gcc splits functions by default only on x86; elsewhere it has to be asked. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__arm__)
#define split __attribute__((optimize("reorder-blocks-and-partition")))
#else
#define split
#endif

/* The unlikely path is big enough to go to .text.unlikely as split_sum.cold. */
split long split_sum(const long *a, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		if (__builtin_expect(a[i] < 0, 0)) {
			report("negative", a[i]);
			sink(a[i] * 2);
			sink(ext(a[i]) + ext(s));
			s -= ext(a[i] - 1);
			continue;
		}
		s += a[i];
	}
	return s;
}

/* Inlined into use_inline, and out of line because its address escapes. */
static inline unsigned short squash(unsigned long v, const char *why)
{
	sink((long)why);
	return (unsigned short)(v ^ (v >> 16));
}

unsigned short (*squash_ptr)(unsigned long, const char *) = squash;

long use_inline(unsigned long v)
{
	return squash(v, "inline") + squash(v + 1, "again");
}
