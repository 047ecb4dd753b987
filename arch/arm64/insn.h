/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The AArch64 instructions more than one part knows: the recorder's
 * descriptor (arm64.c), the patcher's rules (patch_aarch64.h) and the
 * runtime port (rt_aarch64.c) take them from here, so the three always
 * agree on what a site holds.  AArch64 code is little-endian even in
 * big-endian programs.
 */
#ifndef ARCH_ARM64_INSN_H
#define ARCH_ARM64_INSN_H

#include <stdint.h>
#include "arch/arch.h"

#define A64_NOP		0xd503201fu
/*
 * The kernel's ftrace writes it over a patchable pad's first NOP, and so
 * does the runtime: x9 keeps the caller's return address, which the `bl`
 * after it takes from x30.
 */
#define A64_MOV_X9_X30	0xaa1e03e9u
#define A64_BL		0x94000000u
#define A64_BL_MASK	0xfc000000u
#define A64_B		0x14000000u	/* b: the same offset field as bl's */
#define A64_BL_IMM	0x03ffffffu	/* a signed count of words from the `bl` */
#define A64_BL_REACH	((uintptr_t)1 << 27)	/* each way */

/* `bl` to `d` bytes from itself: d a multiple of 4, within A64_BL_REACH. */
static inline uint32_t a64_bl(int64_t d)
{
	return A64_BL | ((uint32_t)(d >> 2) & A64_BL_IMM);
}

/* How far the `bl` `w` goes, in bytes from itself. */
static inline int64_t a64_bl_offset(uint32_t w)
{
	return insn_sext(w & A64_BL_IMM, 26) * 4;
}

#endif
