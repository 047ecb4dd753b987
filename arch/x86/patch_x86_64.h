/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* x86_64: the int3 protocol (rt_x86.c), what differs from i386, and its raw system calls. */
#include "arch/x86/insn.h"

#define CONTEXT_IP_REG REG_RIP
#define CONTEXT_SP_REG REG_RSP

static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Every site form is shared with i386 (patch_x86.h). */
static inline enum insn_kind x86_machine_kind(const uint8_t *b, size_t len)
{
	(void)b;
	(void)len;
	return INSN_BAD;
}

/* Where `call *disp32(%rip)` (ff 15) ending at `next` goes: through its slot. */
static inline uintptr_t call_ind_target(const ucontext_t *uc, const uint8_t *insn, uintptr_t next)
{
	(void)uc;
	return *(const uintptr_t *)(next + (intptr_t)x86_rel32(insn + 2));
}

/*
 * Never: the stack below the interrupted RSP is free, as a signal frame
 * starts below the 128-byte red zone, and a call would have written there
 * anyway.
 */
static inline bool signal_frame_has(const siginfo_t *si, const ucontext_t *uc, uintptr_t word)
{
	(void)si;
	(void)uc;
	(void)word;
	return false;
}

/* Not checked: x86_64 programs run natively here (i386 ones under qemu-user: patch_i386.h). */
static inline bool procmem_runs(int fd, uint8_t *p)
{
	(void)fd;
	(void)p;
	return true;
}

/* Nothing to set up per process beyond the protocol's own. */
#define X86_PROC_INIT(memfd) ((void)(memfd))

#include "arch/x86/patch_x86.h"
