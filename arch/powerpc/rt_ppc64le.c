// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's ppc64le (ELFv2) part: where the hook finds the arguments.
 * A site is gcc's or clang's `bl _mcount` (after the prologue) or the NOP
 * recordmcount --nop left; the enabled form is `bl stub`, so the stub page
 * must lie within the +-32 MiB a `bl` reaches.  The stub, the `b .+8`
 * over a linker's TOC restore and the timestamps are shared with ppc64
 * (rt_powerpc.c), the trampolines too (rt_ppc64.S).
 */
#include <elf.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/powerpc/insn.h"
#include "arch/powerpc/rt_powerpc.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
/* No entry-hook sites on ppc64le (-mprofile-kernel is the kernel's): never used. */
RT_ENTRIES(fentry)

const struct rt_arch rt_arch_host = {
	.desc = &arch_ppc64le,
	.encode_call = ppc_encode_call,
	.encode_stub = ppc64_encode_stub,
	.reach = PPC_STUB_REACH,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount) },
	/*
	 * rt_ppc64.S's frame: r3-r10 from 32, f1-f13 from 96.  gcc and
	 * clang call _mcount after the prologue as an ordinary call: both
	 * copy the arguments to non-volatile registers first and may reuse
	 * r3-r10 and f0-f13 before the call (gcc -O2's mixed() in
	 * testdata/args overwrites r9 with an address), so the registers
	 * print "?".  The stack arguments are sure: the slot is the LR save
	 * word at the caller's r1 + 16 (the traced function's back chain
	 * gives it), and the parameter save area starts at the caller's
	 * r1 + 32, with doubleword k (the ninth argument's is 8) at + 8k.
	 */
	.arg_regs = { .gpr = { 32, 40, 48, 56, 64, 72, 80, 88 }, .fpr = 96, .fpr_stride = 8,
		      .stack_from_slot = { [SITE_MCOUNT] = 16 },
		      .unknown = { [SITE_MCOUNT] = ARGS_NO_REGS } },
	.site_nop = ppc64_site_nop,
	.slot_above_sp = 16,
};
