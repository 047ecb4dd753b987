/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What x86_64 and i386 share in patch_arch.h's contract: the int3 protocol
 * (rt_x86.c), the site forms it writes and emulates, and the fallback
 * writer's stores.  Included by patch_x86_64.h and patch_i386.h after what
 * differs: CONTEXT_IP_REG and CONTEXT_SP_REG, x86_machine_kind() (the site
 * forms only that machine has), call_ind_target(), signal_frame_has(),
 * procmem_runs() and X86_PROC_INIT(), with arch/x86/insn.h included.
 */
#define PATCH_PROTOCOL PATCH_INT3
#define CONTEXT_IP(uc) ((uintptr_t)(uc)->uc_mcontext.gregs[CONTEXT_IP_REG])
#define PATCHER_TEXT_ARCH

/* The mprotect fallback's writes: the int3 protocol orders them, so plain bytes do. */
static inline __attribute__((always_inline)) void store_text(uintptr_t at, const uint8_t *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		((volatile uint8_t *)at)[k] = b[k];
}

/*
 * The whole instructions the trap handler can emulate: a NOP (or a run of
 * them: a compiler's pad), `call rel32`, `jmp rel32`, `call *mem`.  Inline,
 * as every helper here: the headers are included by files that use some
 * of them only.
 */
static inline enum insn_kind classify(const uint8_t *b, size_t len)
{
	enum insn_kind k;

	if (len == 0 || len > PATCH_MAX_LEN)
		return INSN_BAD;
	if (x86_nop_run(b, len))
		return INSN_NOP;
	k = x86_machine_kind(b, len);
	if (k != INSN_BAD)
		return k;
	if (len == 5 && b[0] == X86_CALL_REL32)
		return INSN_CALL;
	if (len == 5 && b[0] == X86_JMP_REL32)
		return INSN_JMP;
	if (len == 6 && b[0] == X86_GRP5 && b[1] == X86_CALL_MEM)
		return INSN_CALL_IND;
	return INSN_BAD;
}
