/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 32-bit ARM trampolines, in ARM state: ARM sites reach them through a
 * stub with `bl`, Thumb sites through a sled with `blx` (rt_arm.c), so lr
 * holds the site's return address with the caller's state in bit 0, and
 * `bx` goes back to the right state.
 *
 * Entry: a __gnu_mcount_nc replacement.  gcc's sequence is `push {lr};
 * bl`, so on entry [sp] holds the traced function's lr, which must be
 * popped into lr on the way back (the hook's ABI); rt_arm.c says which word is
 * the slot.  r0-r3 and d0-d7 (arguments, hard-float) and ip are kept, as
 * glibc's __gnu_mcount_nc keeps them; sp is 8-byte aligned for the C call
 * whatever the site left (gcc's push leaves it 4 off).
 *
 * The entry_args forms (objpatch --args) save r0-r3 just below d0-d7, so
 * that one area holds every argument register at fixed offsets (rt_arm.c's
 * arg_regs): r0-r3 from its start, s0-s15 from byte 16.  gcc's hook runs
 * after the prologue, which pushes and reserves but leaves the argument
 * registers as the call left them.
 *
 * Return: the traced function returns here (`bx lr` or `pop {pc}`, both
 * interworking; our address is even: ARM state).  r0-r3 and d0-d7 are
 * saved (r0:r1 for 64-bit integers, s0/d0 for float/double, d0-d3 for
 * homogeneous aggregates), struct ret_regs is filled for rt_exit with each
 * 32-bit register zero-extended, and `bx ip` goes to the real return
 * address with the caller's state.
 */
#include "arch/port.h"

	.syntax unified
	.arm
	.fpu vfpv3-d16
	.text

/*
 * ARGS_AREA (after `vpush {d0-d7}`): r0-r3 below the saved d0-d7, the
 * area's address in r3, the fourth argument of rt_enter_args (sp stays
 * 8-byte aligned: 16 bytes).  DROP_ARGS_AREA undoes it before vpop.
 */
.macro ARGS_AREA
	push {r0-r3}
	mov r3, sp
.endm

.macro DROP_ARGS_AREA
	add sp, sp, #16
.endm

/* ENTRY name, capture (RT_CAPTURE_*) */
.macro ENTRY name, capture
	RT_FUNCTION \name
	.p2align 4
\name:
	.fnstart
	.cantunwind
	push {r0-r5, ip, lr}
	add r5, sp, #32		/* the word `push {lr}` left */
	mov r4, sp
	bic ip, r4, #7
	mov sp, ip
	vpush {d0-d7}
	bic r0, lr, #1		/* the site's return address, without the state bit */
	mov r1, r5
	mov r2, #\capture
	bl rt_arm_enter
	vpop {d0-d7}
	mov sp, r4
	pop {r0-r5, ip, lr}
	mov ip, lr
	ldr lr, [sp], #4
	bx ip
	.fnend
	.size \name, . - \name
.endm

/*
 * ENTRY_ARGS name, capture: ENTRY for objpatch --args, calling
 * rt_arm_enter_args.  Its ARGS_AREA lies ARGS_TO_PUSHED (80) bytes below
 * the word `push {lr}` left, whatever sp's alignment, so that the caller's
 * stack arguments are at a distance from it the prologue's size gives
 * (rt_arm.c); sp is aligned for the C call below it.
 */
.macro ENTRY_ARGS name, capture
	RT_FUNCTION \name
	.p2align 4
\name:
	.fnstart
	.cantunwind
	vpush {d0-d7}
	push {r0-r3}		/* ARGS_AREA: r0-r3 just below d0-d7 */
	push {r4, r5, ip, lr}
	add r3, sp, #16		/* the area */
	add r5, sp, #96		/* the word `push {lr}` left */
	mov r4, sp
	bic ip, r4, #7
	mov sp, ip
	bic r0, lr, #1		/* the site's return address, without the state bit */
	mov r1, r5
	mov r2, #\capture
	bl rt_arm_enter_args
	mov sp, r4
	pop {r4, r5, ip, lr}
	pop {r0-r3}
	vpop {d0-d7}
	mov ip, lr
	ldr lr, [sp], #4
	bx ip
	.fnend
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 0
RT_ENTRY_SET ENTRY_ARGS, rt_entry_args_mcount, 0

/*
 * clang's `bl mcount` (no `push {lr}` before it): the prologue made a frame
 * record, lr saved just above the frame pointer, r7 in Thumb code and r11
 * in ARM code (bit 0 of lr says which the site is); that word is the slot.
 * lr holds the site's return address and nothing is popped.  With args=1
 * (rt_enter_args, given ARGS_AREA) the registers are saved all the same,
 * but clang made the hook an ordinary call: what they hold by then is not
 * the arguments, and rt_arm.c's arg_regs says so (each prints "?").
 */
.macro PLAIN name, capture, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.fnstart
	.cantunwind
	push {r0-r5, ip, lr}
	tst lr, #1
	addne r5, r7, #4
	addeq r5, fp, #4
	mov r4, sp
	bic ip, r4, #7
	mov sp, ip
	vpush {d0-d7}
.if \args
	ARGS_AREA
.endif
	bic r0, lr, #1
	mov r1, r5
	mov r2, #\capture
.if \args
	bl rt_enter_args
	DROP_ARGS_AREA
.else
	bl rt_enter
.endif
	vpop {d0-d7}
	mov sp, r4
	pop {r0-r5, ip, lr}
	bx lr
	.fnend
	.size \name, . - \name
.endm

/* The SITE_FENTRY row (rt_arm.c), one per enum capture. */
PLAIN rt_entry_clang_gpr, RT_CAPTURE_GPR
PLAIN rt_entry_clang_none, RT_CAPTURE_NONE
PLAIN rt_entry_clang_fp, RT_CAPTURE_FP
PLAIN rt_entry_clang_wide, RT_CAPTURE_WIDE_FP
PLAIN rt_entry_clang_string, RT_CAPTURE_STRING
PLAIN rt_entry_clang_all, RT_CAPTURE_ALL
PLAIN rt_entry_args_clang_gpr, RT_CAPTURE_GPR, 1
PLAIN rt_entry_args_clang_none, RT_CAPTURE_NONE, 1
PLAIN rt_entry_args_clang_fp, RT_CAPTURE_FP, 1
PLAIN rt_entry_args_clang_wide, RT_CAPTURE_WIDE_FP, 1
PLAIN rt_entry_args_clang_string, RT_CAPTURE_STRING, 1
PLAIN rt_entry_args_clang_all, RT_CAPTURE_ALL, 1

/*
 * struct ret_regs at sp while rt_exit runs: r0, r1 at 0 and 8 (each
 * zero-extended), d0, d1 at 16 and 32, d2-d7 after the struct at 64.  One
 * trampoline serves every capture (long double is double here).
 */
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* An unwinder looks up the address before a return address. */
	nop
rt_return_regs:
rt_return_wide:
	.fnstart
	.cantunwind
	push {r0-r4, lr}
	mov r4, sp
	sub ip, sp, #112
	bic ip, ip, #7
	mov sp, ip
	str r0, [sp, #0]
	str r1, [sp, #8]
	mov r2, #0
	str r2, [sp, #4]
	str r2, [sp, #12]
	vstr d0, [sp, #16]
	vstr d1, [sp, #32]
	add r2, sp, #64
	vstmia r2, {d2-d7}
	mov r0, sp
	add r1, r4, #24		/* sp as the function returned */
	bl rt_exit
	mov ip, r0
	vldr d0, [sp, #16]
	vldr d1, [sp, #32]
	add r2, sp, #64
	vldmia r2, {d2-d7}
	mov sp, r4
	pop {r0-r4, lr}
	bx ip
	.fnend
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", %progbits
