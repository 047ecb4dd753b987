@ SPDX-License-Identifier: GPL-2.0-only
@ References to the hook no compiler emits (t/37-hook-refs.t).
@ EXPECT strays=2 linked=1
	.arm
	.syntax	unified
	.text
	.globl	traced
	.type	traced, %function
traced:
	push	{lr}
	bl	__gnu_mcount_nc
	bx	lr
	.size	traced, .-traced

	.globl	tail
	.type	tail, %function
tail:
	b	__gnu_mcount_nc
	.size	tail, .-tail

	.globl	addr
	.type	addr, %function
addr:
	ldr	r0, =__gnu_mcount_nc
	bx	lr
	.ltorg
	.size	addr, .-addr
