/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ppc (32-bit SysV, big-endian) trampolines.  A site (`bl stub`) reaches a
 * stub near its module, which enters here through CTR with LR = the site
 * + 4 (rt_ppc.c).
 *
 * Entry: gcc -pg calls _mcount first, before the prologue: `mflr r0;
 * stw r0,4(r1); bl _mcount`.  So r1 is still the traced function's entry
 * r1 (S), its return address is in r0 and in the LR save word of its
 * caller's frame at S + 4 (the slot), and every argument is still where
 * the call put it: r3-r10, f1-f8, the caller's parameter area from S + 8,
 * and CR bit 6, which tells a variadic function whether FP arguments came
 * in registers.  gcc relies on all of these surviving the hook (it uses
 * r3-r10 after it, and its prologue tests CR1), so they are kept.  After
 * the hook the function reads LR again (`mflr r0`, the prologue's own) and
 * saves it in the slot: so the trampoline returns through CTR with LR
 * (and r0) = the slot's word, which rt_enter may have made the return
 * trampoline.
 *
 * clang -pg calls _mcount after its prologue instead (`mflr r0;
 * stw r0,4(r1); stwu r1,-N(r1); ...; bl _mcount`), as an ordinary call:
 * r1 is then the function's frame, whose back chain is its entry r1, and
 * the slot lies 4 bytes above that; the arguments are gone from their
 * registers (rt_ppc.c says so), and clang reloads LR from the slot in its
 * epilogue.  The word before the site tells the two apart: gcc's is
 * `stw r0,4(r1)`, which clang's prologue never puts right before the call.
 *
 * gcc's nested functions (which get their static chain in r11) wrap the
 * call in a frame of their own that keeps r11: `stwu r1,-16(r1);
 * stw r11,12(r1); mflr r0; stw r0,4(r1); bl _mcount; lwz r11,12(r1);
 * addi r1,r1,16`.  Their `stw r0,4(r1)` goes to that frame, 16 bytes below
 * the slot, which still holds what the caller left there: the trampoline
 * takes the return address from r0 and stores it in the slot (the LR
 * save word the ABI gives the function anyway), and the function's
 * prologue, which reads LR again after the hook, saves it there too.
 *
 * A struct or union comes back in memory whose address the caller passes
 * in r3 (no register holds it at the return): the CAPTURE_MEMORY
 * trampolines hand r3 at the entry to rt_enter_mem.
 */
#include "arch/port.h"
#include "arch/powerpc/rt_powerpc.h"

	.text

/*
 * An entry trampoline's frame: back chain, our callees' LR save word,
 * then the site's return address (LR at the entry), CR, r3-r10, f1-f8,
 * the slot's address, r0 at the entry.
 */
#define EFRAME 128
#define ELR 8
#define ECR 12
#define EGPR 16
#define EFPR 48
#define ESLOT 112
#define ER0 116
#define STW_R0_4_R1 0x90010004	/* stw r0,4(r1): gcc's word before the site */
#define STW_R11_12_R1 0x9161000c	/* stw r11,12(r1): 3 words before a nested function's site */

/* ENTRY name, capture (RT_CAPTURE_*), args (0/1: rt_enter_args, given the frame: arg_regs in rt_ppc.c) */
.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	stwu 1, -EFRAME(1)
	.cfi_def_cfa_offset EFRAME
	stw 3, EGPR+0(1)
	stw 0, ER0(1)
	mflr 3
	stw 3, ELR(1)
	.cfi_offset lr, ELR-EFRAME
	mfcr 3
	stw 3, ECR(1)
	PPC_REGS stw, EGPR+4, 4, 4, 5, 6, 7, 8, 9, 10
	PPC_REGS stfd, EFPR, 8, 1, 2, 3, 4, 5, 6, 7, 8
	/*
	 * gcc's site: the slot is the entry r1 + 4 (a nested function's: 16
	 * more, and r0 goes there); clang's: its frame's back chain + 4.
	 */
	lwz 3, ELR(1)
	lwz 0, -8(3)
	lis 12, STW_R0_4_R1@h
	ori 12, 12, STW_R0_4_R1@l
	addi 4, 1, EFRAME+4
	cmpw 0, 0, 12
	beq 2f
	lwz 4, EFRAME(1)
	addi 4, 4, 4
	b 1f
2:	lwz 0, -16(3)
	lis 12, STW_R11_12_R1@h
	ori 12, 12, STW_R11_12_R1@l
	cmpw 0, 0, 12
	bne 1f
	addi 4, 4, 16
	lwz 0, ER0(1)
	stw 0, 0(4)
1:	stw 4, ESLOT(1)
	li 5, \capture
.if \capture == RT_CAPTURE_MEMORY
.if \args
	mr 6, 1
	lwz 7, EGPR+0(1)
	bl rt_enter_args_mem
.else
	lwz 6, EGPR+0(1)
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
	lwz 0, ECR(1)
	mtcr 0
	lwz 0, ELR(1)
	mtctr 0
	PPC_REGS lwz, EGPR, 4, 3, 4, 5, 6, 7, 8, 9, 10
	PPC_REGS lfd, EFPR, 8, 1, 2, 3, 4, 5, 6, 7, 8
	/* The slot's word, as the call left it or the return trampoline: gcc's function's LR from here. */
	lwz 12, ESLOT(1)
	lwz 0, 0(12)
	mtlr 0
	addi 1, 1, EFRAME
	.cfi_def_cfa_offset 0
	.cfi_register lr, ctr
	bctr
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order, with CAPTURE_MEMORY's; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 1
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 1, 1

/* No entry-hook sites on this machine (pad_site_len 0). */
RT_ENTRY_SET RT_UNREACHED_ENTRY, rt_entry_fentry, 0, trap

/*
 * The return trampoline's frame: back chain, LR save word, padding, then
 * struct ret_regs (arch/port.h) at 16: gpr[0] = r3 and gpr[1] = r4, each
 * a uint64_t with the register in its low (second, big-endian) half; f1
 * at 32 (fpr[0]), f2 at 48 (fpr[1]), `wide` at 64 = f1:f2, an IBM
 * double-double long double in memory order (high part first); then
 * r5-r10 at 80 and f3-f8 at 104 (_Complex long double is f1-f4).
 *
 * The traced function's `blr` comes here instead of to its caller with
 * r1 = its entry r1 (S) again.  Its slot is S + 4, in its caller's frame,
 * so rt_exit is given S + 8: above the slot, and not above its caller's
 * slot, which lies at least S + 16 + 4 (a frame has at least the 16
 * bytes of back chain, LR save word and padding).
 */
#define RFRAME 160
#define RREGS 16
#define RGPR 80
#define RFPR 104

	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address: no FDE there. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined lr
	stwu 1, -RFRAME(1)
	.cfi_def_cfa_offset RFRAME
	li 0, 0
	stw 0, RREGS+0(1)
	stw 3, RREGS+4(1)
	stw 0, RREGS+8(1)
	stw 4, RREGS+12(1)
	stfd 1, RREGS+16(1)
	stfd 2, RREGS+32(1)
	stfd 1, RREGS+48(1)
	stfd 2, RREGS+56(1)
	PPC_REGS stw, RGPR, 4, 5, 6, 7, 8, 9, 10
	PPC_REGS stfd, RFPR, 8, 3, 4, 5, 6, 7, 8
	addi 3, 1, RREGS
	addi 4, 1, RFRAME+8
	bl rt_exit
	mtlr 3
	lwz 3, RREGS+4(1)
	lwz 4, RREGS+12(1)
	lfd 1, RREGS+16(1)
	lfd 2, RREGS+32(1)
	PPC_REGS lwz, RGPR, 4, 5, 6, 7, 8, 9, 10
	PPC_REGS lfd, RFPR, 8, 3, 4, 5, 6, 7, 8
	addi 1, 1, RFRAME
	.cfi_def_cfa_offset 0
	blr
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", @progbits
