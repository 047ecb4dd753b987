/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The patch protocol's machine part for every PowerPC port (ppc, ppc64
 * ELFv1, ppc64le ELFv2): every site is one aligned 32-bit word holding
 * `bl`, a nop or `b .+8`, all "patch class" instructions (Power ISA,
 * Book II, "concurrent modification and execution of instructions"): a
 * thread running the word while it changes executes the old or the new
 * one.  So the store protocol, one `stw` per site; __builtin___clear_cache
 * does the dcbst/sync/icbi/isync the ISA asks for (icbi reaches every
 * core).  What differs between the ports follows from the compiler's own
 * macros: the byte order, and where the ucontext keeps the registers.
 */
#include "arch/powerpc/insn.h"

#define PATCH_PROTOCOL PATCH_STORE
/* gregs[PT_NIP] (asm/ptrace.h: 32): the interrupted instruction. */
#define PPC_PT_NIP 32
#ifdef __powerpc64__
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.gp_regs[PPC_PT_NIP])
#else
/* The 32-bit ucontext keeps its registers behind a pointer. */
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.uc_regs->gregs[PPC_PT_NIP])
#endif
#define PATCHER_TEXT_ARCH
/*
 * qemu-user (7.2) reports a fetch from a page that is not executable as
 * SEGV_MAPERR at address NULL, like any other fault (the kernel: the
 * instruction's address, SEGV_ACCERR), on ppc, ppc64 and ppc64le alike:
 * patch.c's on_segv then goes by the instruction and the window
 * (unreported_fault).
 */
#define SEGV_ADDR_UNREPORTED 1

/* 0 or -errno: the kernel sets CR0.SO on failure, with the positive errno in r3. */
static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long r0 __asm__("r0") = n;
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register long r5 __asm__("r5") = c;
	register long r6 __asm__("r6") = d;

	__asm__ volatile("sc\n\tbns+ 1f\n\tneg %1, %1\n1:"
			 : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6)
			 :
			 : "r7", "r8", "r9", "r10", "r11", "r12", "cr0", "ctr", "xer", "memory");
	return r3;
}

/*
 * `b .+8` is the 64-bit ports' disabled form of a site followed by a
 * linker's TOC restore (rt_powerpc.c); the 32-bit port never writes it,
 * and accepting it there costs nothing.
 */
static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w = len == 4 ? insn_load(b, 4, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) : 0;

	if (w == PPC_NOP || w == PPC_B_PLUS_8)
		return INSN_NOP;
	if ((w & PPC_BL_MASK) == PPC_BL)
		return INSN_CALL;
	return INSN_BAD;
}

#include "arch/word_store.h"
