// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's ppc64 (ELFv1, big-endian) part: where the hook finds the
 * arguments.  gcc and clang call _mcount after the prologue, `bl _mcount;
 * nop` as on ppc64le, and the linker's TOC restore after a call through a
 * PLT stub is `ld r2,40(r1)`; the stub, the `b .+8` over that restore and
 * the timestamps are shared with ppc64le (rt_powerpc.c), the trampolines
 * too (rt_ppc64.S).  What ELFv1 changes: function symbols name
 * descriptors (the trampolines are plain code, never called through one,
 * and compute their TOC pointer themselves), the frame (a 48-byte
 * linkage area, and every caller gives a 64-byte parameter save area),
 * and that every struct comes back in memory whose address the caller
 * passes in r3: the CAPTURE_MEMORY trampolines keep r3 from the entry.
 */
#include <elf.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/powerpc/insn.h"
#include "arch/powerpc/rt_powerpc.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_MEM(mcount)
/* No entry-hook sites on ppc64 (-mprofile-kernel is the kernel's): never used. */
RT_ENTRIES(fentry)

const struct rt_arch rt_arch_host = {
	.desc = &arch_ppc64,
	.encode_call = ppc_encode_call,
	.encode_stub = ppc64_encode_stub,
	.reach = PPC_STUB_REACH,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW_MEM(mcount) },
	/*
	 * rt_ppc64.S's frame: r3-r10 from 112, f1-f13 from 176.  As on
	 * ppc64le the hook is an ordinary call after the prologue, before
	 * which the compilers may reuse argument registers: they print "?".
	 * The slot is the LR save word at the caller's r1 + 16, and the
	 * caller's parameter save area starts at its r1 + 48: 32 bytes above
	 * the slot, with doubleword k at + 8k.
	 */
	.arg_regs = { .gpr = { 112, 120, 128, 136, 144, 152, 160, 168 }, .fpr = 176, .fpr_stride = 8,
		      .stack_from_slot = { [SITE_MCOUNT] = 32 },
		      .unknown = { [SITE_MCOUNT] = ARGS_NO_REGS } },
	.site_nop = ppc64_site_nop,
	.slot_above_sp = 16,
};
