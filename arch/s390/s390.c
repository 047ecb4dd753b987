// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * s390x.  gcc 12 emits `stg %r14,8(%r15); brasl %r14,_mcount; lg
 * %r14,8(%r15)`, clang `brasl %r14,mcount`.  The relocation sits on the
 * brasl's immediate, two bytes into the instruction; the site is the brasl.
 * (The kernel's tool subtracts 14, which fitted an older sequence and now
 * lands before the function.)
 */
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/s390/args_s390x.h"
#include "arch/s390/insn.h"

static const char *const s390_hooks[] = { "_mcount", "mcount", NULL };
/* -mfentry (gcc and clang): `brasl %r0,__fentry__` before the prologue, %r14 untouched */
static const char *const s390_entry_hooks[] = { "__fentry__", NULL };

/* brasl %rN,rel32 (c0N5) becomes brcl 0,0 (c004 0000 0000), a 6-byte nop. */
#define BRASL	PAT(U16M(S390_BRASL_HW, S390_BRASL_HW_MASK))
#define BRCL_0	PAT(U16(S390_BRCL_NEVER_HW), U16(0x0000), U16(0x0000))

/* brasl: a signed count of halfwords from the instruction. */
static bool s390_brasl(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < S390_RIL_LEN)
		return false;
	*to = pc + (uint64_t)s390_ril_offset(insn_load(code + 2, 4, be));
	return true;
}

static const struct call_decoder s390_decoders[] = {
	{ .insn = BRASL, .target = s390_brasl, .len = S390_RIL_LEN },
};

static const struct call_form s390_calls[] = {
	{ .rtype = R_390_PLT32DBL, .site_adjust = -2, .site = BRASL, .nop = BRCL_0 },
	{ .rtype = R_390_PC32DBL, .site_adjust = -2, .site = BRASL, .nop = BRCL_0 },
};

/* gcc -pg -mrecord-mcount records the sequence's start: `stg %r14,8(%r15)`. */
static const struct insn_pattern s390_recorded_prefix = PAT(S390_STG_R14_8_R15);

/* nopr %r0 and nop */
static const struct insn_pattern s390_pad_nops[] = { PAT(U16(0x0700)), PAT(U32(0x47000000)) };

const struct arch arch_s390x = {
	.name = "s390x",
	.machine = EM_S390,
	.elfclass = ELFCLASS64,
	.hooks = s390_hooks,
	.entry_hooks = s390_entry_hooks,
	.calls = s390_calls,
	.ncalls = ARRAY_SIZE(s390_calls),
	.pad_nops = s390_pad_nops,
	.npad_nops = ARRAY_SIZE(s390_pad_nops),
	.reloc_abs = R_390_64,
	.reloc_abs32 = R_390_32,
	.reloc_rel32 = R_390_PC32,
	.reloc_none = R_390_NONE,
	.reloc_relative = R_390_RELATIVE,
	.recorded_prefix = &s390_recorded_prefix,
	.decoders = s390_decoders,
	.ndecoders = ARRAY_SIZE(s390_decoders),
	/* gcc: after `stg %r14,8(%r15)`; -mfentry: the first instruction. */
	.hook_window = 64,
	.insn_align = 2,
	/* s390x: every struct, and long double, in memory */
	.values = { .struct_regs = 0, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 113 },
	.place_args = arg_place_s390x,
	.ret_by_address = arg_ret_by_address_s390x,
	/* objpatch-cc: the runtime refuses clang's -pg here (docs/architectures.md): -mfentry for both */
	.cc = { "-pg -mfentry", "-pg -mfentry" },
};
