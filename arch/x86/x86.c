// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * x86_64 and i386.  Calls are `call rel32` (e8) in non-PIC code and
 * `call *mcount@GOTPCREL(%rip)` (ff 15) or `call *mcount@GOT(%reg)` (ff 9x)
 * in PIC code, Debian's default; the site is the opcode's first byte.
 */
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/x86/args_x86.h"
#include "arch/x86/insn.h"

static const char *const x86_hooks[] = { "mcount", NULL };
/* gcc and clang -mfentry, on i386 too (non-PIC for gcc) */
static const char *const x86_entry_hooks[] = { "__fentry__", NULL };

#define CALL_REL32 PAT(U8(X86_CALL_REL32))
#define CALL_MEM PAT(U8(X86_GRP5), U8(X86_CALL_MEM))
#define ADDR32_CALL_REL32 PAT(U8(X86_ADDR32), U8(X86_CALL_REL32))
#define NOP5 PAT(X86_64_NOP5(U8))
#define NOP6 PAT(X86_64_NOP6(U8))

static const struct call_form x86_64_calls[] = {
	{ .rtype = R_X86_64_PLT32, .site_adjust = -1, .site = CALL_REL32, .nop = NOP5 },
	{ .rtype = R_X86_64_PC32, .site_adjust = -1, .site = CALL_REL32, .nop = NOP5 },
	{ .rtype = R_X86_64_GOTPCRELX, .site_adjust = -2, .site = CALL_MEM, .nop = NOP6, .pic = true },
	{ .rtype = R_X86_64_REX_GOTPCRELX, .site_adjust = -2, .site = CALL_MEM, .nop = NOP6, .pic = true },
	{ .rtype = R_X86_64_GOTPCREL, .site_adjust = -2, .site = CALL_MEM, .nop = NOP6, .pic = true },
};

/*
 * Linked code: `call rel32`, the `addr32 call rel32` GNU ld makes of a GOT
 * call to a function defined in the file, `call *slot(%rip)`, and the PLT's
 * `jmp *slot(%rip)` (also `bnd jmp`), all relative to the instruction's end.
 */
static bool rel32_at(const uint8_t *code, size_t avail, uint64_t pc, unsigned at, uint64_t *to)
{
	if (avail < at + 4)
		return false;
	*to = pc + at + 4 + (uint64_t)insn_sext(insn_load(code + at, 4, false), 32);
	return true;
}

static bool x86_rel32_1(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	(void)be;
	return rel32_at(code, avail, pc, 1, to);
}

static bool x86_rel32_2(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	(void)be;
	return rel32_at(code, avail, pc, 2, to);
}

static bool x86_rel32_3(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	(void)be;
	return rel32_at(code, avail, pc, 3, to);
}

static const struct call_decoder x86_64_decoders[] = {
	{ .insn = CALL_REL32, .target = x86_rel32_1, .len = 5 },
	{ .insn = ADDR32_CALL_REL32, .target = x86_rel32_2, .len = 6 },
	{ .insn = PAT(U8(X86_JMP_REL32)), .target = x86_rel32_1, .len = 5, .ref = true },
	{ .insn = CALL_MEM, .target = x86_rel32_2, .len = 6, .slot = true },
	{ .insn = PAT(U8(X86_GRP5), U8(X86_JMP_MEM)), .target = x86_rel32_2, .len = 6, .slot = true, .jump = true },
	{ .insn = PAT(U8(X86_BND), U8(X86_GRP5), U8(X86_JMP_MEM)), .target = x86_rel32_3, .len = 7, .slot = true,
	  .jump = true },
};

/*
 * __fentry__ is the first instruction (after an endbr64 with IBT); mcount
 * follows `push %rbp; mov %rsp,%rbp` with gcc, and clang's prologue with
 * its register saves and stack adjustment.
 */
#define X86_HOOK_WINDOW 64

/* endbr64, endbr32: a pad follows them under -fcf-protection */
static const struct insn_pattern x86_landing_pads[] = {
	PAT(U8(0xf3), U8(0x0f), U8(0x1e), U8(0xfa)),
	PAT(U8(0xf3), U8(0x0f), U8(0x1e), U8(0xfb)),
};

#define X86_PADS \
	.pad_nop_len = x86_nop_len, \
	.landing_pads = x86_landing_pads, \
	.nlanding_pads = ARRAY_SIZE(x86_landing_pads)

const struct arch arch_x86_64 = {
	.name = "x86_64",
	.machine = EM_X86_64,
	.elfclass = ELFCLASS64,
	.hooks = x86_hooks,
	.entry_hooks = x86_entry_hooks,
	.calls = x86_64_calls,
	.ncalls = ARRAY_SIZE(x86_64_calls),
	.reloc_abs = R_X86_64_64,
	.reloc_abs32 = R_X86_64_32,
	.reloc_rel32 = R_X86_64_PC32,
	.reloc_none = R_X86_64_NONE,
	.reloc_relative = R_X86_64_RELATIVE,
	.decoders = x86_64_decoders,
	.ndecoders = ARRAY_SIZE(x86_64_decoders),
	.hook_window = X86_HOOK_WINDOW,
	.insn_align = 1,
	X86_PADS,
	/*
	 * SysV x86_64: structs of two eightbytes come back in rax:rdx, their
	 * float-only eightbytes in xmm0:xmm1; larger ones in memory, its
	 * address in rax
	 */
	.values = { .struct_regs = 2, .errno_max = 133, .ldbl_mant = 64, .struct_fp = STRUCT_FP_EIGHTBYTES,
		    .memory_address_returned = true },
	.place_args = arg_place_x86_64,
	.ret_by_address = arg_ret_by_address_x86_64,
	/* A pad's call at the entry is __fentry__'s: only its first 5 bytes are used. */
	.pad_site_len = 5,
	/*
	 * objpatch-cc: the fewest instructions with every site NOP'd
	 * (bench/RESULTS-instrument.md, Lua 5.4 under valgrind): gcc -pg -mfentry
	 * +2.3% (its pad is five 1-byte NOPs until the runtime joins them: +10.1%),
	 * clang's 5-byte NOP pad +1.9% (-pg -mfentry +1.4 to 2.0%, and needs the
	 * hook's symbol).
	 */
	.cc = { "-pg -mfentry", "-fpatchable-function-entry=5" },
};

/* call *disp32(%reg): ModRM mod=10, reg=2, any base */
#define CALL_GOT PAT(U8(X86_GRP5), { 1, X86_CALL_REG_DISP32, X86_MODRM_RM_OFF })

static const struct call_form i386_calls[] = {
	{ .rtype = R_386_PC32, .site_adjust = -1, .site = CALL_REL32, .nop = PAT(I386_NOP5(U8)) },
	{ .rtype = R_386_PLT32, .site_adjust = -1, .site = CALL_REL32, .nop = PAT(I386_NOP5(U8)) },
	{ .rtype = R_386_GOT32X, .site_adjust = -2, .site = CALL_GOT, .nop = PAT(I386_NOP6(U8)),
	  .pic = true },
	{ .rtype = R_386_GOT32, .site_adjust = -2, .site = CALL_GOT, .nop = PAT(I386_NOP6(U8)),
	  .pic = true },
};

/*
 * `call *mcount@GOT(%reg)` is relative to a GOT pointer the code computed:
 * accepted as a call that cannot be verified.
 */
static const struct call_decoder i386_decoders[] = {
	{ .insn = CALL_REL32, .target = x86_rel32_1, .len = 5 },
	{ .insn = ADDR32_CALL_REL32, .target = x86_rel32_2, .len = 6 },
	{ .insn = CALL_GOT, .len = 6 },
	{ .insn = PAT(U8(X86_JMP_REL32)), .target = x86_rel32_1, .len = 5, .ref = true },
};

const struct arch arch_i386 = {
	.name = "i386",
	.machine = EM_386,
	.elfclass = ELFCLASS32,
	.hooks = x86_hooks,
	.entry_hooks = x86_entry_hooks,
	.calls = i386_calls,
	.ncalls = ARRAY_SIZE(i386_calls),
	.reloc_abs = R_386_32,
	.reloc_abs32 = R_386_32,
	.reloc_rel32 = R_386_PC32,
	.reloc_none = R_386_NONE,
	.reloc_relative = R_386_RELATIVE,
	.decoders = i386_decoders,
	.ndecoders = ARRAY_SIZE(i386_decoders),
	.hook_window = X86_HOOK_WINDOW,
	.insn_align = 1,
	X86_PADS,
	/*
	 * i386 SysV: every struct in memory, its address back in eax; float
	 * and double both in st(0), which the return trampoline stores as a
	 * double (exact for either)
	 */
	.values = { .struct_regs = 0, .errno_max = 133, .ldbl_mant = 64, .float_as_double = true,
		    .memory_address_returned = true },
	.place_args = arg_place_i386,
	.ret_by_address = arg_ret_aggregates_by_address,	/* every struct and union in memory, its address first on the stack */
	.pad_site_len = 5,
	/*
	 * objpatch-cc: mcount calls.  gcc refuses -mfentry with -fpic, and
	 * Debian's gcc builds PIEs by default; pads are joined into one NOP
	 * only where the runtime can count threads, which under qemu-user it
	 * cannot.
	 */
	.cc = { "-pg", "-pg" },
};
