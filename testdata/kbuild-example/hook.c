// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profiling hook, compiled without -pg like the kernel's entry-ftrace.S:
 * it only returns.  Written in assembly because it runs before the traced
 * function's prologue (x86_64 -mfentry), where a C function could clobber
 * the argument registers.
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl __fentry__\n"
	".type __fentry__, @function\n"
	"__fentry__:\n"
	"\tret\n"
	".size __fentry__, . - __fentry__\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl _mcount\n"
	".type _mcount, %function\n"
	"_mcount:\n"
	"\tret\n"
	".size _mcount, . - _mcount\n");
#else
#error "the example's hook is written for x86_64 and aarch64"
#endif
