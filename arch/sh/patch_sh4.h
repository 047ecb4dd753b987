/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sh4: a site is the aligned 32-bit literal word gcc's -pg sequence loads
 * the hook's address from (arch/sh/rt_sh4.c), data rather than an
 * instruction: an aligned word store is single-copy atomic on SH-4, so a
 * thread loading the word gets the old or the new address, and nothing
 * in the instruction cache goes stale (no flush).  The store protocol,
 * one `mov.l` per site.
 */
#include <signal.h>
#include <ucontext.h>

#define PATCH_PROTOCOL PATCH_STORE
/*
 * The pc's word in a handler's ucontext: uc_mcontext.pc's on Linux, two
 * words further in qemu-sh4 7.2's frames; rt_sh4.c finds out which once,
 * from a SIGILL of its own, before any patch.
 */
extern unsigned rt_sh4_pc_word __attribute__((visibility("hidden")));
#define CONTEXT_IP(uc) ((uintptr_t)((const uint32_t *)(const void *)(uc))[rt_sh4_pc_word])
#define PATCHER_TEXT_ARCH

void rt_sh4_off(void) __attribute__((visibility("hidden")));

/* 0 or -errno: `trapa #0x14` (four arguments), the number in r3, the result in r0. */
static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long r3 __asm__("r3") = n;
	register long r4 __asm__("r4") = a;
	register long r5 __asm__("r5") = b;
	register long r6 __asm__("r6") = c;
	register long r7 __asm__("r7") = d;
	register long r0 __asm__("r0");

	__asm__ volatile("trapa #0x14" : "=r"(r0) : "r"(r3), "r"(r4), "r"(r5), "r"(r6), "r"(r7) : "memory");
	return r0;
}

/* The word's two states: rt_sh4_off's address, or a stub's (any other even address: mcount's at load). */
static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w;

	if (len != 4)
		return INSN_BAD;
	__builtin_memcpy(&w, b, 4);
	if (w == (uint32_t)(uintptr_t)rt_sh4_off)
		return INSN_NOP;
	return w && !(w & 1) ? INSN_CALL : INSN_BAD;
}

static bool store_ok(uintptr_t addr, const uint8_t *old, const uint8_t *new, size_t len)
{
	(void)old;
	(void)new;
	return len == 4 && !(addr & 3);
}

/*
 * The word from its bytes one by one: SH-4 has no unaligned load, and for
 * a memcpy from a pointer of unknown alignment gcc calls memcpy, through
 * a PLT stub that may lie on a page the window made non-executable (in a
 * program linking libobjpatch.a, among its first functions).
 */
static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	(void)n;
	*(volatile uint32_t *)at = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
