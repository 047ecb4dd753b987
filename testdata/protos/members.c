// SPDX-License-Identifier: GPL-2.0-only
/*
 * Structs and unions returned by value, for the member lists of the
 * prototype table (man/mcount-tables.5) and their values in a trace
 * (t/62-members.t): nested, anonymous, arrays, every scalar class; and the
 * ones without a list: a bitfield, a member over 8 bytes, over 16 bytes.
 */
#include <stdbool.h>
#include <stdio.h>

#define noinline __attribute__((noinline))

enum color { RED, GREEN };

struct pair {
	int a, b;
};

struct nested {
	struct {
		short x, y;
	} p;
	unsigned char tag[2];
	bool ok;
	char c;
	void *q;
};

union word {
	int i;
	unsigned char b[4];
};

struct anon {
	enum color col;
	union {
		unsigned u;
		int s;
	};
	const char *name;
};

struct bits {
	int a : 3;
	int b;
};

struct wide {
	__int128 v;
};

struct big {
	long a, b, c;
};

noinline struct pair ret_pair(int k)
{
	__asm__ volatile("" ::: "memory");
	return (struct pair){ k, -k };
}

noinline struct nested ret_nested(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct nested){ { 3, -4 }, { 5, 6 }, true, 'z', NULL };
}

noinline union word ret_word(void)
{
	__asm__ volatile("" ::: "memory");
	return (union word){ .i = 0x01020304 };
}

noinline struct anon ret_anon(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct anon){ GREEN, { .u = 7 }, NULL };
}

noinline struct bits ret_bits(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct bits){ 1, 2 };
}

noinline struct wide ret_wide(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct wide){ 9 };
}

noinline struct big ret_big(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct big){ 1, 2, 3 };
}

int main(void)
{
	struct pair p = ret_pair(5);
	struct nested n = ret_nested();
	union word w = ret_word();
	struct anon a = ret_anon();
	struct bits b = ret_bits();
	struct wide v = ret_wide();
	struct big g = ret_big();

	return p.a + p.b + n.p.x + n.p.y + 1 + (w.i != 0x01020304) + (int)a.u - 7 + b.b - 2 + (int)v.v - 9 +
	       (int)(g.a + g.b + g.c) - 6 != 0;
}
