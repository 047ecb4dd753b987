// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Live text patching for x86_64 and AArch64 Linux (see patch.h for the
 * contract).
 *
 * x86_64.  Protocol, per batch (the kernel's text_poke_bp_batch): publish
 * the batch for the trap handler, write 0xcc over the first byte of every
 * site, sync cores, write bytes 1..len-1, sync, write the new first bytes,
 * sync, unpublish, wait until no trap handler still reads the batch.  So
 * three core syncs per batch whatever its size.
 *
 * A thread that meets a temporary int3 gets SIGTRAP; the handler EMULATES
 * THE NEW INSTRUCTION (as the kernel does): skip a NOP, push site+len and
 * jump for a call, jump for a jmp.  That is what the thread would have done
 * a moment later anyway, and it keeps the handler independent of the old
 * bytes.  A trap delivered after the batch was unpublished (the thread was
 * descheduled between the trap and its handler) finds the first byte no
 * longer 0xcc: it resumes at the site and executes the whole new
 * instruction.  Either way a thread executes one whole instruction.  Old
 * and new must have the same length so that a thread returning from a hook
 * (to site+len) lands on an instruction boundary whichever is there.
 *
 * x86_64 writer: pwrite() to /proc/self/mem.  The kernel writes through its
 * own mapping of the page (FOLL_FORCE; for a private file mapping it first
 * breaks COW), so the program's mapping stays r-x all the time: no W+X
 * window, no fault for threads running on the page, no SIGSEGV path; it
 * costs one syscall per write.  A memfd alias would need the text to live in
 * a memfd, which the loader's mappings do not.  Kernels booted with
 * proc_mem.force_override=never refuse it (checked once on a scratch r-x
 * page): then the fallback writes through mprotect windows (below).
 *
 * AArch64: every site is one aligned 32-bit word, and NOP <-> BL is in the
 * architecture's list of instructions that may be modified while another
 * core executes them (it sees the old or the new one), so there is no
 * protocol: one store per site, then the cache maintenance of
 * __builtin___clear_cache (clean to the point of unification, invalidate
 * the I-cache line: broadcast to the inner-shareable domain), as the
 * kernel's aarch64_insn_patch_text_nosync does.  The stores go through
 * mprotect windows, not /proc/self/mem, because of qemu-user, where this
 * runs in our tests: a pwrite() to /proc/self/mem changes the guest's bytes
 * behind qemu's back and qemu goes on running its stale translation of the
 * old code, while a guest mprotect() and store make qemu drop the page's
 * translations.  What that costs: two mprotect() per run of sites on
 * adjacent pages, and a thread that runs into such a page meanwhile faults
 * and sleeps until it is r-x again (on hardware, /proc/self/mem would spare
 * both).  The patching thread blocks asynchronous signals during a batch: a
 * handler could be program code on a page being written.
 *
 * The mprotect window (both machines): the pages holding a run of sites on
 * adjacent pages become RW (never RWX), take the stores and become r-x
 * again; a thread that executes such a page meanwhile faults, and the
 * SIGSEGV handler sleeps (futex) until the window closes and retries the
 * instruction.  The code that runs while a window is open, the writer and
 * that handler, lives in a section of its own and makes its system calls
 * itself, not through libc or the PLT, either of which may lie on a page
 * being written when this file is linked into the program (libobjpatch.a);
 * a window that would hold that section is refused.  It assumes the text
 * was r-x.
 *
 * Measured by t/80-patch.t on a 2-core VM (kernel 6.18), /proc/self/mem:
 * about 8 us per patch_text() and 5 us per site in batches of 4096 when
 * idle; 75-250 us per patch_text() and 15-30 us per batch site while 8
 * threads spin through the sites (membarrier has to interrupt them).
 * mprotect fallback: about 11 us per patch_text(), 1.4 us per batch site
 * when idle (direct stores), but every thread touching a page being written
 * faults and sleeps, and once woken competes with the patcher: 0.2-20 ms
 * per patch_text() with 8 spinning threads on 2 cores.
 *
 * The descriptor and the membarrier registration belong to one process: a
 * forked child makes its own on its first patch (pthread_atfork keeps the
 * lock usable).  The trap handler and what it calls must hold no sites
 * (SIGTRAP is blocked inside it: a nested int3 would kill the process), so
 * this file is never built with -pg/-mrecord-mcount.
 *
 * Core sync (x86_64): membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE),
 * registered once.  Without it (kernels < 4.16): the mprotect-IPI trick
 * (changing a touched page's protection sends a TLB-shootdown IPI to every
 * CPU running this mm; returning from the interrupt serialises the core),
 * as JVMs did before membarrier.  Best effort only: kernels that flush
 * TLBs by broadcast (AMD INVLPGB, 6.15+) send no IPI, but they all have
 * membarrier.  OBJPATCH_PATCH_SYNC=ipi forces it (for tests).
 */
/* i386: /proc/self/mem offsets are addresses, and those above 2 GiB too. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>
#include "arch/x86/insn.h"
#include "arch/patch.h"

/* The protocol, its raw system calls and, for PATCH_STORE, its instructions. */
#include "arch/patch_arch.h"

#if defined(__linux__) && defined(PATCH_PROTOCOL)

/* ---- shared by both writers: batches, the known sites, the mprotect window ---- */

struct busy_site {
	uintptr_t addr;
	size_t len;
	uint8_t insn[PATCH_MAX_LEN];	/* the replacement (x86: which traps emulate) */
	uint8_t old[PATCH_MAX_LEN];	/* for roll_back() */
};

struct busy {
	size_t n;
	struct busy_site s[];		/* sorted by addr */
};

struct known {
	size_t n;
	uintptr_t a[];			/* sorted: every site ever patched */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_init_err[160];
static const char *g_method = "uninitialised";
static int g_readfd = -1;		/* /proc/self/mem for read_text(), where it works */
static long g_pagesize;
static pid_t g_pid;
static bool g_segv_installed;

/* Read by the signal handlers: */
static _Atomic(struct known *) g_known;
static atomic_int g_readers;		/* handlers that may hold g_busy/g_known */
static atomic_ulong g_traps;
static atomic_uintptr_t g_win_lo, g_win_hi;	/* mprotect window: page range now RW */
static atomic_uint g_win_seq;
static atomic_long g_patcher_tid;
static struct sigaction g_old_segv;

static enum insn_kind classify(const uint8_t *b, size_t len);

/*
 * Code that must never lie on a page the mprotect writer makes RW: what the
 * patching thread runs inside a window (AArch64), and the SIGSEGV path that
 * threads meeting a window run.  A section of its own (after .text) keeps
 * it off the pages of the program's functions even when this file is
 * linked into the program (libobjpatch.a), and its bounds let the AArch64
 * writer refuse the rare window that would still hold it.
 */
#define PATCHER_TEXT __attribute__((section("objpatch_patcher_text") PATCHER_TEXT_ARCH))
#ifndef WINDOW_PROT
#define WINDOW_PROT (PROT_READ | PROT_WRITE)	/* an arch may keep the pages executable */
#endif
#if defined(__clang__)
#define PATCHER_NOIPA
#else
#define PATCHER_NOIPA noipa,	/* no clone of the writer outside its section */
#endif

PATCHER_TEXT static size_t known_lower(const struct known *k, uintptr_t ip)
{
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->a[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool known_has(const struct known *k, uintptr_t ip)
{
	size_t i = known_lower(k, ip);

	return k && i < k->n && k->a[i] == ip;
}

PATCHER_TEXT static void chain(const struct sigaction *old, int sig, siginfo_t *si, void *ctx)
{
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, ctx);
	} else if (old->sa_handler == SIG_IGN) {
		return;
	} else if (old->sa_handler == SIG_DFL) {
		/* Blocked while we run: delivered, with its default action, on return. */
		signal(sig, SIG_DFL);
		raise(sig);
	} else {
		old->sa_handler(sig);
	}
}


/* strtoul's locale handling has no place in a signal handler. */
PATCHER_TEXT static const char *parse_hex(const char *p, unsigned long *v)
{
	*v = 0;
	for (;; p++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0') :
			     *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 16;

		if (d == 16)
			return p;
		*v = *v << 4 | d;
	}
}

/* strchr(p, '\n'); the empty asm keeps the compiler from making it a call to libc. */
PATCHER_TEXT static char *line_end(char *p)
{
	for (; *p && *p != '\n'; p++)
		__asm__("" : "+r"(p));
	return *p ? p : NULL;
}

/* One line of /proc/self/maps, [line, end): if it covers addr, *x says whether executable. */
PATCHER_TEXT static void map_line(const char *line, const char *end, uintptr_t addr, bool *x)
{
	unsigned long lo, hi;
	const char *p = parse_hex(line, &lo);

	if (*p != '-')
		return;
	p = parse_hex(p + 1, &hi);
	if (*p == ' ' && end - p > 4 && addr >= lo && addr < hi)
		*x = p[3] == 'x';
}

PATCHER_TEXT static bool page_executable(uintptr_t addr)
{
	char buf[4096], *line, *end;
	size_t have = 0;
	bool skip = false, x = false;
	long n;
	long fd = raw_syscall4(SYS_openat, AT_FDCWD, (long)"/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return false;
	/*
	 * Only whole lines are parsed: the kernel's reads end at a line end,
	 * qemu-user's do not (it serves a plain file), and the tail of a cut
	 * line, "5df3000-5505e00000 rw-p", reads as a range over the text.
	 * The part left over goes to the buffer's start for the next read.
	 */
	while ((n = raw_syscall4(SYS_read, fd, (long)(buf + have), (long)(sizeof(buf) - 1 - have), 0)) > 0) {
		have += (size_t)n;
		buf[have] = 0;
		for (line = buf; (end = line_end(line)); line = end + 1) {
			if (!skip)
				map_line(line, end, addr, &x);
			skip = false;
		}
		have -= (size_t)(line - buf);
		if (have == sizeof(buf) - 1) {
			/* A line longer than the buffer (a long path): its fields are all here. */
			if (!skip)
				map_line(buf, buf + have, addr, &x);
			skip = true;
			have = 0;
		}
		for (size_t k = 0; k < have; k++) {
			buf[k] = line[k];
			__asm__("" : "+r"(line));	/* no call to memmove */
		}
	}
	raw_syscall4(SYS_close, fd, 0, 0, 0);
	return x;
}

/*
 * The mprotect writer only: a thread ran into a page that is RW for a moment.
 * 1 when it may retry.  The patcher opens windows back to back, so a fault
 * from one window may be handled during the next: look again a few times.
 */
PATCHER_TEXT static int wait_for_window(uintptr_t addr)
{
	if (raw_syscall4(SYS_gettid, 0, 0, 0, 0) == atomic_load(&g_patcher_tid))
		return 0;
	for (;;) {
		unsigned seq = atomic_load(&g_win_seq);

		if ((seq & 1) && addr >= atomic_load(&g_win_lo) && addr < atomic_load(&g_win_hi)) {
			/* futex(2) is a plain syscall: fine in a signal handler. */
			while (atomic_load(&g_win_seq) == seq)
				raw_syscall4(SYS_futex, (long)&g_win_seq, FUTEX_WAIT_PRIVATE, (long)seq, 0);
			return 1;
		}
		/*
		 * Any code on a window's pages faults, not only the sites (a PLT
		 * stub, another function), and the handler may run after that
		 * window closed: executable again means retry.
		 */
		if (page_executable(addr))
			return 1;
		/*
		 * Not executable is the program's own fault only if no window
		 * was open at any time during the read of the maps: reading them
		 * is slow (qemu-user: several windows go by), and a state read
		 * after it, such as the patcher being idle between two batches,
		 * says nothing about the page at the time it was read.
		 */
		if (!(seq & 1) && atomic_load(&g_win_seq) == seq)
			return 0;
	}
}

#if defined(SEGV_ADDR_UNREPORTED) || defined(SEGV_ADDR_PAGE_ONLY)
/*
 * The patch header says faults come without their address (qemu-user 7.2
 * on ppc64: si_addr NULL and SEGV_MAPERR for every fault, a fetch from a
 * window's page or the program's own NULL access alike).  A fault at an
 * instruction a window holds now is ours: wait.  Any other is retried once
 * per (instruction, window sequence): a fetch that met a window that has
 * closed since then goes on, and the program's own fault comes back with
 * nothing changed and goes to its handler.
 */
PATCHER_TEXT static int unreported_fault(uintptr_t ip)
{
	static __thread uintptr_t last_ip __attribute__((tls_model("initial-exec")));
	static __thread unsigned last_seq __attribute__((tls_model("initial-exec")));
	unsigned seq = atomic_load(&g_win_seq);

	if ((seq & 1) && ip >= atomic_load(&g_win_lo) && ip < atomic_load(&g_win_hi))
		return wait_for_window(ip);
	if (ip == last_ip && seq == last_seq)
		return 0;
	last_ip = ip;
	last_seq = seq;
	return 1;
}
#endif

PATCHER_TEXT static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	uintptr_t ip = CONTEXT_IP((ucontext_t *)ctx);
	int ours = 0;

#ifdef SEGV_ADDR_PAGE_ONLY
	/*
	 * s390x reports a fault's page, not its byte: one on the faulting
	 * instruction's own page is its fetch or its data access, so it is
	 * taken as a fault without an address (unreported_fault()).
	 */
	if (si->si_code == SEGV_ACCERR && addr == (ip & ~(uintptr_t)(g_pagesize - 1))) {
		atomic_fetch_add(&g_readers, 1);
		ours = unreported_fault(ip);
		atomic_fetch_sub(&g_readers, 1);
	} else
#endif
	/* Instruction fetches only: a data write to text is the program's own bug. */
	if (si->si_code == SEGV_ACCERR && addr >= ip && addr < ip + 16) {
		atomic_fetch_add(&g_readers, 1);
		ours = wait_for_window(addr);
		atomic_fetch_sub(&g_readers, 1);
	}
#ifdef SEGV_ADDR_UNREPORTED
	else if (!addr) {
		atomic_fetch_add(&g_readers, 1);
		ours = unreported_fault(ip);
		atomic_fetch_sub(&g_readers, 1);
	}
#endif
	if (!ours)
		chain(&g_old_segv, sig, si, ctx);
#if defined(__i386__)
	else
		i386_gs_return(ctx);	/* qemu-i386: the thread's own %gs after sigreturn */
#endif
}

/*
 * Our handlers run with every asynchronous signal blocked: the kernel blocks
 * the handler's own signal inside it, so a program's SIGUSR1 handler nested
 * in on_trap that calls a function under patch would meet the int3 with
 * SIGTRAP blocked, and the kernel kills a thread for that (found by
 * t/91-stress.t).  The same holds for SIGSEGV in the mprotect window.
 */
static int install(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old)
{
	static const int sync_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sync_signals) / sizeof(sync_signals[0]); i++)
		sigdelset(&sa.sa_mask, sync_signals[i]);
	return sigaction(sig, &sa, old);
}

/* fork() while another thread patches: the child gets the lock free and no handler running. */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&g_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
	atomic_store(&g_readers, 0);
#if defined(__i386__)
	atomic_store(&i386_gs_lock, 0);	/* held by a parent's thread between its handler and thunk */
#endif
	pthread_mutex_unlock(&g_lock);
}

static uintptr_t page_of(uintptr_t a)
{
	return a & ~(uintptr_t)(g_pagesize - 1);
}

/* Pages [lo, hi) are about to become RW: a thread faulting there waits for window_close(). */
static void window_publish(uintptr_t lo, uintptr_t hi)
{
	atomic_store(&g_win_lo, lo);
	atomic_store(&g_win_hi, hi);
	atomic_fetch_add(&g_win_seq, 1);
}

static void window_close(void)
{
	atomic_fetch_add(&g_win_seq, 1);
	syscall(SYS_futex, &g_win_seq, (long)FUTEX_WAKE_PRIVATE, (long)INT32_MAX, NULL, NULL, 0L);
}

/* What a window writes at one site: n bytes at `at` (AArch64: one aligned instruction). */
struct text_store {
	uintptr_t at;
	uint8_t n;
	uint8_t b[PATCH_MAX_LEN];
};

/*
 * Everything the patching thread runs while [lo, lo + len) is RW, with
 * nothing outside this section: the pages become RW (never RWX), take the
 * stores, and become r-x again.  Returns 0 or -errno; *rw_failed says
 * whether the first mprotect failed (nothing written) or the second
 * (written, left RW: the program faults rather than run on half-written
 * text).
 */
PATCHER_TEXT __attribute__((noinline, PATCHER_NOIPA no_sanitize("address", "thread", "undefined")))
static long window_write(uintptr_t lo, size_t len, const struct text_store *st, size_t n, bool *rw_failed)
{
	long rc = raw_syscall4(SYS_mprotect, (long)lo, (long)len, WINDOW_PROT, 0);

	*rw_failed = rc != 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		store_text(st[i].at, st[i].b, st[i].n);
	return raw_syscall4(SYS_mprotect, (long)lo, (long)len, PROT_READ | PROT_EXEC, 0);
}

/* Sites [i, end) share one window: their pages touch (pages holding sites are text). */
static size_t run_end(const struct busy *b, size_t i)
{
	size_t j = i + 1;

	while (j < b->n && page_of(b->s[j].addr) <= page_of(b->s[j - 1].addr + b->s[j - 1].len - 1) + g_pagesize)
		j++;
	return j;
}

static uintptr_t run_lo(const struct busy *b, size_t i)
{
	return page_of(b->s[i].addr);
}

static uintptr_t run_hi(const struct busy *b, size_t j)
{
	return page_of(b->s[j - 1].addr + b->s[j - 1].len - 1) + g_pagesize;
}

extern const char __start_objpatch_patcher_text[] __attribute__((visibility("hidden")));
extern const char __stop_objpatch_patcher_text[] __attribute__((visibility("hidden")));

/* No window may hold the code that runs while it is open. */
static int check_windows(const struct busy *b, char *err, size_t errlen)
{
	uintptr_t plo = page_of((uintptr_t)__start_objpatch_patcher_text);
	uintptr_t phi = page_of((uintptr_t)__stop_objpatch_patcher_text - 1) + g_pagesize;

	for (size_t i = 0, j; i < b->n; i = j) {
		j = run_end(b, i);
		if (run_lo(b, i) < phi && plo < run_hi(b, j)) {
			snprintf(err, errlen, "%#lx: shares a page with the patcher's own code: not patched",
				 (unsigned long)b->s[i].addr);
			return -1;
		}
	}
	return 0;
}

/*
 * Writes st[0..n), for sites [i, j) of b, through one window; a thread that
 * runs into it meanwhile waits in on_segv().  Returns 0, -1 (nothing
 * written) or -2 (written, left RW).
 */
static int write_window(const struct busy *b, size_t i, size_t j, const struct text_store *st, size_t n,
			char *err, size_t errlen)
{
	uintptr_t lo = run_lo(b, i), hi = run_hi(b, j);
	bool rw_failed;
	long rc;

	window_publish(lo, hi);
	rc = window_write(lo, hi - lo, st, n, &rw_failed);
#if PATCH_PROTOCOL == PATCH_STORE
	/* Before the waiting threads wake: they go on with the new instructions. */
	if (!(rc && rw_failed))
		for (size_t k = 0; k < n; k++)
			__builtin___clear_cache((char *)st[k].at, (char *)st[k].at + st[k].n);
#endif
	window_close();
	if (!rc)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "mprotect(%#lx, %s): %s", (unsigned long)lo, rw_failed ? "RW" : "RX",
			 strerror((int)-rc));
	return rw_failed ? -1 : -2;
}

/*
 * Through a pipe: write() reports an unmapped source as EFAULT instead of
 * faulting.  For qemu-user with a guest base (i386 on a 64-bit host),
 * which lacks process_vm_readv and whose /proc/self/mem is the host's view.
 */
static int read_via_pipe(uintptr_t addr, uint8_t *b, size_t n)
{
	int p[2], rc = 0;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	for (size_t done = 0, k; done < n && !rc; done += k) {
		k = n - done < 4096 ? n - done : 4096;
		if (write(p[1], (const void *)(addr + done), k) != (ssize_t)k ||
		    read(p[0], b + done, k) != (ssize_t)k)
			rc = -1;
	}
	close(p[0]);
	close(p[1]);
	return rc;
}

/* (syscall() arguments are cast to long: it reads every one as a long.) */
static int read_text(uintptr_t addr, uint8_t *b, size_t n, char *err, size_t errlen)
{
	/* process_vm_readv reports an unmapped address instead of faulting. */
	struct iovec local = { b, n }, remote = { (void *)addr, n };

	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n)
		return 0;
	/* Some seccomp policies forbid it, qemu-user lacks it: the mem file checks the address too. */
	if ((errno == ENOSYS || errno == EPERM) && g_readfd >= 0 &&
	    pread(g_readfd, b, n, (off_t)addr) == (ssize_t)n)
		return 0;
	if ((errno == ENOSYS || errno == EPERM) && g_readfd < 0 && read_via_pipe(addr, b, n) == 0)
		return 0;
	/*
	 * qemu-user for a 32-bit guest (arm) has neither: its mem file holds
	 * the host's addresses.  Text on a page the maps show executable is
	 * read directly; a page is looked up once, since only the patcher,
	 * holding g_lock, makes text pages non-executable.
	 */
	if (errno == ENOSYS && g_readfd < 0) {
		static uintptr_t seen = 1;
		uintptr_t p = page_of(addr);

		for (; p <= page_of(addr + n - 1) && (p == seen || page_executable(p)); p += g_pagesize)
			seen = p;
		if (p > page_of(addr + n - 1)) {
			memcpy(b, (const void *)addr, n);
			return 0;
		}
	}
	snprintf(err, errlen, "%#lx: cannot read %zu bytes: %s", (unsigned long)addr, n,
		 strerror(errno));
	return -1;
}

static void hex(char *out, size_t outlen, const uint8_t *b, size_t n)
{
	size_t used = 0;

	out[0] = 0;
	for (size_t i = 0; i < n && used + 4 < outlen; i++)
		used += snprintf(out + used, outlen - used, "%s%02x", i ? " " : "", b[i]);
}

static int cmp_site(const void *a, const void *b)
{
	uintptr_t x = ((const struct busy_site *)a)->addr, y = ((const struct busy_site *)b)->addr;

	return x < y ? -1 : x > y;
}


/* Checks every site and builds the sorted batch; writes nothing. */
static struct busy *prepare(const struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	struct busy *b = malloc(sizeof(*b) + n * sizeof(b->s[0]));

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct patch_site *p = &sites[i];
		uintptr_t a = (uintptr_t)p->addr;
		uint8_t cur[PATCH_MAX_LEN];
		char h1[32], h2[32];

		if (classify(p->expect, p->len) == INSN_BAD ||
		    classify(p->repl, p->len) == INSN_BAD) {
			hex(h1, sizeof(h1), p->expect, p->len <= PATCH_MAX_LEN ? p->len : 0);
			hex(h2, sizeof(h2), p->repl, p->len <= PATCH_MAX_LEN ? p->len : 0);
			snprintf(err, errlen,
				 "%#lx: cannot patch %zu bytes [%s] -> [%s]: not one NOP/call/jmp "
				 "of that length each", (unsigned long)a, p->len, h1, h2);
			goto fail;
		}
		if (read_text(a, cur, p->len, err, errlen))
			goto fail;
		if (memcmp(cur, p->expect, p->len)) {
			hex(h1, sizeof(h1), cur, p->len);
			hex(h2, sizeof(h2), p->expect, p->len);
			snprintf(err, errlen, "%#lx: found [%s], expected [%s]: not patched",
				 (unsigned long)a, h1, h2);
			goto fail;
		}
		b->s[i].addr = a;
		b->s[i].len = p->len;
		memcpy(b->s[i].insn, p->repl, p->len);
		memcpy(b->s[i].old, cur, p->len);
	}
	qsort(b->s, n, sizeof(b->s[0]), cmp_site);
	for (size_t i = 1; i < n; i++) {
		if (b->s[i - 1].addr + b->s[i - 1].len > b->s[i].addr) {
			snprintf(err, errlen, "%#lx: overlaps the site at %#lx",
				 (unsigned long)b->s[i].addr, (unsigned long)b->s[i - 1].addr);
			goto fail;
		}
	}
	return b;
fail:
	free(b);
	return NULL;
}

/* Frees what a handler may still read, once no handler runs. */
static void retire(void *p)
{
	while (atomic_load(&g_readers))
		sched_yield();
	free(p);
}

/* Adds the batch's addresses to the known set (before any 0xcc appears). */
static int remember(const struct busy *b, char *err, size_t errlen)
{
	struct known *old = atomic_load(&g_known), *k;
	size_t fresh = 0, i = 0, j = 0, o = 0, oldn = old ? old->n : 0;

	for (size_t s = 0; s < b->n; s++)
		fresh += !known_has(old, b->s[s].addr);
	if (!fresh)
		return 0;
	k = malloc(sizeof(*k) + (oldn + fresh) * sizeof(k->a[0]));
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (i < oldn || j < b->n) {
		if (j < b->n && known_has(old, b->s[j].addr))
			j++;
		else if (j == b->n || (i < oldn && old->a[i] < b->s[j].addr))
			k->a[o++] = old->a[i++];
		else
			k->a[o++] = b->s[j++].addr;
	}
	k->n = o;
	atomic_store(&g_known, k);
	if (old)
		retire(old);
	return 0;
}

static int cmp_patch_site(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct patch_site *)a)->addr;
	uintptr_t y = (uintptr_t)((const struct patch_site *)b)->addr;

	return x < y ? -1 : x > y;
}

#if PATCH_PROTOCOL == PATCH_INT3

/*
 * ---- x86_64 and i386: the int3 protocol, /proc/self/mem, and the mprotect
 * fallback ----  i386 (i386-patch.h) emulates with 4-byte return addresses
 * and `call *abs32`; it has no red zone, so a call whose return address
 * would land in the signal frame is not emulated: the thread goes back to
 * the int3 until the batch is written.  Under qemu-user its /proc/self/mem
 * is unusable (procmem_runs) and its windows stay executable (WINDOW_PROT).
 */

#ifndef CONTEXT_IP_REG		/* x86_64 */
#define CONTEXT_IP_REG REG_RIP
#define CONTEXT_SP_REG REG_RSP
#endif

static int g_memfd = -1;		/* the /proc/self/mem writer */
static bool g_membarrier;
static void *g_ipi_page;
static _Atomic(struct busy *) g_busy;
static struct sigaction g_old_trap;

static const uint8_t nops[PATCH_MAX_LEN + 1][PATCH_MAX_LEN] = {
	[1] = { 0x90 },
	[2] = { 0x66, 0x90 },
	[3] = { 0x0f, 0x1f, 0x00 },
	[4] = { 0x0f, 0x1f, 0x40, 0x00 },
	[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	[7] = { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	[8] = { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

/*
 * A run of whole NOPs is a NOP too: compilers' -fpatchable-function-entry
 * pads (gcc's 0x90s, clang's nopl 8(%rax,%rax)), which the runtime turns
 * into one NOP of ours; a run of several only while no other thread runs,
 * since a thread may be inside it (rt_modules.c).
 */
static bool nop_run(const uint8_t *b, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = x86_nop_len(b + i, len - i)))
			return false;
	return true;
}

static enum insn_kind classify(const uint8_t *b, size_t len)
{
	if (len == 0 || len > PATCH_MAX_LEN)
		return INSN_BAD;
	if (!memcmp(b, nops[len], len) || nop_run(b, len))
		return INSN_NOP;
#if defined(__i386__)
	if (arch_extra_nop(b, len))
		return INSN_NOP;
	/* The compiler's `call *mcount@GOT(%ebx)`: ModRM mod 10, /2, any base but the SIB escape. */
	if (len == 6 && b[0] == 0xff && (b[1] & 0xf8) == 0x90 && b[1] != 0x94)
		return INSN_CALL_IND;
#endif
	if (len == 5 && b[0] == 0xe8)
		return INSN_CALL;
	if (len == 5 && b[0] == 0xe9)
		return INSN_JMP;
	if (len == 6 && b[0] == 0xff && b[1] == 0x15)
		return INSN_CALL_IND;
	return INSN_BAD;
}

static int32_t rel32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Where `call *...` (ff /2 disp32) at `next` - 6 goes. */
static uintptr_t call_ind_target(const ucontext_t *uc, const uint8_t *insn, uintptr_t next)
{
	intptr_t disp = (intptr_t)rel32(insn + 2);

#if defined(__i386__)
	/* No RIP-relative form: ff 15 is absolute, ff 90+r is disp32(%reg) (mcount@GOT(%ebx)). */
	static const int base_reg[8] = { REG_EAX, REG_ECX, REG_EDX, REG_EBX, -1, REG_EBP, REG_ESI, REG_EDI };

	(void)next;
	if (insn[1] == 0x15)
		return *(const uintptr_t *)(uintptr_t)disp;
	return *(const uintptr_t *)((uintptr_t)uc->uc_mcontext.gregs[base_reg[insn[1] & 7]] + (uintptr_t)disp);
#else
	(void)uc;
	return *(const uintptr_t *)(next + disp);
#endif
}

#if defined(__i386__)
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
static bool frame_has(const siginfo_t *si, const ucontext_t *uc, uintptr_t word)
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
#endif

/*
 * x86_64: the stack below the interrupted RSP is free: a signal frame
 * starts below the 128-byte red zone, and a call would have written there
 * anyway.  i386: unless the frame reaches it (frame_has): then 0, and the
 * thread goes back to the int3, to trap again until the batch is written
 * (a few microseconds: the patcher waits for nothing but core syncs).
 */
__attribute__((no_sanitize("address")))
static int emulate(const siginfo_t *si, ucontext_t *uc, const struct busy_site *s)
{
	greg_t *r = uc->uc_mcontext.gregs;
	uintptr_t next = s->addr + s->len, target = next;

	switch (classify(s->insn, s->len)) {
	case INSN_CALL:
	case INSN_JMP:
		target = next + (intptr_t)rel32(s->insn + 1);
		break;
	case INSN_CALL_IND:
		target = call_ind_target(uc, s->insn, next);
		break;
	default:
		break;
	}
	if (s->insn[0] == 0xe8 || s->insn[0] == 0xff) {
		uintptr_t word = (uintptr_t)r[CONTEXT_SP_REG] - sizeof(uintptr_t);

#if defined(__i386__)
		if (frame_has(si, uc, word))
			return 0;
#else
		(void)si;
#endif
		r[CONTEXT_SP_REG] = (greg_t)word;
		*(uintptr_t *)word = next;
	}
	r[CONTEXT_IP_REG] = (greg_t)target;
	return 1;
}

static const struct busy_site *busy_find(const struct busy *b, uintptr_t ip)
{
	size_t lo = 0, hi = b ? b->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->s[mid].addr == ip)
			return &b->s[mid];
		if (b->s[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}


static int steer_trap(const siginfo_t *si, ucontext_t *uc)
{
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[CONTEXT_IP_REG] - 1;

	for (int tries = 0; tries < 1000; tries++) {
		const struct busy_site *s = busy_find(atomic_load(&g_busy), ip);

		if (s) {
			if (!emulate(si, uc, s))
				uc->uc_mcontext.gregs[CONTEXT_IP_REG] = (greg_t)ip;
			return 1;
		}
		if (!known_has(atomic_load(&g_known), ip))
			return 0;
		/* Acquire: a 0xcc seen here was written after its batch was published. */
		if (__atomic_load_n((const uint8_t *)ip, __ATOMIC_ACQUIRE) != 0xcc) {
			uc->uc_mcontext.gregs[CONTEXT_IP_REG] = (greg_t)ip;
			return 1;
		}
		/* 0xcc of a batch published after our first look: look again. */
	}
	return 0;
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	int ours = 0;

	if (si->si_code == SI_KERNEL) {
		atomic_fetch_add(&g_readers, 1);
		ours = steer_trap(si, ctx);
		atomic_fetch_sub(&g_readers, 1);
	}
	if (ours) {
		atomic_fetch_add_explicit(&g_traps, 1, memory_order_relaxed);
#if defined(__i386__)
		i386_gs_return(ctx);
#endif
	} else {
		chain(&g_old_trap, sig, si, ctx);
	}
}


static void sync_cores(void)
{
	if (g_membarrier) {
		syscall(SYS_membarrier, (long)MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0L, 0L);
		return;
	}
	*(volatile char *)g_ipi_page = 1;
	mprotect(g_ipi_page, g_pagesize, PROT_READ);
	mprotect(g_ipi_page, g_pagesize, PROT_READ | PROT_WRITE);
}

#if defined(__i386__)
/* Does /proc/self/mem show our own bytes at our addresses (not under qemu-user with a guest base)? */
static bool procmem_reads_own(int fd)
{
	static const uint32_t probe = 0x33383669;	/* "i386" */
	uint32_t v = 0;

	return fd >= 0 && pread(fd, &v, sizeof(v), (off_t)(uintptr_t)&probe) == (ssize_t)sizeof(v) && v == probe;
}

/*
 * Does code written through /proc/self/mem run as written?  Not under
 * qemu-user (where i386 programs often run): the kernel's write goes round
 * qemu's write tracking, and qemu keeps running its translation of the old
 * bytes.  Its guest stores (the mprotect writer) it sees.
 */
static bool procmem_runs(int fd, uint8_t *p)
{
	uint8_t code[6] = { 0xb8, 1, 0, 0, 0, 0xc3 };	/* mov $1, %eax; ret */
	int (*fn)(void) = (int (*)(void))(uintptr_t)p;

	if (pwrite(fd, code, sizeof(code), (off_t)(uintptr_t)p) != sizeof(code) || fn() != 1)
		return false;
	code[1] = 2;
	return pwrite(fd, code, sizeof(code), (off_t)(uintptr_t)p) == sizeof(code) && fn() == 2;
}
#endif

/* Does the kernel let us write a read-only executable page through /proc/self/mem? */
static bool procmem_works(int fd)
{
	static const uint8_t probe = 0xc3;
	uint8_t *p = mmap(NULL, g_pagesize, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	bool ok;

	if (p == MAP_FAILED)
		return false;
	ok = pwrite(fd, &probe, 1, (off_t)(uintptr_t)p) == 1 && *(volatile uint8_t *)p == probe;
#if defined(__i386__)
	ok = ok && procmem_runs(fd, p);
#endif
	munmap(p, g_pagesize);
	return ok;
}

/*
 * Per process: membarrier registration and the /proc/self/mem descriptor
 * belong to one mm, so a forked child redoes this (the old fd would write
 * into the PARENT).  Called with g_lock held.
 */
static int proc_init(char *err, size_t errlen)
{
	const char *force = getenv("OBJPATCH_PATCH_WRITE"), *sync_env;
	int fd;

	if (g_pid == getpid())
		return 0;
	if (g_memfd >= 0)
		close(g_memfd);
	g_memfd = g_readfd = -1;
	sync_env = getenv("OBJPATCH_PATCH_SYNC");
	g_membarrier = !(sync_env && !strcmp(sync_env, "ipi")) &&
		       syscall(SYS_membarrier, (long)MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
			       0L, 0L) == 0;
	if (!g_membarrier && !g_ipi_page) {
		g_ipi_page = mmap(NULL, g_pagesize, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g_ipi_page == MAP_FAILED) {
			g_ipi_page = NULL;
			snprintf(err, errlen, "mmap: %s", strerror(errno));
			return -1;
		}
	}
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
#if defined(__i386__)
	i386_gs_init(!procmem_reads_own(fd));
#endif
	if (fd >= 0 && !(force && !strcmp(force, "mprotect")) && procmem_works(fd)) {
		g_memfd = g_readfd = fd;
		g_method = g_membarrier ? "procmem+membarrier" : "procmem+mprotect-ipi";
	} else {
		if (fd >= 0)
			close(fd);
		g_method = g_membarrier ? "mprotect+membarrier" : "mprotect+mprotect-ipi";
		if (!g_segv_installed && install(SIGSEGV, on_segv, &g_old_segv)) {
			snprintf(err, errlen, "sigaction(SIGSEGV): %s", strerror(errno));
			return -1;
		}
		g_segv_installed = true;
	}
	g_pid = getpid();
	return 0;
}

static void init_once(void)
{
	g_pagesize = sysconf(_SC_PAGESIZE);
	if (install(SIGTRAP, on_trap, &g_old_trap))
		snprintf(g_init_err, sizeof(g_init_err), "sigaction(SIGTRAP): %s", strerror(errno));
	else if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child))
		snprintf(g_init_err, sizeof(g_init_err), "pthread_atfork failed");
}


/* One site's bytes [from, to) (or an int3) through /proc/self/mem. */
static int write_site(const struct busy_site *s, size_t from, size_t to, bool int3,
		      char *err, size_t errlen)
{
	static const uint8_t cc = 0xcc;
	const uint8_t *b = int3 ? &cc : s->insn + from;
	size_t end = to < s->len ? to : s->len;
	uintptr_t addr = s->addr + from;

	if (from >= end)
		return 0;
	if (pwrite(g_memfd, b, end - from, (off_t)addr) != (ssize_t)(end - from)) {
		snprintf(err, errlen, "%#lx: writing %zu bytes: %s", (unsigned long)addr, end - from,
			 errno ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/*
 * Writes one protocol step for sites [i, j).  The fallback writer opens one
 * window per run of sites on the same or adjacent pages, so a batch costs a
 * few mprotect() calls, not two per site.
 */
static int write_run(const struct busy *b, size_t i, size_t j, size_t from, size_t to,
		     bool int3, char *err, size_t errlen)
{
	struct text_store *st;
	size_t n = 0;
	int rc = 0;

	if (g_memfd >= 0) {
		for (size_t k = i; k < j && !rc; k++)
			rc = write_site(&b->s[k], from, to, int3, err, errlen);
		return rc;
	}
	st = malloc((j - i) * sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = i; k < j; k++) {
		const struct busy_site *s = &b->s[k];
		size_t end = to < s->len ? to : s->len;

		if (from >= end)
			continue;
		st[n].at = s->addr + from;
		st[n].n = (uint8_t)(int3 ? 1 : end - from);
		if (int3)
			st[n].b[0] = 0xcc;
		else
			memcpy(st[n].b, s->insn + from, end - from);
		n++;
	}
	rc = n ? write_window(b, i, j, st, n, err, errlen) : 0;
	free(st);
	return rc ? -1 : 0;
}

static int write_step(const struct busy *b, size_t from, size_t to, bool int3,
		      char *err, size_t errlen)
{
	size_t i = 0;

	while (i < b->n) {
		size_t j = g_memfd < 0 ? run_end(b, i) : i + 1;

		if (write_run(b, i, j, from, to, int3, err, errlen))
			return -1;
		i = j;
	}
	sync_cores();
	return 0;
}

/*
 * A write failed after the int3s went in (it should not: every site was just
 * read).  Put the old instructions back with the same protocol, the trap
 * handler now emulating the OLD instruction, so that no site is left torn.
 */
static void roll_back(struct busy *b)
{
	struct busy *old = malloc(sizeof(*old) + b->n * sizeof(old->s[0]));

	if (!old)
		return;		/* leaves b published: threads keep emulating the new one */
	memcpy(old, b, sizeof(*old) + b->n * sizeof(old->s[0]));
	for (size_t i = 0; i < old->n; i++)
		memcpy(old->s[i].insn, old->s[i].old, old->s[i].len);
	atomic_store(&g_busy, old);
	retire(b);
	write_step(old, 0, 1, true, NULL, 0);
	write_step(old, 1, PATCH_MAX_LEN, false, NULL, 0);
	write_step(old, 0, 1, false, NULL, 0);
	atomic_store(&g_busy, NULL);
	retire(old);
}

static int run_batch(struct busy *b, char *err, size_t errlen)
{
	if ((g_memfd < 0 && check_windows(b, err, errlen)) || remember(b, err, errlen)) {
		free(b);
		return -1;
	}
	atomic_store(&g_busy, b);
	if (write_step(b, 0, 1, true, err, errlen) ||
	    write_step(b, 1, PATCH_MAX_LEN, false, err, errlen) ||
	    write_step(b, 0, 1, false, err, errlen)) {
		roll_back(b);
		return -1;
	}
	atomic_store(&g_busy, NULL);
	retire(b);
	return 0;
}


/*
 * Start-up: no other thread exists, so nobody can execute a site while it
 * changes and the int3 protocol buys nothing.  Sites close together are
 * read, checked and rewritten as one span with one pwrite(); the kernel
 * copies each touched page once either way.
 */
#define SPAN_MAX (256 * 1024)
#define SPAN_GAP 4096

static int write_span(const struct patch_site *s, size_t n, uint8_t *buf, char *err, size_t errlen)
{
	uintptr_t lo = (uintptr_t)s[0].addr, hi = (uintptr_t)s[n - 1].addr + s[n - 1].len;

	if (read_text(lo, buf, hi - lo, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint8_t *at = buf + ((uintptr_t)s[i].addr - lo);

		if (memcmp(at, s[i].expect, s[i].len)) {
			char found[3 * PATCH_MAX_LEN + 1];

			hex(found, sizeof(found), at, s[i].len);
			snprintf(err, errlen, "%#lx: found %s, not the expected instruction",
				 (unsigned long)s[i].addr, found);
			return -1;
		}
		memcpy(at, s[i].repl, s[i].len);
	}
	if (pwrite(g_memfd, buf, hi - lo, (off_t)lo) != (ssize_t)(hi - lo)) {
		snprintf(err, errlen, "%#lx: writing %zu bytes: %s", (unsigned long)lo, (size_t)(hi - lo),
			 errno ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/*
 * The same span through an mprotect window (RW, plain stores, RX again: never
 * RWX), cheaper than /proc/self/mem's remote access; fine with no other
 * thread, with async signals blocked and only the patcher's own section
 * running meanwhile.  1: not possible here (the span holds that section's
 * pages, or text may not become RW): the caller uses write_span; 0 written;
 * -1 refused or failed.
 */
static int store_span(const struct patch_site *s, size_t n, char *err, size_t errlen)
{
	uintptr_t lo = page_of((uintptr_t)s[0].addr), hi = page_of((uintptr_t)s[n - 1].addr + s[n - 1].len - 1) +
							     (uintptr_t)g_pagesize;
	uintptr_t plo = page_of((uintptr_t)__start_objpatch_patcher_text);
	uintptr_t phi = page_of((uintptr_t)__stop_objpatch_patcher_text - 1) + (uintptr_t)g_pagesize;
	struct text_store *st;
	sigset_t all, old;
	bool rw_failed;
	long rc;

	if (lo < phi && plo < hi)
		return 1;
	st = malloc(n * sizeof(*st));
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		/* The caller checked the sites lie in mapped text. */
		if (memcmp(s[i].addr, s[i].expect, s[i].len)) {
			char found[3 * PATCH_MAX_LEN + 1];

			hex(found, sizeof(found), s[i].addr, s[i].len);
			snprintf(err, errlen, "%#lx: found %s, not the expected instruction",
				 (unsigned long)s[i].addr, found);
			free(st);
			return -1;
		}
		st[i].at = (uintptr_t)s[i].addr;
		st[i].n = (uint8_t)s[i].len;
		memcpy(st[i].b, s[i].repl, s[i].len);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = window_write(lo, hi - lo, st, n, &rw_failed);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(st);
	if (!rc)
		return 0;
	if (rw_failed)
		return 1;	/* a policy refusing RW text (SELinux execmod): /proc/self/mem then */
	/* Written but left RW, never RWX: the program faults rather than run half-written text. */
	snprintf(err, errlen, "mprotect(%#lx, RX): %s", (unsigned long)lo, strerror((int)-rc));
	return -1;
}

int patch_text_quiescent(struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	uint8_t *buf;
	size_t i = 0;
	int rc = 0;

	pthread_once(&g_once, init_once);
	pthread_mutex_lock(&g_lock);
	if (!g_init_err[0] && proc_init(err, errlen) == 0 && g_memfd < 0) {
		pthread_mutex_unlock(&g_lock);
		return patch_text_batch(sites, n, err, errlen);
	}
	pthread_mutex_unlock(&g_lock);
	if (g_init_err[0]) {
		snprintf(err, errlen, "%s", g_init_err);
		return -1;
	}
	for (size_t k = 1; k < n; k++)
		if (sites[k].addr < sites[k - 1].addr) {
			qsort(sites, n, sizeof(*sites), cmp_patch_site);
			break;
		}
	buf = malloc(SPAN_MAX + PATCH_MAX_LEN);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (i < n && rc == 0) {
		size_t j = i + 1;
		uintptr_t lo = (uintptr_t)sites[i].addr;

		while (j < n && (uintptr_t)sites[j].addr - ((uintptr_t)sites[j - 1].addr + sites[j - 1].len) < SPAN_GAP &&
		       (uintptr_t)sites[j].addr + sites[j].len - lo <= SPAN_MAX)
			j++;
		rc = store_span(sites + i, j - i, err, errlen);
		if (rc > 0)
			rc = write_span(sites + i, j - i, buf, err, errlen);
		i = j;
	}
	free(buf);
	return rc;
}

#else	/* PATCH_STORE */

/*
 * ---- One store per site inside an mprotect window (every arch but x86) ----
 * Which changes one store can make safely while other cores run the site,
 * and the store itself, are the arch's (objpatch/arch/<arch>-patch.h).
 */

/* Writes sites [i, j) of b, the old instructions if `old`; threads running there meanwhile wait. */
static int write_run(const struct busy *b, size_t i, size_t j, bool old, char *err, size_t errlen)
{
	struct text_store *st = malloc((j - i) * sizeof(*st));
	int rc;

	if (!st) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = i; k < j; k++) {
		st[k - i].at = b->s[k].addr;
		st[k - i].n = (uint8_t)b->s[k].len;
		memcpy(st[k - i].b, old ? b->s[k].old : b->s[k].insn, b->s[k].len);
	}
	rc = write_window(b, i, j, st, j - i, err, errlen);
	free(st);
	return rc;
}

/* Handlers of asynchronous signals could be program code on a page being written. */
static void block_async_signals(sigset_t *old)
{
	static const int sync_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };
	sigset_t s;

	sigfillset(&s);
	for (size_t i = 0; i < sizeof(sync_signals) / sizeof(sync_signals[0]); i++)
		sigdelset(&s, sync_signals[i]);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static int run_batch(struct busy *b, char *err, size_t errlen)
{
	sigset_t old;
	size_t i, j = 0;
	int rc = 0;

	for (i = 0; i < b->n; i++) {
		if (!store_ok(b->s[i].addr, b->s[i].old, b->s[i].insn, b->s[i].len)) {
			snprintf(err, errlen, "%#lx: a change of %zu bytes that one store cannot make",
				 (unsigned long)b->s[i].addr, b->s[i].len);
			free(b);
			return -1;
		}
	}
	if (check_windows(b, err, errlen) || remember(b, err, errlen)) {
		free(b);
		return -1;
	}
	block_async_signals(&old);
	for (i = 0; i < b->n; i = j) {
		j = run_end(b, i);
		rc = write_run(b, i, j, false, err, errlen);
		if (rc)
			break;
	}
	/* A window that could not be opened: the runs before it go back, so the batch is all or nothing. */
	if (rc == -1)
		for (size_t r = 0, e; r < i; r = e) {
			e = run_end(b, r);
			write_run(b, r, e, true, NULL, 0);
		}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(b);
	return rc ? -1 : 0;
}

int patch_text_quiescent(struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	/* No protocol to skip: the batch is one store per site already. */
	qsort(sites, n, sizeof(*sites), cmp_patch_site);
	return patch_text_batch(sites, n, err, errlen);
}

/* Does reading our addresses from /proc/self/mem give our bytes (qemu-user: when its guest base is 0)? */
static bool procmem_reads_self(int fd)
{
	static const uint64_t probe = 0x68637461706a626f;	/* "objpatch" */
	uint64_t v = 0;

	return pread(fd, &v, sizeof(v), (off_t)(uintptr_t)&probe) == (ssize_t)sizeof(v) && v == probe;
}

static int proc_init(char *err, size_t errlen)
{
	int fd;

	if (g_pid == getpid())
		return 0;
	if (g_readfd >= 0)
		close(g_readfd);
	g_readfd = -1;
	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && procmem_reads_self(fd))
		g_readfd = fd;
	else if (fd >= 0)
		close(fd);
	if (!g_segv_installed && install(SIGSEGV, on_segv, &g_old_segv)) {
		snprintf(err, errlen, "sigaction(SIGSEGV): %s", strerror(errno));
		return -1;
	}
	g_segv_installed = true;
	g_method = "mprotect+store";
	g_pid = getpid();
	return 0;
}

static void init_once(void)
{
	g_pagesize = sysconf(_SC_PAGESIZE);
	if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child))
		snprintf(g_init_err, sizeof(g_init_err), "pthread_atfork failed");
}

#endif	/* PATCH_STORE */

int patch_init(char *err, size_t errlen)
{
	pthread_once(&g_once, init_once);
	if (g_init_err[0]) {
		if (err && errlen)
			snprintf(err, errlen, "%s", g_init_err);
		return -1;
	}
	return 0;
}

int patch_text_batch(const struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	char dummy[1];
	struct busy *b;
	int rc = -1;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	if (patch_init(err, errlen) < 0)
		return -1;
	if (n == 0)
		return 0;
	pthread_mutex_lock(&g_lock);
	atomic_store(&g_patcher_tid, syscall(SYS_gettid));
	b = proc_init(err, errlen) ? NULL : prepare(sites, n, err, errlen);
	if (b)
		rc = run_batch(b, err, errlen);
	atomic_store(&g_patcher_tid, 0);
	pthread_mutex_unlock(&g_lock);
	return rc;
}

#else	/* no protocol for this machine */

static const char *g_method = "unsupported";
static atomic_ulong g_traps;

int patch_text_batch(const struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	(void)sites;
	(void)n;
	if (err && errlen)
		snprintf(err, errlen, "live text patching is implemented for x86_64 and AArch64 Linux only");
	return -1;
}

int patch_text_quiescent(struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	return patch_text_batch(sites, n, err, errlen);
}

int patch_init(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 0;
}

#endif

int patch_text(void *addr, const uint8_t *expect, const uint8_t *repl, size_t len,
	       char *err, size_t errlen)
{
	struct patch_site s = { addr, expect, repl, len };

	return patch_text_batch(&s, 1, err, errlen);
}

const char *patch_method(void)
{
	return g_method;
}

unsigned long patch_trap_count(void)
{
	return atomic_load(&g_traps);
}
