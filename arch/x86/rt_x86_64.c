// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The runtime's x86_64 part: how an enabled site calls its trampoline, the
 * stub near each module, timestamps and return-value capture.
 *
 * A 5-byte site (`call rel32` or its NOP) becomes `call stub`; a 6-byte one
 * (`call *mcount@GOTPCREL(%rip)` or its NOP) becomes `call *slot(%rip)`
 * whose slot is the stub's own target word, so it skips the stub's jump.
 * Both are whole instructions that the int3 protocol (rt_x86.c) can write
 * and emulate.
 */
#include <elf.h>
#include <string.h>
#include "arch/port.h"
#include "arch/x86/insn.h"

RT_ENTRIES(mcount)
RT_ENTRIES(fentry)
RT_ENTRIES_ARGS(mcount)
RT_ENTRIES_ARGS(fentry)
RT_ENTRIES_MEM(mcount)
RT_ENTRIES_MEM(fentry)

#define STUB_TARGET_OFFSET 6	/* jmp *0(%rip): ff 25 00000000, then <target> */

static bool fits_rel32(intptr_t d)
{
	return d >= INT32_MIN && d <= INT32_MAX;
}

static bool x86_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub)
{
	intptr_t d;
	int32_t rel;

	if (len == 5) {
		code[0] = X86_CALL_REL32;
		d = (intptr_t)(stub - (site + 5));
	} else if (len == 6) {
		code[0] = X86_GRP5;
		code[1] = X86_CALL_MEM;
		d = (intptr_t)(stub + STUB_TARGET_OFFSET - (site + 6));
	} else {
		return false;
	}
	if (!fits_rel32(d))
		return false;
	rel = (int32_t)d;
	memcpy(code + len - 4, &rel, 4);
	return true;
}

static void x86_encode_stub(uint8_t *stub, uintptr_t target)
{
	static const uint8_t jmp_rip[STUB_TARGET_OFFSET] = { X86_GRP5, X86_JMP_MEM, 0, 0, 0, 0 };

	memset(stub, X86_INT3, STUB_SIZE);
	memcpy(stub, jmp_rip, sizeof(jmp_rip));
	memcpy(stub + STUB_TARGET_OFFSET, &target, sizeof(target));
}

const struct rt_arch rt_arch_host = {
	.desc = &arch_x86_64,
	.encode_call = x86_encode_call,
	.encode_stub = x86_encode_stub,
	.reach = (uintptr_t)INT32_MAX - 4096,
	.entry = { [SITE_MCOUNT] = RT_ENTRY_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ROW_MEM(fentry) },
	.entry_args = { [SITE_MCOUNT] = RT_ENTRY_ARGS_ROW_MEM(mcount), [SITE_FENTRY] = RT_ENTRY_ARGS_ROW_MEM(fentry) },
	/*
	 * rt_x86_64.S's save area: rdi, rsi, rdx, rcx, r8, r9 from 8, xmm0-7
	 * from 64; the stack arguments lie just above the return address,
	 * for mcount (after `push %rbp; mov %rsp, %rbp`, which change neither)
	 * as for __fentry__.
	 */
	.arg_regs = { .gpr = { 8, 16, 24, 32, 40, 48 }, .fpr = 64, .fpr_stride = 16,
		      .stack_from_slot = { 8, 8 } },
};

/* Timestamps: the TSC or CLOCK_MONOTONIC, as on i386. */
#include "arch/x86/tsc.h"
