/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RISC-V instructions more than one part knows: the recorder's
 * descriptor (riscv.c), the patcher's rules (patch_riscv64.h) and the
 * runtime port (rt_riscv64.c) take them from here, so the three always
 * agree on what a site holds.  Instructions are little-endian.
 */
#ifndef ARCH_RISCV_INSN_H
#define ARCH_RISCV_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"

/* Major opcodes, and the register fields an instruction is built from. */
#define RV_OP_IMM	0x13u	/* addi */
#define RV_OP_IMM_32	0x1bu	/* addiw */
#define RV_AUIPC	0x17u
#define RV_LUI		0x37u
#define RV_JALR		0x67u
#define RV_JAL		0x6fu
#define RV_OPCODE	0x0000007fu
#define RV_RD(r)	((uint32_t)(r) << 7)
#define RV_RS1(r)	((uint32_t)(r) << 15)
enum rv_reg { RV_ZERO = 0, RV_RA = 1, RV_T1 = 6, RV_A0 = 10 };
/* All but a U- or J-type's immediate (the opcode and rd); all but an I-type's. */
#define RV_OPCODE_RD	0x00000fffu
#define RV_I_FIELDS	0x000fffffu

#define RV_NOP		RV_OP_IMM	/* addi zero, zero, 0 */
/* The hook call: `jal ra` once the linker relaxed it, else `auipc ra; jalr ra, lo(ra)`. */
#define RV_JAL_RA	(RV_JAL | RV_RD(RV_RA))
#define RV_AUIPC_RA	(RV_AUIPC | RV_RD(RV_RA))
#define RV_JALR_RA_RA	(RV_JALR | RV_RD(RV_RA) | RV_RS1(RV_RA))
#define RV_JAL_REACH	((uintptr_t)1 << 20)	/* each way */

/* An I-type's immediate field, and back. */
static inline uint32_t rv_i_imm(int32_t v)
{
	return ((uint32_t)v & 0xfff) << 20;
}

static inline int64_t rv_i_offset(uint32_t w)
{
	return insn_sext(w >> 20, 12);
}

/* A U-type's immediate field (bits 31..12 of the value), and back. */
static inline uint32_t rv_u_imm(int64_t hi20)
{
	return ((uint32_t)hi20 & 0xfffff) << 12;
}

static inline int64_t rv_u_offset(uint32_t w)
{
	return insn_sext(w & 0xfffff000, 32);
}

/* The upper part of `d` for a U-type, which the I-type's signed 12 bits complete: d - hi20 * 4096. */
static inline int64_t rv_hi20(int64_t d)
{
	return (d + 2048) >> 12;
}

/* Does that upper part fit a U-type's 20 bits (auipc: within about +-2 GiB)? */
static inline bool rv_hi20_fits(int64_t hi20)
{
	return hi20 >= -(int64_t)0x80000 && hi20 < 0x80000;
}

/* jal's immediate field, imm[20|10:1|11|19:12], and back. */
static inline uint32_t rv_j_imm(int32_t v)
{
	uint32_t u = (uint32_t)v;

	return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12;
}

static inline int64_t rv_j_offset(uint32_t w)
{
	return insn_sext((w >> 31) << 20 | ((w >> 21) & 0x3ff) << 1 | ((w >> 20) & 1) << 11 | ((w >> 12) & 0xff) << 12,
			 21);
}

#endif
