// SPDX-License-Identifier: GPL-2.0-only
/*
 * One thread, the same calls on every run and every machine: what
 * t/75-recording.t records under qemu-user and compares, line by line, with
 * the trace `objpatch run` prints live.  Each function returns a value of
 * another class, so that every capture the recording holds is read back.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum colour { RED, GREEN, BLUE };
struct pair { int a, b; };

#define NOINLINE __attribute__((noinline))

NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
NOINLINE bool is_even(int n) { return n % 2 == 0; }
NOINLINE long negate(long x) { return -x; }
NOINLINE enum colour pick(int i) { return (enum colour)(i % 3); }
NOINLINE const char *name_of(int i) { static const char *const n[] = { "zero", "one", "two" }; return n[i % 3]; }
NOINLINE double half(int i) { return i / 2.0; }
NOINLINE float third(int i) { return (float)i / 3.0f; }
NOINLINE struct pair make_pair(int i) { return (struct pair){ i, -i }; }
NOINLINE void nothing(void) { __asm__ volatile(""); }
NOINLINE unsigned long long big(void) { return 0xfedcba9876543210ull; }

NOINLINE int run(int rounds)
{
	int sum = 0;

	for (int i = 0; i < rounds; i++) {
		struct pair p = make_pair(i);

		sum += fib(i + 3) + is_even(i) + (int)negate(i) + (int)pick(i) + (int)strlen(name_of(i)) +
		       (int)half(i) + (int)third(i) + p.a + p.b;
		nothing();
	}
	return sum + (int)(big() & 1);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;

	printf("sum %d\n", run(rounds));
	return 0;
}
