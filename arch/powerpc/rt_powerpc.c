// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The PowerPC runtime ports' shared part (rt_powerpc.h): every port's site
 * is one `bl` word (patch_powerpc.h), and the two 64-bit ABIs enter their
 * trampolines through the same stub; what differs between ELFv1 (ppc64)
 * and ELFv2 (ppc64le) is where the linker's TOC restore after a site
 * loads from, which the compiler's _CALL_ELF says.
 */
#include <string.h>
#include <sys/auxv.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/powerpc/insn.h"
#include "arch/powerpc/rt_powerpc.h"

static bool branch_to(uint8_t *code, uintptr_t from, uintptr_t to, uint32_t op)
{
	intptr_t d = (intptr_t)(to - from);

	if ((d & 3) || d < -(intptr_t)PPC_BRANCH_REACH || d >= (intptr_t)PPC_BRANCH_REACH)
		return false;
	insn_store(code, 4, ppc_branch(op, d), PPC_CODE_BE);
	return true;
}

bool ppc_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	return len == 4 && branch_to(code, site, stub, PPC_BL);
}

#ifdef __powerpc64__
#define MFLR_R0		0x7c0802a6u
#define MFLR_R12	0x7d8802a6u
#define LD_R12_0_R12	0xe98c0000u	/* ld r12,0(r12) */
#define MTLR_R0		0x7c0803a6u
#define MTCTR_R12	0x7d8903a6u
#define BCTR		0x4e800420u
#define TRAP		0x7fe00008u	/* tw 31,0,0: never reached, fills the tail */
/*
 * The linker's TOC restore after a call through a PLT stub, from the TOC
 * save word of the ABI's frame: ld r2,40(r1) in ELFv1, ld r2,24(r1) in
 * ELFv2.
 */
#if _CALL_ELF == 2
#define LD_R2_TOCSAVE	0xe8410018u
#else
#define LD_R2_TOCSAVE	0xe8410028u
#endif

/*
 * The stubs' shared tail: in the stub page (make_stubs() maps one page per
 * module and puts its stubs, SITE_KINDS x CAPTURES x STUB_SIZE bytes, at
 * its start), at a fixed offset past them, so each stub finds it.
 */
#define TAIL_OFFSET	0x400u
#define TAIL_WORDS	6
_Static_assert(SITE_KINDS * CAPTURES * STUB_SIZE <= TAIL_OFFSET, "the stubs would overlap their tail");

/*
 * A stub is `mflr r0; bl tail; .quad target`, and the tail (one per page)
 * `mflr r12; ld r12,0(r12); mtlr r0; mtctr r12; bctr`: the `bl` leaves the
 * address of the stub's target word in LR, r0 keeps the site's return
 * address, and the trampoline is entered with LR = site + 4 as if the site
 * had called it, and with r12 = its own address, from which it computes
 * its TOC pointer (rt_ppc64.S; in ELFv2 that is what a global entry point
 * does).  r0, r12, LR and CTR are free at a site: it is a call.  Sixteen
 * bytes cannot hold a 64-bit address load and its branch, hence the tail.
 */
void ppc64_encode_stub(uint8_t *stub, uintptr_t target)
{
	static const uint32_t tail[TAIL_WORDS] = { MFLR_R12, LD_R12_0_R12, MTLR_R0, MTCTR_R12, BCTR, TRAP };
	uint8_t *page = (uint8_t *)((uintptr_t)stub & ~(uintptr_t)0xfff);

	for (int i = 0; i < TAIL_WORDS; i++)
		insn_store(page + TAIL_OFFSET + 4 * i, 4, tail[i], PPC_CODE_BE);
	insn_store(stub, 4, MFLR_R0, PPC_CODE_BE);
	branch_to(stub + 4, (uintptr_t)stub + 4, (uintptr_t)page + TAIL_OFFSET, PPC_BL);
	memcpy(stub + 8, &target, sizeof(target));
}

/*
 * When the linker sent a site's call to _mcount through a PLT stub (libc's),
 * the `nop` after it became the TOC restore: the PLT stub saved r2 in the
 * frame's TOC save word, and a plain NOP at the site would leave the
 * restore to load a word nobody stored.  Such a site's disabled form is
 * `b .+8`, which jumps over the restore, as the kernel's ftrace does for
 * modules; its enabled form `bl stub` is fine either way, since the entry
 * trampoline stores r2 where the restore looks.  NULL: the recorder's NOP.
 * The word after a site is code of the same function: its return comes
 * after the hook call.
 */
const uint8_t *ppc64_site_nop(uintptr_t site, size_t len)
{
#if PPC_CODE_BE
	static const uint8_t b8[4] = { PPC_B_PLUS_8 >> 24, (PPC_B_PLUS_8 >> 16) & 0xff, (PPC_B_PLUS_8 >> 8) & 0xff,
				       PPC_B_PLUS_8 & 0xff };
#else
	static const uint8_t b8[4] = { LE32_BYTES(PPC_B_PLUS_8) };
#endif

	return len == 4 && insn_load((const uint8_t *)site + 4, 4, PPC_CODE_BE) == LD_R2_TOCSAVE ? b8 : NULL;
}
#endif

#if defined(__powerpc64__) && _CALL_ELF != 2
int rt_ppc64_vmx;
#endif

/*
 * The time base: readable from user space (on 32-bit, mftbu/mftb, read
 * again when the upper half moved), a constant rate on POWER8 and later
 * (512 MHz; qemu emulates it from the host's clock); rt_output.c
 * calibrates it against CLOCK_MONOTONIC.
 */
void rt_timestamp_init(void)
{
#if defined(__powerpc64__) && _CALL_ELF != 2
	/* The port's one call before any site is enabled: what rt_ppc64.S's return trampoline asks. */
	rt_ppc64_vmx = (getauxval(AT_HWCAP) & PPC_FEATURE_HAS_ALTIVEC) != 0;
#endif
}

uint64_t rt_timestamp(void)
{
	return __builtin_ppc_get_timebase();
}
