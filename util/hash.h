/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The hash functions of every table in the tree, so that each table's
 * probing is all it writes itself.
 */
#ifndef UTIL_HASH_H
#define UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fibonacci hashing: a multiply by 2^64 / phi spreads keys that differ in
 * their middle bits (code addresses, DIE offsets) over the high bits, so a
 * table takes its index from the top (or the middle), never the bottom.
 */
static inline uint64_t hash_mix64(uint64_t key)
{
	return key * UINT64_C(0x9e3779b97f4a7c15);
}

/* FNV-1a over a string's bytes: 64 bits for table keys and file names. */
static inline uint64_t hash_fnv1a64(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	while (*s)
		h = (h ^ (uint8_t)*s++) * UINT64_C(0x100000001b3);
	return h;
}

/* The 32-bit FNV-1a, where a value must stay what it was (a flame graph's colours); *len: strlen(s). */
static inline uint32_t hash_fnv1a32(const char *s, size_t *len)
{
	uint32_t h = 2166136261u;
	size_t n = 0;

	for (; s[n]; n++)
		h = (h ^ (uint8_t)s[n]) * 16777619u;
	if (len)
		*len = n;
	return h;
}

#endif
