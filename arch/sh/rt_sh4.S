/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sh4 (SH-4, little-endian, Linux) trampolines.  gcc -pg starts every
 * function F with
 *
 *	mov.l 1f,r1; sts.l pr,@-r15; mova 2f,r0; jmp @r1; lds r0,pr; [nop]
 *   1:	.long mcount
 *   2:	lds.l @r15+,pr
 *
 * and the recorded site is the literal word at 1: (arch/sh/sh.c).  An
 * enabled word holds the address of a stub (rt_sh4.c) that jumps here
 * through r1; a disabled one holds rt_sh4_off, `rts; nop`.  So we arrive
 * with F's return address pushed at @r15 (the slot: F pops it into pr at
 * 2:, which is our return address in pr), F's arguments untouched in
 * r4-r7, fr4-fr11 and its struct-return pointer in r2, and r0, r1 free
 * (the sequence's own).  We keep everything else a C call may change:
 * r2-r7, mach, macl, fpul, fpscr, fr4-fr11 (fr0-fr3 hold nothing at a
 * function's entry).  FPSCR.SZ is 0 at a call, as gcc's ABI has it, so
 * fmov.s moves single registers.
 *
 * F copies the slot into pr at 2: and saves it later in a frame of its
 * own, so writing the slot after that changes nothing: like AArch64's
 * pads the slot is passed with RT_ENTER_SLOT_COPY, and F's own copy lies
 * below its entry sp, slot + 4 (rt_arch_host.slot_copy_above), where
 * rt_restore_slots() finds it for an unwinder.
 *
 * Calls use bsrf with a PC-relative literal: the runtime is PIC, and the
 * callees (hidden) find their GOT themselves.
 */
#include "arch/port.h"

/*
 * Our pushes, from the final sp: fr4-fr11 at 0-28 (rt_sh4.c's
 * arg_regs.fpr), fpscr 32, fpul 36, mach 40, macl 44, r4-r7 at 48-60
 * (arg_regs.gpr), r3 64, r2 68, pr 72; the slot at 76.
 */
#define SAVED 76

.macro PUSH_ALL
	sts.l pr,@-r15
	mov.l r2,@-r15
	mov.l r3,@-r15
	mov.l r7,@-r15
	mov.l r6,@-r15
	mov.l r5,@-r15
	mov.l r4,@-r15
	sts.l macl,@-r15
	sts.l mach,@-r15
	sts.l fpul,@-r15
	sts.l fpscr,@-r15
	fmov.s fr11,@-r15
	fmov.s fr10,@-r15
	fmov.s fr9,@-r15
	fmov.s fr8,@-r15
	fmov.s fr7,@-r15
	fmov.s fr6,@-r15
	fmov.s fr5,@-r15
	fmov.s fr4,@-r15
.endm

.macro POP_ALL
	fmov.s @r15+,fr4
	fmov.s @r15+,fr5
	fmov.s @r15+,fr6
	fmov.s @r15+,fr7
	fmov.s @r15+,fr8
	fmov.s @r15+,fr9
	fmov.s @r15+,fr10
	fmov.s @r15+,fr11
	lds.l @r15+,fpscr
	lds.l @r15+,fpul
	lds.l @r15+,mach
	lds.l @r15+,macl
	mov.l @r15+,r4
	mov.l @r15+,r5
	mov.l @r15+,r6
	mov.l @r15+,r7
	mov.l @r15+,r3
	mov.l @r15+,r2
	lds.l @r15+,pr
.endm

/*
 * rt_enter(ra, slot, capture) or rt_enter_args(ra, slot, capture, regs):
 * ra is our pr (the word's end, 2:), the slot our entry sp.  A struct
 * returned in memory needs no address here: F returns it in r0 too
 * (memory_address_returned).
 */
.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 2
\name:
	.cfi_startproc
	.cfi_return_column 17	/* pr */
	PUSH_ALL
	.cfi_adjust_cfa_offset SAVED
	.cfi_offset 17, -4
	sts pr,r4
	mov r15,r5
	add #SAVED,r5
	mov.l 3f,r6
.if \args
	mov r15,r7
	mov.l 5f,r0
.else
	mov.l 4f,r0
.endif
	bsrf r0
	 nop
1:
	POP_ALL
	.cfi_adjust_cfa_offset -SAVED
	rts
	 nop
	.p2align 2
3:	.long \capture | RT_ENTER_SLOT_COPY
4:	.long rt_enter - 1b
5:	.long rt_enter_args - 1b
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order, with CAPTURE_MEMORY's; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 1
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 1, 1

/* No entry-hook sites on sh4 (no -mfentry, pads not traced). */
/* One word for RT_UNREACHED_ENTRY's `trap`, which would split `trapa #imm` at its space. */
.macro SH_TRAP
	trapa #0xff
.endm
RT_ENTRY_SET RT_UNREACHED_ENTRY, rt_entry_fentry, 0, SH_TRAP

/* A disabled site's word points here. */
	RT_FUNCTION rt_sh4_off
	.p2align 2
rt_sh4_off:
	.cfi_startproc
	.cfi_return_column 17	/* pr */
	rts
	 nop
	.cfi_endproc
	.size rt_sh4_off, . - rt_sh4_off

/*
 * The return trampoline: F's rts comes here with its value in r0 (r0:r1
 * for 64 bits, low word in r0; a struct's address returned in memory),
 * fr0 (a float) or dr0 = fr0:fr1 (a double, its high word in fr0).
 * struct ret_regs (arch/port.h) at the sp we pass: gpr[0] = r0 and
 * gpr[1] = r1 zero-extended (0-15), fpr[0] as a little-endian double's 8
 * bytes, fr1 then fr0 (16-23), so a float is its upper half (sh.c's
 * float_high_half); fpr[1] (32-47) the same of dr2.  rt_exit returns the
 * real return address, which we jump to with pr set to it, as if F had
 * returned itself.
 */
#define RREGS 64
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 2
	/* An unwinder looks up the address before a return address: no FDE there. */
	nop
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined 17
	mov.l r0,@-r15
	mov.l r1,@-r15
	mov.l r2,@-r15
	mov.l r3,@-r15
	sts.l macl,@-r15
	sts.l mach,@-r15
	sts.l fpul,@-r15
	sts.l fpscr,@-r15
	/* r15 -> fpscr; the ret_regs below it (8 words in hand, then 64 bytes). */
	add #-RREGS,r15
	mov #0,r3
	mov.l r0,@(0,r15)
	mov.l r3,@(4,r15)
	mov.l r1,@(8,r15)
	mov.l r3,@(12,r15)
	mov r15,r2
	add #16,r2
	fmov.s fr1,@r2
	add #4,r2
	fmov.s fr0,@r2
	add #12,r2
	fmov.s fr3,@r2
	add #4,r2
	fmov.s fr2,@r2
	mov r15,r4
	mov r15,r5
	add #RREGS + 32,r5	/* the sp as F returned */
	mov.l 2f,r0
	bsrf r0
	 nop
1:
	mov r0,r1
	mov r15,r2
	add #16,r2
	fmov.s @r2,fr1
	add #4,r2
	fmov.s @r2,fr0
	add #12,r2
	fmov.s @r2,fr3
	add #4,r2
	fmov.s @r2,fr2
	add #RREGS,r15
	lds.l @r15+,fpscr
	lds.l @r15+,fpul
	lds.l @r15+,mach
	lds.l @r15+,macl
	mov.l @r15+,r3
	mov.l @r15+,r2
	lds r1,pr
	mov.l @r15+,r1
	rts
	 mov.l @r15+,r0
	.p2align 2
2:	.long rt_exit - 1b
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", @progbits
