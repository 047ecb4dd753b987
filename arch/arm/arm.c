// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 32-bit ARM, ARM and Thumb-2 code.  gcc emits `push {lr}; bl
 * __gnu_mcount_nc` (the callee pops lr), clang `bl mcount`.  The push goes
 * with the call when it is replaced, or the stack would be unbalanced.
 */
#include "arch/arch.h"

static const char *const arm_hooks[] = { "__gnu_mcount_nc", "mcount", "__fentry__", NULL };

#define ARM_NOP W(0xe1a00000)			/* mov r0, r0 */
#define THUMB_NOP H(0xbf00)

static const struct call_form arm_calls[] = {
	/* bl (cond AL): 0xeb, imm24 */
	{ .rtype = R_ARM_CALL, .site_adjust = 0, .site = PAT(WM(0xeb000000, 0xff000000)), .nop = PAT(ARM_NOP),
	  .prefix = PAT(W(0xe52de004)), .prefix_nop = PAT(ARM_NOP) },
	{ .rtype = R_ARM_PC24, .site_adjust = 0, .site = PAT(WM(0xeb000000, 0xff000000)), .nop = PAT(ARM_NOP),
	  .prefix = PAT(W(0xe52de004)), .prefix_nop = PAT(ARM_NOP) },
	/* Thumb bl/blx (R_ARM_THM_CALL, named THM_PC22 in <elf.h>): 11110... 11x1... */
	{ .rtype = R_ARM_THM_PC22, .site_adjust = 0, .site = PAT(HM(0xf000, 0xf800), HM(0xc000, 0xc000)),
	  .nop = PAT(THUMB_NOP, THUMB_NOP),
	  .prefix = PAT(H(0xb500)), .prefix_nop = PAT(THUMB_NOP) },
};

/* ARM bl/blx imm24: relative to the instruction + 8; blx's H bit adds a halfword. */
static bool arm_bl(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t w;

	if (avail < 4)
		return false;
	w = insn_load(code, 4, be);
	*to = pc + 8 + (uint64_t)(insn_sext(w & 0xffffff, 24) * 4);
	if ((w & 0xfe000000) == 0xfa000000)
		*to += (w >> 23) & 2;
	return true;
}

/*
 * Thumb-2 bl/blx: S:I1:I2:imm10:imm11:0 with I = !(J ^ S), relative to the
 * instruction + 4; blx (bit 12 clear) goes to ARM code from the aligned pc.
 */
static bool thumb_bl(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t hi, lo, s, i1, i2, imm;

	if (avail < 4)
		return false;
	hi = insn_load(code, 2, be);
	lo = insn_load(code + 2, 2, be);
	s = (hi >> 10) & 1;
	i1 = !(((lo >> 13) & 1) ^ s);
	i2 = !(((lo >> 11) & 1) ^ s);
	imm = s << 24 | i1 << 23 | i2 << 22 | (hi & 0x3ff) << 12 | (lo & 0x7ff) << 1;
	*to = pc + 4 + (uint64_t)insn_sext(imm, 25);
	if (!(lo & 0x1000))
		*to = ((pc + 4) & ~(uint64_t)3) + (uint64_t)insn_sext(imm, 25);
	return true;
}

static const struct call_decoder arm_decoders[] = {
	{ .insn = PAT(WM(0xeb000000, 0xff000000)), .target = arm_bl, .len = 4 },
	{ .insn = PAT(WM(0xfa000000, 0xfe000000)), .target = arm_bl, .len = 4 },
	{ .insn = PAT(HM(0xf000, 0xf800), HM(0xc000, 0xc000)), .target = thumb_bl, .len = 4 },
};

static const struct insn_pattern arm_pad_nops[] = {
	PAT(H(0xbf00)),		/* Thumb nop */
	PAT(H(0x46c0)),		/* Thumb mov r8, r8 */
	PAT(W(0xe1a00000)),	/* mov r0, r0 */
	PAT(W(0xe320f000)),	/* nop */
};

const struct arch arch_arm = {
	.name = "arm",
	.machine = EM_ARM,
	.elfclass = ELFCLASS32,
	.hooks = arm_hooks,
	.calls = arm_calls,
	.ncalls = ARRAY_SIZE(arm_calls),
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
};
