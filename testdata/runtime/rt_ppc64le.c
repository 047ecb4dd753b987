// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 64-bit PowerPC ports' own cases, ELFv2 and ELFv1 alike
 * (t/95-rt-ppc64le.t, t/95-rt-ppc64.t).
 *
 * The TOC restore: when the linker sends a site's `bl _mcount` to libc
 * through a PLT stub, the `nop` after it becomes the TOC restore
 * `ld r2,24(r1)` (ELFv1: `ld r2,40(r1)`), which reloads what the PLT stub saved in the frame's TOC
 * save word.  Once the runtime owns the site nothing saves r2
 * there unless it does: a disabled site must skip the restore (`b .+8`),
 * an enabled one must store r2 there (the entry trampoline).  poison()
 * fills the stack the next frames use with junk first, so a restore that
 * loads an unsaved word gives r2 junk, and the next TOC access (a global, a
 * call through the PLT) faults or reads garbage.  Built with -pg, recorded
 * without --nop, linked without -pg; run traced with toc_* disabled and
 * enabled.
 *
 * long double: Debian's ppc64el and ppc64 long double is IBM double-double, returned
 * in f1 (the high part) and f2 (the low part): 0.1L shows as "0.1" only
 * when both were captured (f1 alone is binary64's 0.1, which reads back as
 * a different long double, so it prints with many more digits).
 *
 * Prints "ok - ..."/"not ok - ..." and "done"; exits 0 when every
 * check passed.
 */
#include <stdio.h>
#include <string.h>
#include "traced.h"

#define ROUNDS 100

int toc_counter;		/* reached through r2 */
const char *volatile toc_word = "objpatch";

static void check(int good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
}

/* Junk where the frames made next keep their TOC save words. */
__attribute__((noinline)) static void poison(void)
{
	unsigned char buf[4096];

	memset(buf, 0xa5, sizeof(buf));
	__asm__ volatile("" : : "r"(buf) : "memory");
}

TRACED int toc_leaf(int x)
{
	toc_counter += x;
	return 7 + (int)strlen(toc_word) - 8;
}

TRACED int toc_mid(int x)
{
	int r = toc_leaf(x);

	KEEP(r);
	toc_counter++;
	return r + 2;
}

TRACED long double ppc_ldbl_tenth(void)
{
	OPAQUE();
	return 0.1L;
}

TRACED long double ppc_ldbl_neg(void)
{
	OPAQUE();
	return -2.5L;
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < ROUNDS; i++) {
		poison();
		sum += toc_mid(i);
	}
	check(sum == 9 * ROUNDS, "every call returned its value");
	check(toc_counter == ROUNDS * (ROUNDS - 1) / 2 + ROUNDS, "every call updated the global");
	check(ppc_ldbl_tenth() == 0.1L && ppc_ldbl_neg() == -2.5L, "long double results");
	printf("done\n");
	return 0;
}
