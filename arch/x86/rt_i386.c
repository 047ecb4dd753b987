// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's i386 part: how an enabled site calls its trampoline, the
 * stub near each module, timestamps and return-value capture.
 *
 * A 5-byte site (`call rel32` or its NOP) becomes `call stub`: rel32
 * arithmetic wraps at 2^32, so it reaches every address.  A 6-byte site
 * (`call *mcount@GOT(%ebx)`, Debian's default PIE, or its NOP) becomes
 * `call *abs32` (ff 15) whose operand is the absolute address of the stub's
 * target word: i386 has no RIP-relative form, and an absolute one needs no
 * %ebx, which is the GOT pointer only in the functions that made it so.  It
 * is one instruction of the site's length, as the int3 protocol (rt_x86.c)
 * needs: a `call rel32` + 1-byte NOP would be two, and a thread returning
 * from the hook to site + 5 would land inside the 6-byte NOP once the site
 * was disabled again.
 */
#include <elf.h>
#include <stdio.h>
#include <sys/mman.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include "arch/port.h"
#include "arch/x86/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES(fentry)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_ARGS(fentry)
RT_ENTRIES_MEM(mcount)
RT_ENTRIES_MEM(fentry)

#define STUB_TARGET_OFFSET 8	/* e9 rel32, int3 padding, then the target word (aligned) */

static bool i386_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	uint32_t v;

	if (len == 5) {
		code[0] = X86_CALL_REL32;
		v = (uint32_t)(stub - (site + 5));
	} else if (len == 6) {
		code[0] = X86_GRP5;
		code[1] = X86_CALL_MEM;
		v = (uint32_t)(stub + STUB_TARGET_OFFSET);
	} else {
		return false;
	}
	memcpy(code + len - 4, &v, 4);
	return true;
}

/* Written in place (rt_modules.c make_stubs): `stub` is where it runs. */
static void i386_encode_stub(uint8_t *stub, uintptr_t target)
{
	uint32_t rel = (uint32_t)(target - ((uintptr_t)stub + 5));

	memset(stub, X86_INT3, STUB_SIZE);
	stub[0] = X86_JMP_REL32;
	memcpy(stub + 1, &rel, 4);
	memcpy(stub + STUB_TARGET_OFFSET, &target, sizeof(target));
}

/*
 * Where an mcount site's function keeps its return address.  Normally at
 * 4(%ebp).  But gcc realigns the stack of main (and of any function with
 * over-aligned locals) with a DRAP register (ecx, or edi when ecx holds an
 * argument, saved first: `push %edi; lea 8(%esp),%edi`):
 *	lea 4(%esp),%reg; and $-N,%esp; push -4(%reg); push %ebp; mov %esp,%ebp
 * and 4(%ebp) is then a copy, which the function never returns through:
 * it returns with `lea -4(%reg),%esp; ret`.  %reg still points just above
 * the real return address at the hook (the prologue only pushes before the
 * call, and -pg keeps ecx and edi live across it), so that is the slot.
 * The prologue is recognised by its bytes before the site; a site that
 * looks like one but whose words disagree keeps 4(%ebp).
 */
#define DRAP_WINDOW 40	/* the longest prologue before a site: pushes, the PIC thunk call and add */

/*
 * The bytes before a site are the function's own, or whatever precedes it:
 * a page that may not be mapped when the site is near a page's start and
 * the function at the start of a mapping.  mincore() says (ENOMEM), once
 * per entry of such a site only.
 */
static size_t drap_window(const uint8_t *site)
{
	uintptr_t page = (uintptr_t)site & ~(uintptr_t)4095;
	unsigned char v;

	if ((uintptr_t)site - DRAP_WINDOW - 8 >= page || mincore((void *)(page - 4096), 4096, &v) == 0)
		return DRAP_WINDOW;
	return (uintptr_t)site - page >= 14 ? (uintptr_t)site - page - 8 : 0;
}

/* The DRAP register (1: ecx, 7: edi) of the prologue before `site`, or -1. */
static int drap_prologue(const uint8_t *site)
{
	size_t window = drap_window(site);

	for (size_t back = 6; back <= window; back++) {
		const uint8_t *p = site - back;
		unsigned reg = p[1] & 7;

		/* `lea 4(%esp),%reg`, or `push %reg; lea 8(%esp),%reg` when %reg is callee-saved (edi) */
		if (p[0] == 0xff && (p[1] == 0x71 || p[1] == 0x77) && p[2] == 0xfc && p[3] == 0x55 &&
		    p[4] == 0x89 && p[5] == 0xe5 && p[-3] == 0x83 && p[-2] == 0xe4 && p[-7] == 0x8d &&
		    p[-6] == (0x44 | reg << 3) && p[-5] == 0x24 &&
		    (p[-4] == 0x04 || (p[-4] == 0x08 && p[-8] == (0x50 | reg))))
			return (int)reg;
	}
	return -1;
}

uintptr_t *i386_mcount_slot(uintptr_t *fp, const uint8_t *ra, uintptr_t ecx, uintptr_t edi) RT_HIDDEN;

uintptr_t *i386_mcount_slot(uintptr_t *fp, const uint8_t *ra, uintptr_t ecx, uintptr_t edi)
{
	/*
	 * The site: 6 bytes when its second byte is the ModRM of `call *abs32`
	 * or `call *disp32(%reg)`, or of the 6-byte NOP (the site may have been
	 * disabled since); else 5 (e8, int3, or the 5-byte NOP's 3e).
	 */
	static const uint8_t nop6[] = { I386_NOP6(X86_BYTE) };
	uint8_t m = ra[-5];
	const uint8_t *site = ra - (m == X86_CALL_MEM || m == nop6[1] ||
				    (m & X86_MODRM_RM_OFF) == X86_CALL_REG_DISP32 ? 6 : 5);
	int reg = drap_prologue(site);
	uintptr_t *real;

	if (reg < 0)
		return fp + 1;
	real = (uintptr_t *)((reg == 1 ? ecx : edi) - 4);
	/* Above the copy by the alignment's padding (0 when none was needed), and the same address. */
	if (real > fp && (uintptr_t)real - (uintptr_t)fp <= 256 && *real == fp[1])
		return real;
	return fp + 1;
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_i386,
	.encode_call = i386_encode_call,
	.encode_stub = i386_encode_stub,
	/* Both forms reach the whole 32-bit address space. */
	.reach = UINTPTR_MAX - 4096,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ROW_MEM(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ARGS_ROW_MEM(fentry) },
	/* Every argument is on the stack, above the return address (i386_mcount_slot finds the real one). */
	.arg_regs = { .stack_from_slot = { 4, 4 } },
};

/* Timestamps: the TSC or CLOCK_MONOTONIC, as on x86_64. */
#include "arch/x86/tsc.h"
