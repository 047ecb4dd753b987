// SPDX-License-Identifier: GPL-2.0-only
// References to the hook no compiler emits (t/37-hook-refs.t).
// EXPECT strays=4 linked=1
	.text
	.globl	traced
	.type	traced, %function
traced:
	bl	_mcount
	ret
	.size	traced, .-traced

	.globl	tail
	.type	tail, %function
tail:
	b	_mcount
	.size	tail, .-tail

	.globl	addr
	.type	addr, %function
addr:
	adrp	x0, _mcount
	add	x0, x0, :lo12:_mcount
	ret
	.quad	_mcount
	.size	addr, .-addr

	.section .rodata
	.quad	_mcount
