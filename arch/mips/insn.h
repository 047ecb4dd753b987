/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MIPS instructions more than one part knows: the recorder's
 * descriptor (mips.c), the patcher's rules (patch_mips.h) and the runtime
 * port (rt_mips.c) take them from here, so the three always agree on what
 * a site's sequence holds.
 */
#ifndef ARCH_MIPS_INSN_H
#define ARCH_MIPS_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/arch.h"

/* I-type: op rt, imm(rs) (or op rt, rs, imm), with the immediate left 0. */
#define MIPS_I(op, rs, rt)	((uint32_t)(op) << 26 | (uint32_t)(rs) << 21 | (uint32_t)(rt) << 16)
#define MIPS_OP(w)		((w) >> 26)
#define MIPS_OP_MASK		0xfc000000u
#define MIPS_OP_RT_MASK		0xfc1f0000u	/* the opcode and rt: a load into rt, any base */
#define MIPS_OP_RS_RT_MASK	0xffff0000u	/* all but the immediate */
#define MIPS_OP_RS_MASK		0xffe00000u	/* the opcode and the base: a load from a register, into any */
#define MIPS_IMM(v)		((uint32_t)(v) & 0xffffu)

enum mips_op {
	MIPS_OP_J = 2,
	MIPS_OP_JAL = 3,
	MIPS_OP_ADDIU = 9,
	MIPS_OP_ORI = 13,
	MIPS_OP_LUI = 15,
	MIPS_OP_DADDIU = 25,
	MIPS_OP_LW = 35,
	MIPS_OP_SW = 43,
	MIPS_OP_LD = 55,
	MIPS_OP_SD = 63,
};

enum mips_reg { MIPS_T9 = 25, MIPS_GP = 28, MIPS_SP = 29, MIPS_RA = 31 };

#define MIPS_NOP		0x00000000u
#define MIPS_JAL		MIPS_I(MIPS_OP_JAL, 0, 0)
#define MIPS_J			MIPS_I(MIPS_OP_J, 0, 0)	/* a jump: jal's target field */
#define MIPS_LUI		MIPS_I(MIPS_OP_LUI, 0, 0)
#define MIPS_ADDIU		MIPS_I(MIPS_OP_ADDIU, 0, 0)
#define MIPS_DADDIU		MIPS_I(MIPS_OP_DADDIU, 0, 0)
/* The PIC sequences' load of the hook's address: lw/ld t9, %call16(_mcount)(gp or another base) */
#define MIPS_LW_T9		MIPS_I(MIPS_OP_LW, 0, MIPS_T9)
#define MIPS_LD_T9		MIPS_I(MIPS_OP_LD, 0, MIPS_T9)
/* A prologue's save of the return address: sw/sd ra, imm(sp) */
#define MIPS_SW_RA_SP		MIPS_I(MIPS_OP_SW, MIPS_SP, MIPS_RA)
#define MIPS_SD_RA_SP		MIPS_I(MIPS_OP_SD, MIPS_SP, MIPS_RA)
/* (d)addiu sp, sp, imm */
#define MIPS_ADDIU_SP		MIPS_I(MIPS_OP_ADDIU, MIPS_SP, MIPS_SP)
#define MIPS_DADDIU_SP		MIPS_I(MIPS_OP_DADDIU, MIPS_SP, MIPS_SP)
/*
 * The o32 hook sequence pushes 8 bytes in the call's delay slot (or just
 * before it) and the hook pops them: the runtime's disabled o32 call word
 * is that pop.
 */
#define MIPS_ADDIU_SP_M8	(MIPS_ADDIU_SP | MIPS_IMM(-8))
#define MIPS_DADDIU_SP_M8	(MIPS_DADDIU_SP | MIPS_IMM(-8))
#define MIPS_ADDIU_SP_8		(MIPS_ADDIU_SP | MIPS_IMM(8))
/* (d)addu rd, rs, gp: -mxgot adds the GOT pointer to a %call_hi/%got_hi */
#define MIPS_ADDU_GP		0x001c0021u
#define MIPS_DADDU_GP		0x001c002du
#define MIPS_ADDU_GP_MASK	0xfc1f07ffu
/* jalr ra, rs; the PIC sequences' call is jalr t9 */
#define MIPS_JALR_RA		0x0000f809u
#define MIPS_JALR_RA_MASK	0xfc1fffffu
#define MIPS_JALR_T9		(MIPS_JALR_RA | (uint32_t)MIPS_T9 << 21)

/* jal reaches the 256 MiB region its delay slot (its address + 4) lies in. */
#define MIPS_JAL_REGION		((uint64_t)0x0fffffff)
#define MIPS_JAL_INDEX		0x03ffffffu

/* `jal target`; the caller checks the region. */
static inline uint32_t mips_jal(uint64_t target)
{
	return MIPS_JAL | (uint32_t)((target & MIPS_JAL_REGION) >> 2);
}

/* Where the `jal` `w` at `pc` goes. */
static inline uint64_t mips_jal_target(uint32_t w, uint64_t pc)
{
	return ((pc + 4) & ~MIPS_JAL_REGION) | (uint64_t)(w & MIPS_JAL_INDEX) << 2;
}

/* An I-type's immediate, signed: a load's or store's offset, an addiu's addend. */
static inline int16_t mips_simm(uint32_t w)
{
	return (int16_t)MIPS_IMM(w);
}

/* or at, ra, zero: the hook's convention hands it the traced function's return address in at. */
#define MIPS_MOVE_AT_RA		0x03e00825u

/*
 * A hook call is a sequence: a `move at, ra`, the load of the hook's address
 * (none for `jal`), instructions the compiler scheduled in between, the
 * call, and on o32 a push of 8 bytes (addiu sp,sp,-8) that the hook pops,
 * in the delay slot or before the call:
 *   gcc, PIC:             move at,ra; [push;] lw/ld t9,%call16(_mcount)(gp); jalr t9; nop
 *   gcc, PIC, -mxgot:     move at,ra; [push;] lui t9,%call_hi; addu t9,t9,gp; lw t9,%call_lo(t9); jalr t9
 *   gcc, PIC, -mlong-calls: lw/ld v1,%got(_mcount)(gp) (n64 %got_disp); move at,ra; jalr v1; [push]
 *                         (-O0: the push before the jalr; with -mxgot lui/addu/lw %got_hi/%got_lo)
 *   clang, PIC:           lw/ld t9,%call16(_mcount)(rX); up to two others; move at,ra; jalr t9; [push]
 *   non-PIC:              move at,ra; jal _mcount; [push]   (-mlong-calls: lui/addiu %hi/%lo, jalr)
 * A site is recorded at the sequence's first relocated word (arch/mips/mips.c).  The recorder
 * (--nop, untraced sections) and the runtime agree on one disabled state: every word that
 * loaded the hook's address is a NOP, and the call word is the one word the runtime toggles
 * (jal stub <-> disabled), where disabled is `addiu sp,sp,8` when an o32 push stays to be
 * undone, else a NOP.
 */
#define MIPS_SEQ_BEFORE		12	/* `move at, ra` up to three words before the recorded one */
/* The call within eight words from it (n64 non-PIC -mlong-calls: six to load the address, move, jalr). */
#define MIPS_SEQ_AFTER		32

/*
 * The call word of the sequence recorded at `code`, where `before` bytes
 * before it and `after` from it are readable: the first word from it that
 * is a `jal`, a `jalr ra, rX`, or `disabled` (the runtime's disabled word,
 * ~0u for none), after a `move at, ra` of the sequence if `need_move` (the
 * runtime's trampolines need ra in at; clang's non-PIC -mlong-calls
 * sequence clobbers at instead).  Its offset from `code`, or -1.  *push: an o32 push comes with it (in its delay slot, or
 * after the move), which the hook or the disabled word undoes.
 */
static inline int mips_sequence_call_at(const uint8_t *code, size_t before, size_t after, bool be,
					uint32_t disabled, bool need_move, bool *push)
{
	bool moved = false;
	int move = 0;

	before = before < MIPS_SEQ_BEFORE ? before : MIPS_SEQ_BEFORE;
	for (size_t b = 4; b <= before && !moved; b += 4)
		if (insn_load(code - b, 4, be) == MIPS_MOVE_AT_RA) {
			moved = true;
			move = -(int)b;
		}
	for (size_t a = 0; a + 8 <= after && a < MIPS_SEQ_AFTER; a += 4) {
		uint32_t w = insn_load(code + a, 4, be);

		if (w == MIPS_MOVE_AT_RA) {
			moved = true;
			move = (int)a;
			continue;
		}
		if ((need_move && !moved) ||
		    ((w & MIPS_OP_MASK) != MIPS_JAL && (w & MIPS_JALR_RA_MASK) != MIPS_JALR_RA && w != disabled))
			continue;
		/* Without the move, only a delay slot push is the hook's: one before may be the prologue's. */
		*push = insn_load(code + a + 4, 4, be) == MIPS_ADDIU_SP_M8;
		for (int p = moved ? move + 4 : (int)a; p < (int)a && !*push; p += 4)
			*push = insn_load(code + p, 4, be) == MIPS_ADDIU_SP_M8;
		return (int)a;
	}
	return -1;
}

/* MIPS code is in the data's byte order: for the runtime and the patcher, the host's. */
#define MIPS_HOST_BE		(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

#endif
