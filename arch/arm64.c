// SPDX-License-Identifier: LGPL-2.1-or-later
/* AArch64: `bl _mcount` after `mov x0, x30`; the mov is harmless alone. */
#include "arch.h"

static const char *const arm64_hooks[] = { "_mcount", "__fentry__", NULL };

static const struct call_form arm64_calls[] = {
	{ .rtype = R_AARCH64_CALL26, .site_adjust = 0, .site = PAT(WM(0x94000000, 0xfc000000)), .nop = PAT(W(0xd503201f)) },
};

const struct arch arch_aarch64 = {
	.name = "aarch64",
	.machine = EM_AARCH64,
	.elfclass = ELFCLASS64,
	.hooks = arm64_hooks,
	.calls = arm64_calls,
	.ncalls = ARRAY_SIZE(arm64_calls),
	.reloc_abs = R_AARCH64_ABS64,
	.reloc_abs32 = R_AARCH64_ABS32,
	.reloc_rel32 = R_AARCH64_PREL32,
	.reloc_none = R_AARCH64_NONE,
	.code_always_le = true,
};
