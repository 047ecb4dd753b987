// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MIPS o32/n32 and n64.  One call can carry several relocations against the
 * hook: %hi/%lo (and %highest/%higher on n64) with -mlong-calls, %call16 plus
 * the R_MIPS_JALR hint in PIC code.  They form one site, recorded at the
 * first instruction of the sequence.
 */
#include "arch.h"

#define R_MIPS_PC32 248		/* GNU extension, not in every <elf.h> */

static const char *const mips_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

#define JAL		WM(0x0c000000, 0xfc000000)
#define LUI		WM(0x3c000000, 0xfc000000)
#define LW_T9		WM(0x8c190000, 0xfc1f0000)
#define LD_T9		WM(0xdc190000, 0xfc1f0000)
#define JALR_RA		WM(0x0000f809, 0xfc1fffff)
#define MIPS_NOP	W(0x00000000)

/*
 * `jal _mcount` with the o32 `addiu sp,sp,-8` in its delay slot (which
 * _mcount itself undoes) is replaced together with that slot.  Any other delay
 * slot instruction (clang fills it with the function's own work) runs in
 * either case, so only the jal goes.
 */
#define JAL_SP_FORM(delay) { .rtype = R_MIPS_26, .site = PAT(JAL), .nop_expect = PAT(JAL, delay), \
			     .nop = PAT(MIPS_NOP, MIPS_NOP) }

static const struct call_form mips_calls[] = {
	JAL_SP_FORM(W(0x27bdfff8)),		/* addiu sp,sp,-8 */
	JAL_SP_FORM(W(0x67bdfff8)),		/* daddiu sp,sp,-8 */
	{ .rtype = R_MIPS_26, .site = PAT(JAL), .nop = PAT(MIPS_NOP) },
	{ .rtype = R_MIPS_HI16, .site_adjust = 0, .site = PAT(LUI) },
	{ .rtype = R_MIPS_HIGHEST, .site_adjust = 0, .site = PAT(LUI) },
	{ .rtype = R_MIPS_CALL_HI16, .site_adjust = 0, .site = PAT(LUI) },
	{ .rtype = R_MIPS_CALL16, .site_adjust = 0, .site = PAT(LW_T9) },
	{ .rtype = R_MIPS_CALL16, .site_adjust = 0, .site = PAT(LD_T9) },
	{ .rtype = R_MIPS_JALR, .site_adjust = 0, .site = PAT(JALR_RA) },
};

/*
 * The longest sequence (n64 %highest..%lo) spans 12 bytes, and two
 * functions' calls are at least 16 bytes apart (call, delay slot, return,
 * its delay slot).
 */
#define MIPS_SEQ_WINDOW 16

const struct arch arch_mips32 = {
	.name = "mips",
	.machine = EM_MIPS,
	.elfclass = ELFCLASS32,
	.hooks = mips_hooks,
	.calls = mips_calls,
	.ncalls = ARRAY_SIZE(mips_calls),
	.seq_window = MIPS_SEQ_WINDOW,
	.reloc_abs = R_MIPS_32,
	.reloc_abs32 = R_MIPS_32,
	.reloc_rel32 = R_MIPS_PC32,
	.reloc_none = R_MIPS_NONE,
};

/*
 * MIPS64 r_info is not ELF64_R_INFO: a 32-bit symbol index, then the bytes
 * ssym, type3, type2 and type, stored in that order.  Read as a 64-bit word
 * in the file's byte order that puts the type in the low byte on big-endian
 * and in the high byte on little-endian files.
 */
static void mips64_rinfo_decode(uint64_t info, bool big_endian, uint32_t *sym, uint32_t *type)
{
	if (big_endian) {
		*sym = (uint32_t)(info >> 32);
		*type = (uint32_t)(info & 0xff);
	} else {
		*sym = (uint32_t)info;
		*type = (uint32_t)(info >> 56);
	}
}

static uint64_t mips64_rinfo_encode(uint32_t sym, uint32_t type, bool big_endian)
{
	if (big_endian)
		return (uint64_t)sym << 32 | (type & 0xff);
	return sym | (uint64_t)(type & 0xff) << 56;
}

const struct arch arch_mips64 = {
	.name = "mips64",
	.machine = EM_MIPS,
	.elfclass = ELFCLASS64,
	.hooks = mips_hooks,
	.calls = mips_calls,
	.ncalls = ARRAY_SIZE(mips_calls),
	.seq_window = MIPS_SEQ_WINDOW,
	.reloc_abs = R_MIPS_64,
	.reloc_abs32 = R_MIPS_32,
	.reloc_rel32 = R_MIPS_PC32,
	.reloc_none = R_MIPS_NONE,
	.rinfo_decode = mips64_rinfo_decode,
	.rinfo_encode = mips64_rinfo_encode,
};
