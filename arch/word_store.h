/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The store protocol's part shared by the machines whose every site is one
 * aligned 32-bit instruction word (aarch64, ppc64le, MIPS): a change is one
 * aligned word store, which each of their architectures makes single-copy
 * atomic, so a core running the word meanwhile executes the old one or the
 * new.  Included by their patch_<machine>.h, after its classify().
 */

#include "arch/text_units.h"

static bool store_ok(uintptr_t addr, const uint8_t *old, const uint8_t *new, size_t len)
{
	(void)old;
	(void)new;
	return len == 4 && !(addr & 3);
}

static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	(void)n;
	*(volatile uint32_t *)at = word_in_memory(b);
}
