// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's ppc part (32-bit SysV, big-endian): the stub near each
 * module, and where the hook finds the arguments (the enabled form and
 * the timestamps are the family's: rt_powerpc.c).
 *
 * A site is gcc's `bl _mcount`, which -pg puts first in a function, before
 * its prologue: `mflr r0; stw r0,4(r1); bl _mcount`, or clang's, after
 * its prologue.  The traced function's return address is in the LR save
 * word of its caller's frame, 4 bytes above the entry r1: the slot
 * (rt_ppc.S).  The enabled form
 * is `bl stub`, so the stub page must lie within the +-32 MiB a `bl`
 * reaches; the disabled form is the recorder's nop.  nop and bl are both
 * "patch class" instructions (Power ISA, Book II, "concurrent modification
 * and execution of instructions"): another thread running the word while
 * it changes sees the old or the new one (patch_powerpc.h).
 */
#include <elf.h>
#include <string.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/powerpc/insn.h"
#include "arch/powerpc/rt_powerpc.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_MEM(mcount)
/* No entry-hook sites on ppc (gcc has no -mfentry there): never used. */
RT_ENTRIES(fentry)

#define LIS_R12		0x3d800000u	/* addis r12,0,hi */
#define ADDI_R12_R12	0x398c0000u	/* addi r12,r12,lo */
#define MTCTR_R12	0x7d8903a6u
#define BCTR		0x4e800420u

/*
 * A stub is `lis r12,target@ha; addi r12,r12,target@l; mtctr r12; bctr`:
 * LR stays the site's + 4, as if the site had called the trampoline.  r12
 * and CTR are free at a site: it is a call, and a PLT call stub would
 * clobber them too.
 */
static void ppc_encode_stub(uint8_t *stub, uintptr_t target)
{
	uint32_t lo = target & 0xffffu, ha = ((target + 0x8000u) >> 16) & 0xffffu;

	insn_store(stub, 4, LIS_R12 | ha, true);
	insn_store(stub + 4, 4, ADDI_R12_R12 | lo, true);
	insn_store(stub + 8, 4, MTCTR_R12, true);
	insn_store(stub + 12, 4, BCTR, true);
}

#define STW_R0_4_R1	0x90010004u	/* stw r0,4(r1): gcc's word before its site (rt_ppc.S) */

/*
 * gcc's site comes before the prologue, with the arguments in their
 * registers; clang's after it, as an ordinary call that may have reused
 * them: they print "?".  Both leave the stack arguments above the slot.
 */
static uint8_t ppc_unknown_at(uintptr_t site, size_t len, unsigned kind)
{
	(void)len;
	(void)kind;
	return insn_load((const uint8_t *)site - 4, 4, true) == STW_R0_4_R1 ? 0 : ARGS_NO_REGS;
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_ppc32,
	.encode_call = ppc_encode_call,
	.encode_stub = ppc_encode_stub,
	.reach = PPC_STUB_REACH,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW_MEM(mcount) },
	/*
	 * rt_ppc.S's frame: r3-r10 from 16, f1-f8 from 48.  The hook runs
	 * before the prologue, with every argument where the call left it:
	 * gcc keeps using r3-r10 and f1-f8 after it, since a profiling hook
	 * keeps them.  The slot is the entry r1 + 4, and the caller's
	 * parameter area starts at its r1 + 8: 4 bytes above the slot.
	 */
	.arg_regs = { .gpr = { 16, 20, 24, 28, 32, 36, 40, 44 }, .fpr = 48, .fpr_stride = 8,
		      .stack_from_slot = { [SITE_MCOUNT] = 4 }, .unknown_at = ppc_unknown_at },
	.slot_above_sp = 4,
};
