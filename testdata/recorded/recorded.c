// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions whose sites the compiler records itself (t/36-recorded.t):
 * built with -mrecord-mcount or -fpatchable-function-entry, then given
 * prototype tables by recordmcount.  recorded_expect.txt lists what
 * `objpatch list` must print for them.  main() checks the results when the
 * program runs traced.
 */
#include <stdio.h>
#include <string.h>

#ifdef __clang__
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noinline, noipa, used))
#endif

struct point {
	int x, y;
};

TRACED int add(int a, int b)
{
	return a + b;
}

TRACED double half(int x)
{
	return x / 2.0;
}

TRACED const char *parity(unsigned x)
{
	return x & 1 ? "odd" : "even";
}

TRACED void clear(int *p)
{
	*p = 0;
}

TRACED struct point mirror(struct point p)
{
	return (struct point){ p.y, p.x };
}

TRACED static long twice(long v)
{
	return 2 * v;
}

TRACED long use_twice(long v)
{
	return twice(v) + 1;
}

#ifdef WITH_MAIN
int main(void)
{
	struct point p = mirror((struct point){ 1, 2 });
	int z = 5, bad = 0;

	bad += add(2, 3) != 5;
	bad += half(5) != 2.5;
	bad += strcmp(parity(3), "odd") != 0;
	clear(&z);
	bad += z != 0;
	bad += p.x != 2 || p.y != 1;
	bad += use_twice(20) != 41;
	printf("%s\n", bad ? "wrong" : "right");
	return bad;
}
#endif
