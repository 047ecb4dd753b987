// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program with functions nothing calls: --gc-sections collects them (and
 * must collect their table entries), and keeps the used ones with theirs.
 * With -DWALK it also reads its own table through __start_/__stop_ symbols
 * and checks at run time that each entry points at a call instruction.
 */
#include <stdio.h>

__attribute__((noinline)) int used_one(int x)
{
	return x * 7 + 1;
}

__attribute__((noinline)) int used_two(int x)
{
	return used_one(x) - x;
}

__attribute__((noinline)) int unused_one(int x)
{
	return x * 11;
}

__attribute__((noinline)) int unused_two(int x)
{
	return unused_one(x) + 3;
}

#ifdef WALK
extern const int __start___mcount_rel[], __stop___mcount_rel[];

/* x86: call rel32 (e8) or call *mcount@GOTPCREL(%rip) (ff 15). */
static int walk_table(void)
{
	int n = 0;

	for (const int *e = __start___mcount_rel; e < __stop___mcount_rel; e++, n++) {
		const unsigned char *site = (const unsigned char *)e + *e;

		if (site[0] != 0xe8 && !(site[0] == 0xff && site[1] == 0x15))
			return -1;
	}
	return n;
}
#endif

int main(int argc, char **argv)
{
	int got = used_two(argc + 1);	/* 2 * 7 + 1 - 2 = 13 */

	(void)argv;
#ifdef WALK
	printf("entries %d\n", walk_table());
#endif
	printf("%d\n", got);
	return got == 13 ? 0 : 1;
}
