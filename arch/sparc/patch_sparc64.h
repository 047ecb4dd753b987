/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sparc64: every site is one aligned 32-bit word, `call disp30` or a nop;
 * the delay slot after it is the compiler's and never changes.  An aligned
 * word store is atomic (SPARC V9: loads and stores of naturally aligned
 * words are), so a thread running the word while it changes executes the
 * old or the new one: the store protocol, one `stw` per site.  The ISA
 * asks for a `flush` of the word before the new instruction is sure to be
 * fetched (by this processor; others see it eventually, which is all a
 * toggle needs), and gcc's __builtin___clear_cache emits nothing on
 * sparc64: store_text flushes itself.
 */
#include <signal.h>
#include "arch/sparc/insn.h"

#define PATCH_PROTOCOL PATCH_STORE
/*
 * A sparc64 SA_SIGINFO handler's third argument is not a ucontext_t but
 * the kernel's frame after the siginfo: struct sigcontext, whose
 * sigc_regs.tpc is the interrupted instruction (qemu-user 7.2 builds the
 * same frame; its uc_mcontext reads as 0).
 */
#define CONTEXT_IP(uc) ((uintptr_t)((const struct sigcontext *)(const void *)(uc))->sigc_regs.tpc)
#define PATCHER_TEXT_ARCH

/* 0 or -errno: the kernel sets the carry (xcc) on failure, with the positive errno in %o0. */
static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long g1 __asm__("g1") = n;
	register long o0 __asm__("o0") = a;
	register long o1 __asm__("o1") = b;
	register long o2 __asm__("o2") = c;
	register long o3 __asm__("o3") = d;

	__asm__ volatile("ta 0x6d\n\t"
			 "bcc,pt %%xcc, 1f\n\t"
			 " nop\n\t"
			 "sub %%g0, %1, %1\n"
			 "1:"
			 : "+r"(g1), "+r"(o0), "+r"(o1), "+r"(o2), "+r"(o3)
			 :
			 : "o4", "o5", "cc", "memory");
	return o0;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w = len == 4 ? insn_load(b, 4, true) : 0;

	if (w == SPARC_NOP)
		return INSN_NOP;
	if ((w & SPARC_CALL_MASK) == SPARC_CALL)
		return INSN_CALL;
	return INSN_BAD;
}

#include "arch/text_units.h"

static bool store_ok(uintptr_t addr, const uint8_t *old, const uint8_t *new, size_t len)
{
	(void)old;
	(void)new;
	return len == 4 && !(addr & 3);
}

static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	(void)n;
	*(volatile uint32_t *)at = word_in_memory(b);
	__asm__ volatile("flush %0" : : "r"(at) : "memory");
}
