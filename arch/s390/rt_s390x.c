// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's s390x part: how an enabled site calls its trampoline, the
 * stub near each module, timestamps.
 *
 * A site is a 6-byte `brasl %rN,hook` (gcc -pg: `brasl %r14,_mcount`
 * between `stg %r14,8(%r15)` and `lg %r14,8(%r15)`; -mfentry:
 * `brasl %r0,__fentry__` as the first instruction) or the `brcl 0,0` that
 * recordmcount --nop or -mnop-mcount left.  The enabled form is
 * `brasl %rN,stub`, the disabled one `brcl 0,stub`: a branch whose mask
 * never branches, with the same displacement.  The two differ in byte 1
 * only (0xe5 or 0x05 against 0x04), so turning a site on or off is a
 * one-byte store, which no core can see half done.  The displacement is
 * written when the site is first disabled, at start-up, while the site is
 * a NOP in every state a core could see (patch_s390x.h).  The kernel's
 * ftrace does the same with `brcl 0`/`brcl 15` to its trampoline.
 *
 * The stub loads the trampoline's address from the doubleword after it
 * into %r1 (volatile, never an argument, what PLT stubs clobber too) and
 * branches: a brasl reaches +-4 GiB, the stub anywhere.
 */
#include <elf.h>
#include <string.h>
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/port.h"
#include "arch/s390/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES(fentry)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_ARGS(fentry)

/* What gcc -pg puts around a site's call: the trampoline's return address is where they keep %r14. */
static const struct insn_pattern stg_r14 = PAT(S390_STG_R14_8_R15), lg_r14 = PAT(S390_LG_R14_8_R15);

/* The link register a site's call keeps: gcc's own choice for each hook. */
static unsigned link_reg(unsigned kind)
{
	return kind == SITE_FENTRY ? 0 : 14;
}

static bool put_ril(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub, uint8_t byte1)
{
	intptr_t d = (intptr_t)(stub - site);

	if (len != S390_RIL_LEN || (d & 1) || d < -(intptr_t)S390_RIL_REACH || d >= (intptr_t)S390_RIL_REACH)
		return false;
	s390_ril(code, byte1, d);
	return true;
}

static bool s390x_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	/* Only reached without encode_site; say which register anyway: gcc's _mcount's. */
	return put_ril(code, len, site, stub, S390_BRASL(14));
}

static bool s390x_encode_site(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub, unsigned kind, bool on)
{
	return put_ril(code, len, site, stub, on ? S390_BRASL(link_reg(kind)) : S390_BRCL_NEVER);
}

static void s390x_encode_stub(uint8_t *stub, uintptr_t target)
{
	/* lgrl %r1,.+8 (halfwords: 4); br %r1; the doubleword, 8-aligned as lgrl needs. */
	static const uint8_t code[8] = { 0xc4, 0x18, 0x00, 0x00, 0x00, 0x04, 0x07, 0xf1 };

	memcpy(stub, code, sizeof(code));
	memcpy(stub + 8, &target, sizeof(target));
}

/*
 * The mcount trampoline finds the return address at 8(%r15), where gcc's
 * `stg %r14,8(%r15)` put it just before the call, and gcc reloads %r14
 * from there just after.  clang calls mcount after its prologue has moved
 * %r15 by a frame size only the prologue knows: such a site is refused.
 */
static size_t s390x_prepare_site(uintptr_t *at, unsigned kind, bool quiescent)
{
	size_t len;

	(void)quiescent;
	if (!at || !(len = rt_site_length((const uint8_t *)*at)))
		return 0;
	if (kind == SITE_MCOUNT &&
	    (!insn_matches(&stg_r14, (const uint8_t *)(*at - S390_RXY_LEN), S390_RXY_LEN, true) ||
	     !insn_matches(&lg_r14, (const uint8_t *)(*at + S390_RIL_LEN), S390_RXY_LEN, true)))
		return RT_SITE_REFUSED;
	return len;
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_s390x,
	.encode_call = s390x_encode_call,
	.encode_stub = s390x_encode_stub,
	/* make_stubs() measures from the farthest site to the far end of the stub page. */
	.reach = S390_RIL_REACH - 4096,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ROW(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW(mcount), [SITE_FENTRY] = RT_ENTRY_ARGS_ROW(fentry) },
	/*
	 * rt_s390x.S saves %r0-%r6 from its regs pointer, then %r14 and
	 * %f0/%f2/%f4/%f6 from 64.  gcc's -pg sequence and -mfentry's call
	 * (gcc's and clang's) both come before the prologue and leave every
	 * argument register alone: %r15 is still the function's entry value,
	 * so the slot is entry %r15 + 112 for both kinds and the caller's
	 * stack arguments start 48 bytes above it (entry %r15 + 160).
	 */
	.arg_regs = { .gpr = { 16, 24, 32, 40, 48 }, .fpr = 64, .fpr_stride = 8,
		      .stack_from_slot = { [SITE_MCOUNT] = 48, [SITE_FENTRY] = 48 } },
	.encode_site = s390x_encode_site,
	.prepare_site = s390x_prepare_site,
	/* gcc's `stg` before the site, the site and the `lg` after it. */
	.site_before = S390_RXY_LEN,
	.site_after = S390_RIL_LEN + S390_RXY_LEN,
};

/*
 * STORE CLOCK FAST: the TOD clock (bit 51 ticks each microsecond; the
 * machine fills the bits below it), a problem-state instruction that costs
 * about as much as a load; rt_output.c calibrates it against
 * CLOCK_MONOTONIC.  The "fast" form skips the uniqueness interlock of
 * STCK, which ordering events of one thread does not need.
 */
void rt_timestamp_init(void)
{
}

uint64_t rt_timestamp(void)
{
	uint64_t t;

	__asm__ volatile("stckf %0" : "=Q"(t) : : "cc", "memory");
	return t;
}
