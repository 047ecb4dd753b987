# SPDX-License-Identifier: GPL-2.0-only
# References to the hook no compiler emits (t/37-hook-refs.t): one real
# call, then a tail jump, an address load and a data word in code.
# EXPECT strays=4 linked=1
	.text
	.globl traced
	.type traced, @function
traced:
	call	__fentry__
	ret
	.size	traced, .-traced

	.globl	tail
	.type	tail, @function
tail:
	jmp	__fentry__
	.size	tail, .-tail

	.globl	addr
	.type	addr, @function
addr:
	leaq	__fentry__(%rip), %rax
	movabsq	$mcount, %rax
	ret
	.quad	__fentry__
	.size	addr, .-addr

	.section .rodata
	.quad	__fentry__	# not code: not a finding
