/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * s390x: a site is a 6-byte RIL instruction at an even address, `brasl
 * %rN,X` (c0 N5 disp32) or `brcl 0,X` (c0 04 disp32, a branch whose mask
 * never branches: a NOP whatever X is).  The runtime keeps the displacement
 * of both forms the same (rt_s390x.c), so a toggle is a store of
 * byte 1 alone, which any core sees as the old byte or the new.  The one
 * other change allowed is the displacement of a site that is a NOP before
 * and after: however its bytes are mixed, the instruction never branches.
 * A call becoming a NOP with another displacement (start-up, from
 * `brasl %r14,_mcount`) is those two in turn, byte 1 first.  A NOP
 * becoming a call to a new displacement is refused: a core could fetch the
 * new byte 1 with displacement bytes it read before.
 *
 * No cache maintenance: s390 keeps instruction fetches coherent with
 * stores.  What Linux adds for its own text (text_poke_sync: a serialising
 * `bcr 14,0` on every CPU) only makes other CPUs drop instructions they
 * prefetched; here the stores happen inside patch.c's mprotect window,
 * while the page is not executable (mprotect invalidates the old
 * page-table entry on every CPU, IPTE/IDTE, before it returns), and a CPU
 * that fetched a site before runs the old instruction or the new one, both
 * whole.  The `bcr 15,0` after the stores serialises the patching CPU.
 */
#include "arch/s390/insn.h"

#define PATCH_PROTOCOL PATCH_STORE
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.psw.addr)
#define PATCHER_TEXT_ARCH
/*
 * SIGSEGV's si_addr is the page of the fault, not its byte (the machine
 * reports no more): patch.c takes a fault on the faulting instruction's own
 * page, a fetch or a data access, as one without an address: a window
 * holding the instruction is waited for, anything else retried once, so a
 * store to the program's own r-x text still reaches its handler.
 */
#define SEGV_ADDR_PAGE_ONLY 1

static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	register long r1 __asm__("r1") = n;
	register long r2 __asm__("r2") = a;
	register long r3 __asm__("r3") = b;
	register long r4 __asm__("r4") = c;
	register long r5 __asm__("r5") = d;

	__asm__ volatile("svc 0" : "+r"(r2) : "r"(r1), "r"(r3), "r"(r4), "r"(r5) : "memory");
	return r2;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	if (len != S390_RIL_LEN)
		return INSN_BAD;
	if (s390_is_brcl_never(b))
		return INSN_NOP;
	if (s390_is_brasl(b))
		return INSN_CALL;
	return INSN_BAD;
}

static bool same_disp(const uint8_t *a, const uint8_t *b)
{
	return a[2] == b[2] && a[3] == b[3] && a[4] == b[4] && a[5] == b[5];
}

static bool store_ok(uintptr_t addr, const uint8_t *old, const uint8_t *new, size_t len)
{
	if (len != S390_RIL_LEN || (addr & 1) || classify(old, len) == INSN_BAD || classify(new, len) == INSN_BAD)
		return false;
	/* byte 1 alone; a NOP's displacement; a call to a NOP (byte 1 first, then a NOP's displacement) */
	return same_disp(old, new) || s390_is_brcl_never(new);
}

/*
 * The changes store_ok() allows, in that order: a call stops being one
 * before its displacement moves, a NOP's displacement moves before it
 * becomes a call (of the same displacement: one byte then).
 */
static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	volatile uint8_t *p = (volatile uint8_t *)at;

	(void)n;
	if (p[1] != S390_BRCL_NEVER && b[1] == S390_BRCL_NEVER)
		p[1] = b[1];
	for (int i = 2; i < S390_RIL_LEN; i++)
		p[i] = b[i];
	p[1] = b[1];
	__asm__ volatile("bcr 15,0" : : : "memory");
}
