// SPDX-License-Identifier: LGPL-2.1-or-later
/* SPARC64: `call _mcount` with a nop in its delay slot. */
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/sparc/args_sparc64.h"
#include "arch/sparc/insn.h"

static const char *const sparc_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

#define CALL	PAT(U32M(SPARC_CALL, SPARC_CALL_MASK))
#define NOP	PAT(U32(SPARC_NOP))

/* call: disp30 words from the instruction. */
static bool sparc_call(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < 4)
		return false;
	*to = pc + (uint64_t)(insn_sext(insn_load(code, 4, be) & 0x3fffffff, 30) * 4);
	return true;
}

static const struct call_decoder sparc_decoders[] = {
	{ .insn = CALL, .target = sparc_call, .len = 4 },
};

static const struct call_form sparc_calls[] = {
	{ .rtype = R_SPARC_WDISP30, .site_adjust = 0, .site = CALL, .nop = NOP },
	{ .rtype = R_SPARC_WPLT30, .site_adjust = 0, .site = CALL, .nop = NOP },
};

/* gcc's DWARF for SPARC uses the unaligned forms. */
static const struct abs_reloc sparc_more_abs[] = {
	{ R_SPARC_UA32, 4 },
	{ R_SPARC_UA64, 8 },
};

static const struct insn_pattern sparc_pad_nops[] = { NOP };

const struct arch arch_sparc64 = {
	.name = "sparc64",
	.machine = EM_SPARCV9,
	.elfclass = ELFCLASS64,
	.hooks = sparc_hooks,
	.calls = sparc_calls,
	.ncalls = ARRAY_SIZE(sparc_calls),
	.pad_nops = sparc_pad_nops,
	.npad_nops = ARRAY_SIZE(sparc_pad_nops),
	.reloc_abs = R_SPARC_64,
	.reloc_abs32 = R_SPARC_32,
	.reloc_rel32 = R_SPARC_DISP32,
	.reloc_none = R_SPARC_NONE,
	.reloc_relative = R_SPARC_RELATIVE,
	.more_abs = sparc_more_abs,
	.nmore_abs = ARRAY_SIZE(sparc_more_abs),
	/*
	 * ELF64_R_TYPE: the type in the low byte, R_SPARC_OLO10's second addend
	 * in the 24 bits above it.  A relocation keeps all 32 bits when the
	 * symbol table is renumbered: dropping them moved the kernel's stores to
	 * `x.b` onto `x.a`, and a 7.3 sparc64 kernel died in OpenBIOS.
	 */
	.reloc_id_mask = 0xff,
	.decoders = sparc_decoders,
	.ndecoders = ARRAY_SIZE(sparc_decoders),
	/* After `save`: the call is the first or second instruction. */
	.hook_window = 64,
	.insn_align = 4,
	/*
	 * SPARC V9: structs of up to 32 bytes come back in registers, but
	 * struct ret_regs keeps two integer ones: those over 16 bytes, and
	 * those holding floats (in %f0-%f7), print "?".  Larger ones come back
	 * in memory whose address the caller passed in %o0, which no register
	 * holds at the return: the CAPTURE_MEMORY trampolines pass it at the
	 * entry (rt_sparc64.S).  long double is binary128 in %q0 = %f0-%f3,
	 * which the return trampoline saves as fpr[0].  Its own errno numbers.
	 */
	.values = { .struct_regs = 2, .errno_max = 34, .ldbl_mant = 113, .wide_in_fpr0 = true,
		    .memory_address_returned = true },
	.place_args = arg_place_sparc64,
	.ret_by_address = arg_ret_by_address_sparc64,
	/* gcc's `call _mcount` after `save`, NOP'd by --nop; clang's `call mcount` likewise. */
	.cc = { "-pg", "-pg" },
};
