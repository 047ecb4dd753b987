/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * i386 trampolines.  A site calls a stub near its module, the stub jumps
 * here with (%esp) = the site's return address.
 *
 * Entry: the hook runs where the compiler expects %eax, %ecx and %edx to
 * survive (regparm/fastcall arguments, the static chain in %ecx: what
 * glibc's mcount keeps too), so they are saved around the C code, which
 * gets the 16-byte aligned stack the i386 psABI promises it.  The traced
 * function's return address is at 4(%ebp) for mcount (called after
 * `push %ebp; mov %esp,%ebp`: our own %ebp then points at the saved one)
 * and just above our own return address for __fentry__ (called before the
 * prologue).  The x87 stack is empty at a function's entry, vector
 * arguments (__m128 in xmm0-2) are not kept: this code uses no SSE.
 *
 * Return: the traced function returns here instead of to its caller
 * (after popping a struct return's hidden pointer with `ret $4`: the word
 * below our entry %esp is free either way).  %eax and %edx are saved as
 * struct ret_regs' gpr[0] and gpr[1], zero-extended.  Every floating
 * return value (float, double, long double) is in st(0): fxam says whether
 * the x87 stack holds one (empty for every other function, and it must
 * stay so: a value pushed back by mistake would overflow the stack after
 * eight calls).  If so, it is copied to `wide` as 80 bits (fstpt, then
 * fldt puts it back: there is no storing fstt) and to fpr[0] as a double
 * (fstl, no pop).  Rounding to a double may set the inexact or overflow
 * flags, which a program can test (fetestexcept), so the x87 environment
 * is saved and restored around it.  One trampoline serves every capture:
 * rt_return_wide is another name for it.
 */
#include "arch/port.h"

	.text

/*
 * ENTRY name, capture (RT_CAPTURE_*), kind (RT_SITE_*), args (0/1:
 * rt_enter_args, whose arguments are all on the stack above the slot; it
 * is given the saved registers all the same)
 */
.macro ENTRY name, capture, kind, args=0
	RT_FUNCTION \name
	.p2align 4
\name:
	.cfi_startproc
	push %ebp
	.cfi_def_cfa_offset 8
	.cfi_offset %ebp, -8
	mov %esp, %ebp
	.cfi_def_cfa_register %ebp
	push %eax
	push %ecx
	push %edx
	and $-16, %esp
	sub $16, %esp
	mov 4(%ebp), %eax
	mov %eax, 0(%esp)
.if \kind == RT_SITE_FENTRY
	lea 8(%ebp), %eax
.else
	/* i386_mcount_slot(fp, ra, ecx, edi): 4(%ebp) unless a DRAP prologue made it a copy */
	mov 0(%ebp), %eax
	mov %eax, 0(%esp)
	mov 4(%ebp), %eax
	mov %eax, 4(%esp)
	mov %ecx, 8(%esp)
	mov %edi, 12(%esp)
	call i386_mcount_slot
	mov 4(%ebp), %ecx
	mov %ecx, 0(%esp)
.endif
	mov %eax, 4(%esp)
	movl $\capture, 8(%esp)
.if \args
	lea -12(%ebp), %ecx
	mov %ecx, 12(%esp)
	call rt_enter_args
.else
	call rt_enter
.endif
	lea -12(%ebp), %esp
	pop %edx
	pop %ecx
	pop %eax
	pop %ebp
	.cfi_def_cfa %esp, 4
	ret
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per site kind and enum capture (arch/port.h), in its order. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 1, RT_SITE_MCOUNT
RT_ENTRY_SET ENTRY, rt_entry_fentry, 1, RT_SITE_FENTRY
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 1, RT_SITE_MCOUNT, 1
RT_ENTRY_SET ENTRY, rt_entry_args_fentry, 1, RT_SITE_FENTRY, 1

/*
 * The frame, from the 16-aligned %esp: rt_exit's two arguments at 0 and 4,
 * struct ret_regs at 16 (gpr at 16, fpr at 32, wide at 64), the x87 environment
 * (28 bytes) at 96.
 */
#define REGS 16
#define FENV 96
	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 4
	/* The unwinder looks up the address before a return address. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined eip
	sub $4, %esp		/* becomes the real return address */
	push %ebp
	mov %esp, %ebp
	and $-16, %esp
	sub $128, %esp
	mov %eax, REGS+0(%esp)
	movl $0, REGS+4(%esp)
	mov %edx, REGS+8(%esp)
	movl $0, REGS+12(%esp)
	fxam
	fnstsw %ax
	and $0x4500, %ax	/* C3, C2, C0 */
	cmp $0x4100, %ax	/* C3 and C0 alone: st(0) is empty */
	je 1f
	fnstenv FENV(%esp)
	fstpt REGS+48(%esp)
	fldt REGS+48(%esp)
	fstl REGS+16(%esp)
	fldenv FENV(%esp)
1:
	lea REGS(%esp), %eax
	mov %eax, 0(%esp)
	lea 8(%ebp), %eax
	mov %eax, 4(%esp)
	call rt_exit
	mov %eax, 4(%ebp)
	mov REGS+0(%esp), %eax
	mov REGS+8(%esp), %edx
	leave
	ret
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

	.section .note.GNU-stack, "", @progbits
