// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * 32-bit ARM, ARM and Thumb-2 code.  gcc emits `push {lr}; bl
 * __gnu_mcount_nc` (the callee pops lr), clang `bl mcount`.  The push goes
 * with the call when it is replaced, or the stack would be unbalanced.
 */
#include "arch.h"

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

const struct arch arch_arm = {
	.name = "arm",
	.machine = EM_ARM,
	.elfclass = ELFCLASS32,
	.hooks = arm_hooks,
	.calls = arm_calls,
	.ncalls = ARRAY_SIZE(arm_calls),
	.reloc_abs = R_ARM_ABS32,
	.reloc_abs32 = R_ARM_ABS32,
	.reloc_rel32 = R_ARM_REL32,
	.reloc_none = R_ARM_NONE,
	.func_symbol_mask = ~(uint64_t)1,
};
