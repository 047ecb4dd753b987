// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The size of gcc's prologue before its `push {lr}; bl __gnu_mcount_nc`,
 * so that the hook knows where its caller's stack arguments are: the
 * function's sp at entry is the pushed word's address + 4 + that size.
 *
 * Only what gcc's prologues are made of is read: pushes of core and VFP
 * registers, `str Rt, [sp, #-4]!`, `sub sp, sp, #imm`, and the frame
 * pointer's setup from sp (which does not move sp); anything else (a
 * stack probe, `sub sp, sp, Rm` after a large constant in a register)
 * means not known.  None of these writes r0-r3 either, which is why the
 * argument registers are still the call's at the hook.
 */
#include <string.h>
#include "arch/arm/rt_arm_frame.h"

/* Reading the prologue: no more than a hook window's worth. */
#define PROLOGUE_MAX 64
#define SP 13
#define PC 15

static uint32_t popcount16(uint32_t x)
{
	return (uint32_t)__builtin_popcount(x & 0xffffu);
}

static uint32_t ror32(uint32_t x, unsigned n)
{
	n &= 31;
	return n ? x >> n | x << (32 - n) : x;
}

/* A register the prologue may set from sp: not an argument register, sp or pc. */
static bool frame_reg(unsigned r)
{
	return r >= 4 && r != SP && r != PC;
}

/* ARM ARM's ThumbExpandImm (no carry needed). */
static uint32_t thumb_expand_imm(uint32_t imm12)
{
	uint32_t b = imm12 & 0xff;

	if (imm12 & 0xc00)
		return ror32(0x80 | (imm12 & 0x7f), imm12 >> 7 & 0x1f);
	switch (imm12 >> 8 & 3) {
	case 0:
		return b;
	case 1:
		return b << 16 | b;
	case 2:
		return b << 24 | b << 8;
	default:
		return b << 24 | b << 16 | b << 8 | b;
	}
}

/* One ARM instruction: how far it moves sp down (*down), false if not a prologue's. */
static bool arm_step(uint32_t w, uint32_t *down)
{
	*down = 0;
	if ((w & 0xffff0000u) == 0xe92d0000u) {		/* push {list} (stmdb sp!) */
		*down = 4 * popcount16(w);
		return !(w & (1u << SP));
	}
	if ((w & 0xffff0fffu) == 0xe52d0004u) {		/* str Rt, [sp, #-4]! */
		*down = 4;
		return true;
	}
	if ((w & 0xffbf0e00u) == 0xed2d0a00u) {		/* vpush {s/d list} (vstmdb sp!) */
		*down = 4 * (w & 0xff);
		return true;
	}
	if ((w & 0xfffff000u) == 0xe24dd000u) {		/* sub sp, sp, #imm */
		*down = ror32(w & 0xff, 2 * (w >> 8 & 0xf));
		return true;
	}
	/* add/sub Rd, Rn, #imm and mov Rd, sp: the frame pointer, ip for an APCS frame */
	if ((w & 0xfff00000u) == 0xe2800000u || (w & 0xfff00000u) == 0xe2400000u)
		return frame_reg(w >> 12 & 0xf);
	if ((w & 0xffff0fffu) == 0xe1a0000du)
		return frame_reg(w >> 12 & 0xf);
	return false;
}

/* One Thumb-2 instruction (hw1, and hw2 when 32-bit): its length in bytes, 0 if not a prologue's. */
static unsigned thumb_step(uint16_t hw1, uint16_t hw2, uint32_t *down)
{
	*down = 0;
	if ((hw1 & 0xfe00) == 0xb400) {				/* push {list[, lr]} */
		*down = 4 * (popcount16(hw1 & 0xff) + (hw1 >> 8 & 1));
		return 2;
	}
	if ((hw1 & 0xff80) == 0xb080) {				/* sub sp, #imm7 * 4 */
		*down = 4 * (hw1 & 0x7fu);
		return 2;
	}
	if ((hw1 & 0xf800) == 0xa800)				/* add Rd, sp, #imm8 * 4 */
		return frame_reg(hw1 >> 8 & 7) ? 2 : 0;
	if ((hw1 & 0xff78) == 0x4668)				/* mov Rd, sp */
		return frame_reg((hw1 >> 4 & 8) | (hw1 & 7)) ? 2 : 0;
	if (hw1 == 0xe92d) {					/* push.w {list} (stmdb sp!) */
		*down = 4 * popcount16(hw2);
		return hw2 & (1u << SP | 1u << PC) ? 0 : 4;
	}
	if (hw1 == 0xf84d && (hw2 & 0x0fff) == 0x0d04) {	/* str.w Rt, [sp, #-4]! */
		*down = 4;
		return 4;
	}
	if ((hw1 & 0xffbf) == 0xed2d && (hw2 & 0x0e00) == 0x0a00) {	/* vpush */
		*down = 4 * (hw2 & 0xffu);
		return 4;
	}
	if ((hw1 & 0xfbff) == 0xf1ad && (hw2 & 0x8f00) == 0x0d00) {	/* sub.w sp, sp, #const */
		*down = thumb_expand_imm((uint32_t)(hw1 >> 10 & 1) << 11 | (uint32_t)(hw2 >> 12 & 7) << 8 |
					 (hw2 & 0xffu));
		return 4;
	}
	if ((hw1 & 0xfbff) == 0xf2ad && (hw2 & 0x8f00) == 0x0d00) {	/* subw sp, sp, #imm12 */
		*down = (uint32_t)(hw1 >> 10 & 1) << 11 | (uint32_t)(hw2 >> 12 & 7) << 8 | (hw2 & 0xffu);
		return 4;
	}
	/* add.w / addw Rd, sp, #imm: the frame pointer */
	if (((hw1 & 0xfbff) == 0xf10d || (hw1 & 0xfbff) == 0xf20d) && !(hw2 & 0x8000))
		return frame_reg(hw2 >> 8 & 0xf) ? 4 : 0;
	return 0;
}

bool arm_prologue_size(uintptr_t func, uintptr_t end, bool thumb, uint32_t *size)
{
	uintptr_t at = func & ~(uintptr_t)1;
	uint32_t total = 0, down;

	if (end < at || end - at > PROLOGUE_MAX || (at & (thumb ? 1 : 3)))
		return false;
	while (at < end) {
		if (thumb) {
			uint16_t hw[2] = { 0, 0 };
			unsigned len;

			memcpy(&hw[0], (const void *)at, 2);
			if (end - at >= 4)
				memcpy(&hw[1], (const void *)(at + 2), 2);
			len = thumb_step(hw[0], hw[1], &down);
			if (!len || at + len > end)
				return false;
			at += len;
		} else {
			uint32_t w;

			memcpy(&w, (const void *)at, 4);
			if (!arm_step(w, &down))
				return false;
			at += 4;
		}
		total += down;
	}
	*size = total;
	return true;
}
