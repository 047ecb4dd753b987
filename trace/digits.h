/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Integers as digits without stdio: the trace writer and the value
 * formatter print one or more numbers per event, and snprintf's format
 * parsing cost ten times the digits themselves.  Each writes its digits
 * backwards ending at `end` and returns where they start, so the caller
 * knows their length before it copies (or pads) them.
 */
#ifndef TRACE_DIGITS_H
#define TRACE_DIGITS_H

#include <stdint.h>
#include <string.h>

/* The most digits a 64-bit number has: 20 in decimal, 16 in hex. */
#define DIGITS_MAX 20

static inline char *digits_dec(char *end, uint64_t x)
{
	/* Two digits per division: half the divisions of one at a time. */
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (x >= 100) {
		unsigned r = (unsigned)(x % 100);

		x /= 100;
		end -= 2;
		memcpy(end, pairs + 2 * r, 2);
	}
	if (x >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * x, 2);
	} else {
		*--end = (char)('0' + x);
	}
	return end;
}

/* Lower-case hex, at least `min` digits (zeros in front), as %0*x. */
static inline char *digits_hex(char *end, uint64_t x, unsigned min)
{
	char *start = end;

	do {
		*--end = "0123456789abcdef"[x & 15];
		x >>= 4;
	} while (x);
	while ((unsigned)(start - end) < min)
		*--end = '0';
	return end;
}

#endif
