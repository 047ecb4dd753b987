// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's sh4 part (SH-4, little-endian): what a site is, its two
 * states, the stub near each module, where the traced function's return
 * address and arguments are, timestamps.
 *
 * The recorded site is the literal word gcc -pg puts in each function's
 * call sequence (rt_sh4.S, arch/sh/sh.c): `mov.l` loads it into r1 and
 * `jmp @r1` goes there.  It is data, one aligned 32-bit word per site
 * (no pool word is shared), so one store turns a site on or off, another
 * thread's load sees the old or the new word, and no instruction changes:
 * no cache to flush.  Enabled, the word is a stub's address (the stub
 * jumps on to the capture's trampoline); disabled, rt_sh4_off's (`rts;
 * nop`).  When a module is loaded every site's word (mcount, which
 * the dynamic linker wrote) becomes rt_sh4_off's, in one batch.
 *
 * Arguments (--args): the hook runs before anything of the function's
 * own, so r4-r7 and fr4-fr11 are the arguments as the call left them,
 * and the caller's stack arguments start at the function's entry sp,
 * 4 bytes above the slot.
 */
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include "arch/arch.h"
#include "arch/patch.h"
#include "arch/port.h"
#include "arch/sh/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_MEM(mcount)
/* No entry-hook sites on sh4: never used. */
RT_ENTRIES(fentry)

void rt_sh4_off(void) RT_HIDDEN;

#define STUB_BYTES 12

static uint16_t half(uintptr_t a)
{
	return (uint16_t)insn_load((const uint8_t *)a, 2, false);
}

static uint32_t word(uintptr_t a)
{
	return insn_load((const uint8_t *)a, 4, false);
}

/* The enabled word: the stub's address, which reaches anywhere. */
static bool sh4_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	(void)site;
	if (len != 4)
		return false;
	insn_store(code, 4, (uint32_t)stub, false);
	return true;
}

/*
 * `mov.l @(8,pc),r1; jmp @r1; nop; nop; .long target`: r1 is the
 * sequence's own register, free at the hook.  Stubs are 4-byte aligned (a
 * page, then 12 bytes each), as the pc-relative mov.l needs.
 */
static void sh4_encode_stub(uint8_t *stub, uintptr_t target)
{
	insn_store(stub, 2, SH_MOV_L_PC8_R1, false);
	insn_store(stub + 2, 2, SH_JMP_R1, false);
	insn_store(stub + 4, 2, SH_NOP, false);
	insn_store(stub + 6, 2, SH_NOP, false);
	insn_store(stub + 8, 4, (uint32_t)target, false);
}

static const uint32_t *off_word(void)
{
	static uint32_t w;

	w = (uint32_t)(uintptr_t)rt_sh4_off;
	return &w;
}

/* The disabled form of every site. */
static const uint8_t *sh4_site_nop(uintptr_t site, size_t len)
{
	(void)site;
	return len == 4 ? (const uint8_t *)off_word() : NULL;
}

/*
 * Whether the word at `at` is the literal of gcc's sequence: `jmp @r1;
 * lds r0,pr` right before it (or before an alignment nop), `lds.l
 * @r15+,pr` right after.  Another word (a PIC site's GOT offset) is left
 * alone.
 */
static bool is_site(uintptr_t at)
{
	if (at & 3 || half(at + 4) != SH_LDS_L_POP_PR)
		return false;
	return half(at - 4) == SH_JMP_R1 || (half(at - 6) == SH_JMP_R1 && half(at - 2) == SH_NOP);
}

/* The words prepare_site found still calling mcount, turned off in one batch. */
static struct pending {
	uintptr_t at;
	uint32_t old;
} *pending;
static size_t npending, cap_pending;

static void write_pending(bool quiescent)
{
	struct patch_site *ps;
	char err[256];
	int r;

	if (!npending)
		return;
	ps = calloc(npending, sizeof(*ps));
	if (ps) {
		for (size_t i = 0; i < npending; i++)
			ps[i] = (struct patch_site){ (void *)pending[i].at, (const uint8_t *)&pending[i].old,
						     (const uint8_t *)off_word(), 4 };
		r = quiescent ? patch_text_quiescent(ps, npending, err, sizeof(err))
			      : patch_text_batch(ps, npending, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "objpatch: sh4: turning off mcount's words: %s\n", err);
		free(ps);
	}
	npending = 0;
}

static size_t sh4_prepare_site(uintptr_t *at, unsigned kind, bool quiescent)
{
	uint32_t w;

	(void)kind;
	if (!at) {
		write_pending(quiescent);
		return 0;
	}
	if (!is_site(*at))
		return 0;
	w = word(*at);
	if (w != *off_word()) {
		if (npending == cap_pending) {
			size_t n = cap_pending ? 2 * cap_pending : 256;
			struct pending *p = realloc(pending, n * sizeof(*p));

			if (!p)
				return 0;
			pending = p;
			cap_pending = n;
		}
		pending[npending++] = (struct pending){ *at, w };
	}
	return 4;
}

/*
 * Where a signal handler finds the interrupted pc (patch_sh4.h's
 * CONTEXT_IP, which the patcher's SIGSEGV handler reads to tell an
 * instruction fetch in its window from a data access): the kernel's
 * ucontext has it at uc_mcontext.pc, as glibc says, but qemu-sh4 7.2
 * passes a pointer 8 bytes before its frame's ucontext, so there the pc
 * is two words further (and uc_mcontext.pc holds r14).  A load from
 * address 0 at a known pc shows which, once at load, before the
 * patcher's handler exists (an undefined instruction would do too, but
 * qemu-sh4 aborts on one instead of raising SIGILL).
 */
unsigned rt_sh4_pc_word RT_HIDDEN = offsetof(ucontext_t, uc_mcontext.pc) / 4;
void rt_sh4_probe_load(void) RT_HIDDEN;
__asm__(".text\n"
	".p2align 2\n"
	".globl rt_sh4_probe_load\n"
	".hidden rt_sh4_probe_load\n"
	".type rt_sh4_probe_load, @function\n"
	"rt_sh4_probe_load:\n"
	"	mov #0,r0\n"
	"	mov.l @r0,r0\n"	/* faults: its pc is rt_sh4_probe_load + 2 */
	"	rts\n"
	"	nop\n"
	".size rt_sh4_probe_load, . - rt_sh4_probe_load\n");
static sigjmp_buf probe_jmp;

static void probe_segv(int sig, siginfo_t *si, void *uc)
{
	const uint32_t *w = uc;
	unsigned glibc = offsetof(ucontext_t, uc_mcontext.pc) / 4;
	uint32_t pc = (uint32_t)(uintptr_t)rt_sh4_probe_load + 2;

	(void)sig;
	(void)si;
	if (w[glibc] != pc && w[glibc + 2] == pc)
		rt_sh4_pc_word = glibc + 2;
	siglongjmp(probe_jmp, 1);
}

__attribute__((constructor)) static void probe_pc_word(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = probe_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old))
		return;
	if (!sigsetjmp(probe_jmp, 1))
		rt_sh4_probe_load();
	sigaction(SIGSEGV, &old, NULL);
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_sh,
	.encode_call = sh4_encode_call,
	.encode_stub = sh4_encode_stub,
	.stub_size = STUB_BYTES,
	/* A 32-bit address: every stub is in reach. */
	.reach = (uintptr_t)1 << 31,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW_MEM(mcount) },
	/* rt_sh4.S's pushes: r4-r7 from 48, fr4-fr11 from 0; stack arguments at the entry sp. */
	.arg_regs = { .gpr = { 48, 52, 56, 60 }, .fpr = 0, .fpr_stride = 4, .stack_from_slot = { [SITE_MCOUNT] = 4 } },
	/* The function pops the slot into pr and saves it in its own frame, below its entry sp. */
	.slot_copy_above = 4,
	/* gcc's prologue: r8-r14, fr12-fr15 at most, then pr; no frame-record chain. */
	.copy_scan = 64,
	.site_nop = sh4_site_nop,
	.prepare_site = sh4_prepare_site,
	.site_before = 8,
	.site_after = 8,
};

/* No cycle counter user space may read: the monotonic clock (a vDSO-less call under qemu). */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
