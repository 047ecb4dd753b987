// SPDX-License-Identifier: GPL-2.0-only
/*
 * Structs and unions returned by value, for the member lists of the
 * prototype table (man/mcount-tables.5) and their values in a trace
 * (t/62-members.t): nested, anonymous, arrays, every scalar class; floats
 * where the ABIs put them in FP registers (x86-64 by 8-byte part, AArch64's
 * HFAs); structs returned in memory (over 16 bytes), up to the 128 bytes a
 * list describes; and the ones without a list: a bitfield, a member over 8
 * bytes, over 128 bytes.
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

/* jq's jv: a union of a pointer and a double shares an integer register. */
struct jv {
	unsigned char kind;
	unsigned char pad;
	unsigned short offset;
	int size;
	union {
		void *ptr;
		double number;
	} u;
};

struct dl {
	double d;
	long l;
};

struct ld {
	long l;
	double d;
};

struct fff {
	float x, y, z;
};

struct dd {
	double a, b;
};

struct named {
	int id;
	double weight;
	char name[12];
};

struct huge {
	long v[20];
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

noinline struct jv ret_jv(double d)
{
	__asm__ volatile("" ::: "memory");
	return (struct jv){ 4, 0, 0, 0, { .number = d } };
}

noinline struct dl ret_dl(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct dl){ 1.5, -7 };
}

noinline struct ld ret_ld(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct ld){ -8, 2.25 };
}

noinline struct fff ret_fff(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct fff){ 1, 2, 3.5f };
}

noinline struct dd ret_dd(void)
{
	__asm__ volatile("" ::: "memory");
	return (struct dd){ 0.5, 4 };
}

noinline struct named ret_named(int id)
{
	__asm__ volatile("" ::: "memory");
	return (struct named){ id, 0.25, "hello" };
}

noinline struct huge ret_huge(void)
{
	struct huge h = { { 0 } };

	__asm__ volatile("" ::: "memory");
	h.v[19] = 19;
	return h;
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
	double f = ret_jv(1.5).u.number + ret_dl().d + ret_ld().d + ret_fff().z + ret_dd().b + ret_named(3).weight;
	long h = ret_huge().v[19];

	return p.a + p.b + n.p.x + n.p.y + 1 + (w.i != 0x01020304) + (int)a.u - 7 + b.b - 2 + (int)v.v - 9 +
	       (int)(g.a + g.b + g.c) - 6 + (f != 13.0) + (h != 19) != 0;
}
