// SPDX-License-Identifier: LGPL-2.1-or-later
/* AArch64: `bl _mcount` after `mov x0, x30`; the mov is harmless alone. */
#include "arch/arch.h"
#include "arch/arm64/args_arm64.h"
#include "arch/arm64/insn.h"
#include "arch/pattern.h"

static const char *const arm64_hooks[] = { "_mcount", "__fentry__", NULL };

#define BL	U32M(A64_BL, A64_BL_MASK)

static const struct call_form arm64_calls[] = {
	{ .rtype = R_AARCH64_CALL26, .site_adjust = 0, .site = PAT(BL), .nop = PAT(U32(A64_NOP)) },
};

static bool arm64_bl(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < 4)
		return false;
	*to = pc + (uint64_t)a64_bl_offset(insn_load(code, 4, be));
	return true;
}

static const struct call_decoder arm64_decoders[] = {
	{ .insn = PAT(BL), .target = arm64_bl, .len = 4 },
	{ .insn = PAT(U32M(A64_B, A64_BL_MASK)), .target = arm64_bl, .len = 4, .ref = true },
};

static const struct insn_pattern arm64_pad_nops[] = { PAT(U32(A64_NOP)) };
/* The kernel's ftrace writes `mov x9, x30` before the `bl`. */
static const struct insn_pattern arm64_pad_patched[] = { PAT(U32(A64_MOV_X9_X30)) };
/* bti c, j, jc */
static const struct insn_pattern arm64_landing_pads[] = { PAT(U32M(0xd503241f, 0xffffff3f)) };

#define ARM64_CC_FORM "-fpatchable-function-entry=2 -fno-omit-frame-pointer"

const struct arch arch_aarch64 = {
	.name = "aarch64",
	.machine = EM_AARCH64,
	.elfclass = ELFCLASS64,
	.hooks = arm64_hooks,
	.calls = arm64_calls,
	.ncalls = ARRAY_SIZE(arm64_calls),
	.pad_nops = arm64_pad_nops,
	.npad_nops = ARRAY_SIZE(arm64_pad_nops),
	.pad_patched = arm64_pad_patched,
	.npad_patched = ARRAY_SIZE(arm64_pad_patched),
	.landing_pads = arm64_landing_pads,
	.nlanding_pads = ARRAY_SIZE(arm64_landing_pads),
	.reloc_abs = R_AARCH64_ABS64,
	.reloc_abs32 = R_AARCH64_ABS32,
	.reloc_rel32 = R_AARCH64_PREL32,
	.reloc_none = R_AARCH64_NONE,
	.reloc_relative = R_AARCH64_RELATIVE,
	.code_always_le = true,
	.decoders = arm64_decoders,
	.ndecoders = ARRAY_SIZE(arm64_decoders),
	/* After `bti c`, the frame record's stp, `mov x29, sp` and `mov x0, x30`. */
	.hook_window = 64,
	.insn_align = 4,
	/* AAPCS64: structs of up to 16 bytes in x0:x1, HFAs in v0-v3; long double in q0 */
	.values = { .struct_regs = 2, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 113,
		    .wide_in_fpr0 = true, .struct_fp = STRUCT_FP_HFA },
	.place_args = arg_place_aarch64,
	/* the runtime's `mov x9, x30` first, then the `bl` it toggles */
	.pad_site_len = 4,
	.pad_site_offset = 4,
	/*
	 * objpatch-cc: the kernel's ftrace pads; C++ exceptions through pad
	 * frames need frame pointers (docs/architectures.md).
	 */
	.cc = { ARM64_CC_FORM, ARM64_CC_FORM },
};
