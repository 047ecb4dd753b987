/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ppc64 trampolines, for both 64-bit ABIs: ELFv1 (ppc64, big-endian) and
 * ELFv2 (ppc64le; rt_ppc64le.S is this file).  A site (`bl stub`) reaches a
 * stub near its module, which enters here with LR = r0 = the site + 4 and
 * r12 = our own address (rt_powerpc.c), like a call through an ELFv2
 * global entry point; ELFv1 has no such entry, but the trampolines are
 * plain code (no descriptor: nothing calls them through one) and compute
 * their TOC pointer from r12 in either ABI.
 *
 * Entry: gcc and clang call _mcount after the prologue (`mflr r0;
 * std r0,16(r1); stdu r1,-N(r1)`, both compilers, both ABIs, with or
 * without ELFv2's global entry TOC setup before it), so r1 is the traced
 * function's frame and its back chain points at its caller's frame, whose
 * LR save word (16 bytes up in either ABI) holds the traced function's
 * return address: its slot, the word glibc's _mcount reads too.  Both
 * compilers treat _mcount as an ordinary call, but r3-r10 and f1-f13 (the
 * argument registers) are kept anyway, as a profiling hook always has had
 * to.
 *
 * TOC: we need our own r2 (libobjpatch's) to call rt_enter/rt_exit, and the
 * traced code needs its own back.  The entry trampoline stores the traced
 * function's r2 in that function's TOC save word (TOCSAVE(r1): 24 in
 * ELFv2, 40 in ELFv1; every frame has it for exactly this, a PLT stub
 * stores r2 there too), takes ours from r12, and reloads r2 from that word
 * on the way out.  The word is also what a linker's `ld r2,TOCSAVE(r1)`
 * after the site reloads when the site once called _mcount in libc
 * through a PLT stub.
 *
 * Frames: ELFv2's linkage area is 32 bytes and a caller whose callees take
 * their arguments in registers gives no parameter save area; ELFv1's
 * linkage area is 48 bytes and every caller gives a 64-byte parameter save
 * area, which rt_enter and rt_exit may store their arguments in.  LINK is
 * that minimum; the saved registers lie above it.
 *
 * Return: the traced function's `blr` comes here instead of to its caller
 * with r1 = its caller's stack pointer; every return register (r3-r10 for
 * small structs, f1-f8 and v2-v9 for homogeneous aggregates, IBM long
 * double in f1:f2, vectors and __float128 in v2; on ELFv1 the vector ones
 * where the machine has them) is kept, r2 too, and r2 becomes ours (from
 * our own address, bcl) while rt_exit runs.
 *
 * ELFv1 returns every struct in memory whose address the caller passes in
 * r3, and no register need hold it at the return: its CAPTURE_MEMORY
 * trampolines hand r3 at the entry to rt_enter_mem, as ppc32's do.
 */
#include "arch/port.h"
#include "arch/powerpc/rt_powerpc.h"

#if _CALL_ELF == 2
	.abiversion 2
#define TOCSAVE 24
#define LINK 32
#define WITH_MEM 0
#else
#define TOCSAVE 40
#define LINK 112
#define WITH_MEM 1
#endif
	.machine power8
	.text

/* An entry trampoline's frame: LINK, r3-r10, f1-f13. */
#define EGPR LINK
#define EFPR (EGPR + 64)
#define EFRAME ((EFPR + 104 + 15) & ~15)

/*
 * ENTRY name, capture (RT_CAPTURE_*), args (0/1: rt_enter_args,
 * given the frame: r3-r10 at EGPR, f1-f13 at EFPR.  Neither compiler
 * leaves the arguments there for certain (gcc -O2 reuses r9 before the
 * call), so only the caller's parameter save area is read: rt_ppc64.c,
 * rt_ppc64le.c.)
 */
.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	std 2, TOCSAVE(1)
	addis 2, 12, (.TOC. - \name)@ha
	addi 2, 2, (.TOC. - \name)@l
	mflr 0
	std 0, 16(1)
	.cfi_offset lr, 16
	stdu 1, -EFRAME(1)
	.cfi_def_cfa_offset EFRAME
	PPC_REGS std, EGPR, 8, 3, 4, 5, 6, 7, 8, 9, 10
	PPC_REGS stfd, EFPR, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	mr 3, 0
	/* The traced function's back chain (at its r1, just above our frame): its entry r1. */
	ld 4, EFRAME(1)
	addi 4, 4, 16
	li 5, \capture
.if \capture == RT_CAPTURE_MEMORY
.if \args
	mr 6, 1
	ld 7, EGPR+0(1)
	bl rt_enter_args_mem
.else
	ld 6, EGPR+0(1)
	bl rt_enter_mem
.endif
.else
.if \args
	mr 6, 1
	bl rt_enter_args
.else
	bl rt_enter
.endif
.endif
	nop
	PPC_REGS ld, EGPR, 8, 3, 4, 5, 6, 7, 8, 9, 10
	PPC_REGS lfd, EFPR, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
	addi 1, 1, EFRAME
	.cfi_def_cfa_offset 0
	ld 0, 16(1)
	mtlr 0
	.cfi_restore lr
	ld 2, TOCSAVE(1)
	blr
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, WITH_MEM
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, WITH_MEM, 1

/* No entry-hook sites on this machine (pad_site_len 0). */
RT_ENTRY_SET RT_UNREACHED_ENTRY, rt_entry_fentry, 0, trap

/*
 * The return trampoline's frame: LINK, then struct ret_regs (arch/port.h):
 * r3, r4, f1 (fpr[0]), f2 (fpr[1]), and `wide` = f1:f2, an IBM
 * double-double long double in memory order (high part first); then r2,
 * r5-r10, f3-f8, v2-v9 (16-byte aligned).
 */
#define RREGS LINK
#define RTOC (RREGS + 64)
#define RGPR (RTOC + 8)
#define RFPR (RGPR + 48)
#define RVEC ((RFPR + 48 + 15) & ~15)
#define RFRAME (RVEC + 128)

/*
 * SKIP_WITHOUT_VMX label: ELFv2 machines all have VMX (POWER8 is its
 * baseline); ELFv1's baseline (POWER4, as gcc targets it here) may not, and
 * there v2-v9 are kept only where rt_timestamp_init() found AltiVec, or
 * stvx would be an illegal instruction.  With our r2; clobbers r11, cr0.
 */
.macro SKIP_WITHOUT_VMX label
#if _CALL_ELF != 2
	addis 11, 2, rt_ppc64_vmx@toc@ha
	lwz 11, rt_ppc64_vmx@toc@l(11)
	cmpwi 11, 0
	beq \label
#endif
.endm

/*
 * The slot problem: frames are matched to returns by stack address
 * (rt_record.c): the returning frame is the outermost whose slot < the sp
 * we pass, and an entry drops frames whose slot <= its own.  Here the slot
 * is the LR save word 16 bytes ABOVE the returning function's entry r1
 * (S), in its caller's frame, and at its return r1 = S again, so passing S
 * would miss it.  We pass S + 32: above the slot (S + 16), and not above
 * its caller's slot, at least S + 32 + 16 (its caller's frame has at
 * least the 32-byte linkage area; in ELFv1, 112 bytes).  A deeper call's
 * slot is lower (its entry r1 is at least 32 bytes below S), so
 * rt_enter's check that a new slot is below every live frame's slot holds
 * as is; the unwinder's interposer moves its limit up by slot_above_sp
 * (16) for the same reason.
 */
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address: no FDE there. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined lr
	stdu 1, -RFRAME(1)
	.cfi_def_cfa_offset RFRAME
	std 2, RTOC(1)
	std 3, RREGS+0(1)
	std 4, RREGS+8(1)
	stfd 1, RREGS+16(1)
	stfd 2, RREGS+32(1)
	stfd 1, RREGS+48(1)
	stfd 2, RREGS+56(1)
	PPC_REGS std, RGPR, 8, 5, 6, 7, 8, 9, 10
	PPC_REGS stfd, RFPR, 8, 3, 4, 5, 6, 7, 8
	bcl 20, 31, .Lret_toc
.Lret_toc:
	mflr 12
	addis 2, 12, (.TOC. - .Lret_toc)@ha
	addi 2, 2, (.TOC. - .Lret_toc)@l
	SKIP_WITHOUT_VMX .Lret_saved
	PPC_VREGS stvx, RVEC, 2, 3, 4, 5, 6, 7, 8, 9
.Lret_saved:
	addi 3, 1, RREGS
	addi 4, 1, RFRAME+32
	bl rt_exit
	nop
	mtlr 3
	ld 3, RREGS+0(1)
	ld 4, RREGS+8(1)
	lfd 1, RREGS+16(1)
	lfd 2, RREGS+32(1)
	PPC_REGS ld, RGPR, 8, 5, 6, 7, 8, 9, 10
	PPC_REGS lfd, RFPR, 8, 3, 4, 5, 6, 7, 8
	SKIP_WITHOUT_VMX .Lret_restored
	PPC_VREGS lvx, RVEC, 2, 3, 4, 5, 6, 7, 8, 9
.Lret_restored:
	ld 2, RTOC(1)
	addi 1, 1, RFRAME
	.cfi_def_cfa_offset 0
	blr
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", @progbits
