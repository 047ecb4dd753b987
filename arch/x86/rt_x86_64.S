/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * x86_64 trampolines.  A site calls a stub near its module, the stub jumps
 * here with [rsp] = the site's return address.
 *
 * Entry: the hook is called where the compiler expects every argument
 * register (and %rax, the vector count of varargs calls, and %r10, the static
 * chain) to survive, so all of them and xmm0-7 are saved around the C code.
 * Without --args, the general ones are saved first and rt_enter_quick, which
 * touches no other register, records the common entry; only when it
 * declines are xmm0-7 saved too and rt_enter called.
 * The traced function's return address is at 8(%rbp) for mcount (called
 * after `push %rbp; mov %rsp,%rbp`) and just above our own return address
 * for __fentry__ (called before the prologue).
 *
 * Return: the traced function returns here instead of to its caller; the
 * return registers (rax, rdx, xmm0, xmm1, and st(0) for long double) are
 * saved, rt_exit gives back the real return address, and we return there
 * with the registers as they were.
 */
#include "arch/port.h"

	.text

/* %rdi, %rsi, %edx: rt_enter's arguments (the traced function's return slot as \kind says). */
.macro ENTER_ARGS capture, kind
	mov 8(%rbp), %rdi
.if \kind == RT_SITE_FENTRY
	lea 16(%rbp), %rsi
.else
	mov 0(%rbp), %rsi
	add $8, %rsi
.endif
	mov $\capture, %edx
.endm

/* ENTRY name, capture (RT_CAPTURE_*), kind (RT_SITE_*), args (0/1: rt_enter_args, given the save area) */
.macro ENTRY name, capture, kind, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	push %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	and $-16, %rsp
	sub $192, %rsp
	mov %rax, 0(%rsp)
	mov %rdi, 8(%rsp)
	mov %rsi, 16(%rsp)
	mov %rdx, 24(%rsp)
	mov %rcx, 32(%rsp)
	mov %r8, 40(%rsp)
	mov %r9, 48(%rsp)
	mov %r10, 56(%rsp)
.if !\args
	ENTER_ARGS \capture, \kind
	call rt_enter_quick
	test %al, %al
	jnz 1f
.endif
	movaps %xmm0, 64(%rsp)
	movaps %xmm1, 80(%rsp)
	movaps %xmm2, 96(%rsp)
	movaps %xmm3, 112(%rsp)
	movaps %xmm4, 128(%rsp)
	movaps %xmm5, 144(%rsp)
	movaps %xmm6, 160(%rsp)
	movaps %xmm7, 176(%rsp)
	ENTER_ARGS \capture, \kind
.if \args
	mov %rsp, %rcx
	call rt_enter_args
.else
	call rt_enter
.endif
	movaps 64(%rsp), %xmm0
	movaps 80(%rsp), %xmm1
	movaps 96(%rsp), %xmm2
	movaps 112(%rsp), %xmm3
	movaps 128(%rsp), %xmm4
	movaps 144(%rsp), %xmm5
	movaps 160(%rsp), %xmm6
	movaps 176(%rsp), %xmm7
1:
	mov 0(%rsp), %rax
	mov 8(%rsp), %rdi
	mov 16(%rsp), %rsi
	mov 24(%rsp), %rdx
	mov 32(%rsp), %rcx
	mov 40(%rsp), %r8
	mov 48(%rsp), %r9
	mov 56(%rsp), %r10
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per site kind and enum capture (arch/port.h), in its order. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 1, RT_SITE_MCOUNT
RT_ENTRY_SET ENTRY, rt_entry_fentry, 1, RT_SITE_FENTRY
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 1, RT_SITE_MCOUNT, 1
RT_ENTRY_SET ENTRY, rt_entry_args_fentry, 1, RT_SITE_FENTRY, 1

/* RETURN name, x87 (0/1: also st(0), for long double): struct ret_regs is at (%rsp) while rt_exit runs. */
.macro RETURN name, x87
	RT_FUNCTION \name
	.p2align 4
	/* The unwinder looks up the address before a return address. */
	nop
\name:
	.cfi_startproc
	.cfi_undefined rip
	sub $8, %rsp		/* becomes the real return address */
	push %rbp
	mov %rsp, %rbp
	and $-16, %rsp
	sub $64, %rsp
	mov %rax, 0(%rsp)
	mov %rdx, 8(%rsp)
	movaps %xmm0, 16(%rsp)
	movaps %xmm1, 32(%rsp)
.if \x87
	fstpt 48(%rsp)
	fldt 48(%rsp)
.endif
	mov %rsp, %rdi
	lea 16(%rbp), %rsi
	call rt_exit
	mov %rax, 8(%rbp)
	mov 0(%rsp), %rax
	mov 8(%rsp), %rdx
	movaps 16(%rsp), %xmm0
	movaps 32(%rsp), %xmm1
	leave
	ret
	.cfi_endproc
	.size \name, . - \name
.endm

RETURN rt_return_regs, 0
RETURN rt_return_wide, 1

	.section .note.GNU-stack, "", @progbits
