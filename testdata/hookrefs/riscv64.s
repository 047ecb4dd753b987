# SPDX-License-Identifier: GPL-2.0-only
# References to the hook no compiler emits (t/37-hook-refs.t): `tail` is
# auipc t1 + jr t1 under the call's own relocation type.
# EXPECT strays=2 linked=1
	.text
	.globl	traced
	.type	traced, @function
traced:
	addi	sp, sp, -16
	sd	ra, 8(sp)
	call	_mcount
	ld	ra, 8(sp)
	addi	sp, sp, 16
	ret
	.size	traced, .-traced

	.globl	tail
	.type	tail, @function
tail:
	tail	_mcount
	.size	tail, .-tail

	.globl	addr
	.type	addr, @function
addr:
	lla	a0, _mcount
	ret
	.size	addr, .-addr
