// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RISC-V 64.  The call is the `auipc ra; jalr ra` pair with R_RISCV_CALL(_PLT)
 * on the auipc.  The linker relaxes code (the pair can shrink to `jal`, other
 * code before the site can shrink too) and keeps only symbols right, so every
 * site gets a local symbol of its own.
 */
#include "arch.h"

static const char *const riscv_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

#define AUIPC		WM(0x00000017, 0x0000007f)
#define RISCV_NOP	W(0x00000013)

static const struct call_form riscv_calls[] = {
	{ .rtype = R_RISCV_CALL_PLT, .site_adjust = 0, .site = PAT(AUIPC), .nop = PAT(RISCV_NOP, RISCV_NOP) },
	{ .rtype = R_RISCV_CALL, .site_adjust = 0, .site = PAT(AUIPC), .nop = PAT(RISCV_NOP, RISCV_NOP) },
};

const struct arch arch_riscv64 = {
	.name = "riscv64",
	.machine = EM_RISCV,
	.elfclass = ELFCLASS64,
	.hooks = riscv_hooks,
	.calls = riscv_calls,
	.ncalls = ARRAY_SIZE(riscv_calls),
	.reloc_abs = R_RISCV_64,
	.reloc_abs32 = R_RISCV_32,
	.reloc_rel32 = R_RISCV_32_PCREL,
	.reloc_none = R_RISCV_NONE,
	.site_symbols = true,
};
