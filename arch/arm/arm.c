// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 32-bit ARM, ARM and Thumb-2 code.  gcc emits `push {lr}; bl
 * __gnu_mcount_nc` (the callee pops lr), clang `bl mcount`.  The push goes
 * with the call when it is replaced, or the stack would be unbalanced.
 */
#include "arch/arch.h"
#include "arch/arm/arm.h"
#include "arch/arm/args_arm.h"
#include "arch/arm/insn.h"
#include "arch/pattern.h"

static const char *const arm_hooks[] = { "__gnu_mcount_nc", "mcount", "__fentry__", NULL };

#define ARM_BL_PAT	U32M(ARM_BL, ARM_BL_MASK)
#define THUMB_BL_PAT	U16M(T32_BL_HI, T32_BL_HI_MASK), U16M(T32_BL_LO, T32_BL_LO_MASK)

static const struct call_form arm_calls[ARM_FORMS] = {
	[ARM_FORM_BL] = { .rtype = R_ARM_CALL, .site_adjust = 0, .site = PAT(ARM_BL_PAT), .nop = PAT(U32(ARM_NOP)),
			  .prefix = PAT(U32(ARM_PUSH_LR)), .prefix_nop = PAT(U32(ARM_NOP)) },
	[ARM_FORM_BL_PC24] = { .rtype = R_ARM_PC24, .site_adjust = 0, .site = PAT(ARM_BL_PAT), .nop = PAT(U32(ARM_NOP)),
			       .prefix = PAT(U32(ARM_PUSH_LR)), .prefix_nop = PAT(U32(ARM_NOP)) },
	/* R_ARM_THM_CALL, named THM_PC22 in <elf.h> */
	[ARM_FORM_THUMB_BL] = { .rtype = R_ARM_THM_PC22, .site_adjust = 0, .site = PAT(THUMB_BL_PAT),
				.nop = PAT(U16(T32_NOP), U16(T32_NOP)),
				.prefix = PAT(U16(T32_PUSH_LR)), .prefix_nop = PAT(U16(T32_NOP)) },
};

static bool arm_bl_decode(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < 4)
		return false;
	*to = pc + ARM_PC_BIAS + (uint64_t)arm_bl_offset(insn_load(code, 4, be));
	return true;
}

/*
 * Thumb-2 bl/blx: S:I1:I2:imm10:imm11:0 with I = !(J ^ S), relative to the
 * instruction + 4; blx (bit 12 clear) goes to ARM code from the aligned pc.
 */
static bool thumb_bl_decode(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t hi, lo, s, i1, i2, imm;

	if (avail < 4)
		return false;
	hi = insn_load(code, 2, be);
	lo = insn_load(code + 2, 2, be);
	s = !!(hi & T32_BL_S);
	i1 = !(((lo >> 13) & 1) ^ s);
	i2 = !(((lo >> 11) & 1) ^ s);
	imm = s << 24 | i1 << 23 | i2 << 22 | (hi & T32_BL_IMM10) << 12 | (lo & 0x7ff) << 1;
	*to = pc + T32_PC_BIAS + (uint64_t)insn_sext(imm, 25);
	if (!(lo & 0x1000))
		*to = ((pc + T32_PC_BIAS) & ~(uint64_t)3) + (uint64_t)insn_sext(imm, 25);
	return true;
}

static const struct call_decoder arm_decoders[] = {
	{ .insn = PAT(ARM_BL_PAT), .target = arm_bl_decode, .len = 4 },
	{ .insn = PAT(U32M(ARM_BLX, ARM_BLX_MASK)), .target = arm_bl_decode, .len = 4 },
	{ .insn = PAT(THUMB_BL_PAT), .target = thumb_bl_decode, .len = 4 },
	{ .insn = PAT(U32M(ARM_B, ARM_BL_MASK)), .target = arm_bl_decode, .len = 4, .ref = true },
};

static const struct insn_pattern arm_pad_nops[] = {
	PAT(U16(T32_NOP)),
	PAT(U16(0x46c0)),		/* Thumb mov r8, r8 */
	PAT(U32(ARM_NOP)),
	PAT(U32(0xe320f000)),	/* nop */
};

const struct arch arch_arm = {
	.name = "arm",
	.machine = EM_ARM,
	.elfclass = ELFCLASS32,
	.hooks = arm_hooks,
	.calls = arm_calls,
	.ncalls = ARM_FORMS,
	.pad_nops = arm_pad_nops,
	.npad_nops = ARRAY_SIZE(arm_pad_nops),
	.reloc_abs = R_ARM_ABS32,
	.reloc_abs32 = R_ARM_ABS32,
	.reloc_rel32 = R_ARM_REL32,
	.reloc_none = R_ARM_NONE,
	.reloc_relative = R_ARM_RELATIVE,
	.func_symbol_mask = ~(uint64_t)1,
	.decoders = arm_decoders,
	.ndecoders = ARRAY_SIZE(arm_decoders),
	/* After the prologue's push and frame setup; Thumb code is halfword-aligned. */
	.hook_window = 64,
	.insn_align = 2,
	/* AAPCS: structs of one word in r0; long double is a double */
	.values = { .struct_regs = 1, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 53 },
	.place_args = arg_place_arm,
	.ret_by_address = arg_ret_by_address_arm,
	.place_args_variadic = arg_place_arm_variadic,
	.cc = { "-pg", "-pg" },
};
