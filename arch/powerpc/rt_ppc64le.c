// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's ppc64le (ELFv2) part: how an enabled site calls its
 * trampoline, the stub near each module, timestamps and return-value
 * capture.
 *
 * A site is gcc's or clang's `bl _mcount` (after the prologue) or the NOP
 * recordmcount --nop left; the enabled form is `bl stub`, so the stub page
 * must lie within the +-32 MiB a `bl` reaches.  When the linker sent the
 * call to _mcount through a PLT stub (libc's), the `nop` after it became
 * the TOC restore `ld r2,24(r1)`: the PLT stub saved r2 there, and a plain
 * NOP would leave the restore to load a word nobody stored.  Such a site's
 * disabled form is `b .+8`, which jumps over the restore, as the kernel's
 * ftrace does for modules; its enabled form `bl stub` is fine either way,
 * since the entry trampoline stores r2 where the restore looks (rt_ppc64le.S).
 * nop, b and bl are all "patch class" instructions (Power ISA v3.0, Book II,
 * "concurrent modification and execution of instructions"): another thread
 * running the word while it changes sees the old or the new one.
 */
#include <elf.h>
#include <string.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/powerpc/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
/* No entry-hook sites on ppc64le (-mprofile-kernel is the kernel's): never used. */
RT_ENTRIES(fentry)

#define LD_R2_24_R1	0xe8410018u	/* ld r2,24(r1): the linker's TOC restore */
#define MFLR_R0		0x7c0802a6u
#define MFLR_R12	0x7d8802a6u
#define LD_R12_0_R12	0xe98c0000u	/* ld r12,0(r12) */
#define MTLR_R0		0x7c0803a6u
#define MTCTR_R12	0x7d8903a6u
#define BCTR		0x4e800420u
#define TRAP		0x7fe00008u	/* tw 31,0,0: never reached, fills the tail */

/*
 * The stubs' shared tail: in the stub page (make_stubs() maps one page per
 * module and puts its stubs, SITE_KINDS x CAPTURES x STUB_SIZE = 192 bytes,
 * at its start), at a fixed offset past them, so each stub finds it.
 */
#define TAIL_OFFSET	0x400u
#define TAIL_WORDS	6
_Static_assert(SITE_KINDS * CAPTURES * STUB_SIZE <= TAIL_OFFSET, "the stubs would overlap their tail");

static bool branch_to(uint8_t *code, uintptr_t from, uintptr_t to, uint32_t op)
{
	intptr_t d = (intptr_t)(to - from);

	if ((d & 3) || d < -(intptr_t)PPC_BRANCH_REACH || d >= (intptr_t)PPC_BRANCH_REACH)
		return false;
	insn_store(code, 4, ppc_branch(op, d), false);
	return true;
}

static bool ppc_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	return len == 4 && branch_to(code, site, stub, PPC_BL);
}

/*
 * A stub is `mflr r0; bl tail; .quad target`, and the tail (one per page)
 * `mflr r12; ld r12,0(r12); mtlr r0; mtctr r12; bctr`: the `bl` leaves the
 * address of the stub's target word in LR, r0 keeps the site's return
 * address, and the trampoline is entered with LR = site + 4 as if the site
 * had called it, and with r12 = its own address, which is what an ELFv2
 * global entry point computes its TOC pointer from.  r0, r12, LR and CTR
 * are free at a site: it is a call.  Sixteen bytes cannot hold a 64-bit
 * address load and its branch, hence the tail.
 */
static void ppc_encode_stub(uint8_t *stub, uintptr_t target)
{
	static const uint32_t tail[TAIL_WORDS] = { MFLR_R12, LD_R12_0_R12, MTLR_R0, MTCTR_R12, BCTR, TRAP };
	uint8_t *page = (uint8_t *)((uintptr_t)stub & ~(uintptr_t)0xfff);

	for (int i = 0; i < TAIL_WORDS; i++)
		insn_store(page + TAIL_OFFSET + 4 * i, 4, tail[i], false);
	insn_store(stub, 4, MFLR_R0, false);
	branch_to(stub + 4, (uintptr_t)stub + 4, (uintptr_t)page + TAIL_OFFSET, PPC_BL);
	memcpy(stub + 8, &target, sizeof(target));
}

/*
 * `b .+8` over a linker's TOC restore (see the top); NULL: the recorder's
 * NOP.  The word after a site is code of the same function: its return
 * comes after the hook call.
 */
static const uint8_t *ppc_site_nop(uintptr_t site, size_t len)
{
	static const uint8_t b8[4] = { LE32_BYTES(PPC_B_PLUS_8) };

	return len == 4 && insn_load((const uint8_t *)site + 4, 4, false) == LD_R2_24_R1 ? b8 : NULL;
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_ppc64le,
	.encode_call = ppc_encode_call,
	.encode_stub = ppc_encode_stub,
	/* make_stubs() measures from the farthest site to the far end of the stub page. */
	.reach = PPC_BRANCH_REACH - 65536,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount) },
	/*
	 * rt_ppc64le.S's frame: r3-r10 from 32, f1-f13 from 96.  gcc and
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
	.site_nop = ppc_site_nop,
	.slot_above_sp = 16,
};

/*
 * The time base: readable from user space, a constant rate on POWER8 and
 * later (512 MHz; qemu emulates it from the host's clock); rt_output.c
 * calibrates it against CLOCK_MONOTONIC.
 */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	return __builtin_ppc_get_timebase();
}
