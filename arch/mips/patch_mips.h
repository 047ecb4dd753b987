/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MIPS o32 and n64: a site is the call word of its sequence (rt_mips.c):
 * one aligned 32-bit word, `jal stub` when enabled, `addiu sp, sp, 8` (o32,
 * the pop the hook would do) or a NOP (n64) when not, and the compiler's
 * `jalr t9` (or `jalr v1` with -mlong-calls) before the runtime first
 * writes it.  An aligned word store is
 * single-copy atomic, so a thread running the sequence meanwhile executes
 * the old word or the new, each consistent with the unchanged instructions
 * around it: the store protocol, one `sw` per site.
 */
#include "arch/arch.h"
#include "arch/mips/insn.h"

#define PATCH_PROTOCOL PATCH_STORE
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.pc)
#define PATCHER_TEXT_ARCH

/* Both ABIs: the number in v0, the error flag in a3; what the kernel may clobber, as glibc lists it. */
static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long v0 __asm__("$2") = n;
	register long a0 __asm__("$4") = a;
	register long a1 __asm__("$5") = b;
	register long a2 __asm__("$6") = c;
	register long a3 __asm__("$7") = d;

	__asm__ volatile("syscall"
			 : "+r"(v0), "+r"(a3)
			 : "r"(a0), "r"(a1), "r"(a2)
			 : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$24", "$25",
			   "hi", "lo", "memory");
	return a3 ? -v0 : v0;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w = len == 4 ? insn_load(b, 4, MIPS_HOST_BE) : 1;

#if _MIPS_SIM == _ABIO32
	/* The push is written once, at start-up, into a --nop'd delay slot (rt_mips.c). */
	if (w == MIPS_ADDIU_SP_8 || w == MIPS_ADDIU_SP_M8)
		return INSN_NOP;
#endif
	if (w == MIPS_NOP)
		return INSN_NOP;
	/* jalr ra, rX: t9 (%call16), v1 (-mlong-calls through the GOT), ... */
	if ((w & MIPS_JALR_RA_MASK) == MIPS_JALR_RA || (w & MIPS_OP_MASK) == MIPS_JAL)
		return INSN_CALL;
	return INSN_BAD;
}

#include "arch/word_store.h"
