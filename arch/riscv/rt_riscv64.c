// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's RISC-V 64 (lp64d) part: how an enabled site calls its
 * trampoline, the stub near each module, timestamps and return values.
 *
 * gcc and clang -pg call _mcount with `auipc ra, hi; jalr ra, lo(ra)`
 * (R_RISCV_CALL_PLT, 8 bytes), which the linker relaxes to a 4-byte
 * `jal ra, target` when the target is within +-1 MiB; recordmcount --nop
 * leaves two NOPs.  A linked program's site is therefore 8 or 4 bytes:
 *  - 4 bytes, `jal ra`: disabled `nop`, enabled `jal ra, stub` (so the
 *    stub page must lie within +-1 MiB: `reach`);
 *  - 8 bytes: disabled `auipc ra, hi; nop`, enabled `auipc ra, hi;
 *    jalr ra, lo(ra)`.  The `auipc ra` is written once, with the disabled
 *    form, while the module is new (encode_site, below): later
 *    patches change the second word only.  A thread stopped between the
 *    two words at any time sees the same first word, and `auipc ra` alone
 *    is harmless: ra is dead at the hook, since the call that was there
 *    clobbers it (gcc and clang reload ra from the frame before `ret`;
 *    gcc's `mv a0, ra` before the call has already taken its copy).
 * The `auipc` aims at the site's own stub (its capture: the function's
 * return type, fixed), so every site of a module is written to its
 * disabled form when the module is loaded (encode_site, as on s390x);
 * from then on a toggle is the one aligned word of the `jalr` or the
 * `jal` (patch.c's mprotect window keeps every thread off the page while
 * it is written, which also covers words at 2 mod 4: the C extension
 * aligns instructions to 2 bytes only; riscv64-patch.h).
 *
 * The stub jumps to the trampoline through t1, which a call may find
 * clobbered anyway (PLT entries use t1 and t3), keeping ra = the site's
 * return address.
 */
#include <elf.h>
#include <string.h>
#include <time.h>
#include "arch/port.h"

RT_ENTRIES(mcount)

#define RV_NOP		0x00000013u
#define RV_AUIPC_RA	0x00000097u	/* auipc ra, 0 */
#define RV_JALR_RA_RA	0x000080e7u	/* jalr ra, 0(ra) */
#define RV_JAL_RA	0x000000efu	/* jal ra, 0 */
#define RV_AUIPC_T1	0x00000317u	/* auipc t1, 0 */
#define RV_JR_T1	0x00030067u	/* jalr x0, 0(t1) */
#define RV_LUI_T1	0x00000337u	/* lui t1, 0 */
#define RV_ADDIW_T1_T1	0x0003031bu	/* addiw t1, t1, 0 */
#define RV_C_SLLI_T1_12	0x0332u		/* c.slli t1, 12 */
#define RV_EBREAK	0x00100073u
#define JAL_REACH	((uintptr_t)1 << 20)
#define RV_PAGE		4096u

static void put32(uint8_t *p, uint32_t insn)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(insn >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t i_imm(int32_t v)
{
	return ((uint32_t)v & 0xfff) << 20;
}

static uint32_t jal_imm(int32_t v)
{
	uint32_t u = (uint32_t)v;

	return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12;
}

static bool auipc_jalr(uint8_t *code, uintptr_t site, uintptr_t target, uint32_t second)
{
	int64_t d = (int64_t)(target - site), hi = (d + 2048) >> 12;

	if (hi < -(int64_t)0x80000 || hi >= 0x80000)
		return false;
	put32(code, RV_AUIPC_RA | ((uint32_t)hi & 0xfffff) << 12);
	put32(code + 4, second ? second | i_imm((int32_t)(d - hi * 4096)) : RV_NOP);
	return true;
}

/* Both states of a site, for its stub: the `auipc ra` is in both (see the top). */
static bool rv_encode_site(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub, unsigned kind, bool on)
{
	int64_t d = (int64_t)(stub - site);

	(void)kind;
	if (len == 8)
		return auipc_jalr(code, site, stub, on ? RV_JALR_RA_RA : 0);
	if (len != 4 || d < -(int64_t)JAL_REACH || d >= (int64_t)JAL_REACH)
		return false;
	put32(code, on ? RV_JAL_RA | jal_imm((int32_t)d) : RV_NOP);
	return true;
}

static bool rv_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	return rv_encode_site(code, len, site, stub, SITE_MCOUNT, true);
}

/*
 * The site's length: 8 for the call the linker left as `auipc ra; jalr
 * ra` (or recordmcount --nop's two NOPs, or our disabled form), 4 for the
 * relaxed `jal ra`; 0 for anything else, which is left alone.
 */
static size_t rv_prepare_site(uintptr_t *at, unsigned kind, bool quiescent)
{
	uintptr_t site;
	uint32_t w0, w1;

	(void)kind;
	(void)quiescent;
	if (!at)
		return 0;	/* nothing put off */
	site = *at;
	w0 = get32((const uint8_t *)site);
	if ((w0 & 0xfff) == RV_JAL_RA)
		return 4;
	if ((w0 & 0xfff) != RV_AUIPC_RA && w0 != RV_NOP)
		return 0;
	/* Only now the second word: a `jal` site may end its text. */
	w1 = get32((const uint8_t *)site + 4);
	if ((w0 & 0xfff) == RV_AUIPC_RA && ((w1 & 0xfffff) == RV_JALR_RA_RA || w1 == RV_NOP))
		return 8;
	if (w0 == RV_NOP)
		return w1 == RV_NOP ? 8 : 4;
	return 0;
}

/*
 * Within +-2 GiB: `auipc t1; jr t1` (the usual case: qemu-user and Linux
 * map libraries near the program).  Else the address is built absolute:
 * `lui; addiw; c.slli 12; jr lo(t1)` reaches any address below 2^43,
 * which covers Linux's default (Sv39-sized) user address space.
 */
static void rv_encode_stub(uint8_t *stub, uintptr_t target)
{
	int64_t d = (int64_t)(target - (uintptr_t)stub), hi = (d + 2048) >> 12;

	memset(stub, 0, STUB_SIZE);
	if (hi >= -(int64_t)0x80000 && hi < 0x80000) {
		put32(stub, RV_AUIPC_T1 | ((uint32_t)hi & 0xfffff) << 12);
		put32(stub + 4, RV_JR_T1 | i_imm((int32_t)(d - hi * 4096)));
		put32(stub + 8, RV_EBREAK);
		put32(stub + 12, RV_EBREAK);
		return;
	}
	{
		int64_t t = (int64_t)target, upper = (t + 2048) >> 12;	/* 32 bits: t < 2^43 */
		int32_t lo = (int32_t)(t - upper * 4096);
		int64_t uhi = (upper + 2048) >> 12;
		int32_t ulo = (int32_t)(upper - uhi * 4096);

		put32(stub, RV_LUI_T1 | ((uint32_t)uhi & 0xfffff) << 12);
		put32(stub + 4, RV_ADDIW_T1_T1 | i_imm(ulo));
		stub[8] = RV_C_SLLI_T1_12 & 0xff;
		stub[9] = RV_C_SLLI_T1_12 >> 8;
		put32(stub + 10, RV_JR_T1 | i_imm(lo));
		stub[14] = 0x02;	/* c.ebreak */
		stub[15] = 0x90;
	}
}

/*
 * Where the traced function keeps its return address, at its _mcount call.
 * gcc passes that address in a0 (`mv a0, ra` shortly before the call, or
 * at -O0 through another register: what glibc's _mcount reads); clang
 * passes nothing, but -pg makes it keep a frame pointer.  So:
 *  - a frame pointer (s0 the CFA) whose ra word (s0 - 8) holds a0: gcc
 *    with a frame pointer;
 *  - gcc's `mv a0, ra` within the 8 bytes before the site: gcc without one
 *    (s0 is any callee-saved value), and the slot is the lowest word of
 *    the frame holding a0.  The prologue stored ra there; below it lie
 *    the other saved registers (the caller's values: none is a return
 *    address into the caller) and locals nothing has written yet in this
 *    call (what an earlier call from the same site left there is at the
 *    same place: its slot, rewritten);
 *  - otherwise s0 - 8 (clang).
 * NULL: not found (the call is not traced).
 */
#define FRAME_SCAN 4096	/* bytes above sp searched for a gcc frame's saved ra */

static bool gcc_mv_a0_ra(uintptr_t ra)
{
	uint32_t call = get32((const uint8_t *)(ra - 4));
	/* An 8-byte site's `jalr ra, lo(ra)`, or the relaxed `jal ra`. */
	uintptr_t site = (call & 0xfffff) == RV_JALR_RA_RA ? ra - 8 : ra - 4;

	for (uintptr_t at = site - 2; at >= site - 8; at -= 2) {
		uint16_t half;

		memcpy(&half, (const void *)at, 2);
		/* c.mv a0, ra; or addi a0, ra, 0 (code without the C extension) */
		if (half == 0x8506 || (!((site - at) & 3) && get32((const uint8_t *)at) == 0x00008513u))
			return true;
	}
	return false;
}

uintptr_t *rt_rv_slot(uintptr_t ra, uintptr_t sp, uintptr_t s0, uintptr_t a0) RT_HIDDEN;
uintptr_t *rt_rv_slot(uintptr_t ra, uintptr_t sp, uintptr_t s0, uintptr_t a0)
{
	bool fp = s0 > sp && s0 - sp <= (1u << 20) && !(s0 & 7);

	if (fp && *(uintptr_t *)(s0 - 8) == a0)
		return (uintptr_t *)(s0 - 8);
	if (!gcc_mv_a0_ra(ra))
		return fp ? (uintptr_t *)(s0 - 8) : NULL;
	for (uintptr_t *p = (uintptr_t *)sp; (uintptr_t)p < sp + FRAME_SCAN; p++)
		if (*p == a0)
			return p;
	return NULL;
}

const struct rt_arch rt_arch_host = {
	.machine = EM_RISCV,
	.elfclass = ELFCLASS64,
	.encode_call = rv_encode_call,
	.encode_stub = rv_encode_stub,
	/*
	 * jal's: make_stubs() measures from the farthest site to the far end
	 * of the stub page (an 8-byte site's auipc would reach 2 GiB).
	 */
	.reach = JAL_REACH - RV_PAGE,
	/* No entry hook: gcc and clang have no -mfentry here, and at a function's entry the call would take ra. */
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount) },
	/* long double is binary128, returned in a0:a1: rt_return_wide copies them to `wide`. */
	.wide_in_fpr0 = false,
	.encode_site = rv_encode_site,
	.prepare_site = rv_prepare_site,
	/* The pair's two words (a relaxed `jal` at the end of its text has only one: see above). */
	.site_after = 4,
};

/*
 * rdtime reads the platform timer (the `time` CSR, which Linux lets user
 * space read: the vDSO's clock_gettime uses it too); its rate varies by
 * board (10 MHz on QEMU's virt, 1 MHz on some SoCs).  rt_output.c
 * calibrates ticks against CLOCK_MONOTONIC.  qemu-user implements it.
 */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	uint64_t t;

	__asm__ volatile("rdtime %0" : "=r"(t) : : "memory");
	return t;
}
