// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * qemu-i386 (7.2) keeps the GDT in guest memory that all threads share,
 * and sigreturn after a signal raised by an exception (our int3 and
 * window faults) reloads %gs from it: the thread comes back with the TLS
 * base of whichever thread last wrote the entry (the newest thread), and
 * its TLS (errno, the runtime's own state) is another thread's.  Found by
 * rt_toggle under qemu: "the shadow stack is corrupt".  The kernel keeps
 * the TLS entries per thread and needs none of this.
 *
 * Under qemu (no /proc/self/mem view of our own memory: a guest base),
 * a handler of ours that returns into the program first takes a lock
 * that serialises those returns, writes the thread's own base into the
 * entry (set_thread_area), and returns into a thunk with asynchronous
 * signals blocked; the thunk (running with the reloaded, right %gs) pushes
 * the real resume address from TLS, releases the lock, restores the
 * signal mask and `ret`s there with every register and flag as it was.
 * Threads meeting the lock wait in their handlers, a few instructions.
 */
#include <asm/ldt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include "arch/patch_protocol.h"

static bool i386_gs_fix;
static atomic_int i386_gs_lock;
static uint8_t *i386_gs_thunk;
static __thread uintptr_t i386_resume __attribute__((tls_model("initial-exec")));
static __thread uint64_t i386_mask __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) uintptr_t i386_tcb(void)
{
	uintptr_t tcb;

	__asm__("mov %%gs:0, %0" : "=r"(tcb));
	return tcb;
}

/* At set-up, before any trap: the thunk, with the TLS offsets (the same in every thread). */
void i386_gs_init(bool guest_base)
{
	uint8_t *p, *t;
	uintptr_t tcb = i386_tcb(), lock = (uintptr_t)&i386_gs_lock;
	uint32_t resume_off = (uint32_t)((uintptr_t)&i386_resume - tcb);
	uint32_t mask_off = (uint32_t)((uintptr_t)&i386_mask - tcb);

	if (!guest_base || i386_gs_thunk)
		return;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	t = p;
	*t++ = 0x65; *t++ = 0xff; *t++ = 0x35;			/* push %gs:resume */
	memcpy(t, &resume_off, 4); t += 4;
	*t++ = 0x9c;						/* pushf */
	*t++ = 0x60;						/* pusha */
	*t++ = 0xc7; *t++ = 0x05;				/* movl $0, lock */
	memcpy(t, &lock, 4); t += 4;
	memset(t, 0, 4); t += 4;
	*t++ = 0xb8; *t++ = SYS_rt_sigprocmask; memset(t, 0, 3); t += 3;	/* mov $nr, %eax */
	*t++ = 0xbb; *t++ = SIG_SETMASK; memset(t, 0, 3); t += 3;	/* mov $SIG_SETMASK, %ebx */
	*t++ = 0x65; *t++ = 0x8b; *t++ = 0x0d; memset(t, 0, 4); t += 4;	/* mov %gs:0, %ecx */
	*t++ = 0x81; *t++ = 0xc1;				/* add $mask, %ecx */
	memcpy(t, &mask_off, 4); t += 4;
	*t++ = 0x31; *t++ = 0xd2;				/* xor %edx, %edx */
	*t++ = 0xbe; *t++ = 8; memset(t, 0, 3); t += 3;		/* mov $8, %esi */
	*t++ = 0xcd; *t++ = 0x80;				/* int $0x80 */
	*t++ = 0x61;						/* popa */
	*t++ = 0x9d;						/* popf */
	*t++ = 0xc3;						/* ret */
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC)) {
		munmap(p, 4096);
		return;
	}
	i386_gs_thunk = p;
	i386_gs_fix = true;
}

/*
 * A handler of ours is about to return into the program at the context's
 * EIP.  In the patcher's section: the SIGSEGV handler calls it.
 */
PATCHER_TEXT void i386_gs_return(ucontext_t *uc)
{
	unsigned gs;
	struct user_desc d;

	if (!i386_gs_fix)
		return;
	__asm__("mov %%gs, %0" : "=r"(gs));
	memset(&d, 0, sizeof(d));
	d.entry_number = (gs & 0xffff) >> 3;
	d.base_addr = (unsigned)i386_tcb();
	d.limit = 0xfffff;
	d.seg_32bit = 1;
	d.limit_in_pages = 1;
	d.useable = 1;
	while (atomic_exchange_explicit(&i386_gs_lock, 1, memory_order_acquire))
		raw_syscall4(SYS_sched_yield, 0, 0, 0, 0);
	if (raw_syscall4(SYS_set_thread_area, (long)&d, 0, 0, 0) != 0) {
		atomic_store_explicit(&i386_gs_lock, 0, memory_order_release);
		return;
	}
	i386_resume = (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
	memcpy(&i386_mask, &uc->uc_sigmask, sizeof(i386_mask));
	/* Blocked until the thunk has the resume address on the stack: nothing may reuse it before. */
	for (int s = 1; s < NSIG; s++)
		if (s != SIGSEGV && s != SIGBUS && s != SIGILL && s != SIGFPE && s != SIGTRAP)
			sigaddset(&uc->uc_sigmask, s);
	uc->uc_mcontext.gregs[REG_EIP] = (greg_t)(uintptr_t)i386_gs_thunk;
}

/* A forked child: the lock may have been held by a parent's thread between its handler and the thunk. */
void i386_gs_unlock(void)
{
	atomic_store(&i386_gs_lock, 0);
}
