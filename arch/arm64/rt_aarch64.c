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

RT_ENTRIES(mcount)
/* The entry of a -fpatchable-function-entry pad: `mov x9, x30; bl stub` (aarch64.S). */
RT_ENTRIES(fentry)

#define BL		0x94000000u
#define BL_IMM		0x03ffffffu
#define LDR_X16_PC8	0x58000050u	/* ldr x16, .+8 */
#define BR_X16		0xd61f0200u
#define BRK		0xd4200000u	/* brk #0: never reached, fills the stub */
#define BL_REACH	((uintptr_t)1 << 27)

static void put32(uint8_t *p, uint32_t insn)
{
	/* Instructions are little-endian even on big-endian AArch64. */
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(insn >> (8 * i));
}

static bool a64_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	intptr_t d = (intptr_t)(stub - site);

	if (len != 4 || (d & 3) || d < -(intptr_t)BL_REACH || d >= (intptr_t)BL_REACH)
		return false;
	put32(code, BL | ((uint32_t)(d >> 2) & BL_IMM));
	return true;
}

static void a64_encode_stub(uint8_t *stub, uintptr_t target)
{
	put32(stub, LDR_X16_PC8);
	put32(stub + 4, BR_X16);
	memcpy(stub + 8, &target, sizeof(target));
}

const struct rt_arch rt_arch_host = {
	.machine = EM_AARCH64,
	.elfclass = ELFCLASS64,
	.encode_call = a64_encode_call,
	.encode_stub = a64_encode_stub,
	/* make_stubs() measures from the farthest site to the far end of the stub page. */
	.reach = BL_REACH - 4096,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	/* The kernel's form: the pad's first NOP becomes `mov x9, x30`, the second the `bl`. */
	.pad_site_len = 4,
	.pad_site_offset = 4,
	.pad_prefix_len = 4,
	.pad_prefix = { 0xe9, 0x03, 0x1e, 0xaa },
	/* PADENTRY's copy of x9 is 16 bytes below the function's entry sp. */
	.slot_copy_above = 16,
	/* long double is IEEE binary128, returned in q0. */
	.wide_in_fpr0 = true,
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
