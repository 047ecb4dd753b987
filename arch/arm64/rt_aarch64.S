/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * AArch64 trampolines.  A site (`bl stub`) reaches a stub near its module,
 * the stub branches here through x16 with x30 = the site + 4.
 *
 * Entry: gcc and clang call _mcount after the prologue has stored the frame
 * record (`stp x29, x30, [sp, #-N]!` ... `mov x29, sp`, or clang's
 * `add x29, sp, #M`), so x29 points at it and the traced function's return
 * address (its "slot") is at x29 + 8.  _mcount is an ordinary call for both
 * compilers, but x0-x8 and q0-q7 (arguments, the indirect-result register)
 * are kept anyway: that is what a profiling hook has always had to keep.
 * With -mbranch-protection=pac-ret the slot holds a signed address that the
 * function authenticates before `ret`; ours would fail that, so such a frame
 * (the slot differs from itself with the PAC bits stripped) is not hooked.
 * XPACLRI is a hint: a NOP on cores without pointer authentication.
 *
 * Return: the traced function's `ret` comes here instead of to its caller;
 * x0-x7 and q0-q3 (every return register, HFAs included) are saved, rt_exit
 * gives back the real return address, and `ret` goes there with the
 * registers as they were (RET, not BR: a BTI-guarded caller needs no
 * landing pad for it).
 */
#include "arch/port.h"

	.text

/* The argument registers (x0-x8, q0-q7) at sp + 16 .. sp + 224 of an entry's frame. */
.macro SAVE_ARGS
	stp x0, x1, [sp, #16]
	stp x2, x3, [sp, #32]
	stp x4, x5, [sp, #48]
	stp x6, x7, [sp, #64]
	str x8, [sp, #80]
	stp q0, q1, [sp, #96]
	stp q2, q3, [sp, #128]
	stp q4, q5, [sp, #160]
	stp q6, q7, [sp, #192]
.endm

.macro RESTORE_ARGS
	ldp x0, x1, [sp, #16]
	ldp x2, x3, [sp, #32]
	ldp x4, x5, [sp, #48]
	ldp x6, x7, [sp, #64]
	ldr x8, [sp, #80]
	ldp q0, q1, [sp, #96]
	ldp q2, q3, [sp, #128]
	ldp q4, q5, [sp, #160]
	ldp q6, q7, [sp, #192]
.endm

/*
 * ENTRY name, capture (RT_CAPTURE_*), args (0/1: rt_enter_args,
 * given the saved registers; gcc's `mov x0, x30` before the call has
 * overwritten the first, and the others are not kept either: the
 * compiler made _mcount an ordinary call, so every argument prints "?")
 */
.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	stp x29, x30, [sp, #-224]!
	.cfi_def_cfa_offset 224
	.cfi_offset x29, -224
	.cfi_offset x30, -216
	SAVE_ARGS
	mov x0, x30
	add x1, x29, #8
	ldr x9, [x1]
	mov x30, x9
	xpaclri
	cmp x30, x9
	b.ne 1f
	mov x29, sp
	mov w2, #\capture
.if \args
	mov x3, sp
	bl rt_enter_args
.else
	bl rt_enter
.endif
1:
	RESTORE_ARGS
	ldp x29, x30, [sp], #224
	.cfi_restore x29
	.cfi_restore x30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 0
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 0, 1

/*
 * Pads (-fpatchable-function-entry=2, as the kernel's ftrace uses them):
 * the function starts `mov x9, x30; bl stub`, so here x30 = its entry + 8,
 * where it goes on, and x9 = its caller's return address, not stored
 * anywhere yet.  The slot is our copy of x9, 16 bytes below the function's
 * entry sp: rt_enter may put the return trampoline there, and the function
 * gets it in x30.  Frames are matched by stack address: every frame the
 * function makes lies below its entry sp minus the 16 bytes it needs to
 * save x30 before any call.  The pad comes before any `paciasp`, so x30 is
 * not signed yet and pac-ret functions are traced too.  `ret x16`, not
 * `br`: a BTI-guarded function needs no landing pad after its pad.
 */
.macro PADENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	stp x29, x30, [sp, #-240]!
	.cfi_def_cfa_offset 240
	.cfi_offset x29, -240
	.cfi_offset x30, -232
	SAVE_ARGS
	str x9, [sp, #224]
	mov x0, x30
	add x1, sp, #224
	mov x29, sp
	mov w2, #(\capture | RT_ENTER_SLOT_COPY)
.if \args
	mov x3, sp
	bl rt_enter_args
.else
	bl rt_enter
.endif
	RESTORE_ARGS
	ldr x9, [sp, #224]
	ldp x29, x16, [sp], #240
	.cfi_restore x29
	.cfi_register x30, x16
	.cfi_def_cfa_offset 0
	mov x30, x9
	ret x16
	.cfi_endproc
	.size \name, . - \name
.endm

/* The entry-hook row (SITE_FENTRY), one per enum capture. */
PADENTRY rt_entry_fentry_gpr, RT_CAPTURE_GPR
PADENTRY rt_entry_fentry_none, RT_CAPTURE_NONE
PADENTRY rt_entry_fentry_fp, RT_CAPTURE_FP
PADENTRY rt_entry_fentry_wide, RT_CAPTURE_WIDE_FP
PADENTRY rt_entry_fentry_string, RT_CAPTURE_STRING
PADENTRY rt_entry_fentry_all, RT_CAPTURE_ALL
PADENTRY rt_entry_args_fentry_gpr, RT_CAPTURE_GPR, 1
PADENTRY rt_entry_args_fentry_none, RT_CAPTURE_NONE, 1
PADENTRY rt_entry_args_fentry_fp, RT_CAPTURE_FP, 1
PADENTRY rt_entry_args_fentry_wide, RT_CAPTURE_WIDE_FP, 1
PADENTRY rt_entry_args_fentry_string, RT_CAPTURE_STRING, 1
PADENTRY rt_entry_args_fentry_all, RT_CAPTURE_ALL, 1

/*
 * struct ret_regs (arch/port.h) is at sp while rt_exit runs: x0, x1 at 0, q0, q1
 * at 16, `wide` at 48 (unused: a binary128 long double is q0 itself), then
 * the other return registers.  One trampoline serves every capture, so
 * rt_return_wide is another name for it.
 */
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address: no FDE there. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined x30
	sub sp, sp, #144
	.cfi_def_cfa_offset 144
	stp x0, x1, [sp, #0]
	stp q0, q1, [sp, #16]
	stp x2, x3, [sp, #64]
	stp x4, x5, [sp, #80]
	stp x6, x7, [sp, #96]
	stp q2, q3, [sp, #112]
	mov x0, sp
	add x1, sp, #144
	bl rt_exit
	mov x16, x0
	ldp x0, x1, [sp, #0]
	ldp q0, q1, [sp, #16]
	ldp x2, x3, [sp, #64]
	ldp x4, x5, [sp, #80]
	ldp x6, x7, [sp, #96]
	ldp q2, q3, [sp, #112]
	add sp, sp, #144
	.cfi_def_cfa_offset 0
	ret x16
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", %progbits
