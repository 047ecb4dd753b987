// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's sparc64 part (SPARC V9, 64-bit ABI, big-endian): how an
 * enabled site calls its trampoline, the stub near each module, where the
 * traced function's return address and arguments are, timestamps.
 *
 * A site is `call _mcount` (gcc -pg) or `call mcount` (clang -pg), after
 * the function's `save`; its delay slot is the compiler's and runs in both
 * states.  Enabled, the word is `call stub`, which reaches +-8 GiB; the
 * disabled form is the recorder's nop (patch_sparc64.h).  A hook call
 * returns past the delay slot: 4 bytes after the site's end.
 *
 * The slot is the traced function's %i7 in its window save area, which
 * the trampoline spills (rt_sparc64.S); a site not preceded by a `save`
 * of the function's own has its return address in %o7, which the site's
 * call overwrites: no trampoline could find it, so such a site is refused
 * (clang and gcc never make one).
 *
 * Arguments (--args): the trampoline copies the function's %i0-%i5 from
 * its save area and %d0-%d30 as they are at the hook.  They are the
 * arguments unless an instruction between the `save` and the hook (the
 * delay slot included) wrote one of them, which the site's code tells
 * (gcc puts its own computations there at -O2, clang its PIC register
 * set-up); then they print "?".  The caller's stack arguments are at its
 * %sp + 2047 + 128, and its %sp is the function's %fp, the 15th word of
 * the save area: known for every site.
 */
#include <elf.h>
#include <string.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "arch/sparc/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_MEM(mcount)
/* No entry-hook sites on sparc64 (gcc has no -mfentry there): never used. */
RT_ENTRIES(fentry)

/* rt_sparc64.S's flag on the capture: record the arguments (an entry_args trampoline). */
#define RT_SPARC_ARGS 0x200u
#define BIAS 2047
/* The window save area's words: %l0-%l7, then %i0-%i7. */
#define WIN_I0 8
#define WIN_FP 14
#define WIN_I7 15
/* The caller's argument slots start after its 16-word save area. */
#define ARG_AREA 128
/* How far back from a site its function's `save` may be (the descriptor's hook_window). */
#define SAVE_WINDOW 64
#define STUB_BYTES 24

static uint32_t word(uintptr_t a)
{
	return insn_load((const uint8_t *)a, 4, true);
}

static bool sparc_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	uint32_t w;

	if (len != 4 || !sparc_call_to(site, stub, &w))
		return false;
	insn_store(code, 4, w, true);
	return true;
}

/*
 * `rd %pc, %g1; ldx [%g1 + 16], %g1; jmp %g1; nop; .xword target`: %o7
 * stays the site, as if it had called the trampoline.  %g1 is free at a
 * site: the compiler made the hook an ordinary call, which a PLT stub
 * reaches through %g1 too.  Stubs are 8-byte aligned (a page, then 24
 * bytes each), as ldx needs.
 */
static void sparc_encode_stub(uint8_t *stub, uintptr_t target)
{
	insn_store(stub, 4, 0x83414000u, true);		/* rd %pc, %g1 */
	insn_store(stub + 4, 4, 0xc2586010u, true);	/* ldx [%g1 + 16], %g1 */
	insn_store(stub + 8, 4, 0x81c04000u, true);	/* jmp %g1 */
	insn_store(stub + 12, 4, SPARC_NOP, true);
	insn_store(stub + 16, 4, (uint32_t)((uint64_t)target >> 32), true);
	insn_store(stub + 20, 4, (uint32_t)target, true);
}

/* The function's `save %sp, x, %sp` before the site, within SAVE_WINDOW bytes; 0: none. */
static uintptr_t save_before(uintptr_t site)
{
	for (uintptr_t a = site - 4; a + SAVE_WINDOW >= site; a -= 4)
		if ((word(a) & SPARC_SAVE_SP_MASK) == SPARC_SAVE_SP)
			return a;
	return 0;
}

/* Loads into FP registers (op 3): ldf, ldfsr, ldqf, lddf and their alternate-space forms. */
static bool fp_load(unsigned op3)
{
	return (op3 >= 0x20 && op3 <= 0x23) || (op3 >= 0x30 && op3 <= 0x33 && op3 != 0x31);
}

/* Stores, prefetches, flush: op 3 forms that write no register. */
static bool no_write(unsigned op3)
{
	switch (op3) {
	case 0x04: case 0x05: case 0x06: case 0x07: case 0x0e:	/* stw stb sth std stx */
	case 0x14: case 0x15: case 0x16: case 0x17: case 0x1e:	/* the same, alternate space */
	case 0x24: case 0x25: case 0x26: case 0x27:		/* stf stfsr stqf stdf */
	case 0x34: case 0x36: case 0x37:			/* stfa stqfa stdfa */
	case 0x2d: case 0x3d:					/* prefetch, prefetcha */
		return true;
	default:
		return false;
	}
}

static bool arg_reg(unsigned rd)
{
	return rd >= 24 && rd < 30;	/* %i0-%i5 */
}

/* gcc's PIC register set-up, `jmp %o7 + 8; add %o7, %l7, %l7`: writes %l7 alone. */
#define JMP_O7_8	0x81c3e008u
#define ADD_O7_L7_L7	0xae03c017u

/*
 * Whether the instruction at `a` may write an argument register or leave
 * the straight line to the hook: false only for forms known not to.  Of
 * calls, clang's `call .+8` writes %o7 alone, and gcc's call of its PIC
 * thunk %l7 too.
 */
static bool disturbs_args(uintptr_t a, uint32_t w)
{
	unsigned op3 = SPARC_OP3(w), rd = SPARC_RD(w);

	switch (SPARC_OP(w)) {
	case 0:		/* sethi, or a branch */
		return SPARC_OP2(w) != 4 || arg_reg(rd);
	case 1: {	/* call */
		uintptr_t to = a + (uintptr_t)((int64_t)((uint64_t)w << 34) >> 32);

		return to != a + 8 && (word(to) != JMP_O7_8 || word(to + 4) != ADD_O7_L7_L7);
	}
	case 2:
		if (op3 == 0x34 || op3 == 0x35 || op3 == 0x36)	/* FPop, VIS: an FP register */
			return true;
		if (op3 == 0x38 || op3 == 0x39 || op3 == 0x3a || op3 == 0x3c || op3 == 0x3d || op3 == 0x3e)
			return true;	/* jmpl, return, Tcc, save, restore, done/retry */
		if (op3 == 0x30 || op3 == 0x3b || op3 == 0x2b)	/* wr, flush, flushw */
			return false;
		return arg_reg(rd);
	default:
		if (no_write(op3))
			return false;
		if (fp_load(op3))
			return true;
		/* ldd and ldda write an even pair. */
		return arg_reg(rd) || ((op3 == 0x03 || op3 == 0x13) && arg_reg(rd + 1));
	}
}

/* What a site's code says, found once per site and thread (the code does not change while loaded). */
#define SITE_SAVED	1	/* a `save` of the function's own precedes it */
#define SITE_ARGS_KEPT	2	/* nothing from there to the hook wrote an argument register */
#define SITE_I0_KEPT	4	/* ... nor %i0, where a struct's return address came */

static unsigned read_site(uintptr_t site)
{
	uintptr_t save = save_before(site);
	unsigned flags = SITE_ARGS_KEPT | SITE_I0_KEPT;

	if (!save)
		return 0;
	for (uintptr_t a = save + 4; a <= site + 4; a += 4) {
		uint32_t w = word(a);

		if (a == site)
			continue;
		if (!disturbs_args(a, w))
			continue;
		flags &= ~(unsigned)SITE_ARGS_KEPT;
		/* %i0 too, unless an ALU or load form names another rd (a control transfer or window change: all). */
		if ((SPARC_OP(w) != 2 && SPARC_OP(w) != 3) || SPARC_RD(w) == 24 ||
		    (SPARC_OP(w) == 2 && SPARC_OP3(w) >= 0x38) ||
		    (SPARC_OP(w) == 3 && (SPARC_OP3(w) == 0x03 || SPARC_OP3(w) == 0x13) && SPARC_RD(w) + 1 == 24))
			flags &= ~(unsigned)SITE_I0_KEPT;
	}
	return flags | SITE_SAVED;
}

#define SITE_CACHE 64
static __thread struct {
	uintptr_t site;
	unsigned flags;
} sites[SITE_CACHE] __attribute__((tls_model("initial-exec")));

static unsigned site_flags(uintptr_t site)
{
	unsigned h = (unsigned)(site >> 2) % SITE_CACHE;

	if (sites[h].site != site) {
		sites[h].flags = read_site(site);
		sites[h].site = site;
	}
	return sites[h].flags;
}

void rt_sparc64_enter(uintptr_t site, uint64_t *win, unsigned capture, const uint8_t *regs) RT_HIDDEN;

/*
 * Called by the entry trampolines: `site` is the hook call (its %o7),
 * `win` the traced function's spilled window, `regs` (--args) the
 * trampoline's copy of its argument registers.
 */
void rt_sparc64_enter(uintptr_t site, uint64_t *win, unsigned capture, const uint8_t *regs)
{
	uintptr_t *slot = (uintptr_t *)&win[WIN_I7], ra = site + 8;
	unsigned flags = site_flags(site), c = capture & ~RT_SPARC_ARGS;
	const uint8_t *stack = (const uint8_t *)(uintptr_t)(win[WIN_FP] + BIAS + ARG_AREA);

	if (!(flags & SITE_SAVED))
		return;
	/* A struct's address in %i0 at the entry: lost if the code before the hook reused %i0. */
	if (c == CAPTURE_MEMORY && !(flags & SITE_I0_KEPT))
		c = CAPTURE_NONE;
	if (!(capture & RT_SPARC_ARGS)) {
		if (c == CAPTURE_MEMORY)
			rt_enter_mem(ra, slot, c, (uintptr_t)win[WIN_I0]);
		else
			rt_enter(ra, slot, c);
		return;
	}
	if (c == CAPTURE_MEMORY)
		rt_enter_args_at_mem(ra, slot, c, regs, stack, flags & SITE_ARGS_KEPT ? 0 : ARGS_NO_REGS,
				     (uintptr_t)win[WIN_I0]);
	else
		rt_enter_args_at(ra, slot, c, regs, stack, flags & SITE_ARGS_KEPT ? 0 : ARGS_NO_REGS);
}

/*
 * Readied once per recorded site when its module loads: the call or the
 * nop --nop left, after a `save` (else refused: see above).
 */
static size_t sparc_prepare_site(uintptr_t *at, unsigned kind, bool quiescent)
{
	uint32_t w;

	(void)kind;
	(void)quiescent;
	if (!at)
		return 0;
	w = word(*at);
	if (w != SPARC_NOP && (w & SPARC_CALL_MASK) != SPARC_CALL)
		return 0;
	return save_before(*at) ? 4 : RT_SITE_REFUSED;
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_sparc64,
	.encode_call = sparc_encode_call,
	.encode_stub = sparc_encode_stub,
	.stub_size = STUB_BYTES,
	/* make_stubs() measures from the farthest site to the far end of the stub page. */
	.reach = (uintptr_t)SPARC_CALL_REACH - 65536,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW_MEM(mcount) },
	/* rt_sparc64.S's copy: %i0-%i5 from 0, %d0-%d30 from 48, 8 bytes apart. */
	.arg_regs = { .gpr = { 0, 8, 16, 24, 32, 40 }, .fpr = 48, .fpr_stride = 8 },
	/* The call's delay slot: the hook returns past it. */
	.ra_after_site = 4,
	.prepare_site = sparc_prepare_site,
	.site_before = SAVE_WINDOW,
	.site_after = 8,
};

/*
 * The tick register: readable from user space on Linux (glibc's
 * hp-timing reads it too) and under qemu-user; rt_output.c calibrates it
 * against CLOCK_MONOTONIC.
 */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	uint64_t t;

	__asm__ volatile("rd %%tick, %0" : "=r"(t));
	return t;
}
