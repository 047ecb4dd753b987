// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's AArch64 part: how an enabled site calls its trampoline, the
 * stub near each module, timestamps and return-value capture.
 *
 * A site is `bl _mcount` (4 bytes) or the NOP recordmcount --nop left; the
 * enabled form is `bl stub`, so the stub page must lie within the +-128 MiB
 * a BL reaches.  The stub loads the trampoline's address from the word after
 * it into x16 (IP0: the linker's veneers may clobber it at any call, so no
 * caller keeps anything there) and branches.  NOP and BL are both in the
 * architecture's short list of instructions that may be rewritten while
 * another core executes them (ARM ARM, "concurrent modification and
 * execution of instructions"), which is what lets patch.c write one word.
 *
 * A -fpatchable-function-entry=2 pad is traced the way the kernel's ftrace
 * does it: its first NOP becomes `mov x9, x30` for good (at start-up; x9
 * is a scratch register at a function's entry), its second NOP <-> `bl stub`.
 */
#include <elf.h>
#include <string.h>
#include "arch/port.h"
#include "arch/arm64/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
/* The entry of a -fpatchable-function-entry pad: `mov x9, x30; bl stub` (rt_aarch64.S). */
RT_ENTRIES(fentry)
RT_ENTRIES_ARGS(fentry)

#define LDR_X16_PC8	0x58000050u	/* ldr x16, .+8 */
#define BR_X16		0xd61f0200u

static bool a64_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	intptr_t d = (intptr_t)(stub - site);

	if (len != 4 || (d & 3) || d < -(intptr_t)A64_BL_REACH || d >= (intptr_t)A64_BL_REACH)
		return false;
	insn_store(code, 4, a64_bl(d), false);
	return true;
}

static void a64_encode_stub(uint8_t *stub, uintptr_t target)
{
	insn_store(stub, 4, LDR_X16_PC8, false);
	insn_store(stub + 4, 4, BR_X16, false);
	memcpy(stub + 8, &target, sizeof(target));
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_aarch64,
	.encode_call = a64_encode_call,
	.encode_stub = a64_encode_stub,
	/* make_stubs() measures from the farthest site to the far end of the stub page. */
	.reach = A64_BL_REACH - 4096,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ARGS_ROW(fentry) },
	/*
	 * rt_aarch64.S's frame: x0-x7 from sp + 16, q0-q7 from sp + 96.  A
	 * pad's slot is our copy, 16 bytes below the function's entry sp,
	 * where its stack arguments start; _mcount's, after the prologue,
	 * is in a frame record of a size not known here, and gcc has moved
	 * the register arguments away (`mov x0, x30` before the call).
	 */
	.arg_regs = { .gpr = { 16, 24, 32, 40, 48, 56, 64, 72 }, .fpr = 96, .fpr_stride = 16,
		      .stack_from_slot = { [SITE_FENTRY] = 16 },
		      .unknown = { [SITE_MCOUNT] = ARGS_NO_REGS | ARGS_NO_STACK } },
	/* The kernel's form: the pad's first NOP becomes `mov x9, x30`, the second the `bl`. */
	.pad_prefix_len = 4,
	.pad_prefix = { LE32_BYTES(A64_MOV_X9_X30) },
	/* PADENTRY's copy of x9 is 16 bytes below the function's entry sp. */
	.slot_copy_above = 16,
};

/*
 * The generic timer's virtual count: readable from user space (Linux sets
 * CNTKCTL_EL1.EL0VCTEN), about as cheap as a load on hardware, and what the
 * vDSO's clock_gettime reads anyway.  Its rate (CNTFRQ_EL0) is 24 MHz to
 * 1 GHz depending on the SoC; rt_output.c calibrates ticks against
 * CLOCK_MONOTONIC, so only the resolution shows.  The ISB keeps the read
 * from being taken early, before the code it is meant to follow.
 */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	uint64_t t;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t) : : "memory");
	return t;
}
