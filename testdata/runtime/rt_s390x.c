// SPDX-License-Identifier: GPL-2.0-only
/*
 * s390x's site forms and in-memory returns (t/95-rt-s390x.t), linked with
 * libobjpatch.a, nothing enabled at start-up:
 *  - the site of `leaf` (SITE_OFF bytes into it: 6 after gcc -pg's
 *    `stg %r14,8(%r15)`, 0 for -mfentry) holds `brcl 0,stub` after
 *    start-up, whatever the compiler or recordmcount left there: c0 04 and
 *    a displacement that is not 0;
 *  - objpatch_enable() changes byte 1 alone, to the site's `brasl` (LINK:
 *    0xe5, %r14, for gcc -pg; 0x05, %r0, for -mfentry), and
 *    objpatch_disable() changes it back: every toggle is one byte;
 *  - long double comes back in memory through a hidden pointer, as
 *    __int128 and structs do (rt_test.c): the trace shows the values
 *    (checked by the test script).
 * Prints "ok - ..." / "not ok - ..." and "done"; exits 0 when all passed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "objpatch.h"
#include "traced.h"

int leaf(int x);
long double ret_ldbl_half(void);
long double ret_ldbl_tenth(void);
long double ret_ldbl_neg_big(void);

static int failed;

static void check(bool good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

TRACED int leaf(int x)
{
	KEEP(x);
	return x + 1;
}

TRACED long double ret_ldbl_half(void)
{
	OPAQUE();
	return 1.5L;
}

TRACED long double ret_ldbl_tenth(void)
{
	OPAQUE();
	return 0.1L;
}

TRACED long double ret_ldbl_neg_big(void)
{
	OPAQUE();
	return -1e300L;
}

static void site(unsigned char *b)
{
	memcpy(b, (const unsigned char *)(void *)leaf + SITE_OFF, 6);
}

int main(void)
{
	unsigned char start[6], on[6], off[6];
	static const unsigned char zero[4];

	site(start);
	check(start[0] == 0xc0 && start[1] == 0x04 && memcmp(start + 2, zero, 4) != 0,
	      "start-up: the site is `brcl 0,stub` (c0 04, displacement not 0)");
	check(objpatch_enable("leaf") == 1, "objpatch_enable(\"leaf\") enables one site");
	site(on);
	check(on[0] == 0xc0 && on[1] == LINK && memcmp(on + 2, start + 2, 4) == 0,
	      "enabled: byte 1 alone changed, to the site's brasl");
	check(leaf(41) == 42, "leaf traced: returns 42");
	check(objpatch_disable("leaf") == 1, "objpatch_disable(\"leaf\") disables it");
	site(off);
	check(memcmp(off, start, 6) == 0, "disabled: the bytes of start-up again");
	check(objpatch_enable("ret_ldbl_*") == 3, "objpatch_enable(\"ret_ldbl_*\") enables three sites");
	check(ret_ldbl_half() == 1.5L && ret_ldbl_tenth() == 0.1L && ret_ldbl_neg_big() == -1e300L,
	      "long double values come back");
	check(objpatch_flush() >= 0, "objpatch_flush()");
	puts("done");
	return failed != 0;
}
