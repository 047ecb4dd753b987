// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PowerPC 32-bit and 64-bit (ELFv1 big-endian with dot symbols, ELFv2
 * little-endian).  The call is `bl _mcount`; on ppc64 the nop after it is the
 * TOC-restore slot and stays as it is.
 */
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/powerpc/args_ppc.h"
#include "arch/powerpc/args_ppc64le.h"
#include "arch/powerpc/insn.h"

#define R_PPC64_REL24_NOTOC 116	/* Power10, not in every <elf.h> */

static const char *const ppc_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

#define BL	PAT(U32M(PPC_BL, PPC_BL_MASK))
#define NOP	PAT(U32(PPC_NOP))

/* bl: LI:00 relative to the instruction (AA clear: the pattern requires it). */
static bool ppc_bl(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < 4)
		return false;
	*to = pc + (uint64_t)ppc_branch_offset(insn_load(code, 4, be));
	return true;
}

static const struct call_decoder ppc_decoders[] = {
	{ .insn = BL, .target = ppc_bl, .len = 4 },
};

/*
 * After `mflr r0; stw/std r0` and, on ppc64, the ELFv2 global entry's TOC
 * setup or the frame's stores.
 */
#define PPC_HOOK_WINDOW 64

static const struct insn_pattern ppc_pad_nops[] = { NOP };

#define PPC_DECODE \
	.decoders = ppc_decoders, \
	.ndecoders = ARRAY_SIZE(ppc_decoders), \
	.hook_window = PPC_HOOK_WINDOW, \
	.insn_align = 4, \
	.pad_nops = ppc_pad_nops, \
	.npad_nops = ARRAY_SIZE(ppc_pad_nops)

static const struct call_form ppc32_calls[] = {
	{ .rtype = R_PPC_REL24, .site_adjust = 0, .site = BL, .nop = NOP },
	{ .rtype = R_PPC_PLTREL24, .site_adjust = 0, .site = BL, .nop = NOP },
	{ .rtype = R_PPC_LOCAL24PC, .site_adjust = 0, .site = BL, .nop = NOP },
};

const struct arch arch_ppc32 = {
	.name = "ppc",
	.machine = EM_PPC,
	.elfclass = ELFCLASS32,
	.hooks = ppc_hooks,
	.calls = ppc32_calls,
	.ncalls = ARRAY_SIZE(ppc32_calls),
	.reloc_abs = R_PPC_ADDR32,
	.reloc_abs32 = R_PPC_ADDR32,
	.reloc_rel32 = R_PPC_REL32,
	.reloc_none = R_PPC_NONE,
	.reloc_relative = R_PPC_RELATIVE,
	PPC_DECODE,
	/*
	 * SVR4 ppc32: every struct in memory, its address passed in r3 (the
	 * runtime keeps it from the entry: rt_ppc.S); a float in f1 as a
	 * double; IBM long double in f1:f2
	 */
	.values = { .struct_regs = 0, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 106,
		    .float_as_double = true, .memory_address_returned = true },
	.place_args = arg_place_ppc,
	.ret_by_address = arg_ret_aggregates_by_address,	/* every struct and union in memory, its address in r3 */
	.cc = { "-pg", "-pg" },
};

static const struct call_form ppc64_calls[] = {
	{ .rtype = R_PPC64_REL24, .site_adjust = 0, .site = BL, .nop = NOP },
	{ .rtype = R_PPC64_REL24_NOTOC, .site_adjust = 0, .site = BL, .nop = NOP },
};

/* ELFv1 (big-endian) uses function descriptors; ELFv2 (e_flags 2) does not. */
static bool ppc64_elfv1(const GElf_Ehdr *ehdr)
{
	return (ehdr->e_flags & EF_PPC64_ABI) != 2;
}

static bool ppc64_elfv2(const GElf_Ehdr *ehdr)
{
	return !ppc64_elfv1(ehdr);
}

#define PPC64_COMMON \
	.machine = EM_PPC64, \
	.elfclass = ELFCLASS64, \
	.hooks = ppc_hooks, \
	.calls = ppc64_calls, \
	.ncalls = ARRAY_SIZE(ppc64_calls), \
	.reloc_abs = R_PPC64_ADDR64, \
	.reloc_abs32 = R_PPC64_ADDR32, \
	.reloc_rel32 = R_PPC64_REL32, \
	.reloc_none = R_PPC64_NONE, \
	.reloc_relative = R_PPC64_RELATIVE, \
	.linker_nops_at_entry = true, \
	PPC_DECODE

const struct arch arch_ppc64 = {
	.name = "ppc64",
	.match = ppc64_elfv1,
	.func_descriptors = ".opd",
	PPC64_COMMON,
	/*
	 * ELFv1: every struct in memory, its address passed in r3 (the
	 * runtime keeps it from the entry: rt_ppc64.S); a float in f1 as a
	 * double; IBM long double in f1:f2
	 */
	.values = { .struct_regs = 0, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 106,
		    .float_as_double = true, .memory_address_returned = true },
	.place_args = arg_place_ppc64,
	.ret_by_address = arg_ret_aggregates_by_address,	/* ELFv1: every aggregate in memory, its address in r3 */
	.cc = { "-pg", "-pg" },
};

const struct arch arch_ppc64le = {
	.name = "ppc64le",
	.match = ppc64_elfv2,
	PPC64_COMMON,
	/*
	 * ELFv2: structs of up to 16 bytes in r3:r4; a float in f1 as a
	 * double; long double (IBM double-double) in f1:f2
	 */
	.values = { .struct_regs = 2, .char_unsigned = true, .errno_max = 133, .ldbl_mant = 106,
		    .float_as_double = true },
	.place_args = arg_place_ppc64le,
	.ret_by_address = arg_ret_by_address_ppc64le,
	.cc = { "-pg", "-pg" },
};
