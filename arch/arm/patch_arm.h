/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 32-bit ARM: the store protocol (patch.c), one store per site.  An ARM
 * site is one aligned word, `bl stub` <-> `ldr lr, [sp], #4` (the pop that
 * undoes gcc's `push {lr}`, the kernel's ftrace NOP for these sites); a
 * Thumb-2 site is the first halfword of a 32-bit instruction whose second
 * halfword both forms share (rt_arm.c), so one aligned halfword
 * store, single-copy atomic, switches it whatever its alignment.  The
 * prefix and NOP forms below are written only when a module is loaded.
 */
#include "arch/arm/insn.h"
#include "arch/text_units.h"

#define PATCH_PROTOCOL PATCH_STORE
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.arm_pc)
#define PATCHER_TEXT_ARCH

/*
 * r7 holds the call number, and is Thumb code's frame pointer, which an
 * asm may not claim: it is moved aside to ip (the kernel keeps every
 * register but r0).
 */
static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long r0 __asm__("r0") = a;
	register long r1 __asm__("r1") = b;
	register long r2 __asm__("r2") = c;
	register long r3 __asm__("r3") = d;

	__asm__ volatile("mov ip, r7\n\tmov r7, %[n]\n\tsvc #0\n\tmov r7, ip"
			 : "+r"(r0) : [n] "r"(n), "r"(r1), "r"(r2), "r"(r3) : "ip", "memory");
	return r0;
}

/*
 * Thumb halfwords: NOP, push {lr}, the halves of ldr.w lr, [sp], #4; bl/blx
 * halves (the second pattern takes clang's `b.n .+4` too).
 */
static enum insn_kind classify_thumb(uint32_t h)
{
	if (h == T32_NOP || h == T32_PUSH_LR || h == T32_POP_LR_HI || h == T32_POP_LR_LO)
		return INSN_NOP;
	if ((h & T32_BL_HI_MASK) == T32_BL_HI || (h & T32_BL_LO_MASK) == T32_BL_LO)
		return INSN_CALL;
	return INSN_BAD;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w;

	if (len == 2)
		return classify_thumb(insn_load(b, 2, false));
	if (len != 4)
		return INSN_BAD;
	w = insn_load(b, 4, false);
	if (w == ARM_NOP || w == ARM_PUSH_LR || w == ARM_POP_LR)
		return INSN_NOP;
	if ((w & ARM_BL_MASK) == ARM_BL)
		return INSN_CALL;
	return INSN_BAD;
}

static bool store_ok(uintptr_t addr, const uint8_t *old, const uint8_t *new, size_t len)
{
	(void)old;
	(void)new;
	return (len == 4 && !(addr & 3)) || (len == 2 && !(addr & 1));
}

/* Single-copy atomic (an aligned word or halfword): a core sees the old or the new. */
static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	if (n == 2)
		__asm__ volatile("strh %1, [%0]" : : "r"(at), "r"(half_in_memory(b)) : "memory");
	else
		__asm__ volatile("str %1, [%0]" : : "r"(at), "r"(word_in_memory(b)) : "memory");
}
