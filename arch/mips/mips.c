// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MIPS o32/n32 and n64.  One call can carry several relocations against the
 * hook: %hi/%lo (and %highest/%higher on n64) with -mlong-calls, %call16 plus
 * the R_MIPS_JALR hint in PIC code.  They form one site, recorded at the
 * first instruction of the sequence.  The R_MIPS_JALR hint alone is no call
 * form: it only names a symbol for the linker, while the jalr calls whatever
 * the load before it put in t9.  A jalr whose load does not name the hook
 * is a reference to report (a stray), never a call to record or NOP.
 */
#include "arch/arch.h"
#include "arch/mips/args_mips.h"
#include "arch/mips/insn.h"
#include "arch/pattern.h"

#define R_MIPS_PC32 248		/* GNU extension, not in every <elf.h> */

static const char *const mips_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

#define JAL		U32M(MIPS_JAL, MIPS_OP_MASK)
#define LUI		U32M(MIPS_LUI, MIPS_OP_MASK)
#define LW_T9		U32M(MIPS_LW_T9, MIPS_OP_RT_MASK)
#define LD_T9		U32M(MIPS_LD_T9, MIPS_OP_RT_MASK)
#define NOP		U32(MIPS_NOP)
#define LW_GP		U32M(MIPS_I(MIPS_OP_LW, MIPS_GP, 0), MIPS_OP_RS_MASK)
#define LD_GP		U32M(MIPS_I(MIPS_OP_LD, MIPS_GP, 0), MIPS_OP_RS_MASK)

/*
 * `jal _mcount` with the o32 `addiu sp,sp,-8` in its delay slot (which
 * _mcount itself undoes) is replaced together with that slot.  Any other delay
 * slot instruction (clang fills it with the function's own work) runs in
 * either case, so only the jal goes.
 */
#define JAL_SP_FORM(delay) { .rtype = R_MIPS_26, .site = PAT(JAL), .nop_expect = PAT(JAL, delay), \
			     .nop = PAT(NOP, NOP) }

static const struct call_form mips_calls[] = {
	JAL_SP_FORM(U32(MIPS_ADDIU_SP_M8)),
	JAL_SP_FORM(U32(MIPS_DADDIU_SP_M8)),
	{ .rtype = R_MIPS_26, .site = PAT(JAL), .nop = PAT(NOP) },
	{ .rtype = R_MIPS_HI16, .site_adjust = 0, .site = PAT(LUI) },
	{ .rtype = R_MIPS_HIGHEST, .site_adjust = 0, .site = PAT(LUI) },
	{ .rtype = R_MIPS_CALL_HI16, .site_adjust = 0, .site = PAT(LUI) },
	{ .rtype = R_MIPS_CALL16, .site_adjust = 0, .site = PAT(LW_T9) },
	{ .rtype = R_MIPS_CALL16, .site_adjust = 0, .site = PAT(LD_T9) },
	/* PIC with -mlong-calls: the hook's address from its GOT entry, into any register. */
	{ .rtype = R_MIPS_GOT16, .site = PAT(LW_GP) },
	{ .rtype = R_MIPS_GOT_DISP, .site = PAT(LD_GP) },
	{ .rtype = R_MIPS_GOT_HI16, .site = PAT(LUI) },
};

/*
 * The sequences above other than a plain `jal` (arch/mips/insn.h): the call
 * word becomes the runtime's disabled word, the pop of an o32 push the
 * sequence keeps, else a NOP.
 */
static int64_t mips_sequence_call(const uint8_t *code, size_t size, uint64_t site, bool be, uint32_t *disabled)
{
	bool push;
	/* clang's non-PIC -mlong-calls loads the address through at, with no `move at, ra`: a call all the same. */
	int call = mips_sequence_call_at(code + site, site, size - site, be, ~0u, false, &push);

	if (call < 0)
		return -1;
	*disabled = push ? MIPS_ADDIU_SP_8 : MIPS_NOP;
	return (int64_t)site + call;
}

static const struct insn_pattern mips_seq_nop = PAT(NOP);

/* jal: the target's low 28 bits, in the 256 MiB region of the delay slot. */
static bool mips_jal_decode(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	if (avail < 4)
		return false;
	*to = mips_jal_target(insn_load(code, 4, be), pc);
	return true;
}

#define RS(w)	(((w) >> 21) & 31)
#define RT(w)	(((w) >> 16) & 31)
#define IMM(w)	((uint64_t)(int64_t)mips_simm(w))

/* -mlong-calls, 32-bit addresses (or -msym32): `lui rA, %hi; (d)addiu rB, rA, %lo`. */
static bool mips_lui_addiu(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t lui, add;

	(void)pc;
	if (avail < 8)
		return false;
	lui = insn_load(code, 4, be);
	add = insn_load(code + 4, 4, be);
	if (RS(add) != RT(lui))
		return false;
	*to = (uint64_t)insn_sext((IMM(lui) << 16) + IMM(add), 32);
	if (MIPS_OP(add) == MIPS_OP_ADDIU)	/* an o32 address, 32 bits */
		*to &= 0xffffffffu;
	return true;
}

/*
 * -mlong-calls, n64: `lui rA, %highest; lui rB, %hi; daddiu rA, rA,
 * %higher; daddiu rB, rB, %lo; dsll32 rA, rA, 0; daddu rA, rA, rB`, as gcc
 * schedules it.
 */
static bool mips_lui_n64(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	uint32_t w[6];

	(void)pc;
	if (avail < 24)
		return false;
	for (unsigned i = 0; i < 6; i++)
		w[i] = insn_load(code + 4 * i, 4, be);
	if (RS(w[2]) != RT(w[0]) || RT(w[2]) != RT(w[0]) || RS(w[3]) != RT(w[1]) || RT(w[3]) != RT(w[1]))
		return false;
	uint64_t a = (IMM(w[0]) << 16) + IMM(w[2]), b = (IMM(w[1]) << 16) + IMM(w[3]);

	*to = (a << 32) + b;
	return true;
}

#define RD(w)	(((w) >> 11) & 31)

/* A `jalr ra, REG` within the sequence's reach from `from`. */
static bool mips_jalr_through(const uint8_t *code, size_t avail, bool be, unsigned reg, size_t from)
{
	for (size_t a = from; a + 4 <= avail && a < from + MIPS_SEQ_AFTER; a += 4) {
		uint32_t w = insn_load(code + a, 4, be);

		if ((w & MIPS_JALR_RA_MASK) == MIPS_JALR_RA && RS(w) == reg)
			return true;
	}
	return false;
}

static bool mips_lui_addiu_calls(const uint8_t *code, size_t avail, bool be)
{
	return avail >= 8 && mips_jalr_through(code, avail, be, RT(insn_load(code + 4, 4, be)), 8);
}

static bool mips_lui_n64_calls(const uint8_t *code, size_t avail, bool be)
{
	return avail >= 24 && mips_jalr_through(code, avail, be, RD(insn_load(code + 20, 4, be)), 24);
}

#define ADDIU	U32M(MIPS_ADDIU, MIPS_OP_MASK)
#define DADDIU	U32M(MIPS_DADDIU, MIPS_OP_MASK)

/*
 * PIC code loads the hook's address through $gp (%call16, and with
 * -mlong-calls %got into any register; -mxgot adds $gp to a lui's high
 * half first): accepted, not verified.
 */
static const struct call_decoder mips_decoders[] = {
	{ .insn = PAT(JAL), .target = mips_jal_decode, .len = 4 },
	{ .insn = PAT(U32M(MIPS_J, MIPS_OP_MASK)), .target = mips_jal_decode, .len = 4, .ref = true },
	{ .insn = PAT(LUI, ADDIU), .target = mips_lui_addiu, .len = 8, .calls_after = mips_lui_addiu_calls },
	{ .insn = PAT(LUI, DADDIU), .target = mips_lui_addiu, .len = 8, .calls_after = mips_lui_addiu_calls },
	{ .insn = PAT(LUI, LUI, DADDIU, DADDIU, U32M(0x0000003c, 0xffe007ff), U32M(0x0000002d, 0xfc0007ff)),
	  .target = mips_lui_n64, .len = 24, .calls_after = mips_lui_n64_calls },
	{ .insn = PAT(LW_T9), .len = 4 },
	{ .insn = PAT(LD_T9), .len = 4 },
	{ .insn = PAT(LW_GP), .len = 4 },
	{ .insn = PAT(LD_GP), .len = 4 },
	{ .insn = PAT(LUI, U32M(MIPS_ADDU_GP, MIPS_ADDU_GP_MASK)), .len = 8 },
	{ .insn = PAT(LUI, U32M(MIPS_DADDU_GP, MIPS_ADDU_GP_MASK)), .len = 8 },
};

/* After the prologue's stack adjustment and register saves (clang). */
#define MIPS_HOOK_WINDOW 96

static const struct insn_pattern mips_pad_nops[] = { PAT(NOP) };

const struct arch arch_mips32 = {
	.name = "mips",
	.machine = EM_MIPS,
	.elfclass = ELFCLASS32,
	.hooks = mips_hooks,
	.calls = mips_calls,
	.ncalls = ARRAY_SIZE(mips_calls),
	.sequence_call = mips_sequence_call,
	.seq_nop = &mips_seq_nop,
	.pad_nops = mips_pad_nops,
	.npad_nops = ARRAY_SIZE(mips_pad_nops),
	.pad_all_before = true,
	.reloc_abs = R_MIPS_32,
	.reloc_abs32 = R_MIPS_32,
	.reloc_rel32 = R_MIPS_PC32,
	.reloc_none = R_MIPS_NONE,
	.decoders = mips_decoders,
	.ndecoders = ARRAY_SIZE(mips_decoders),
	.hook_window = MIPS_HOOK_WINDOW,
	.insn_align = 4,
	/* o32: every struct in memory; MIPS's own errno numbers above 34; a float in $f0 of $f1:$f0 */
	.values = { .struct_regs = 0, .errno_max = 34, .ldbl_mant = 53, .float_low_half = true },
	.place_args = arg_place_mips_o32,
	.ret_by_address = arg_ret_aggregates_by_address,	/* every struct and union in memory, its address in $a0 */
	/* a recorded site is the sequence's first word: the call is further */
	.ra_span = MIPS_SEQ_AFTER + 4,
	.cc = { "-pg", "-pg" },
};

/*
 * MIPS64 r_info is not ELF64_R_INFO: a 32-bit symbol index, then the bytes
 * ssym, type3, type2 and type, stored in that order.  Read as a 64-bit word
 * in the file's byte order that puts the type in the low byte on big-endian
 * and in the high byte on little-endian files.  `type` carries all four
 * bytes (type | type2 << 8 | type3 << 16 | ssym << 24), so that a
 * relocation written back keeps its composition (gcc's n64 gp setup:
 * R_MIPS_GPREL16 / R_MIPS_SUB / R_MIPS_HI16, which ld rejects as a plain
 * GPREL16); a hook's relocations have none, and compare as their type.
 */
static void mips64_rinfo_decode(uint64_t info, bool big_endian, uint32_t *sym, uint32_t *type)
{
	uint32_t t;

	if (big_endian) {
		*sym = (uint32_t)(info >> 32);
		*type = (uint32_t)info;
		return;
	}
	*sym = (uint32_t)info;
	t = (uint32_t)(info >> 32);
	*type = t >> 24 | ((t >> 16) & 0xff) << 8 | ((t >> 8) & 0xff) << 16 | (t & 0xff) << 24;
}

static uint64_t mips64_rinfo_encode(uint32_t sym, uint32_t type, bool big_endian)
{
	uint32_t t;

	if (big_endian)
		return (uint64_t)sym << 32 | type;
	t = (type & 0xff) << 24 | ((type >> 8) & 0xff) << 16 | ((type >> 16) & 0xff) << 8 | type >> 24;
	return sym | (uint64_t)t << 32;
}

const struct arch arch_mips64 = {
	.name = "mips64",
	.machine = EM_MIPS,
	.elfclass = ELFCLASS64,
	.hooks = mips_hooks,
	.calls = mips_calls,
	.ncalls = ARRAY_SIZE(mips_calls),
	.sequence_call = mips_sequence_call,
	.seq_nop = &mips_seq_nop,
	.pad_nops = mips_pad_nops,
	.npad_nops = ARRAY_SIZE(mips_pad_nops),
	.pad_all_before = true,
	.reloc_abs = R_MIPS_64,
	.reloc_abs32 = R_MIPS_32,
	.reloc_rel32 = R_MIPS_PC32,
	.reloc_none = R_MIPS_NONE,
	.rinfo_decode = mips64_rinfo_decode,
	.rinfo_encode = mips64_rinfo_encode,
	.reloc_id_mask = 0xff,
	.decoders = mips_decoders,
	.ndecoders = ARRAY_SIZE(mips_decoders),
	.hook_window = MIPS_HOOK_WINDOW,
	.insn_align = 4,
	/* n64: structs of up to 16 bytes in v0:v1; a float in $f0's low half */
	.values = { .struct_regs = 2, .errno_max = 34, .ldbl_mant = 113, .float_low_half = true },
	.place_args = arg_place_mips_n64,
	.ret_by_address = arg_ret_by_address_mips_n64,
	.ra_span = MIPS_SEQ_AFTER + 4,
	.cc = { "-pg", "-pg" },
};
