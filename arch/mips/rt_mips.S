/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MIPS trampolines, o32 and n64 (rt_mips.c says how sites and stubs reach
 * them).  The stub jumps here through t9, which holds our address, as PIC
 * code expects at a function's entry; ra = the call word + 8, where the
 * function goes on; at = the function's own return address.
 *
 * Entry: every register the hook convention keeps (glibc's _mcount: the
 * argument registers, v0 which gcc uses for the static chain there; we
 * also keep v1, t7, gp and the FP argument registers) is saved (the
 * argument registers first, where rt_mips.c's arg_regs says: the
 * entry_args trampolines record them),
 * rt_mips_enter() (rt_mips.c) finds the return address's slot and calls
 * rt_enter, and we return to the function with ra = our copy of at, which
 * rt_mips_enter may have replaced, and (o32) sp 8 higher than we got it:
 * the o32 hook pops what its call sequence pushed.  t8 and t9 are free:
 * the function expects them clobbered by the hook.
 *
 * Return: the function's `jr ra` comes here instead of to its caller; v0,
 * v1, $f0 and $f2 are saved into struct ret_regs (arch/port.h; o32 words
 * zero-extended, in the byte order's halves), rt_exit gives the real return address, and we go there
 * with the registers as they were.  gp is kept too (callee-saved on n64).
 * We find our GOT through `bal`, since nothing jumped here through t9.
 */
#include "arch/port.h"

	.abicalls
	.set nomips16
	.text

/* Added to the capture rt_mips_enter() gets: record the arguments from our save area (rt_mips.c). */
#define RT_MIPS_ARGS 0x200

#if _MIPS_SIM == _ABIO32

/* Where a 64-bit word's low and high halves lie: big-endian (mips) puts the high one first. */
#ifdef __MIPSEB__
#define LO32 4
#define HI32 0
#else
#define LO32 0
#define HI32 4
#endif

#define EFRAME 72	/* o32: 16 bytes of argument area, then the saves */
#define EREGSLOT 48

.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	.set noreorder
	.set noat
	/* _gp_disp is relative to this instruction, which t9 holds. */
	lui $24, %hi(_gp_disp)
	addiu $24, $24, %lo(_gp_disp)
	addu $24, $24, $25
	addiu $sp, $sp, -EFRAME
	.cfi_def_cfa_offset EFRAME
	sw $4, 16($sp)
	sw $5, 20($sp)
	sw $6, 24($sp)
	sw $7, 28($sp)
	sw $2, 32($sp)
	sw $3, 36($sp)
	sw $31, 40($sp)
	sw $28, 44($sp)
	sw $1, EREGSLOT($sp)
	sw $15, 52($sp)
	sdc1 $f12, 56($sp)
	sdc1 $f14, 64($sp)
	move $28, $24
	move $4, $31
	addiu $5, $sp, EFRAME
	addiu $6, $sp, EREGSLOT
	lw $25, %got(rt_mips_enter)($28)
	jalr $25
	li $7, \capture + RT_MIPS_ARGS * \args
	lw $4, 16($sp)
	lw $5, 20($sp)
	lw $6, 24($sp)
	lw $7, 28($sp)
	lw $2, 32($sp)
	lw $3, 36($sp)
	lw $25, 40($sp)
	lw $28, 44($sp)
	lw $31, EREGSLOT($sp)
	lw $15, 52($sp)
	ldc1 $f12, 56($sp)
	ldc1 $f14, 64($sp)
	/* Our frame and the 8 bytes the call sequence pushed. */
	jr $25
	addiu $sp, $sp, EFRAME + 8
	.set at
	.set reorder
	.cfi_endproc
	.size \name, . - \name
.endm

#else	/* n64 */

#define EFRAME 176
#define EREGSLOT 96

.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	.set noreorder
	.set noat
	daddiu $sp, $sp, -EFRAME
	.cfi_def_cfa_offset EFRAME
	sd $4, 0($sp)
	sd $5, 8($sp)
	sd $6, 16($sp)
	sd $7, 24($sp)
	sd $8, 32($sp)
	sd $9, 40($sp)
	sd $10, 48($sp)
	sd $11, 56($sp)
	sd $2, 64($sp)
	sd $3, 72($sp)
	sd $31, 80($sp)
	sd $28, 88($sp)
	sd $1, EREGSLOT($sp)
	sd $15, 104($sp)
	sdc1 $f12, 112($sp)
	sdc1 $f13, 120($sp)
	sdc1 $f14, 128($sp)
	sdc1 $f15, 136($sp)
	sdc1 $f16, 144($sp)
	sdc1 $f17, 152($sp)
	sdc1 $f18, 160($sp)
	sdc1 $f19, 168($sp)
	lui $28, %hi(%neg(%gp_rel(\name)))
	daddu $28, $28, $25
	daddiu $28, $28, %lo(%neg(%gp_rel(\name)))
	move $4, $31
	daddiu $5, $sp, EFRAME
	daddiu $6, $sp, EREGSLOT
	ld $25, %got_disp(rt_mips_enter)($28)
	jalr $25
	li $7, \capture + RT_MIPS_ARGS * \args
	ld $4, 0($sp)
	ld $5, 8($sp)
	ld $6, 16($sp)
	ld $7, 24($sp)
	ld $8, 32($sp)
	ld $9, 40($sp)
	ld $10, 48($sp)
	ld $11, 56($sp)
	ld $2, 64($sp)
	ld $3, 72($sp)
	ld $25, 80($sp)
	ld $28, 88($sp)
	ld $31, EREGSLOT($sp)
	ld $15, 104($sp)
	ldc1 $f12, 112($sp)
	ldc1 $f13, 120($sp)
	ldc1 $f14, 128($sp)
	ldc1 $f15, 136($sp)
	ldc1 $f16, 144($sp)
	ldc1 $f17, 152($sp)
	ldc1 $f18, 160($sp)
	ldc1 $f19, 168($sp)
	jr $25
	daddiu $sp, $sp, EFRAME
	.set at
	.set reorder
	.cfi_endproc
	.size \name, . - \name
.endm

#endif

/* One per enum capture (arch/port.h), in its order; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 0
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 0, 1

	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address: no FDE there. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined $31
	.set noreorder
	.set noat
#if _MIPS_SIM == _ABIO32
	/*
	 * struct ret_regs at sp + 16: gpr[0..1] at 16, fpr[0..1] at 32 (long
	 * double is double here).  Each gpr is a uint64_t holding v0 or v1:
	 * the register in its low half (LO32), 0 in the high one, whichever
	 * comes first in the machine's byte order.
	 */
	addiu $sp, $sp, -88
	.cfi_def_cfa_offset 88
	sw $2, 16 + LO32($sp)
	sw $0, 16 + HI32($sp)
	sw $3, 24 + LO32($sp)
	sw $0, 24 + HI32($sp)
	sdc1 $f0, 32($sp)
	sdc1 $f2, 48($sp)
	sw $28, 80($sp)
	bal 1f
	nop
1:	lui $28, %hi(_gp_disp)
	addiu $28, $28, %lo(_gp_disp)
	addu $28, $28, $31
	addiu $4, $sp, 16
	addiu $5, $sp, 88
	lw $25, %got(rt_exit)($28)
	jalr $25
	nop
	move $25, $2
	lw $2, 16 + LO32($sp)
	lw $3, 24 + LO32($sp)
	ldc1 $f0, 32($sp)
	ldc1 $f2, 48($sp)
	lw $28, 80($sp)
	move $31, $25
	jr $25
	addiu $sp, $sp, 88
#else
	/* struct ret_regs at sp: gpr at 0, fpr at 16, wide (binary128: $f0, $f2) at 48. */
	daddiu $sp, $sp, -80
	.cfi_def_cfa_offset 80
	sd $2, 0($sp)
	sd $3, 8($sp)
	sdc1 $f0, 16($sp)
	sdc1 $f2, 32($sp)
	sdc1 $f0, 48($sp)
	sdc1 $f2, 56($sp)
	sd $28, 64($sp)
	bal 1f
	nop
1:	daddiu $25, $31, rt_return_regs - 1b
	lui $28, %hi(%neg(%gp_rel(rt_return_regs)))
	daddu $28, $28, $25
	daddiu $28, $28, %lo(%neg(%gp_rel(rt_return_regs)))
	move $4, $sp
	daddiu $5, $sp, 80
	ld $25, %got_disp(rt_exit)($28)
	jalr $25
	nop
	move $25, $2
	ld $2, 0($sp)
	ld $3, 8($sp)
	ldc1 $f0, 16($sp)
	ldc1 $f2, 32($sp)
	ld $28, 64($sp)
	move $31, $25
	jr $25
	daddiu $sp, $sp, 80
#endif
	.set at
	.set reorder
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", %progbits
