/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MIPS instructions more than one part knows: the recorder's
 * descriptor (mips.c), the patcher's rules (patch_mips.h) and the runtime
 * port (rt_mips.c) take them from here, so the three always agree on what
 * a site's sequence holds.
 */
#ifndef ARCH_MIPS_INSN_H
#define ARCH_MIPS_INSN_H

#include <stdint.h>

/* I-type: op rt, imm(rs) (or op rt, rs, imm), with the immediate left 0. */
#define MIPS_I(op, rs, rt)	((uint32_t)(op) << 26 | (uint32_t)(rs) << 21 | (uint32_t)(rt) << 16)
#define MIPS_OP(w)		((w) >> 26)
#define MIPS_OP_MASK		0xfc000000u
#define MIPS_OP_RT_MASK		0xfc1f0000u	/* the opcode and rt: a load into rt, any base */
#define MIPS_OP_RS_RT_MASK	0xffff0000u	/* all but the immediate */
#define MIPS_IMM(v)		((uint32_t)(v) & 0xffffu)

enum mips_op {
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

enum mips_reg { MIPS_T9 = 25, MIPS_SP = 29, MIPS_RA = 31 };

#define MIPS_NOP		0x00000000u
#define MIPS_JAL		MIPS_I(MIPS_OP_JAL, 0, 0)
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

/* MIPS code is in the data's byte order: for the runtime and the patcher, the host's. */
#define MIPS_HOST_BE		(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

#endif
