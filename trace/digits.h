/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Numbers as digits without stdio: the trace writer and the value
 * formatter print one or more numbers per event, and snprintf's format
 * parsing cost ten times the digits themselves.  The digit writers write
 * backwards ending at `end` and return where they start, so the caller
 * knows their length before it copies (or pads) them; JSON's times are
 * fixed-point, in thousandths.  testdata/format/format_test.c checks them
 * against printf.
 */
#ifndef TRACE_DIGITS_H
#define TRACE_DIGITS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The most digits a 64-bit number has: 20 in decimal, 16 in hex. */
#define DIGITS_MAX 20

/* "00" to "99": two digits per division, half the divisions of one at a time. */
static const char digits_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *digits_dec(char *end, uint64_t x)
{
	while (x >= 100) {
		unsigned r = (unsigned)(x % 100);

		x /= 100;
		end -= 2;
		memcpy(end, digits_pairs + 2 * r, 2);
	}
	if (x >= 10) {
		end -= 2;
		memcpy(end, digits_pairs + 2 * x, 2);
	} else {
		*--end = (char)('0' + x);
	}
	return end;
}

/*
 * How many digits digits_dec() writes for x.  Knowing it first, a caller
 * writes the digits where they go: copying them from a buffer just
 * written byte by byte stalls the copy's wide loads until those stores
 * retire (store-to-load forwarding fails), which cost more than the digits.
 */
static inline unsigned digits_dec_len(uint64_t x)
{
	unsigned n = 1;

	for (uint64_t p = 10; n < 20 && x >= p; p *= 10)
		n++;
	return n;
}

/* How many digits digits_hex(end, x, 1) writes. */
static inline unsigned digits_hex_len(uint64_t x)
{
	return x ? (unsigned)(67 - __builtin_clzll(x)) / 4 : 1;
}

/* Lower-case hex, at least `min` digits (zeros in front), as %0*x. */
static inline char *digits_hex(char *end, uint64_t x, unsigned min)
{
	/* A byte per step, as digits_dec() takes two digits: an address is 6 steps, not 12. */
	static const char pairs[513] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
		"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
		"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
		"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
		"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
		"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
		"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	char *start = end;

	while (x >= 16) {
		end -= 2;
		memcpy(end, pairs + 2 * (x & 255), 2);
		x >>= 8;
	}
	/* One digit left, or none when the last byte's high digit was the number's first. */
	if (x || end == start)
		*--end = "0123456789abcdef"[x];
	while ((unsigned)(start - end) < min)
		*--end = '0';
	return end;
}

/*
 * A double in thousandths, rounded as printf's %.3f rounds it: the binary
 * value to the nearest thousandth, ties to even.  x = m * 2^e with
 * m < 2^53, so x * 1000 = m * 1000 * 2^e is exact in 64 bits
 * (m * 1000 < 2^63) and the bits shifted out say how to round.  False for
 * what does not fit 64 bits, negatives, infinities and NaNs (never a
 * trace's times).
 */
static inline bool digits_thousandths(double x, uint64_t *q)
{
	uint64_t bits, m, p;
	int e;

	memcpy(&bits, &x, sizeof(bits));
	e = (int)(bits >> 52 & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (bits >> 63 || e == 0x7ff)
		return false;
	if (e)
		m |= UINT64_C(1) << 52;
	e = e ? e - 1075 : -1074;
	p = m * 1000;
	if (e >= 0) {
		if (e >= 64 || p > UINT64_MAX >> e)
			return false;
		*q = p << e;
	} else if (e <= -64) {
		*q = 0;	/* below 2^63 / 2^64: less than half a thousandth */
	} else {
		uint64_t rem = p & ((UINT64_C(1) << -e) - 1), half = UINT64_C(1) << (-e - 1);

		*q = (p >> -e) + (rem > half || (rem == half && (p >> -e & 1)));
	}
	return true;
}

#endif
