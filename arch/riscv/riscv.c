// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RISC-V 64.  The call is the `auipc ra; jalr ra` pair with R_RISCV_CALL(_PLT)
 * on the auipc.  The linker relaxes code (the pair can shrink to `jal`, other
 * code before the site can shrink too) and keeps only symbols right, so every
 * site gets a local symbol of its own.
 */
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/riscv/args_riscv64.h"
#include "arch/riscv/insn.h"

static const char *const riscv_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

/* The call's auipc links through ra: `tail _mcount` (auipc t1; jr t1) is a jump, not a site. */
#define AUIPC		U32M(RV_AUIPC_RA, RV_OPCODE_RD)
#define NOP		U32(RV_NOP)

static bool riscv_jal(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < 4)
		return false;
	*to = pc + (uint64_t)rv_j_offset(insn_load(code, 4, be));
	return true;
}

/* auipc ra, hi20; jalr ra, lo12(ra): the pair the linker did not relax. */
static bool riscv_auipc_jalr(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t hi, lo;

	if (avail < 8)
		return false;
	hi = insn_load(code, 4, be);
	lo = insn_load(code + 4, 4, be);
	*to = pc + (uint64_t)rv_u_offset(hi) + (uint64_t)rv_i_offset(lo);
	return true;
}

static const struct call_decoder riscv_decoders[] = {
	{ .insn = PAT(U32M(RV_JAL_RA, RV_OPCODE_RD)), .target = riscv_jal, .len = 4 },
	{ .insn = PAT(U32M(RV_AUIPC_RA, RV_OPCODE_RD), U32M(RV_JALR_RA_RA, RV_I_FIELDS)), .target = riscv_auipc_jalr, .len = 8 },
	{ .insn = PAT(U32M(RV_JAL, RV_OPCODE_RD)), .target = riscv_jal, .len = 4, .ref = true },	/* j */
};

static const struct call_form riscv_calls[] = {
	{ .rtype = R_RISCV_CALL_PLT, .site_adjust = 0, .site = PAT(AUIPC), .nop = PAT(NOP, NOP) },
	{ .rtype = R_RISCV_CALL, .site_adjust = 0, .site = PAT(AUIPC), .nop = PAT(NOP, NOP) },
};

/* nop and c.nop */
static const struct insn_pattern riscv_pad_nops[] = { PAT(NOP), PAT(U16(0x0001)) };

const struct arch arch_riscv64 = {
	.name = "riscv64",
	.machine = EM_RISCV,
	.elfclass = ELFCLASS64,
	.hooks = riscv_hooks,
	.calls = riscv_calls,
	.ncalls = ARRAY_SIZE(riscv_calls),
	.pad_nops = riscv_pad_nops,
	.npad_nops = ARRAY_SIZE(riscv_pad_nops),
	.reloc_abs = R_RISCV_64,
	.reloc_abs32 = R_RISCV_32,
	.reloc_rel32 = R_RISCV_32_PCREL,
	.reloc_none = R_RISCV_NONE,
	.reloc_relative = R_RISCV_RELATIVE,
	.site_symbols = true,
	.decoders = riscv_decoders,
	.ndecoders = ARRAY_SIZE(riscv_decoders),
	/* After the prologue's stack adjustment and register saves. */
	.hook_window = 96,
	.insn_align = 2,
	/* LP64D: structs of up to 16 bytes, and long double (binary128), in a0:a1 */
	.values = { .struct_regs = 2, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 113 },
	.place_args = arg_place_riscv64,
	.ret_by_address = arg_ret_by_address_riscv64,
	.cc = { "-pg", "-pg" },
};
