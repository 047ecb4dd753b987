# SPDX-License-Identifier: GPL-2.0-only
# References to the hook no compiler emits (t/37-hook-refs.t): a jump
# (`j`, the jal's relocation on another opcode) and %hi/%lo of its address
# with no call after them.
# EXPECT strays=3 linked=1
	.abicalls
	.option	pic0
	.set	noreorder
	.text
	.globl	traced
	.type	traced, @function
	.ent	traced
traced:
	move	$1, $31
	jal	_mcount
	addiu	$sp, $sp, -8
	jr	$31
	nop
	.end	traced

	.globl	tail
	.type	tail, @function
	.ent	tail
tail:
	j	_mcount
	nop
	.end	tail

	.globl	addr
	.type	addr, @function
	.ent	addr
addr:
	lui	$2, %hi(_mcount)
	addiu	$2, $2, %lo(_mcount)
	jr	$31
	nop
	.end	addr
