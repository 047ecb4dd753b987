// SPDX-License-Identifier: GPL-2.0-only
/*
 * The __fentry__ that `-pg -mfentry` programs call and glibc does not have
 * (x86_64; compile without -pg).  It returns at once: called before the
 * prologue, it must leave every register and the stack as it found them.
 */
__asm__(".text\n"
	".globl __fentry__\n"
	".type __fentry__, @function\n"
	"__fentry__:\n"
	"\tret\n"
	".size __fentry__, . - __fentry__\n");
