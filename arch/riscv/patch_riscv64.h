/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RISC-V 64: a site (rt_riscv64.c) is `jal ra` <-> `nop` (4 bytes), or
 * `auipc ra, hi` + `jalr ra, lo(ra)` <-> `auipc ra, hi` + `nop` (8 bytes),
 * where the auipc, written with the disabled form when the module is
 * loaded, never changes again: every toggle is one instruction word.
 *
 * The store protocol, inside patch.c's mprotect window: while the pages
 * are RW no hart can fetch from them (mprotect's TLB shootdown removes
 * execute permission everywhere first), so a thread running into the site
 * meanwhile waits and then fetches the whole new word; one stopped between
 * the auipc and the word after it resumes with the unchanged auipc.  With
 * the C extension instructions are 2-byte aligned: a word at 2 mod 4 is
 * written as two aligned halfwords (no misaligned store, which Linux may
 * have to emulate), safe for the same reason.  A 4-byte-aligned word is
 * one `sw`, which Ziccif would make safe even without the window.  The
 * two-word change (the first write of an 8-byte site's disabled form)
 * is accepted only when its second word becomes the NOP: whatever first
 * word a thread ran before, the NOP after it is harmless (ra is dead).
 * __builtin___clear_cache is glibc's __riscv_flush_icache: the
 * riscv_flush_icache system call, which makes every hart running this mm
 * execute fence.i (fence.i alone is per hart).
 */
#include "arch/riscv/insn.h"
#include "arch/text_units.h"

#define PATCH_PROTOCOL PATCH_STORE
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.__gregs[REG_PC])
#define PATCHER_TEXT_ARCH

static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long a7 __asm__("a7") = n;
	register long a0 __asm__("a0") = a;
	register long a1 __asm__("a1") = b;
	register long a2 __asm__("a2") = c;
	register long a3 __asm__("a3") = d;

	__asm__ volatile("ecall" : "+r"(a0) : "r"(a7), "r"(a1), "r"(a2), "r"(a3) : "memory");
	return a0;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	uint32_t w0 = len >= 4 ? insn_load(b, 4, false) : 0, w1 = len == 8 ? insn_load(b + 4, 4, false) : 0;

	if (len == 4) {
		if (w0 == RV_NOP)
			return INSN_NOP;
		return (w0 & RV_OPCODE_RD) == RV_JAL_RA ? INSN_CALL : INSN_BAD;
	}
	if (len != 8)
		return INSN_BAD;
	/* The recorder's two NOPs, or our disabled form: `auipc ra` before a NOP. */
	if (w1 == RV_NOP && (w0 == RV_NOP || (w0 & RV_OPCODE_RD) == RV_AUIPC_RA))
		return INSN_NOP;
	if ((w0 & RV_OPCODE_RD) == RV_AUIPC_RA && (w1 & RV_I_FIELDS) == RV_JALR_RA_RA)
		return INSN_CALL;
	return INSN_BAD;
}

static bool store_ok(uintptr_t addr, const uint8_t *old, const uint8_t *new, size_t len)
{
	if (addr & 1)
		return false;
	if (len == 4)
		return true;
	return len == 8 && (insn_load(old, 4, false) == insn_load(new, 4, false) || insn_load(new + 4, 4, false) == RV_NOP);
}

#define RV_NR_FLUSH_ICACHE 259	/* riscv_flush_icache(start, end, flags): 0 = every hart */

/*
 * A word across a 32-byte boundary may span two I-cache lines, and
 * between the window's closing mprotect (the kernel flushes no I-cache
 * there) and patch.c's __builtin___clear_cache another hart could run it
 * with one line stale and the other fetched anew: half old, half new.
 * For such a word (the only one a stale line can tear) every hart's
 * I-cache is made coherent before the page is executable again.
 */
static inline __attribute__((always_inline)) void rv_store_word(uintptr_t at, uint32_t w)
{
	if (at & 2) {
		__asm__ volatile("sh %1, 0(%0)\n\tsh %2, 2(%0)" : : "r"(at), "r"(w), "r"(w >> 16) : "memory");
		if ((at & 31) == 30)
			raw_syscall4(RV_NR_FLUSH_ICACHE, (long)at, (long)(at + 4), 0, 0);
		return;
	}
	__asm__ volatile("sw %1, 0(%0)" : : "r"(at), "r"(w) : "memory");
}

/* The words that change; an 8-byte site's toggle is its second word only. */
static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i += 4)
		if (*(volatile const uint16_t *)(at + i) != half_in_memory(b + i) ||
		    *(volatile const uint16_t *)(at + i + 2) != half_in_memory(b + i + 2))
			rv_store_word(at + i, word_in_memory(b + i));
}
