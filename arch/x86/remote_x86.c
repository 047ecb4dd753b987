// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Remote calls (arch/remote.h) into x86_64 and i386 threads, from an
 * x86_64 host (both) or an i386 one (i386 only).  A 64-bit tracer sees a
 * 32-bit thread through the 64-bit register set, the upper halves zero.
 *
 * Facts the ports rest on (ptrace(2), the psABIs, the kernel's signal
 * delivery on x86):
 * - orig_ax >= 0 says the thread stopped inside a system call; when it
 *   resumes, the kernel restarts that call if ax holds -ERESTARTSYS,
 *   -ERESTARTNOINTR or -ERESTARTNOHAND (pc moved back over the syscall
 *   instruction), or -ERESTART_RESTARTBLOCK (restart_syscall).  A call
 *   sets orig_ax to -1 so that this never applies to the called
 *   function's entry; restoring the saved set, orig_ax included, in the
 *   stop where the call ended hands the interrupted call back to the same
 *   restart.
 * - Called code owns x87, SSE and AVX state: the whole xsave area is kept
 *   (NT_X86_XSTATE), or the fxsave one (NT_PRFPREG) where the kernel has
 *   no xsave.
 * - DF is clear at every call (both psABIs); the interrupted code may
 *   have it set (a backward string copy).
 */
#if defined(__x86_64__) || defined(__i386__)
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include "arch/remote.h"

#ifdef __x86_64__
#define R_PC rip
#define R_SP rsp
#define R_AX rax
#define R_ORIG orig_rax
#else
#define R_PC eip
#define R_SP esp
#define R_AX eax
#define R_ORIG orig_eax
#endif

#define EFLAGS_DF 0x400u

_Static_assert(sizeof(struct user_regs_struct) <= sizeof(((struct remote_state *)0)->gp),
	       "the host's register set fits in remote_state");

static struct user_regs_struct *regs(struct remote_state *s)
{
	return (struct user_regs_struct *)s->gp;
}

static const struct user_regs_struct *cregs(const struct remote_state *s)
{
	return (const struct user_regs_struct *)s->gp;
}

/* The vector state: xsave's area, or fxsave's on a kernel without xsave. */
static int save_extra(pid_t tid, struct remote_state *s)
{
	static const int sets[] = { NT_X86_XSTATE, NT_PRFPREG };

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct iovec v = { s->extra, sizeof(s->extra) };

		if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)sets[i], &v) == 0) {
			s->extra_len = v.iov_len;
			s->extra_kind = (unsigned)sets[i];
			return 0;
		}
	}
	return -1;
}

static int x86_save(pid_t tid, struct remote_state *s)
{
	memset(s->gp, 0, sizeof(s->gp));
	if (ptrace(PTRACE_GETREGS, tid, NULL, regs(s)) < 0)
		return -1;
	return save_extra(tid, s);
}

static int x86_restore(pid_t tid, const struct remote_state *s)
{
	struct iovec v = { (void *)s->extra, s->extra_len };

	if (ptrace(PTRACE_SETREGSET, tid, (void *)(long)s->extra_kind, &v) < 0)
		return -1;
	return ptrace(PTRACE_SETREGS, tid, NULL, cregs(s)) < 0 ? -1 : 0;
}

static uint64_t x86_pc(const struct remote_state *s)
{
	return (uint64_t)cregs(s)->R_PC;
}

static uint64_t x86_sp(const struct remote_state *s)
{
	return (uint64_t)cregs(s)->R_SP;
}

/* eax, also as a 64-bit tracer sees it: the low half. */
static uint64_t i386_retval(const struct remote_state *s)
{
	return (uint32_t)cregs(s)->R_AX;
}

/* What both conventions share: no system call to restart, DF clear, pc at the function. */
static void enter(struct user_regs_struct *r, uint64_t fn, uint64_t sp)
{
	r->R_PC = fn;
	r->R_SP = sp;
	r->R_AX = 0;	/* x86_64: no vector registers for a variadic callee */
	r->R_ORIG = -1;
	r->eflags &= ~EFLAGS_DF;
}

static void put_le(uint8_t *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#ifdef __x86_64__
static uint64_t x86_64_retval(const struct remote_state *s)
{
	return cregs(s)->rax;
}

/*
 * SysV x86_64: integer arguments in rdi, rsi, rdx, rcx; at the entry,
 * rsp + 8 is a multiple of 16 (the return address was just pushed).
 */
static size_t x86_64_prepare(struct remote_state *s, const struct remote_call *c, uint8_t *frame,
			     uint64_t *frame_at)
{
	struct user_regs_struct *r = regs(s);
	unsigned long long *argregs[REMOTE_ARGS_MAX] = { &r->rdi, &r->rsi, &r->rdx, &r->rcx };
	uint64_t sp = (c->below & ~(uint64_t)15) - 8;

	for (unsigned i = 0; i < c->nargs && i < REMOTE_ARGS_MAX; i++)
		*argregs[i] = c->args[i];
	put_le(frame, 0, 8);
	*frame_at = sp;
	enter(r, c->fn, sp);
	return 8;
}

static const struct remote_port x86_64_port = {
	.name = "x86_64", .machine = EM_X86_64, .elfclass = ELFCLASS64, .word = 8, .red_zone = 128,
	.save = x86_save, .restore = x86_restore, .pc = x86_pc, .sp = x86_sp, .retval = x86_64_retval,
	.prepare = x86_64_prepare,
};
#endif

/*
 * i386 SysV: every argument on the stack above the return address; gcc
 * assumes esp + 4 a multiple of 16 at the entry (the i386 psABI's 16-byte
 * alignment since GCC 4.5).
 */
static size_t i386_prepare(struct remote_state *s, const struct remote_call *c, uint8_t *frame, uint64_t *frame_at)
{
	unsigned n = c->nargs < REMOTE_ARGS_MAX ? c->nargs : REMOTE_ARGS_MAX;
	uint64_t args = (c->below - 4 * n) & ~(uint64_t)15, sp = args - 4;

	put_le(frame, 0, 4);
	for (unsigned i = 0; i < n; i++)
		put_le(frame + 4 + 4 * i, c->args[i], 4);
	*frame_at = sp;
	enter(regs(s), c->fn, sp);
	return 4 + 4 * n;
}

static const struct remote_port i386_port = {
	.name = "i386", .machine = EM_386, .elfclass = ELFCLASS32, .word = 4, .red_zone = 0,
	.save = x86_save, .restore = x86_restore, .pc = x86_pc, .sp = x86_sp, .retval = i386_retval,
	.prepare = i386_prepare,
};

const struct remote_port *const remote_x86_ports[] = {
#ifdef __x86_64__
	&x86_64_port,
#endif
	&i386_port,
	NULL,
};
#endif
