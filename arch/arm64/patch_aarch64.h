/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * AArch64: every site is one aligned 32-bit word, and NOP <-> BL is in the
 * architecture's list of instructions that may be rewritten while another
 * core executes them (ARM ARM, "concurrent modification and execution of
 * instructions"): the store protocol, one `str` per site.
 */
#include "arch/arm64/insn.h"

#define PATCH_PROTOCOL PATCH_STORE
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.pc)
/* Outline atomics are libgcc functions in .text: inline LL/SC or LSE here. */
#define PATCHER_TEXT_ARCH , target("no-outline-atomics")

static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w = len == 4 ? insn_load(b, 4, false) : 0;

	/*
	 * A pad's `mov x9, x30` (rt_modules.c) is written once, at start-up:
	 * harmless to run at any time, it patches like a NOP.
	 */
	if (w == A64_NOP || w == A64_MOV_X9_X30)
		return INSN_NOP;
	if ((w & A64_BL_MASK) == A64_BL)
		return INSN_CALL;
	return INSN_BAD;
}

#include "arch/word_store.h"
