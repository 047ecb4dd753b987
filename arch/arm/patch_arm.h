/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * 32-bit ARM: the store protocol (patch.c), one store per site.  An ARM
 * site is one aligned word, `bl stub` <-> `ldr lr, [sp], #4` (the pop that
 * undoes gcc's `push {lr}`, the kernel's ftrace NOP for these sites); a
 * Thumb-2 site is the first halfword of a 32-bit instruction whose second
 * halfword both forms share (objpatch/arch/arm.c), so one aligned halfword
 * store, single-copy atomic, switches it whatever its alignment.  The
 * prefix and NOP forms below are written only when a module is loaded.
 */
#define PATCH_PROTOCOL PATCH_STORE
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.arm_pc)
#define PATCHER_TEXT_ARCH

#define ARMP_NOP	0xe1a00000u	/* mov r0, r0: recordmcount's NOP */
#define ARMP_PUSH_LR	0xe52de004u	/* str lr, [sp, #-4]! */
#define ARMP_POP_LR	0xe49de004u	/* ldr lr, [sp], #4 */
#define ARMP_BL		0xeb000000u
#define ARMP_BL_MASK	0xff000000u

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

static inline uint32_t armp_word(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint32_t armp_half(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

/* Thumb halfwords: NOP, push {lr}, the halves of ldr.w lr, [sp], #4; bl/blx halves. */
static enum insn_kind classify_thumb(uint32_t h)
{
	if (h == 0xbf00 || h == 0xb500 || h == 0xf85d || h == 0xeb04)
		return INSN_NOP;
	if ((h & 0xf800) == 0xf000 || (h & 0xc000) == 0xc000)
		return INSN_CALL;
	return INSN_BAD;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w;

	if (len == 2)
		return classify_thumb(armp_half(b));
	if (len != 4)
		return INSN_BAD;
	w = armp_word(b);
	if (w == ARMP_NOP || w == ARMP_PUSH_LR || w == ARMP_POP_LR)
		return INSN_NOP;
	if ((w & ARMP_BL_MASK) == ARMP_BL)
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
		__asm__ volatile("strh %1, [%0]" : : "r"(at), "r"(armp_half(b)) : "memory");
	else
		__asm__ volatile("str %1, [%0]" : : "r"(at), "r"(armp_word(b)) : "memory");
}
