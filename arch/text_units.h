/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A site's new bytes as the unit one store writes, in memory order, for
 * the stores patch.c makes inside its mprotect window: always inlined,
 * since a call from there could land on a page that is not executable
 * just then.  Included by the machines' patch_<machine>.h.
 */
#ifndef ARCH_TEXT_UNITS_H
#define ARCH_TEXT_UNITS_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint32_t word_in_memory(const uint8_t *b)
{
	uint32_t w;

	__builtin_memcpy(&w, b, sizeof(w));
	return w;
}

static inline __attribute__((always_inline)) uint16_t half_in_memory(const uint8_t *b)
{
	uint16_t h;

	__builtin_memcpy(&h, b, sizeof(h));
	return h;
}

#endif
