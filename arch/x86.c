// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * x86_64 and i386.  Calls are `call rel32` (e8) in non-PIC code and
 * `call *mcount@GOTPCREL(%rip)` (ff 15) or `call *mcount@GOT(%reg)` (ff 9x)
 * in PIC code, Debian's default; the site is the opcode's first byte.
 */
#include "arch.h"

static const char *const x86_hooks[] = { "mcount", NULL };
/* gcc and clang -mfentry, on i386 too (non-PIC for gcc) */
static const char *const x86_entry_hooks[] = { "__fentry__", NULL };

#define CALL_REL32 PAT(B(0xe8))
#define X86_64_NOP5 PAT(B(0x0f), B(0x1f), B(0x44), B(0x00), B(0x00))
#define X86_64_NOP6 PAT(B(0x66), B(0x0f), B(0x1f), B(0x44), B(0x00), B(0x00))

static const struct call_form x86_64_calls[] = {
	{ .rtype = R_X86_64_PLT32, .site_adjust = -1, .site = CALL_REL32, .nop = X86_64_NOP5 },
	{ .rtype = R_X86_64_PC32, .site_adjust = -1, .site = CALL_REL32, .nop = X86_64_NOP5 },
	{ .rtype = R_X86_64_GOTPCRELX, .site_adjust = -2, .site = PAT(B(0xff), B(0x15)), .nop = X86_64_NOP6 },
	{ .rtype = R_X86_64_REX_GOTPCRELX, .site_adjust = -2, .site = PAT(B(0xff), B(0x15)), .nop = X86_64_NOP6 },
	{ .rtype = R_X86_64_GOTPCREL, .site_adjust = -2, .site = PAT(B(0xff), B(0x15)), .nop = X86_64_NOP6 },
};

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
};

#define I386_NOP5 PAT(B(0x3e), B(0x8d), B(0x74), B(0x26), B(0x00))
/* lea 0x0(%esi),%esi with a 32-bit displacement */
#define I386_NOP6 PAT(B(0x8d), B(0xb6), B(0x00), B(0x00), B(0x00), B(0x00))
/* call *disp32(%reg): ModRM mod=10, reg=2, any base but the SIB escape */
#define CALL_GOT PAT(B(0xff), { 1, 0x90, 0xf8 })

static const struct call_form i386_calls[] = {
	{ .rtype = R_386_PC32, .site_adjust = -1, .site = CALL_REL32, .nop = I386_NOP5 },
	{ .rtype = R_386_PLT32, .site_adjust = -1, .site = CALL_REL32, .nop = I386_NOP5 },
	{ .rtype = R_386_GOT32X, .site_adjust = -2, .site = CALL_GOT, .nop = I386_NOP6 },
	{ .rtype = R_386_GOT32, .site_adjust = -2, .site = CALL_GOT, .nop = I386_NOP6 },
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
};
