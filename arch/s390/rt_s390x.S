/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * s390x trampolines.  A site (`brasl %rN,stub`) reaches a stub near its
 * module, which branches here through %r1.
 *
 * The slot: every traced function's return address is taken from, and the
 * return trampoline put into, 112(%r15) at its entry, the word of the
 * register save area (in its caller's frame, the callee's to use) where
 * the ABI's prologue `stmg %r6,%r15,48(%r15)` keeps %r14, and where the
 * CFI says it is while the function runs: the C++ unwinder finds the real
 * address there once rt_restore_slots() has put it back.  A leaf function
 * that saves nothing leaves our word alone.
 *  - mcount (gcc -pg): `stg %r14,8(%r15); brasl %r14,stub; lg %r14,8(%r15)`
 *    at the function's start: the address is at 8(%r15), copied into the
 *    slot for rt_enter and back again for the `lg`, which then loads what
 *    rt_enter left there.
 *  - fentry (-mfentry): `brasl %r0,stub` at the function's start: the
 *    address is still in %r14 (stored into the slot, reloaded after), we
 *    go back through %r0.
 * Frames are matched by slot address (rt_record.c): a frame's slot is its
 * entry %r15 + 112, and it returns with %r15 back at its entry value, so
 * the return trampoline passes rt_exit %r15 + 160, the returning function's
 * CFA: above its own slot, below its caller's (whose entry %r15 is at least
 * 160 higher: every function that calls allocates a save area).
 *
 * Everything a hook must keep is kept: the argument registers %r2-%r6,
 * %f0/%f2/%f4/%f6, and %r0 (the static chain, for mcount sites).
 *
 * Return: the traced function's `br %r14` comes here; %r2, %r3, %f0 and
 * %f2 are saved as struct ret_regs (arch/port.h), rt_exit gives back the real
 * return address, and we go there with the registers as they were.
 */
#include "arch/port.h"

	.text

/* Our frame: the callee's save area, then %r0-%r6, %r14, %f0/%f2/%f4/%f6. */
FRAME = 256
SLOT = FRAME + 112	/* the traced function's slot, from our %r15 */

.macro SAVE_ARGS
	stmg %r0,%r6,160(%r15)
	stg %r14,216(%r15)
	std %f0,224(%r15)
	std %f2,232(%r15)
	std %f4,240(%r15)
	std %f6,248(%r15)
.endm

.macro RESTORE_ARGS
	lmg %r0,%r6,160(%r15)
	lg %r14,216(%r15)
	ld %f0,224(%r15)
	ld %f2,232(%r15)
	ld %f4,240(%r15)
	ld %f6,248(%r15)
.endm

/*
 * The call into C.  Every value a WIDE or ALL capture is for (long double,
 * __int128, structs, unions, complex) comes back in memory on s390x, at
 * the address in %r2 at the entry: rt_enter_mem keeps it for the exit.
 * args (0/1): rt_enter_args(_mem), also given the registers SAVE_ARGS
 * stored from 160(%r15) (the port's arg_regs); both hooks are called
 * before the prologue, with every argument where the call left it.
 */
.macro ENTER_C capture, args
	la %r3,SLOT(%r15)
	lghi %r4,\capture
.if \capture == RT_CAPTURE_WIDE_FP || \capture == RT_CAPTURE_ALL
.if \args
	lg %r6,160+16(%r15)
	la %r5,160(%r15)
	brasl %r14,rt_enter_args_mem
.else
	lg %r5,160+16(%r15)
	brasl %r14,rt_enter_mem
.endif
.else
.if \args
	la %r5,160(%r15)
	brasl %r14,rt_enter_args
.else
	brasl %r14,rt_enter
.endif
.endif
.endm

/* ENTRY name, capture (RT_CAPTURE_*), args: gcc -pg's `brasl %r14,stub` */
.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	lg %r1,8(%r15)
	stg %r1,112(%r15)
	aghi %r15,-FRAME
	.cfi_adjust_cfa_offset FRAME
	SAVE_ARGS
	.cfi_offset %r14, -(FRAME + 160 - 216)
	lgr %r2,%r14
	ENTER_C \capture, \args
	lg %r1,SLOT(%r15)
	stg %r1,FRAME+8(%r15)
	RESTORE_ARGS
	aghi %r15,FRAME
	.cfi_adjust_cfa_offset -FRAME
	.cfi_restore %r14
	br %r14
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 0
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 0, 1

/* FENTRY name, capture, args: -mfentry's `brasl %r0,stub`, %r14 untouched */
.macro FENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	.cfi_register %r14, %r0
	stg %r14,112(%r15)
	aghi %r15,-FRAME
	.cfi_adjust_cfa_offset FRAME
	SAVE_ARGS
	.cfi_offset %r14, -(FRAME + 160 - 160)
	lgr %r2,%r0
	ENTER_C \capture, \args
	RESTORE_ARGS
	lg %r14,SLOT(%r15)
	lgr %r1,%r0
	aghi %r15,FRAME
	.cfi_adjust_cfa_offset -FRAME
	.cfi_register %r14, %r1
	br %r1
	.cfi_endproc
	.size \name, . - \name
.endm

/* The entry-hook row (SITE_FENTRY), one per enum capture. */
FENTRY rt_entry_fentry_gpr, RT_CAPTURE_GPR
FENTRY rt_entry_fentry_none, RT_CAPTURE_NONE
FENTRY rt_entry_fentry_fp, RT_CAPTURE_FP
FENTRY rt_entry_fentry_wide, RT_CAPTURE_WIDE_FP
FENTRY rt_entry_fentry_string, RT_CAPTURE_STRING
FENTRY rt_entry_fentry_all, RT_CAPTURE_ALL
FENTRY rt_entry_args_fentry_gpr, RT_CAPTURE_GPR, 1
FENTRY rt_entry_args_fentry_none, RT_CAPTURE_NONE, 1
FENTRY rt_entry_args_fentry_fp, RT_CAPTURE_FP, 1
FENTRY rt_entry_args_fentry_wide, RT_CAPTURE_WIDE_FP, 1
FENTRY rt_entry_args_fentry_string, RT_CAPTURE_STRING, 1
FENTRY rt_entry_args_fentry_all, RT_CAPTURE_ALL, 1

/*
 * struct ret_regs (arch/port.h) at 160(%r15) while rt_exit runs: %r2, %r3 at 0,
 * %f0 at 16, %f2 at 32 (each register's 8 bytes first), `wide` at 48.
 * One trampoline serves every capture, so rt_return_wide is another name
 * for it.
 */
RFRAME = 224
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address: no FDE there. */
	nopr %r7
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined %r14
	aghi %r15,-RFRAME
	.cfi_adjust_cfa_offset RFRAME
	stmg %r2,%r3,160(%r15)
	std %f0,176(%r15)
	std %f2,192(%r15)
	la %r2,160(%r15)
	la %r3,RFRAME+160(%r15)
	brasl %r14,rt_exit
	lgr %r14,%r2
	lmg %r2,%r3,160(%r15)
	ld %f0,176(%r15)
	ld %f2,192(%r15)
	aghi %r15,RFRAME
	.cfi_adjust_cfa_offset -RFRAME
	br %r14
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", @progbits
