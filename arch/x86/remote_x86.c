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
#include <stdbool.h>
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

/*
 * An i386 objpatch's registers are `long`: through unsigned long, or a
 * stack at 0xbf... would read as 0xffffffffbf....
 */
static uint64_t x86_pc(const struct remote_state *s)
{
	return (uint64_t)(unsigned long)cregs(s)->R_PC;
}

static uint64_t x86_sp(const struct remote_state *s)
{
	return (uint64_t)(unsigned long)cregs(s)->R_SP;
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
/* The fifth and sixth integer arguments' registers. */
static unsigned long long *argregs_more(struct user_regs_struct *r, unsigned i)
{
	return i ? &r->r9 : &r->r8;
}

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
	unsigned long long *argregs[4] = { &r->rdi, &r->rsi, &r->rdx, &r->rcx };
	uint64_t sp = (c->below & ~(uint64_t)15) - 8;

	for (unsigned i = 0; i < c->nargs && i < 4; i++)
		*argregs[i] = c->args[i];
	*argregs_more(r, 0) = c->nargs > 4 ? c->args[4] : r->r8;
	*argregs_more(r, 1) = c->nargs > 5 ? c->args[5] : r->r9;
	put_le(frame, c->ret, 8);
	*frame_at = sp;
	enter(r, c->fn, sp);
	return 8;
}

/* The kernel's x86_64 signal frame (asm/sigcontext.h, asm/ucontext.h), as rt_sigreturn reads it. */
#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
#define FP_XSTATE_MAGIC1 0x46505853u
#define FP_XSTATE_MAGIC2 0x46505845u
#define SW_BYTES_AT 464		/* fxsave's sw_reserved: struct _fpx_sw_bytes */
#define UC_SIZE 304		/* flags, link, stack (24), sigcontext (256), sigmask (8) */
#define UC_MCONTEXT 40
#define UC_SIGMASK 296
#define SIGINFO_SIZE 128
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* Whether the thread stopped inside a system call that the kernel would restart. */
static bool restarting(const struct user_regs_struct *r)
{
	long ax = (long)r->rax;

	return (long)r->orig_rax >= 0 && (ax == -ERESTARTSYS || ax == -ERESTARTNOINTR || ax == -ERESTARTNOHAND ||
					  ax == -ERESTART_RESTARTBLOCK);
}

/*
 * The fpstate (xsave's standard format from NT_X86_XSTATE, whose
 * sw_reserved bytes the kernel fills as a signal frame's), its second
 * magic after it: `len` bytes at p.  The fxsave area alone (NT_PRFPREG) has
 * no magic: rt_sigreturn restores it as such.
 */
static size_t put_fpstate(const struct remote_state *s, uint8_t *p)
{
	uint32_t magic1 = 0, size = 0;

	memcpy(p, s->extra, s->extra_len);
	if (s->extra_kind != NT_X86_XSTATE || s->extra_len < SW_BYTES_AT + 16)
		return s->extra_len;
	memcpy(&magic1, p + SW_BYTES_AT, 4);
	memcpy(&size, p + SW_BYTES_AT + 12, 4);
	if (magic1 != FP_XSTATE_MAGIC1 || size > s->extra_len)
		size = (uint32_t)s->extra_len;
	put_le(p + SW_BYTES_AT, FP_XSTATE_MAGIC1, 4);
	put_le(p + SW_BYTES_AT + 4, size + 4, 4);
	put_le(p + SW_BYTES_AT + 12, size, 4);
	put_le(p + size, FP_XSTATE_MAGIC2, 4);
	return size + 4 > s->extra_len ? size + 4 : s->extra_len;
}

static size_t x86_64_sigframe(const struct remote_state *s, uint64_t sigmask, uint64_t below, uint8_t *buf,
			      size_t cap, uint64_t *at)
{
	const struct user_regs_struct *r = cregs(s);
	uint64_t fp_at = (below - s->extra_len - 8) & ~(uint64_t)63;
	uint64_t uc_at = (fp_at - SIGINFO_SIZE - UC_SIZE) & ~(uint64_t)15;
	uint64_t mc[32] = { r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rdi, r->rsi, r->rbp,
			    r->rbx, r->rdx, r->rax, r->rcx, r->rsp, r->rip, r->eflags };
	size_t len = (size_t)(below - uc_at);
	uint8_t *uc = buf;

	if (len > cap)
		return 0;
	memset(buf, 0, len);
	/* A system call the thread was in starts again, as for a signal handler's return without SA_RESTART's choice. */
	if (restarting(r)) {
		mc[13] = r->orig_rax;
		mc[16] = r->rip - 2;
	}
	put_le(uc, UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS, 8);
	/* uc_stack's flags no mode: rt_sigreturn's sigaltstack() refuses it and leaves the thread's own. */
	put_le(uc + 16 + 8, 3, 4);
	memcpy(uc + UC_MCONTEXT, mc, 18 * 8);
	put_le(uc + UC_MCONTEXT + 144, (uint64_t)r->cs | (uint64_t)r->ss << 48, 8);
	put_le(uc + UC_MCONTEXT + 184, fp_at, 8);
	put_le(uc + UC_SIGMASK, sigmask, 8);
	put_fpstate(s, buf + (fp_at - uc_at));
	*at = uc_at;
	return len;
}

/* movabs $value,%r11; movabs $addr,%r10; mov %r11,(%r10): registers no call passes arguments in. */
static size_t store_word(uint8_t *code, uint64_t addr, uint64_t value)
{
	code[0] = 0x49;
	code[1] = 0xbb;
	put_le(code + 2, value, 8);
	code[10] = 0x49;
	code[11] = 0xba;
	put_le(code + 12, addr, 8);
	memcpy(code + 20, (const uint8_t[]){ 0x4d, 0x89, 0x1a }, 3);
	return 23;
}

/* The entry: the word stored, then movabs $fn,%r11; jmp *%r11. */
static size_t x86_64_entry(uint64_t addr, uint64_t value, uint64_t fn, uint8_t *code)
{
	size_t n = store_word(code, addr, value);

	code[n++] = 0x49;
	code[n++] = 0xbb;
	put_le(code + n, fn, 8);
	n += 8;
	memcpy(code + n, (const uint8_t[]){ 0x41, 0xff, 0xe3 }, 3);
	return n + 3;
}

/* The return: mov %rax,-8(%rsp); the word stored; mov $15,%eax; syscall (rt_sigreturn). */
static size_t x86_64_stub(uint64_t addr, uint64_t value, uint8_t *code)
{
	static const uint8_t tail[] = { 0xb8, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	size_t n;

	memcpy(code, (const uint8_t[]){ 0x48, 0x89, 0x44, 0x24, 0xf8 }, 5);
	n = 5 + store_word(code + 5, addr, value);
	memcpy(code + n, tail, sizeof(tail));
	return n + sizeof(tail);
}

/*
 * The return with a signal first: mov %rax,-8(%rsp); the word stored;
 * mov $234,%eax; mov $tgid,%edi; mov $tid,%esi; mov $sig,%edx; syscall
 * (tgkill); mov $15,%eax; syscall (rt_sigreturn).  The registers tgkill
 * takes are the frame's to restore.
 */
static size_t x86_64_stub_signal(uint64_t addr, uint64_t value, int tgid, int tid, int sig, uint8_t *code,
				 size_t *signal_end)
{
	static const uint8_t tail[] = { 0xb8, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	size_t n;

	memcpy(code, (const uint8_t[]){ 0x48, 0x89, 0x44, 0x24, 0xf8 }, 5);
	n = 5 + store_word(code + 5, addr, value);
	code[n++] = 0xb8;	/* mov $234,%eax: tgkill */
	put_le(code + n, 234, 4);
	n += 4;
	code[n++] = 0xbf;	/* mov $tgid,%edi */
	put_le(code + n, (uint32_t)tgid, 4);
	n += 4;
	code[n++] = 0xbe;	/* mov $tid,%esi */
	put_le(code + n, (uint32_t)tid, 4);
	n += 4;
	code[n++] = 0xba;	/* mov $sig,%edx */
	put_le(code + n, (uint32_t)sig, 4);
	n += 4;
	code[n++] = 0x0f;
	code[n++] = 0x05;
	*signal_end = n;
	memcpy(code + n, tail, sizeof(tail));
	return n + sizeof(tail);
}

/* glibc's __restore_rt: mov $15,%rax; syscall. */
static const uint8_t x86_64_sigreturn[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };

static long x86_syscall_nr(const struct remote_state *s)
{
	return (long)cregs(s)->R_ORIG;
}

/* At a system call's entry stop, what makes the thread go on as `s`: its call again if it restarts, else none. */
static long x86_64_restart_nr(const struct remote_state *s)
{
	return restarting(cregs(s)) ? (long)cregs(s)->orig_rax : -1;
}

static void x86_set_syscall_nr(struct remote_state *s, long nr)
{
	regs(s)->R_ORIG = nr;
}

static const struct remote_port x86_64_port = {
	.name = "x86_64", .machine = EM_X86_64, .elfclass = ELFCLASS64, .word = 8, .red_zone = 128,
	.save = x86_save, .restore = x86_restore, .pc = x86_pc, .sp = x86_sp, .retval = x86_64_retval,
	.prepare = x86_64_prepare, .sigframe = x86_64_sigframe, .stub = x86_64_stub, .stub_signal = x86_64_stub_signal,
	.entry = x86_64_entry,
	.restart_nr = x86_64_restart_nr,
	.sigreturn_code = x86_64_sigreturn, .sigreturn_len = sizeof(x86_64_sigreturn), .sigreturn_nr = 15,
	.syscall_nr = x86_syscall_nr, .set_syscall_nr = x86_set_syscall_nr,
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

	put_le(frame, c->ret, 4);
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
