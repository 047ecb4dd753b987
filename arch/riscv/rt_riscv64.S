/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RISC-V 64 (lp64d) trampolines.  A site (`jal ra, stub` or `auipc ra;
 * jalr ra`) reaches a stub near its module, the stub jumps here through t1
 * with ra = the site's return address.
 *
 * Entry: gcc and clang call _mcount after the prologue has saved ra; where
 * (the slot) is rt_rv_slot()'s business (rt_riscv64.c): s0 - 8 with a frame
 * pointer, else the frame word holding gcc's a0.  _mcount is an ordinary
 * call for both compilers (a0-a7, fa0-fa7 and the temporaries are treated
 * as clobbered), but the argument registers are kept anyway: that is what
 * a profiling hook has always had to keep.
 *
 * Return: the traced function's `ret` comes here instead of to its
 * caller; a0, a1, fa0, fa1 (every lp64d return register) are saved in
 * struct ret_regs, rt_exit gives back the real return address, and `ret`
 * goes there with the registers as they were.  A long double (binary128)
 * comes back in a0:a1: `wide` gets a copy of them, so one trampoline
 * serves every capture and rt_return_wide is another name for it.
 */
#include "arch/port.h"

	.option pic
	.text

/*
 * ENTRY name, capture (RT_CAPTURE_*), args (0/1: rt_enter_args,
 * given the save area: a0-a7 at sp, fa0-fa7 at sp + 64.  Neither compiler
 * leaves the arguments there: gcc's `mv a0, ra` takes a0 and both move
 * every argument to callee-saved registers before the call, so the port
 * says ARGS_NO_REGS for these sites: only their stack arguments show.)
 */
.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	addi sp, sp, -160
	.cfi_def_cfa_offset 160
	sd ra, 152(sp)
	.cfi_offset ra, -8
	sd s0, 144(sp)
	.cfi_offset s0, -16
	sd a0, 0(sp)
	sd a1, 8(sp)
	sd a2, 16(sp)
	sd a3, 24(sp)
	sd a4, 32(sp)
	sd a5, 40(sp)
	sd a6, 48(sp)
	sd a7, 56(sp)
	fsd fa0, 64(sp)
	fsd fa1, 72(sp)
	fsd fa2, 80(sp)
	fsd fa3, 88(sp)
	fsd fa4, 96(sp)
	fsd fa5, 104(sp)
	fsd fa6, 112(sp)
	fsd fa7, 120(sp)
	mv a3, a0
	mv a2, s0
	addi a1, sp, 160
	mv a0, ra
	call rt_rv_slot
	beqz a0, 1f
	mv a1, a0
	ld a0, 152(sp)
	li a2, \capture
.if \args
	mv a3, sp
	call rt_enter_args
.else
	call rt_enter
.endif
1:
	ld a0, 0(sp)
	ld a1, 8(sp)
	ld a2, 16(sp)
	ld a3, 24(sp)
	ld a4, 32(sp)
	ld a5, 40(sp)
	ld a6, 48(sp)
	ld a7, 56(sp)
	fld fa0, 64(sp)
	fld fa1, 72(sp)
	fld fa2, 80(sp)
	fld fa3, 88(sp)
	fld fa4, 96(sp)
	fld fa5, 104(sp)
	fld fa6, 112(sp)
	fld fa7, 120(sp)
	ld ra, 152(sp)
	.cfi_restore ra
	ld s0, 144(sp)
	.cfi_restore s0
	addi sp, sp, 160
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 0
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 0, 1

/*
 * struct ret_regs (arch/port.h) at sp while rt_exit runs: a0, a1 at 0, fa0 at 16
 * and fa1 at 32 (the low 8 bytes of each fpr[]), `wide` at 48.
 */
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address: no FDE there. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined ra
	addi sp, sp, -80
	.cfi_def_cfa_offset 80
	sd a0, 0(sp)
	sd a1, 8(sp)
	fsd fa0, 16(sp)
	fsd fa1, 32(sp)
	sd a0, 48(sp)
	sd a1, 56(sp)
	mv a0, sp
	addi a1, sp, 80
	call rt_exit
	mv ra, a0
	ld a0, 0(sp)
	ld a1, 8(sp)
	fld fa0, 16(sp)
	fld fa1, 32(sp)
	addi sp, sp, 80
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", %progbits
