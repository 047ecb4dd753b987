// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's 32-bit ARM part (armhf: ARM and Thumb-2 code, VFP
 * hard-float ABI): the sites' two forms, the stubs near each module,
 * timestamps, and where a traced function's return address lives.
 *
 * gcc's hook call is `push {lr}; bl __gnu_mcount_nc` after the prologue;
 * __gnu_mcount_nc pops the pushed word back into lr.  The push stays for
 * good, so the disabled form must drop that word again: it is the kernel's
 * ftrace NOP for these sites, `ldr lr, [sp], #4` (`pop {lr}`), in ARM code
 * one aligned word, swapped with `bl stub` by one store.  That store is
 * single-copy atomic, so a core fetches the old word or the new one; the
 * ARM ARM's list of instructions that may be modified while another core
 * runs them (B, BL, NOP, BKPT, SVC...) does not name LDR, as it does not
 * for the kernel's identical NOP.  clang's sites below stay within it.
 *
 * A Thumb-2 `bl` is two halfwords, and only 2-byte aligned: one store
 * cannot change both atomically.  So the enabled and disabled forms share
 * their second halfword, and a toggle writes the first one only (one
 * aligned halfword store, single-copy atomic; the other halfword never
 * changes, so any mix a core can fetch is the old form or the new one;
 * the same caveat about LDR as above):
 *     disabled   f85d eb04   ldr.w lr, [sp], #4
 *     enabled    f?xx eb04   blx <stub>
 * eb04 as the second halfword of a BLX says: J1 = J2 = 1, imm10L = 0x182,
 * so the target is Align(site + 4, 4) + an offset whose low 12 bits are
 * 0x608, within +-4 MiB (I1 = I2 = S), in ARM state.  Every site thus
 * needs its stub at its own offset in a page: each entry trampoline gets a
 * "sled" page of ARM `ldr pc, [pc, #k]` in every word, all loading the
 * trampoline's address from the first word of the next page.
 *
 * clang's hook call is a plain `bl mcount` after a prologue that made a
 * frame record (lr saved above the frame pointer: r7 in Thumb code, r11 in
 * ARM code); glibc has `mcount` for old binaries only, so such objects are
 * used with recordmcount --nop.  Nothing to undo: disabled is the
 * recorder's NOP in ARM code (NOP <-> BL, both in the ARM ARM's list of
 * instructions that may be modified while they execute), and in Thumb code
 * `b.n .+4` over the second halfword (e000 eb04), whose first halfword is
 * a 16-bit B, also in that list.  Their trampolines are the SITE_FENTRY
 * row, which nothing else uses on ARM.
 *
 * Sites compiled for recordmcount --nop hold the recorder's NOPs over the
 * push and the call.  They get `push {lr}` and the disabled form back when
 * the module is loaded (a patch of two or three instructions, safe only
 * while nothing runs them: at start-up, or as dlopen() returns, the
 * condition rt_modules.c's pad prefixes rely on too).
 */
#include <elf.h>
#include <stdatomic.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "arch/arch.h"
#include "arch/patch.h"
#include "arch/port.h"
#include "arch/arm/arm.h"
#include "arch/arm/insn.h"
#include "arch/arm/rt_arm_frame.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
/* clang's `bl mcount`, with no `push {lr}` before it (rt_arm.S). */
RT_ENTRIES(clang)
RT_ENTRIES_ARGS(clang)

/* The stubs' instructions. */
#define ARM_LDR_PC	0xe59ff000u	/* ldr pc, [pc, #imm12] */
#define ARM_LDR_PC_M4	0xe51ff004u	/* ldr pc, [pc, #-4] */
#define ARM_UDF		0xe7f000f0u
#define ARM_BL_REACH	((intptr_t)1 << 25)
#define T32_BLX_REACH	((intptr_t)1 << 22)
#define T32_BLX_LOW12	0x608u
#define SLED		4096u
/* Page 0: ARM sites' stubs; then a sled page and its literal page per entry trampoline. */
#define STUB_ENTRIES	(SITE_KINDS * CAPTURES)
#define STUB_AREA	(SLED * (1 + 2 * STUB_ENTRIES))

/* The recorder's forms (arm.c): gcc's `push {lr}; bl`, in ARM and in Thumb code. */
static const struct call_form *arm_form(void)
{
	return &arch_arm.calls[ARM_FORM_BL];
}

static const struct call_form *thumb_form(void)
{
	return &arch_arm.calls[ARM_FORM_THUMB_BL];
}

/* The word or halfword of code at `a`. */
static uint32_t code_at(uintptr_t a, unsigned width)
{
	return insn_load((const uint8_t *)a, width, false);
}

/* The runtime's own site forms, as bytes to write: the pops of gcc's disabled sites, clang's Thumb skip. */
static const uint8_t arm_pop[4] = { LE32_BYTES(ARM_POP_LR) };
static const uint8_t thumb_pop[4] = { LE16_BYTES(T32_POP_LR_HI), LE16_BYTES(T32_POP_LR_LO) };
static const uint8_t thumb_skip[4] = { LE16_BYTES(T32_B_SKIP), LE16_BYTES(T32_POP_LR_LO) };

static const uint8_t *pat_bytes(const struct insn_pattern *p, uint8_t *buf)
{
	insn_write(p, buf, false);
	return buf;
}

static bool is(const struct insn_pattern *p, uintptr_t at)
{
	return insn_matches(p, (const uint8_t *)at, insn_len(p), false);
}

/*
 * The writes that make a module's sites ours, put off until its last site
 * and made in one batch (patch.c: one mprotect window per run of pages):
 * one patch per site cost about 0.4 ms under qemu-user.  Each is one
 * halfword or word; a site's writes are queued in the order they must
 * land, which a batch keeps (it writes in address order).
 */
struct put {
	uintptr_t at;
	uint8_t len, old[4], new[4];
	bool first;	/* of a site's writes, which go together or not at all */
};

static struct put *puts_q;
static size_t nputs, cap_puts;

static bool queue(uintptr_t at, const void *old, const void *new, size_t len, bool first)
{
	/* A site's first write makes room for all of them (3 at most): a site is queued whole or not at all. */
	if (first && nputs + 3 > cap_puts) {
		size_t cap = cap_puts ? 2 * cap_puts : 256;
		struct put *q = realloc(puts_q, cap * sizeof(*q));

		if (!q)
			return false;
		puts_q = q;
		cap_puts = cap;
	}
	puts_q[nputs] = (struct put){ .at = at, .len = (uint8_t)len, .first = first };
	memcpy(puts_q[nputs].old, old, len);
	memcpy(puts_q[nputs].new, new, len);
	nputs++;
	return true;
}

static void flush(void)
{
	struct patch_site *ps = nputs ? calloc(nputs, sizeof(*ps)) : NULL;
	char err[256];

	for (size_t i = 0; ps && i < nputs; i++)
		ps[i] = (struct patch_site){ (void *)puts_q[i].at, puts_q[i].old, puts_q[i].new, puts_q[i].len };
	/*
	 * A refused batch (a site on the patcher's own page, in a program
	 * linking libobjpatch.a) is retried site by site, each site's writes
	 * one batch (all or nothing: a push without its pop would unbalance
	 * the stack), so the others still land.  A site left as it was holds
	 * neither form: enabling it is refused, and said.
	 */
	if (nputs && (!ps || patch_text_batch(ps, nputs, err, sizeof(err)) < 0)) {
		if (!ps)
			fprintf(stderr, "objpatch: out of memory\n");
		for (size_t i = 0, j; ps && i < nputs; i = j) {
			for (j = i + 1; j < nputs && !puts_q[j].first; j++)
				;
			if (patch_text_batch(&ps[i], j - i, err, sizeof(err)) < 0)
				fprintf(stderr, "objpatch: %s\n", err);
		}
	}
	free(ps);
	free(puts_q);
	puts_q = NULL;
	nputs = cap_puts = 0;
}

/* The runtime's forms over a --nop site of gcc's: push {lr} back, the call disabled. */
static bool restore_prefix(uintptr_t site, bool thumb)
{
	const struct call_form *f = thumb ? thumb_form() : arm_form();
	uint8_t pnop[4], push[4], nop[4];
	size_t pl = insn_len(&f->prefix);

	pat_bytes(&f->prefix_nop, pnop);
	pat_bytes(&f->prefix, push);
	pat_bytes(&f->nop, nop);
	if (!queue(site - pl, pnop, push, pl, true))
		return false;
	/* Halfword by halfword: a Thumb site may be only 2-byte aligned. */
	if (thumb)
		return queue(site, nop, thumb_pop, 2, false) && queue(site + 2, nop + 2, thumb_pop + 2, 2, false);
	return queue(site, nop, arm_pop, 4, false);
}

/* A Thumb site still holding the compiler's `bl __gnu_mcount_nc`: disabled, both halfwords. */
static bool thumb_disable(uintptr_t site)
{
	const uint8_t *old = (const uint8_t *)site;

	return queue(site, old, thumb_pop, 2, true) && queue(site + 2, old + 2, thumb_pop + 2, 2, false);
}

/*
 * A site of clang's (no push before it), as recordmcount --nop left it:
 * ARM code keeps the NOP; Thumb code gets `b.n .+4` over a second
 * halfword that becomes our blx's.
 */
static size_t clang_site_prepare(uintptr_t site)
{
	const struct call_form *a = arm_form(), *t = thumb_form();
	uint8_t nop[4];

	/* First: e000 eb04 at an aligned address also reads as an ARM `bl`. */
	if (!memcmp((const void *)site, thumb_skip, sizeof(thumb_skip)))
		return 2;
	if (!(site & 3) && (is(&a->nop, site) || is(&a->site, site)))
		return 4;
	if (!is(&t->nop, site))
		return 0;
	pat_bytes(&t->nop, nop);
	return queue(site, nop, thumb_skip, 2, true) && queue(site + 2, nop + 2, thumb_skip + 2, 2, false) ? 2 : 0;
}

/* gcc's sites have `push {lr}` before them once prepared; clang's do not. */
static bool is_clang_site(uintptr_t site, size_t len)
{
	return len == 4 ? !is(&arm_form()->prefix, site - 4) : !is(&thumb_form()->prefix, site - 2);
}

/*
 * What a site is: 4 (ARM: the `bl` word is patched), 2 (Thumb: its first
 * halfword), 0 (neither, or a form we cannot make ours).  gcc's form is
 * `push {lr}` and the call; any other is taken for clang's.  Site 0: the
 * module's last site was seen, the writes are made.
 */
static size_t arm_prepare_site(uintptr_t *at, unsigned kind, bool quiescent)
{
	const struct call_form *a = arm_form(), *t = thumb_form();
	uintptr_t site;

	(void)kind;		/* gcc's and clang's forms tell themselves apart */
	(void)quiescent;	/* see the header comment: modules are prepared before they run */
	if (!at) {
		flush();
		return 0;
	}
	site = *at;
	if (!(site & 3) && is(&a->prefix, site - 4)) {
		if (is(&a->site, site) || code_at(site, 4) == ARM_POP_LR)
			return 4;
		return 0;
	}
	if (!(site & 3) && is(&a->prefix_nop, site - 4) && is(&a->nop, site))
		return restore_prefix(site, false) ? 4 : 0;
	if (is(&t->prefix, site - 2)) {
		if (code_at(site + 2, 2) == T32_POP_LR_LO && (code_at(site, 2) == T32_POP_LR_HI || is(&t->site, site)))
			return 2;
		if (is(&t->site, site))
			return thumb_disable(site) ? 2 : 0;
		return 0;
	}
	if (is(&t->prefix_nop, site - 2) && is(&t->nop, site))
		return restore_prefix(site, true) ? 2 : 0;
	return clang_site_prepare(site);
}

static const uint8_t *arm_site_nop(uintptr_t site, size_t len)
{
	static uint8_t a_nop[4];

	if (len != 4 && len != 2)
		return NULL;
	if (is_clang_site(site, len)) {
		if (len == 2)
			return thumb_skip;
		return pat_bytes(&arm_form()->nop, a_nop);
	}
	return len == 4 ? arm_pop : thumb_pop;
}

/*
 * What a site's hook cannot see (struct rt_arg_regs).  clang's sites are
 * recorded as SITE_MCOUNT too, and take the SITE_FENTRY row's trampolines
 * (arm_encode_call): their `bl mcount` is an ordinary call, after code
 * that used and reused the argument registers.
 */
static uint8_t arm_args_unknown(uintptr_t site, size_t len, unsigned kind)
{
	if ((len == 4 || len == 2) && is_clang_site(site, len))
		kind = SITE_FENTRY;
	return rt_arch_host.arg_regs.unknown[kind];
}

/*
 * Where a gcc site's caller's stack arguments are, from rt_arm.S's
 * ENTRY_ARGS area: the word `push {lr}` left is ARGS_TO_PUSHED above
 * it, the function's entry sp 4 + the prologue's size above that.
 */
#define ARGS_TO_PUSHED 80
static bool arm_stack_at(uintptr_t func, uintptr_t site, size_t len, int32_t *from_regs)
{
	bool thumb = len == 2;
	uintptr_t push = site - (thumb ? 2 : 4);
	uint32_t size;

	if ((len != 2 && len != 4) || !is(thumb ? &thumb_form()->prefix : &arm_form()->prefix, push) ||
	    !arm_prologue_size(func, push, thumb, &size))
		return false;
	*from_regs = (int32_t)(ARGS_TO_PUSHED + 4 + size);
	return true;
}

/* An address the stubs load: data, in the data's byte order. */
static void put_literal(uint8_t *p, uint32_t w)
{
	memcpy(p, &w, 4);
}

/*
 * `stub` is the generic one (page 0 of the area, STUB_SIZE apart): an ARM
 * site calls it; a Thumb site calls the same entry's sled instead.
 */
static bool arm_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	uintptr_t area = stub & ~(uintptr_t)(SLED - 1), idx = (stub - area) / STUB_SIZE;
	intptr_t d;

	/* The site's kind is SITE_MCOUNT: clang's form takes the other row's stubs. */
	if (idx < CAPTURES && (len == 4 || len == 2) && is_clang_site(site, len)) {
		idx += CAPTURES;
		stub += CAPTURES * STUB_SIZE;
	}

	if (len == 4) {
		d = (intptr_t)(stub - (site + ARM_PC_BIAS));
		if ((d & 3) || d < -ARM_BL_REACH || d >= ARM_BL_REACH)
			return false;
		insn_store(code, 4, arm_bl((int32_t)d), false);
		return true;
	}
	if (len != 2 || idx >= STUB_ENTRIES)
		return false;
	{
		uintptr_t base = (site + T32_PC_BIAS) & ~(uintptr_t)3, sled = area + SLED * (1 + 2 * idx);
		uintptr_t target = sled + ((base + T32_BLX_LOW12) & (SLED - 1));
		uint16_t hi;

		d = (intptr_t)(target - base);
		if (d < -T32_BLX_REACH || d >= T32_BLX_REACH || (d & 0xfff) != T32_BLX_LOW12)
			return false;
		/* S = imm32[24] (= I1 = I2 here), imm10H = imm32[21:12]. */
		hi = (uint16_t)(T32_BL_HI | (d < 0 ? T32_BL_S : 0) | (((uintptr_t)d >> 12) & T32_BL_IMM10));
		insn_store(code, 2, hi, false);
		return true;
	}
}

static void arm_encode_stub(uint8_t *stub, uintptr_t target)
{
	insn_store(stub, 4, ARM_LDR_PC_M4, false);
	put_literal(stub + 4, (uint32_t)target);
	insn_store(stub + 8, 4, ARM_UDF, false);
	insn_store(stub + 12, 4, ARM_UDF, false);
}

/* Each entry's sled: every word loads pc from the next page's first word (pc reads as . + 8). */
static void arm_fill_stubs(uint8_t *area, size_t size)
{
	if (size < STUB_AREA)
		return;
	for (size_t i = 0; i < STUB_ENTRIES; i++) {
		uint8_t *sled = area + SLED * (1 + 2 * i);

		for (size_t o = 0; o < SLED; o += 4)
			insn_store(sled + o, 4, ARM_LDR_PC | (uint32_t)(SLED - ARM_PC_BIAS - o), false);
		put_literal(sled + SLED, (uint32_t)(uintptr_t)rt_entry_trampoline(i / CAPTURES, i % CAPTURES));
	}
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_arm,
	.encode_call = arm_encode_call,
	.encode_stub = arm_encode_stub,
	/* Thumb's blx reaches 4 MiB; make_stubs() measures to the far end of the area. */
	.reach = T32_BLX_REACH - STUB_AREA,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(clang) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ARGS_ROW(clang) },
	/*
	 * rt_arm.S's ARGS_AREA: r0-r3, then d0-d7 as s0-s15.  gcc's hook
	 * sees the argument registers as the call left them (its prologue
	 * only pushes and reserves), but runs after that prologue:
	 * arm_stack_at() reads it.  clang's sites: arm_args_unknown().
	 */
	.arg_regs = { .gpr = { 0, 4, 8, 12 }, .fpr = 16, .fpr_stride = 4,
		      .unknown = { [SITE_FENTRY] = ARGS_NO_REGS | ARGS_NO_STACK },
		      .unknown_at = arm_args_unknown, .stack_at = arm_stack_at },
	.site_nop = arm_site_nop,
	.prepare_site = arm_prepare_site,
	/* gcc's `push {lr}` before the call, the call itself. */
	.site_before = 4,
	.site_after = 4,
	/* ARM's `bl` and Thumb's `blx` (both 4 bytes), whose Thumb toggle writes 2. */
	.ra_from_site = 4,
	.stub_area = STUB_AREA,
	.fill_stubs = arm_fill_stubs,
};

/*
 * Where the traced function's return address is.  The hook runs after the
 * prologue: the word `push {lr}` left at `pushed` is lr, which becomes lr
 * again when the hook returns, and is the slot of a function that keeps
 * its return address there (a leaf: `bx lr`).  A function that calls
 * others saved lr in its prologue, as the highest register it pushed, and
 * returns through that copy: the first word above `pushed` holding the
 * same value, within the frame (a prologue pushes at most 16 registers
 * and 8 VFP doubles, and gcc puts locals below them; a bigger frame is
 * searched up to FRAME_SEARCH bytes).  A dead copy from an earlier frame
 * would have to lie within this frame, at the address this function's own
 * save would use: a function saving lr overwrote it.
 */
#define FRAME_SEARCH 1024
/*
 * A leaf's own frame (its pushed registers, its locals) is smaller than
 * this; a signal frame, which may lie between two traced frames of one
 * thread, is bigger (siginfo, ucontext and the VFP registers: over 600
 * bytes).
 */
#define LEAF_FRAME 256

/*
 * A tail-called function starts with lr = the return trampoline, which an
 * outer frame's slot holds too: a function that did not save lr must not
 * take that slot for its own.
 */
static bool outer_slot(const uintptr_t *p)
{
	uint32_t d;
	const struct frame *frames = rt_frames(&d);

	for (; d > 0; d--)
		if (frames[d - 1].slot == p)
			return true;
	return false;
}

static uintptr_t *lr_search(uintptr_t *pushed)
{
	uintptr_t v = *pushed;

	for (uintptr_t *p = pushed + 1; p < pushed + FRAME_SEARCH / sizeof(*p); p++)
		if (*p == v)
			return outer_slot(p) ? pushed : p;
	return pushed;
}

/*
 * The search costs a leaf (which searches the whole way) about 1 us under
 * qemu, so its result is kept per site: the distance in words from the
 * pushed word, which the function's prologue fixes.  A direct-mapped
 * table of {ra, distance + 1} in one 64-bit word each, so an entry is
 * never seen half-written; threads may replace each other's entries.  A
 * hit with a distance is checked against the stack before it is used.
 */
#define SLOT_CACHE 4096
static _Atomic uint64_t slot_cache[SLOT_CACHE];

static uintptr_t *lr_slot(uintptr_t ra, uintptr_t *pushed)
{
	_Atomic uint64_t *e = &slot_cache[(uint32_t)(ra * 2654435761u) >> 20];
	uint64_t c = atomic_load_explicit(e, memory_order_relaxed);
	uint32_t dist = (uint32_t)c - 1;
	uintptr_t *p;

	if (c && (uintptr_t)(c >> 32) == ra && dist < FRAME_SEARCH / sizeof(*p) && pushed[dist] == *pushed &&
	    (!dist || !outer_slot(pushed + dist)))
		return pushed + dist;
	p = lr_search(pushed);
	atomic_store_explicit(e, (uint64_t)ra << 32 | (uint32_t)(p - pushed + 1), memory_order_relaxed);
	return p;
}

/*
 * A leaf's slot lies below the registers it saved, so a frame that
 * longjmp skipped may have had its slot above ours, inside our frame:
 * dead, yet not below our slot as rt_enter's rule wants.  Such a slot no
 * longer holds what a live frame's does (the return trampoline, or the
 * real address while an unwinder has them back: rt_unwind.c), since our
 * prologue wrote there.  A live frame's slot is above our frame.
 */
static uintptr_t leaf_dead_bound(uintptr_t *slot)
{
	uint32_t d;
	const struct frame *frames = rt_frames(&d);
	uintptr_t dead = (uintptr_t)slot;

	for (; d > 0; d--) {
		const struct frame *f = &frames[d - 1];
		uintptr_t s = (uintptr_t)f->slot, w;

		if (s <= (uintptr_t)slot)
			continue;
		if (s >= (uintptr_t)slot + LEAF_FRAME)
			break;
		w = *f->slot;
		if (w == (uintptr_t)rt_return_regs || w == (uintptr_t)rt_return_wide || w == f->ret)
			break;
		dead = s;
	}
	return dead;
}

void rt_arm_enter(uintptr_t ra, uintptr_t *pushed, unsigned capture) RT_HIDDEN;
void rt_arm_enter_args(uintptr_t ra, uintptr_t *pushed, unsigned capture, const uint8_t *regs) RT_HIDDEN;

void rt_arm_enter(uintptr_t ra, uintptr_t *pushed, unsigned capture)
{
	uintptr_t *slot = lr_slot(ra, pushed);

	rt_enter_dead(ra, slot, capture, slot == pushed ? leaf_dead_bound(slot) : (uintptr_t)slot);
}

/* The same, with the argument registers rt_arm.S saved at `regs`. */
void rt_arm_enter_args(uintptr_t ra, uintptr_t *pushed, unsigned capture, const uint8_t *regs)
{
	uintptr_t *slot = lr_slot(ra, pushed);

	rt_enter_args_dead(ra, slot, capture, slot == pushed ? leaf_dead_bound(slot) : (uintptr_t)slot, regs);
}

/* No counter user space can read in general (CNTVCT only where the kernel allows it). */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
