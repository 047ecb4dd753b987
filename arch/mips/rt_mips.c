// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's MIPS part, o32 (mips, mipsel) and n64 (mips64, mips64el),
 * in either byte order (instruction words are read and written in the
 * host's, MIPS_HOST_BE): how a site calls its trampoline, the stub near
 * each module, the traced function's return address, timestamps.
 *
 * A site is a call sequence (arch/mips/insn.h lists them), recorded at its
 * first relocated instruction (mips.c), of which only the call word ever
 * changes; mips_sequence_call_at() finds it, the same way the recorder does.
 * The call word (jalr or jal) becomes `jal stub` when enabled.  The o32
 * hook convention makes the callee pop the 8 bytes the sequence pushed
 * (glibc's _mcount: `addu sp,sp,56` for its 48), so there the disabled word
 * is `addiu sp,sp,8`, which undoes that push as the hook would; on n64
 * nothing is pushed and it is a NOP.  Each state change is one aligned
 * word (patch_mips.h); the load of the hook's address and the delay slot
 * stay as the compiler wrote them, harmless in both states.  recordmcount
 * --nop leaves a sequence in the disabled state (its loads NOPs, the call
 * word the disabled word); a non-PIC o32 `jal` + push it turned into two
 * NOPs gets its push back at start-up (restore_push).
 *
 * `jal` reaches the 256 MiB region its delay slot is in, so a stub page
 * across such a boundary from the text cannot be called: those sites are
 * refused (encode_call fails).  The stub loads the trampoline's address into
 * t9 (free: the sequence loaded _mcount's address there, unused now) and
 * jumps, so the trampoline finds itself in t9 as PIC code expects.
 *
 * The traced function's return address: the hook gets it in at ($1) and
 * gives it back in ra ($31), as glibc's _mcount does (`j $31; move $31,$1`).
 * A function that calls anything saved ra in its prologue before the hook,
 * and returns through that stack word; a leaf did not, and returns through
 * ra.  rt_mips_enter() tells them apart by reading the prologue backwards
 * from the call, as the kernel's ftrace_get_parent_ra_addr() does, and
 * hooks the stack word, or (a leaf) a copy of at that goes back in ra.
 *
 * MIPS has no entry hook (-mfentry), and gcc's
 * -fpatchable-function-entry pads are not traced here (pad_site_len 0).
 *
 * Arguments (--args): the hook follows the prologue, so the argument
 * registers hold the arguments only if the prologue left them alone,
 * which rt_mips_enter() checks per site, and the stack arguments lie at
 * the entry sp, which the same walk of the prologue gives (o32: the caller's
 * 16 bytes of home space, then the words past $a0-$a3).
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "arch/arch.h"
#include "arch/patch.h"
#include "arch/port.h"
#include "arch/mips/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)

/* rt_mips.S's flag on the capture: record the arguments (an entry_args trampoline). */
#define RT_MIPS_ARGS 0x200u

#if _MIPS_SIM == _ABIO32
#define SAVE_RA		MIPS_SW_RA_SP
#define ADD_SP		MIPS_ADDIU_SP
#define DISABLED	MIPS_ADDIU_SP_8		/* the hook's pop */
#define DESC_HOST	(&arch_mips32)
/* rt_mips.S's frame (EFRAME) and its at copy's offset (EREGSLOT); the argument registers are $4-$7, $f12, $f14. */
#define EFRAME		72
#define EREGSLOT	48
#define ARG_GPRS	4
#define ARG_FPRS	4	/* $f12-$f15: two doubles as register pairs */
#else
#define SAVE_RA		MIPS_SD_RA_SP
#define ADD_SP		MIPS_DADDIU_SP
#define DISABLED	MIPS_NOP
#define DESC_HOST	(&arch_mips64)
#define EFRAME		176
#define EREGSLOT	96
#define ARG_GPRS	8	/* $4-$11 */
#define ARG_FPRS	8	/* $f12-$f19 */
#endif
#define REGION		((uintptr_t)MIPS_JAL_REGION)
/* The stubs' instructions, their immediates 0. */
#define LUI_T9		MIPS_I(MIPS_OP_LUI, 0, MIPS_T9)
#define ADDIU_T9_T9	MIPS_I(MIPS_OP_ADDIU, MIPS_T9, MIPS_T9)
#define ORI_T9_T9	MIPS_I(MIPS_OP_ORI, MIPS_T9, MIPS_T9)
#define DSLL_T9_T9_16	0x0019cc38u
#define JR_T9		0x03200008u

static uint32_t word(uintptr_t a)
{
	return insn_load((const uint8_t *)a, 4, MIPS_HOST_BE);
}

static void put(uint8_t *p, uint32_t w)
{
	insn_store(p, 4, w, MIPS_HOST_BE);
}

static bool mips_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	if (len != 4 || (stub & 3) || ((site + 4) & ~REGION) != (stub & ~REGION))
		return false;
	put(code, mips_jal(stub));
	return true;
}

/*
 * o32: lui t9, %hi; addiu t9, t9, %lo; jr t9; nop.  n64, for addresses
 * below 2^47 (user space): lui t9, bits 47..32; ori t9, bits 31..16;
 * dsll t9, 16; ori t9, bits 15..0; jr t9; nop; and NOPs to stub_size.
 */
static void mips_encode_stub(uint8_t *stub, uintptr_t target)
{
#if _MIPS_SIM == _ABIO32
	uint32_t lo = MIPS_IMM(target), hi = MIPS_IMM((target + 0x8000) >> 16);

	put(stub, LUI_T9 | hi);
	put(stub + 4, ADDIU_T9_T9 | lo);
	put(stub + 8, JR_T9);
	put(stub + 12, MIPS_NOP);
#else
	uint64_t t = target;

	put(stub, LUI_T9 | MIPS_IMM(t >> 32));
	put(stub + 4, ORI_T9_T9 | MIPS_IMM(t >> 16));
	put(stub + 8, DSLL_T9_T9_16);
	put(stub + 12, ORI_T9_T9 | MIPS_IMM(t));
	put(stub + 16, JR_T9);
	put(stub + 20, MIPS_NOP);
	put(stub + 24, MIPS_NOP);
	put(stub + 28, MIPS_NOP);
#endif
}

#if _MIPS_SIM == _ABIO32
/*
 * recordmcount --nop wrote `nop; nop` over a non-PIC `jal _mcount; addiu
 * sp,sp,-8`: no single word could toggle that, so the push goes back
 * with the disabled word before it (`addiu sp,sp,8; addiu sp,sp,-8`) when
 * the module is loaded, before its code runs (as ARM puts gcc's `push
 * {lr}` back).  Both words go through one mprotect window, so no thread
 * runs the page between the two stores; only one that ran the first NOP
 * and was stopped before the second for the whole window could see the
 * push alone.  (Whether other threads exist cannot be told under
 * qemu-user, whose /proc/self/stat shows no thread count.)
 */
static bool restore_push(uintptr_t at)
{
	static const uint32_t nop = MIPS_NOP, pop = DISABLED, push = MIPS_ADDIU_SP_M8;
	struct patch_site ps[2] = {
		{ (void *)at, (const uint8_t *)&nop, (const uint8_t *)&pop, 4 },
		{ (void *)(at + 4), (const uint8_t *)&nop, (const uint8_t *)&push, 4 },
	};
	char err[256];

	if (patch_text_batch(ps, 2, err, sizeof(err)) < 0) {
		fprintf(stderr, "objpatch: %s\n", err);
		return false;
	}
	return true;
}
#endif

/* The recorded sequence's call word, if the trampolines can drive it; 0 otherwise. */
static uintptr_t site_call(uintptr_t at)
{
	bool push = false;
	int call;

#if _MIPS_SIM == _ABIO32
	if (word(at) == MIPS_NOP && word(at + 4) == MIPS_NOP && word(at - 4) == MIPS_MOVE_AT_RA)
		return restore_push(at) ? at : 0;
#endif
	/*
	 * The code is as the compiler and recordmcount left it (a module is
	 * read once, when it is loaded): a sequence of arch/mips/insn.h,
	 * enabled, or disabled by recordmcount --nop in the state a toggle
	 * leaves it.
	 */
	call = mips_sequence_call_at((const uint8_t *)at, MIPS_SEQ_BEFORE, MIPS_SEQ_AFTER + 4, MIPS_HOST_BE,
				     DISABLED, true, &push);
	if (call < 0)
		return 0;
#if _MIPS_SIM == _ABIO32
	/* The hook (or the disabled word) pops the 8 bytes the sequence pushed: without them, no. */
	if (!push)
		return 0;
#endif
	return at + (uintptr_t)call;
}

/* The site a toggle writes: the recorded sequence's call word, 4 bytes. */
static size_t mips_prepare_site(uintptr_t *at, unsigned kind, bool quiescent)
{
	uintptr_t call;

	(void)kind;
	(void)quiescent;
	if (!at || !(call = site_call(*at)))
		return 0;
	*at = call;
	return 4;
}

/* The disabled form of every site: the call word's replacement. */
static const uint8_t *mips_site_nop(uintptr_t site, size_t len)
{
	static const uint32_t disabled = DISABLED;

	(void)site;
	return len == 4 ? (const uint8_t *)&disabled : NULL;
}

const struct rt_arch rt_arch_host = {
	.desc = DESC_HOST,
	.encode_call = mips_encode_call,
	.encode_stub = mips_encode_stub,
	.reach = (uintptr_t)1 << 27,
	/* In the text's 256 MiB region (a module across a boundary has some sites refused). */
	.reach_region = REGION,
	/* No entry hooks: the second row only fills the stub page's layout. */
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(mcount) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ARGS_ROW(mcount) },
	/*
	 * rt_mips.S's save area.  rt_mips_enter passes the function's entry
	 * sp as where the stack arguments are (rt_enter_args_at): n64's stack
	 * slots start there, and so do o32's argument words, whose offsets
	 * the placer counts from the 16 bytes of home space for $a0-$a3.
	 */
#if _MIPS_SIM == _ABIO32
	.arg_regs = { .gpr = { 16, 20, 24, 28 }, .fpr = 56, .fpr_stride = 8 },
#else
	.arg_regs = { .gpr = { 0, 8, 16, 24, 32, 40, 48, 56 }, .fpr = 112, .fpr_stride = 8 },
#endif
	.site_nop = mips_site_nop,
	/* The call word's delay slot: the hook returns past it. */
	.ra_after_site = 4,
	.prepare_site = mips_prepare_site,
	/* The sequence around the recorded word (arch/mips/insn.h). */
	.site_before = MIPS_SEQ_BEFORE,
	.site_after = MIPS_SEQ_AFTER + 4,
#if _MIPS_SIM != _ABIO32
	.stub_size = 32,
#endif
};

static bool is_branch(uint32_t w)
{
	unsigned op = MIPS_OP(w), fn = w & 0x3f;

	return (op == 0 && (fn == 8 || fn == 9)) || (op >= 1 && op <= 7) || (op >= 20 && op <= 23) ||
	       (op == 17 && ((w >> 21) & 31) == 8);
}

/* syscall, break, teq...: how a noreturn function (__builtin_trap) may end; never in a prologue. */
static bool is_trap(uint32_t w)
{
	unsigned fn = w & 0x3f;

	return MIPS_OP(w) == 0 && (fn == 0x0c || fn == 0x0d || (fn >= 0x30 && fn <= 0x36));
}

/* Writes sp (rd or rt 29) other than `(d)addiu sp, sp, imm`: the prologue is not one we can read. */
static bool writes_sp(uint32_t w)
{
	unsigned op = MIPS_OP(w);

	if (op == 0)
		return ((w >> 11) & 31) == 29;
	return (op == 8 || op == 9 || op == 24 || op == 25 || (op >= 12 && op <= 15) || (op >= 32 && op <= 39) ||
		op == 26 || op == 27 || op == 55) && ((w >> 16) & 31) == 29;
}

static bool is_gpr_arg(unsigned r)
{
	return r >= 4 && r < 4 + ARG_GPRS;
}

static bool is_fpr_arg(unsigned r)
{
	return r >= 12 && r < 12 + ARG_FPRS;
}

/*
 * Whether an instruction may write an argument register (GPR or FP):
 * false only for the forms known to write elsewhere or nowhere, which are
 * what a prologue holds.
 */
static bool writes_arg(uint32_t w)
{
	unsigned op = MIPS_OP(w), rs = (w >> 21) & 31, rt = (w >> 16) & 31, rd = (w >> 11) & 31;
	unsigned fd = (w >> 6) & 31;

	switch (op) {
	case 0:		/* SPECIAL: rd (or hi/lo) */
	case 28:	/* SPECIAL2: mul */
		return is_gpr_arg(rd);
	case 2:		/* j */
	case 3:		/* jal: ra */
	case 40 ... 47:	/* stores, cache */
	case 57:	/* swc1 */
	case 61:	/* sdc1 */
	case 63:	/* sd */
		return false;
	case 8 ... 15:	/* ALU immediate, lui */
	case 24 ... 27:	/* daddi, daddiu, ldl, ldr */
	case 32 ... 39:	/* loads */
	case 55:	/* ld */
		return is_gpr_arg(rt);
	case 49:	/* lwc1 */
	case 53:	/* ldc1 */
		return is_fpr_arg(rt);
	case 31:	/* SPECIAL3 (ext, ins, seb, rdhwr...): rt or rd */
		return is_gpr_arg(rt) || is_gpr_arg(rd);
	case 17:	/* COP1 */
		if (rs < 4)	/* mfc1, dmfc1, cfc1, mfhc1 */
			return is_gpr_arg(rt);
		if (rs < 8)	/* mtc1, dmtc1, ctc1, mthc1 */
			return is_fpr_arg(rd);
		if (rs == 8)	/* bc1 */
			return false;
		return is_fpr_arg(fd);
	case 19:	/* COP1X: madd, lwxc1... */
		return is_fpr_arg(fd);
	default:
		return true;
	}
}

void rt_mips_enter(uintptr_t ra, uintptr_t sp, uintptr_t *regslot, unsigned capture) RT_HIDDEN;

/*
 * Called by the entry trampolines: ra = the call word + 8, sp = the stack
 * pointer the hook got (o32: 8 below the function's), regslot = the
 * trampoline's copy of at, which goes back to the function in ra.
 *
 * The prologue is read backwards from the call (read_prologue), adding
 * up the stack adjustments (the delay slot's too: it ran before the
 * trampoline), to the previous function's end (a jump or branch, whose
 * delay slot is not ours, or a trap), which gives the function's entry
 * sp; on the way, the nearest `sw/sd ra, off(sp)` is where the function
 * saved its return address.
 * gcc keeps the whole prologue before the hook (a blockage), clang only
 * schedules instructions that leave sp alone between them.  A prologue
 * that moves sp otherwise, or is longer than 64 instructions, is not
 * traced, nor is one whose saved word does not hold what at holds: an
 * unknown prologue costs an entry, never a wrong return.
 *
 * Frames are matched to returns by the slot's address (rt_record.c), and a
 * dead frame (longjmp) must lie at or below a new frame's slot at the same
 * depth: gcc and clang save ra in the top word of the frame, so a leaf
 * uses that word's address too, the highest below its entry sp, which it
 * holds meanwhile: a leaf's saved register, or (o32) the 8 bytes the
 * sequence pushed.  rt_enter works on our copy of at put there, and the
 * word gets its own value back before the function goes on.
 *
 * Arguments (an entry_args trampoline): the registers as it saved them
 * are the function's arguments if nothing from its entry to the hook
 * (the delay slot included) wrote an argument register, which holds for
 * gcc's prologue and is checked for each (clang makes the hook an
 * ordinary call and moves the arguments to other registers before it;
 * it could reuse theirs).  The caller's stack arguments start at the
 * entry sp, which the walk gives when it reaches the function's start
 * (the slot is not at a fixed distance from it: gcc saves ra below FP
 * registers, a varargs function its argument registers above ra).  What
 * is not known so is not read, and prints "?" (rt_enter_args_at).
 */
enum frame_kind { FRAME_UNKNOWN, FRAME_SAVED, FRAME_LEAF };

/* What read_prologue() found besides the slot: the arguments can be recorded when both hold. */
#define PROLOGUE_ENTRY_SP	1	/* *entry is the entry sp's offset from the hook's */
#define PROLOGUE_ARGS_KEPT	2	/* no argument register was written before the hook */

/*
 * What the prologue before `call` says, the word's offset from the hook's
 * sp, and PROLOGUE_* flags.  A saved ra is known from its store even when
 * the rest of the walk fails (no flags then).
 */
static enum frame_kind read_prologue(uintptr_t call, intptr_t *off, intptr_t *entry, unsigned *flags)
{
	intptr_t pushed = 0, last = 0;
	uint32_t w = word(call + 4);
	unsigned n = 0, writes = 0, last_writes = 0;
	bool saved = false;

	*flags = 0;
	writes = writes_arg(w);
	if ((w & MIPS_OP_RS_RT_MASK) == ADD_SP)
		pushed = last = mips_simm(w);
	for (uintptr_t a = call - 4;; a -= 4) {
		if (++n > 64)
			return saved ? FRAME_SAVED : FRAME_UNKNOWN;
		w = word(a);
		if (is_branch(w)) {
			/* The instruction after it was its delay slot. */
			pushed -= last;
			writes -= last_writes;
			break;
		}
		if (is_trap(w))
			break;
		last = 0;
		writes += last_writes = writes_arg(w);
		if (!saved && (w & MIPS_OP_RS_RT_MASK) == SAVE_RA) {
			*off = -pushed + mips_simm(w);
			saved = true;
		} else if ((w & MIPS_OP_RS_RT_MASK) == ADD_SP) {
			pushed += last = mips_simm(w);
		} else if (writes_sp(w)) {
			return saved ? FRAME_SAVED : FRAME_UNKNOWN;
		}
	}
	if (!saved)
		*off = -pushed - (intptr_t)sizeof(uintptr_t);
	*entry = -pushed;
	*flags |= PROLOGUE_ENTRY_SP;
	if (!writes)
		*flags |= PROLOGUE_ARGS_KEPT;
	return saved ? FRAME_SAVED : FRAME_LEAF;
}

/*
 * read_prologue()'s answers by call address, per thread (no locking; the
 * code does not change while its module is loaded): under qemu-user the
 * walk cost a sixth of a traced call.
 */
#define PROLOGUE_CACHE 64
static __thread struct {
	uintptr_t call;
	int32_t off, entry;
	uint8_t kind, flags;
} prologues[PROLOGUE_CACHE] __attribute__((tls_model("initial-exec")));

static void enter(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs, uintptr_t stack,
		  unsigned unknown)
{
	if (regs)
		rt_enter_args_at(ra, slot, capture, regs, (const uint8_t *)stack, unknown);
	else
		rt_enter(ra, slot, capture);
}

void rt_mips_enter(uintptr_t ra, uintptr_t sp, uintptr_t *regslot, unsigned capture)
{
	uintptr_t call = ra - 8, *slot, kept;
	unsigned h = (unsigned)(call >> 2) % PROLOGUE_CACHE, flags, unknown = 0;
	const uint8_t *regs = NULL;
	/*
	 * 8 bytes more than the save area: a piece is read as the 8 bytes
	 * from its offset (rt_record.c), and a big-endian float in the last
	 * FP register starts 4 bytes before the area's end.
	 */
	uint8_t saved[EFRAME + 8] __attribute__((aligned(8)));
	enum frame_kind kind;
	intptr_t off = 0, entry = 0;

	if (prologues[h].call == call) {
		kind = prologues[h].kind;
		off = prologues[h].off;
		entry = prologues[h].entry;
		flags = prologues[h].flags;
	} else {
		kind = read_prologue(call, &off, &entry, &flags);
		prologues[h].call = call;
		prologues[h].off = (int32_t)off;
		prologues[h].entry = (int32_t)entry;
		prologues[h].kind = (uint8_t)kind;
		prologues[h].flags = (uint8_t)flags;
	}
	if (kind == FRAME_UNKNOWN)
		return;
	/* The save area starts EREGSLOT bytes below at's copy (rt_mips.S). */
	if (capture & RT_MIPS_ARGS)
		regs = (const uint8_t *)regslot - EREGSLOT;
	if (!(flags & PROLOGUE_ENTRY_SP))
		unknown |= ARGS_NO_STACK;
	if (!(flags & PROLOGUE_ARGS_KEPT))
		unknown |= ARGS_NO_REGS;
	capture &= ~RT_MIPS_ARGS;
	slot = (uintptr_t *)(sp + off);
	if (kind == FRAME_SAVED) {
		if (*slot != *regslot)
			return;
		enter(ra, slot, capture, regs, sp + entry, unknown);
		/* ra as well: whichever the function returns through leads to the return trampoline. */
		*regslot = *slot;
		return;
	}
	/*
	 * n64: a leaf without a frame has its slot in our frame, where $f19
	 * was saved: the arguments are read from a copy made before.
	 */
	if (regs && (uintptr_t)slot - (uintptr_t)regs < EFRAME) {
		memcpy(saved, regs, EFRAME);
		memset(saved + EFRAME, 0, 8);
		regs = saved;
	}
	kept = *slot;
	*slot = *regslot;
	enter(ra, slot, capture, regs, sp + entry, unknown);
	*regslot = *slot;
	*slot = kept;
}

/*
 * CLOCK_MONOTONIC: the cycle counter (rdhwr $2) is CP0 Count, 32 bits on
 * MIPS64 too, which wraps within seconds, and qemu-user reads it as 0.
 */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
