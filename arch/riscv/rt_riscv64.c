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
 * aligns instructions to 2 bytes only; patch_riscv64.h).
 *
 * The stub jumps to the trampoline through t1, which a call may find
 * clobbered anyway (PLT entries use t1 and t3), keeping ra = the site's
 * return address.
 */
#include <elf.h>
#include <string.h>
#include <time.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/riscv/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)

/* The stubs' instructions, their immediates 0. */
#define AUIPC_T1	(RV_AUIPC | RV_RD(RV_T1))
#define LUI_T1		(RV_LUI | RV_RD(RV_T1))
#define ADDIW_T1_T1	(RV_OP_IMM_32 | RV_RD(RV_T1) | RV_RS1(RV_T1))
#define JR_T1		(RV_JALR | RV_RD(RV_ZERO) | RV_RS1(RV_T1))
#define C_SLLI_T1_12	0x0332u
#define EBREAK		0x00100073u
#define C_EBREAK	0x9002u
#define RV_PAGE		4096u

static uint32_t code_word(uintptr_t a)
{
	return insn_load((const uint8_t *)a, 4, false);
}

/* `auipc ra, hi; jalr ra, lo(ra)` to `target`, or (second 0) `auipc ra, hi; nop`. */
static bool auipc_jalr(uint8_t *code, uintptr_t site, uintptr_t target, uint32_t second)
{
	int64_t d = (int64_t)(target - site), hi = rv_hi20(d);

	if (!rv_hi20_fits(hi))
		return false;
	insn_store(code, 4, RV_AUIPC_RA | rv_u_imm(hi), false);
	insn_store(code + 4, 4, second ? second | rv_i_imm((int32_t)(d - hi * 4096)) : RV_NOP, false);
	return true;
}

/* Both states of a site, for its stub: the `auipc ra` is in both (see the top). */
static bool rv_encode_site(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub, unsigned kind, bool on)
{
	int64_t d = (int64_t)(stub - site);

	(void)kind;
	if (len == 8)
		return auipc_jalr(code, site, stub, on ? RV_JALR_RA_RA : 0);
	if (len != 4 || d < -(int64_t)RV_JAL_REACH || d >= (int64_t)RV_JAL_REACH)
		return false;
	insn_store(code, 4, on ? RV_JAL_RA | rv_j_imm((int32_t)d) : RV_NOP, false);
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
	w0 = code_word(site);
	if ((w0 & RV_OPCODE_RD) == RV_JAL_RA)
		return 4;
	if ((w0 & RV_OPCODE_RD) != RV_AUIPC_RA && w0 != RV_NOP)
		return 0;
	/* Only now the second word: a `jal` site may end its text. */
	w1 = code_word(site + 4);
	if ((w0 & RV_OPCODE_RD) == RV_AUIPC_RA && ((w1 & RV_I_FIELDS) == RV_JALR_RA_RA || w1 == RV_NOP))
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
	int64_t d = (int64_t)(target - (uintptr_t)stub), hi = rv_hi20(d);

	memset(stub, 0, STUB_SIZE);
	if (rv_hi20_fits(hi)) {
		insn_store(stub, 4, AUIPC_T1 | rv_u_imm(hi), false);
		insn_store(stub + 4, 4, JR_T1 | rv_i_imm((int32_t)(d - hi * 4096)), false);
		insn_store(stub + 8, 4, EBREAK, false);
		insn_store(stub + 12, 4, EBREAK, false);
		return;
	}
	{
		int64_t t = (int64_t)target, upper = rv_hi20(t);	/* 32 bits: t < 2^43 */
		int32_t lo = (int32_t)(t - upper * 4096);
		int64_t uhi = rv_hi20(upper);
		int32_t ulo = (int32_t)(upper - uhi * 4096);

		insn_store(stub, 4, LUI_T1 | rv_u_imm(uhi), false);
		insn_store(stub + 4, 4, ADDIW_T1_T1 | rv_i_imm(ulo), false);
		insn_store(stub + 8, 2, C_SLLI_T1_12, false);
		insn_store(stub + 10, 4, JR_T1 | rv_i_imm(lo), false);
		insn_store(stub + 14, 2, C_EBREAK, false);
	}
}

/*
 * Where the traced function keeps its return address, at its _mcount call.
 * gcc passes that address in a0 (`mv a0, ra` before the call, or at -O0
 * through another register: what glibc's _mcount reads); clang passes
 * nothing, but -pg makes it keep a frame pointer.  So:
 *  - a frame pointer (s0 the CFA) whose ra word (s0 - 8) holds a0: gcc
 *    with a frame pointer;
 *  - gcc's `mv a0, ra` before the site, nothing writing a0 after it: gcc
 *    without one (s0 is any callee-saved value), and the slot is the
 *    lowest word of the frame holding a0.  The prologue stored ra there;
 *    below it lie the other saved registers (the caller's values: none is
 *    a return address into the caller) and locals nothing has written yet
 *    in this call (what an earlier call from the same site left there is
 *    at the same place: its slot, rewritten);
 *  - otherwise s0 - 8 (clang).
 * NULL: not found (the call is not traced).
 */
#define FRAME_SCAN 4096	/* bytes above sp searched for a gcc frame's saved ra */
/* mv a0, ra, compressed or (code without the C extension) not */
#define C_MV_A0_RA	0x8506u
#define ADDI_A0_RA	(RV_OP_IMM | RV_RD(RV_A0) | RV_RS1(RV_RA))
/*
 * How far before the site gcc's `mv a0, ra` may be: its scheduler moves
 * the prologue's register copies (up to 16 of them, 2 to 4 bytes each)
 * after it (testdata/args/args.c's fp() has 14 bytes between).
 */
#define MV_SCAN 64
#define RV_STORE	0x23u
#define RV_STORE_FP	0x27u
#define RV_BRANCH	0x63u
#define RV_LOAD_FP	0x07u

static unsigned rv_insn_len(uint16_t low)
{
	return (low & 3) == 3 ? 4 : 2;
}

/* Whether a compressed instruction may write a0 (x10; x8 + 2 in the 3-bit fields). */
static bool c_writes_a0(uint16_t c)
{
	unsigned op = c & 3, f3 = c >> 13, rd = (c >> 7) & 31, rdp = (c >> 2) & 7, rdp_alu = (c >> 7) & 7;

	if (op == 0)	/* c.addi4spn, c.lw, c.ld write rd' (c.fld an FP register, 1xx stores) */
		return (f3 == 0 || f3 == 2 || f3 == 3) && rdp == 2;
	if (op == 1) {	/* c.addi, c.addiw, c.li, c.lui write rd; the ALU group rd'; jumps and branches none */
		if (f3 <= 3)
			return rd == RV_A0;
		return f3 == 4 && rdp_alu == 2;
	}
	switch (f3) {	/* quadrant 2 */
	case 0: case 2: case 3:	/* c.slli, c.lwsp, c.ldsp */
		return rd == RV_A0;
	case 4:		/* c.mv and c.add write rd; c.jr, c.jalr (rs2 0) and c.ebreak do not */
		return rd == RV_A0 && ((c >> 2) & 31);
	default:	/* c.fldsp, stores */
		return false;
	}
}

/* Whether a 32-bit instruction may write a0: those with an integer rd field. */
static bool writes_a0(uint32_t w)
{
	unsigned op = w & RV_OPCODE;

	if (op == RV_STORE || op == RV_STORE_FP || op == RV_BRANCH || op == RV_LOAD_FP)
		return false;
	return ((w >> 7) & 31) == RV_A0;	/* OP-FP writing fa0 counts too: a0 may be lost, never wrongly kept */
}

/*
 * Whether code[from..end) decodes, from a `mv a0, ra` at `from`, to
 * instructions that end exactly at `end` (the site) and leave a0 alone.
 * Decoding forward is exact from an instruction's start: a 0x8506 that is
 * the upper half of a longer instruction rarely ends so, and then only if
 * nothing it decodes writes a0.
 */
static bool a0_still_ra(const uint8_t *code, size_t from, size_t end)
{
	uint16_t low = (uint16_t)insn_load(code + from, 2, false);
	size_t at;

	if (low == C_MV_A0_RA)
		at = from + 2;
	else if (from + 4 <= end && insn_load(code + from, 4, false) == ADDI_A0_RA)
		at = from + 4;
	else
		return false;
	while (at < end) {
		uint16_t h = (uint16_t)insn_load(code + at, 2, false);
		unsigned len = rv_insn_len(h);

		if (at + len > end || (len == 2 ? c_writes_a0(h) : writes_a0(insn_load(code + at, 4, false))))
			return false;
		at += len;
	}
	return true;
}

/*
 * The MV_SCAN bytes before the site, into buf: those of the site's own
 * page, and those of the page before if it is readable (a function may
 * start a mapping).  Returns how many, at the end of buf.
 */
static size_t code_before(uintptr_t site, uint8_t buf[MV_SCAN])
{
	size_t own = site & (RV_PAGE - 1), earlier;

	if (own > MV_SCAN)
		own = MV_SCAN;
	earlier = MV_SCAN - own;
	memcpy(buf + earlier, (const void *)(site - own), own);
	if (earlier && rt_read_own(NULL, site - MV_SCAN, buf, earlier) == earlier)
		return MV_SCAN;
	return own;
}

/* gcc's `mv a0, ra` before the site, a0 untouched from there to the call: read once per site and thread. */
#define MV_CACHE 64
static __thread struct {
	uintptr_t site;
	bool mv;
} mv_cache[MV_CACHE] __attribute__((tls_model("initial-exec")));

static bool gcc_mv_a0_ra(uintptr_t ra)
{
	uint32_t call = code_word(ra - 4);
	/* An 8-byte site's `jalr ra, lo(ra)`, or the relaxed `jal ra`. */
	uintptr_t site = (call & RV_I_FIELDS) == RV_JALR_RA_RA ? ra - 8 : ra - 4;
	unsigned h = (unsigned)(site >> 1) % MV_CACHE;
	uint8_t code[MV_SCAN];
	size_t n;
	bool mv = false;

	if (mv_cache[h].site == site)
		return mv_cache[h].mv;
	n = code_before(site, code);
	for (size_t back = 2; back <= n && !mv; back += 2)
		mv = a0_still_ra(code, MV_SCAN - back, MV_SCAN);
	mv_cache[h].site = site;
	mv_cache[h].mv = mv;
	return mv;
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
	.desc = &arch_riscv64,
	.encode_call = rv_encode_call,
	.encode_stub = rv_encode_stub,
	/*
	 * jal's: make_stubs() measures from the farthest site to the far end
	 * of the stub page (an 8-byte site's auipc would reach 2 GiB).
	 */
	.reach = RV_JAL_REACH - RV_PAGE,
	/* No entry hook: gcc and clang have no -mfentry here, and at a function's entry the call would take ra. */
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount) },
	/*
	 * rt_riscv64.S's save area: a0-a7 from sp, fa0-fa7 from sp + 64.
	 * gcc and clang make _mcount an ordinary call after the prologue:
	 * both move every argument out of a0-a7/fa0-fa7 first (gcc also
	 * passes ra in a0), so the registers hold none of them.  The
	 * stack arguments are sure: both compilers save ra in the highest
	 * word of the frame, just below the CFA (the caller's sp, where
	 * they start), unless a varargs register save area lies between,
	 * and that area is empty whenever a named argument is on the stack
	 * (all of a0-a7 are taken then).  The slot is that word.
	 */
	.arg_regs = { .gpr = { 0, 8, 16, 24, 32, 40, 48, 56 }, .fpr = 64, .fpr_stride = 8,
		      .stack_from_slot = { [SITE_MCOUNT] = 8 },
		      .unknown = { [SITE_MCOUNT] = ARGS_NO_REGS } },
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
