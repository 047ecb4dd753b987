// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SuperH.  gcc loads mcount's address from a literal-pool word and jumps
 * through a register; the only relocation is R_SH_DIR32 on that word, so the
 * recorded site is the pool word (as the kernel's SH ftrace expects).  There
 * is no single instruction to replace, so no NOP form.
 */
#include "arch/arch.h"
#include "arch/pattern.h"
#include "arch/sh/args_sh.h"
#include "arch/sh/insn.h"

static const char *const sh_hooks[] = { "mcount", "_mcount", "__fentry__", NULL };

/* The site is the literal-pool word: it holds the hook's address. */
static bool sh_pool_word(const uint8_t *code, size_t avail, bool be, uint64_t pc, uint64_t *to)
{
	(void)pc;
	if (avail < 4)
		return false;
	*to = insn_load(code, 4, be);
	return true;
}

static const struct call_decoder sh_decoders[] = {
	{ .insn = PAT(U32M(0, 0)), .target = sh_pool_word, .len = 4 },
};

static const struct call_form sh_calls[] = {
	{ .rtype = R_SH_DIR32 },	/* a data word: no instruction to check */
};

static const struct insn_pattern sh_pad_nops[] = { PAT(U16(SH_NOP)) };

const struct arch arch_sh = {
	.name = "sh",
	.machine = EM_SH,
	.elfclass = ELFCLASS32,
	.hooks = sh_hooks,
	.calls = sh_calls,
	.ncalls = ARRAY_SIZE(sh_calls),
	.pad_nops = sh_pad_nops,
	.npad_nops = ARRAY_SIZE(sh_pad_nops),
	.reloc_abs = R_SH_DIR32,
	.reloc_abs32 = R_SH_DIR32,
	.reloc_rel32 = R_SH_REL32,
	.reloc_none = R_SH_NONE,
	.reloc_relative = R_SH_RELATIVE,
	.addend_in_place = true,
	.decoders = sh_decoders,
	.ndecoders = ARRAY_SIZE(sh_decoders),
	/* The pool follows the function's code: search all of it, word by word. */
	.hook_window = 0,
	.insn_align = 4,
	/*
	 * SH: a struct gcc gives a scalar mode comes back in r0 (r0:r1) or
	 * fr0/dr0, others in memory at the address the caller passed in r2,
	 * which the function returns in r0 too (memory_address_returned).
	 * Size alone does not tell the two apart (alignment does: {short,
	 * short} is in memory, {int} in r0): ret_by_address has the rule,
	 * and struct_regs 2 bounds the rest.  A double comes back in dr0, its high
	 * word in fr0, which the runtime saves as the double's bytes: a float
	 * (fr0) is their upper half.  long double is a double.
	 */
	.values = { .struct_regs = 2, .errno_max = 133, .ldbl_mant = 53, .float_high_half = true,
		    .memory_address_returned = true, .ret_address_apart = true },
	.place_args = arg_place_sh,
	.ret_by_address = arg_ret_by_address_sh,
	/* gcc's literal-word sequence (no --nop form); clang has no SH target. */
	.cc = { "-pg", NULL },
};
