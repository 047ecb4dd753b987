/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ARM and Thumb-2 instructions more than one part knows: the
 * recorder's descriptor (arm.c), the patcher's rules (patch_arm.h) and the
 * runtime port (rt_arm.c) take them from here, so the three always agree
 * on what a site holds.  Thumb ones are halfwords, in code order.
 */
#ifndef ARCH_ARM_INSN_H
#define ARCH_ARM_INSN_H

#include <stdint.h>
#include "arch/arch.h"

#define ARM_NOP		0xe1a00000u	/* mov r0, r0: recordmcount --nop's */
#define ARM_PUSH_LR	0xe52de004u	/* str lr, [sp, #-4]!: gcc's `push {lr}` before the call */
/* ldr lr, [sp], #4: the pop that undoes that push, the disabled form of a gcc site (the kernel's ftrace NOP) */
#define ARM_POP_LR	0xe49de004u
#define ARM_BL		0xeb000000u	/* condition AL */
#define ARM_BL_MASK	0xff000000u
#define ARM_B		0xea000000u	/* b, condition AL: bl's offset field */
#define ARM_BLX		0xfa000000u	/* blx imm24; bit 24 (H) adds a halfword */
#define ARM_BLX_MASK	0xfe000000u
#define ARM_BL_IMM	0x00ffffffu	/* a signed count of words */
#define ARM_PC_BIAS	8		/* ARM code reads pc as its own address + 8: bl counts from there */

#define T32_NOP		0xbf00u
#define T32_PUSH_LR	0xb500u		/* push {lr} */
/* bl/blx: 11110 S imm10, then 11 J1 1 J2 imm11 (blx: bit 12 clear) */
#define T32_BL_HI	0xf000u
#define T32_BL_HI_MASK	0xf800u
#define T32_BL_S	0x0400u
#define T32_BL_IMM10	0x03ffu
#define T32_BL_LO	0xc000u
#define T32_BL_LO_MASK	0xc000u
#define T32_PC_BIAS	4		/* ... and Thumb code as + 4 */
/*
 * ldr.w lr, [sp], #4, the Thumb pop after gcc's push: its second halfword
 * is also the runtime's blx's, so that only the first one ever changes.
 */
#define T32_POP_LR_HI	0xf85du
#define T32_POP_LR_LO	0xeb04u
#define T32_B_SKIP	0xe000u		/* b.n .+4: a clang Thumb site's disabled first halfword */

/* `bl` to `d` bytes from the site + ARM_PC_BIAS: d a multiple of 4 within +-32 MiB. */
static inline uint32_t arm_bl(int32_t d)
{
	return ARM_BL | ((uint32_t)(d >> 2) & ARM_BL_IMM);
}

/* How far the `bl` or `blx` `w` goes, in bytes from its address + ARM_PC_BIAS. */
static inline int32_t arm_bl_offset(uint32_t w)
{
	int32_t d = (int32_t)insn_sext(w & ARM_BL_IMM, 24) * 4;

	if ((w & ARM_BLX_MASK) == ARM_BLX)
		d += (int32_t)((w >> 23) & 2);
	return d;
}

#endif
