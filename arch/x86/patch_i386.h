/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * i386: the int3 protocol (rt_x86.c), as on x86_64: sites are 5 or 6 bytes
 * at any alignment, so no single store can change one while another core
 * runs it.  What differs is here: 4-byte return addresses, `call *abs32`
 * (ff 15 has no RIP-relative form here), the compiler's
 * `call *disp32(%ebx)` as a site's old instruction, the recorder's i386
 * NOPs, no red zone below %esp, and, for qemu-user (where i386 programs
 * often run), a check that /proc/self/mem writes reach the code that runs
 * and the %gs fix of rt_i386_gs.c.
 */
#include "arch/x86/insn.h"

#define CONTEXT_IP_REG REG_EIP
#define CONTEXT_SP_REG REG_ESP
/*
 * The mprotect fallback's windows stay executable here.  i386 PIC code
 * gets its GOT address from __x86.get_pc_thunk.*, which the linker puts
 * anywhere in .text: the patcher's own section and its SIGSEGV handler
 * call it, and with libobjpatch.a it may share a page with the sites (it
 * did in rt_toggle).  An RW window would fault the patcher and the handler
 * themselves.  Threads running the page meanwhile are safe the way they
 * are with the /proc/self/mem writer, which leaves the page executable
 * too: the int3 protocol orders the writes.
 */
#define WINDOW_PROT (PROT_READ | PROT_WRITE | PROT_EXEC)

/*
 * int $0x80 takes its arguments in ebx, ecx, edx, esi.  %ebx may be the
 * GOT pointer of PIC code, which older compilers refuse as an operand: it
 * is swapped with %edi around the trap instead, and both come back as they
 * were.
 */
static inline __attribute__((always_inline)) long raw_syscall4(long n, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("xchg %%ebx, %%edi\n\tint $0x80\n\txchg %%ebx, %%edi"
			 : "=a"(ret) : "a"(n), "D"(a), "c"(b), "d"(c), "S"(d) : "memory");
	return ret;
}

/* The recorder's i386 NOPs (not among x86_64's), and the compiler's GOT call. */
static inline enum insn_kind x86_machine_kind(const uint8_t *b, size_t len)
{
	static const uint8_t nop5[5] = { I386_NOP5(X86_BYTE) }, nop6[6] = { I386_NOP6(X86_BYTE) };

	if ((len == 5 && !memcmp(b, nop5, 5)) || (len == 6 && !memcmp(b, nop6, 6)))
		return INSN_NOP;
	if (len == 6 && b[0] == X86_GRP5 && (b[1] & X86_MODRM_RM_OFF) == X86_CALL_REG_DISP32 &&
	    b[1] != X86_CALL_SIB_DISP32)
		return INSN_CALL_IND;
	return INSN_BAD;
}

/*
 * Where `call *...` (ff /2 disp32) ending at `next` goes.  No RIP-relative
 * form: ff 15 is absolute, ff 90+r is disp32(%reg) (mcount@GOT(%ebx)).
 */
static inline uintptr_t call_ind_target(const ucontext_t *uc, const uint8_t *insn, uintptr_t next)
{
	static const int base_reg[8] = { REG_EAX, REG_ECX, REG_EDX, REG_EBX, -1, REG_EBP, REG_ESI, REG_EDI };
	intptr_t disp = (intptr_t)x86_rel32(insn + 2);

	(void)next;
	if (insn[1] == X86_CALL_MEM)
		return *(const uintptr_t *)(uintptr_t)disp;
	return *(const uintptr_t *)((uintptr_t)uc->uc_mcontext.gregs[base_reg[insn[1] & 7]] + (uintptr_t)disp);
}

/*
 * i386 has no red zone: the kernel builds the signal frame right below the
 * interrupted %esp, its FP state (which sigreturn reads back, ending with
 * the XSAVE trailer's magic word) 64-byte aligned down from it, so it may
 * end exactly at %esp.  Does the word below %esp lie inside this frame?
 * The frame is [siginfo, the end of the FP state): the fsave header (112
 * bytes), then FXSAVE/XSAVE, whose software bytes (offset 464) give the
 * size of both when they carry FP_XSTATE_MAGIC1.  On an alternate signal stack it
 * is elsewhere and the answer is no.
 */
static inline bool signal_frame_has(const siginfo_t *si, const ucontext_t *uc, uintptr_t word)
{
	const uint8_t *fp = (const uint8_t *)uc->uc_mcontext.fpregs;
	uintptr_t lo = (uintptr_t)si < (uintptr_t)uc ? (uintptr_t)si : (uintptr_t)uc;
	uintptr_t hi = (uintptr_t)(uc + 1);

	if (fp) {
		uint16_t magic;
		uint32_t magic1, size;

		memcpy(&magic, fp + 110, 2);
		memcpy(&magic1, fp + 112 + 464, 4);
		memcpy(&size, fp + 112 + 468, 4);
		/* extended_size counts the fsave header too (the kernel's ia32 frames, qemu's) */
		size = magic != 0 ? 112 : magic1 == 0x46505853u ? size : 112 + 512;
		if ((uintptr_t)fp + size > hi)
			hi = (uintptr_t)fp + size;
	}
	return word + sizeof(uintptr_t) > lo && word < hi;
}

/*
 * Does code written through /proc/self/mem run as written?  Not under
 * qemu-user (where i386 programs often run): the kernel's write goes round
 * qemu's write tracking, and qemu keeps running its translation of the old
 * bytes.  Its guest stores (the mprotect writer) it sees.  `p` is a scratch
 * r-x page.
 */
static inline bool procmem_runs(int fd, uint8_t *p)
{
	uint8_t code[6] = { 0xb8, 1, 0, 0, 0, 0xc3 };	/* mov $1, %eax; ret */
	int (*fn)(void) = (int (*)(void))(uintptr_t)p;

	if (pwrite(fd, code, sizeof(code), (off_t)(uintptr_t)p) != sizeof(code) || fn() != 1)
		return false;
	code[1] = 2;
	return pwrite(fd, code, sizeof(code), (off_t)(uintptr_t)p) == sizeof(code) && fn() == 2;
}

/*
 * qemu-i386's %gs after sigreturn (rt_i386_gs.c): set up per process when
 * /proc/self/mem is not our own memory (qemu-user's guest base), applied
 * whenever a handler of ours returns into the program, its lock released
 * in a forked child.
 */
void i386_gs_init(bool guest_base) PATCH_HIDDEN;
void i386_gs_return(ucontext_t *uc) PATCH_HIDDEN;
void i386_gs_unlock(void) PATCH_HIDDEN;
#define X86_PROC_INIT(memfd) i386_gs_init(!patcher_procmem_reads_self(memfd))
#define PATCH_HANDLER_RETURN(uc) i386_gs_return(uc)
#define PATCH_ATFORK_CHILD() i386_gs_unlock()

#include "arch/x86/patch_x86.h"
