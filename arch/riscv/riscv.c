// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RISC-V 64.  The call is the `auipc ra; jalr ra` pair with R_RISCV_CALL(_PLT)
 * on the auipc.  The linker relaxes code (the pair can shrink to `jal`, other
 * code before the site can shrink too) and keeps only symbols right, so every
 * site gets a local symbol of its own.
 */
#include "arch/arch.h"

static const char *const riscv_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

#define AUIPC		WM(0x00000017, 0x0000007f)
#define RISCV_NOP	W(0x00000013)

/* jal ra: imm[20|10:1|11|19:12]. */
static bool riscv_jal(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t w, imm;

	if (avail < 4)
		return false;
	w = insn_load(code, 4, be);
	imm = (w >> 31) << 20 | ((w >> 21) & 0x3ff) << 1 | ((w >> 20) & 1) << 11 | ((w >> 12) & 0xff) << 12;
	*to = pc + (uint64_t)insn_sext(imm, 21);
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
	*to = pc + (uint64_t)insn_sext(hi & 0xfffff000, 32) + (uint64_t)insn_sext(lo >> 20, 12);
	return true;
}

static const struct call_decoder riscv_decoders[] = {
	{ .insn = PAT(WM(0x000000ef, 0x00000fff)), .target = riscv_jal, .len = 4 },
	{ .insn = PAT(WM(0x00000097, 0x00000fff), WM(0x000080e7, 0x000fffff)), .target = riscv_auipc_jalr, .len = 8 },
};

static const struct call_form riscv_calls[] = {
	{ .rtype = R_RISCV_CALL_PLT, .site_adjust = 0, .site = PAT(AUIPC), .nop = PAT(RISCV_NOP, RISCV_NOP) },
	{ .rtype = R_RISCV_CALL, .site_adjust = 0, .site = PAT(AUIPC), .nop = PAT(RISCV_NOP, RISCV_NOP) },
};

/* nop (addi x0, x0, 0) and c.nop */
static const struct insn_pattern riscv_pad_nops[] = { PAT(W(0x00000013)), PAT(H(0x0001)) };

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
};
