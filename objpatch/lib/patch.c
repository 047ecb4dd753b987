// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Live text patching on Linux (see arch/patch.h for the contract): the
 * generic patcher, and the store protocol of every machine but x86.  What
 * is shared with x86's int3 protocol (arch/x86/rt_x86.c) is declared in
 * arch/patch_protocol.h; what a machine's instructions are, in its header
 * (arch/patch_arch.h).
 *
 * Per batch: every site is checked (the old bytes are what the caller
 * expects, both instructions are ones the protocol can write, no two
 * overlap) before anything is written; the sites are added to the known
 * set, which the trap and fault handlers consult; then the protocol writes.
 *
 * The store protocol (AArch64, ARM, ppc64le, riscv64, s390x, MIPS): every
 * site is changed by one store that the architecture lets another core see
 * as the old or the new instruction, nothing else (AArch64: NOP <-> BL, in
 * its list of instructions that may be modified while another core
 * executes them), so there is no protocol beyond it: one store per site,
 * then the cache maintenance of __builtin___clear_cache (AArch64: clean to
 * the point of unification, invalidate the I-cache line: broadcast to the
 * inner-shareable domain), as the kernel's aarch64_insn_patch_text_nosync
 * does.  The stores go through mprotect windows, not /proc/self/mem,
 * because of qemu-user, where this runs in our tests: a pwrite() to
 * /proc/self/mem changes the guest's bytes behind qemu's back and qemu goes
 * on running its stale translation of the old code, while a guest
 * mprotect() and store make qemu drop the page's translations.  What that
 * costs: two mprotect() per run of sites on adjacent pages, and a thread
 * that runs into such a page meanwhile faults and sleeps until it is r-x
 * again (on hardware, /proc/self/mem would spare both).  The patching
 * thread blocks asynchronous signals during a batch: a handler could be
 * program code on a page being written.
 *
 * The mprotect window (every protocol): the pages holding a run of sites on
 * adjacent pages become RW (never RWX), take the stores and become r-x
 * again; a thread that executes such a page meanwhile faults, and the
 * SIGSEGV handler sleeps (futex) until the window closes and retries the
 * instruction.  The code that runs while a window is open, the writer and
 * that handler, lives in a section of its own (PATCHER_TEXT) and makes its
 * system calls itself, not through libc or the PLT, either of which may lie
 * on a page being written when this file is linked into the program
 * (libobjpatch.a); a window that would hold that section is refused.  It
 * assumes the text was r-x.
 *
 * The descriptors and registrations belong to one process: a forked child
 * makes its own on its first patch (pthread_atfork keeps the lock usable).
 * The signal handlers and what they call must hold no sites, so the
 * patcher is never built with -pg/-mrecord-mcount.
 */
/* i386: /proc/self/mem offsets are addresses, and those above 2 GiB too. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/* The API, what a protocol shares with us and, through it, the machine's header. */
#include "arch/patch_protocol.h"

#if defined(__linux__) && defined(PATCH_PROTOCOL)

/* ---- every protocol's: batches, the known sites, the mprotect window ---- */

struct known {
	size_t n;
	uintptr_t a[];			/* sorted: every site ever patched */
};

pthread_mutex_t patcher_lock = PTHREAD_MUTEX_INITIALIZER;
long patcher_pagesize;
const char *patcher_method = "uninitialised";
int patcher_readfd = -1;
static dev_t g_readfd_dev;
static ino_t g_readfd_ino;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_init_err[160];
static pid_t g_pid;
static bool g_segv_installed;

/* Read by the signal handlers: */
static _Atomic(struct known *) g_known;
atomic_int patcher_readers;
atomic_ulong patcher_traps;
static atomic_uintptr_t g_win_lo, g_win_hi;	/* mprotect window: page range now RW */
static atomic_uint g_win_seq;
static atomic_long g_patcher_tid;
static struct sigaction g_old_segv;

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

bool patcher_known(uintptr_t ip)
{
	return known_has(atomic_load(&g_known), ip);
}

void (*patcher_before_default)(int sig);

void patch_before_default(void (*fn)(int sig))
{
	patcher_before_default = fn;
}

PATCHER_TEXT void patcher_chain(const struct sigaction *old, int sig, siginfo_t *si, void *ctx)
{
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, ctx);
	} else if (old->sa_handler == SIG_IGN) {
		return;
	} else if (old->sa_handler == SIG_DFL) {
		/* Blocked while we run: delivered, with its default action, on return. */
		if (patcher_before_default)
			patcher_before_default(sig);
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
	if (si->si_code == SEGV_ACCERR && addr == (ip & ~(uintptr_t)(patcher_pagesize - 1))) {
		atomic_fetch_add(&patcher_readers, 1);
		ours = unreported_fault(ip);
		atomic_fetch_sub(&patcher_readers, 1);
	} else
#endif
	/* Instruction fetches only: a data write to text is the program's own bug. */
	if (si->si_code == SEGV_ACCERR && addr >= ip && addr < ip + 16) {
		atomic_fetch_add(&patcher_readers, 1);
		ours = wait_for_window(addr);
		atomic_fetch_sub(&patcher_readers, 1);
	}
#ifdef SEGV_ADDR_UNREPORTED
	else if (!addr) {
		atomic_fetch_add(&patcher_readers, 1);
		ours = unreported_fault(ip);
		atomic_fetch_sub(&patcher_readers, 1);
	}
#endif
	if (!ours)
		patcher_chain(&g_old_segv, sig, si, ctx);
	else
		PATCH_HANDLER_RETURN(ctx);
}

/*
 * Our handlers run with every asynchronous signal blocked: the kernel blocks
 * the handler's own signal inside it, so a program's SIGUSR1 handler nested
 * in x86's on_trap that calls a function under patch would meet the int3 with
 * SIGTRAP blocked, and the kernel kills a thread for that (found by
 * t/91-stress.t).  The same holds for SIGSEGV in the mprotect window.
 */
int patcher_install(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old)
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

int patcher_catch_segv(char *err, size_t errlen)
{
	if (!g_segv_installed && patcher_install(SIGSEGV, on_segv, &g_old_segv)) {
		snprintf(err, errlen, "sigaction(SIGSEGV): %s", strerror(errno));
		return -1;
	}
	g_segv_installed = true;
	return 0;
}

bool patcher_procmem_reads_self(int fd)
{
	static const uint64_t probe = 0x68637461706a626f;	/* "objpatch" */
	uint64_t v = 0;

	return fd >= 0 && pread(fd, &v, sizeof(v), (off_t)(uintptr_t)&probe) == (ssize_t)sizeof(v) && v == probe;
}

/* fork() while another thread patches: the child gets the lock free and no handler running. */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&patcher_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&patcher_lock);
}

static void atfork_child(void)
{
	atomic_store(&patcher_readers, 0);
	PATCH_ATFORK_CHILD();
	pthread_mutex_unlock(&patcher_lock);
}

uintptr_t patcher_page_of(uintptr_t a)
{
	return a & ~(uintptr_t)(patcher_pagesize - 1);
}

/* Pages [lo, hi) are about to become RW: a thread faulting there waits for window_close(). */
static void window_publish(uintptr_t lo, uintptr_t hi)
{
	atomic_store(&g_win_lo, lo);
	atomic_store(&g_win_hi, hi);
	atomic_fetch_add(&g_win_seq, 1);
}

/* (syscall() reads every argument as a long: they are cast.) */
static void window_close(void)
{
	atomic_fetch_add(&g_win_seq, 1);
	syscall(SYS_futex, &g_win_seq, (long)FUTEX_WAKE_PRIVATE, (long)INT32_MAX, NULL, NULL, 0L);
}

/*
 * Everything the patching thread runs while [lo, lo + len) is RW, with
 * nothing outside this section: the pages become RW (never RWX), take the
 * stores, and become r-x again.  Returns 0 or -errno; *rw_failed says
 * whether the first mprotect failed (nothing written) or the second
 * (written, left RW: the program faults rather than run on half-written
 * text).
 */
PATCHER_TEXT __attribute__((noinline, PATCHER_NOIPA no_sanitize("address", "thread", "undefined")))
long patcher_window_write(uintptr_t lo, size_t len, const struct text_store *st, size_t n, bool *rw_failed)
{
	long rc = raw_syscall4(SYS_mprotect, (long)lo, (long)len, WINDOW_PROT, 0);

	*rw_failed = rc != 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		store_text(st[i].at, st[i].b, st[i].n);
	return raw_syscall4(SYS_mprotect, (long)lo, (long)len, PROT_READ | PROT_EXEC, 0);
}

/* Pages holding sites are text: sites on pages that touch share a window. */
size_t patcher_run_end(const struct busy *b, size_t i)
{
	size_t j = i + 1;

	while (j < b->n && patcher_page_of(b->s[j].addr) <=
			   patcher_page_of(b->s[j - 1].addr + b->s[j - 1].len - 1) + patcher_pagesize)
		j++;
	return j;
}

static uintptr_t run_lo(const struct busy *b, size_t i)
{
	return patcher_page_of(b->s[i].addr);
}

static uintptr_t run_hi(const struct busy *b, size_t j)
{
	return patcher_page_of(b->s[j - 1].addr + b->s[j - 1].len - 1) + patcher_pagesize;
}

extern const char __start_objpatch_patcher_text[] PATCH_HIDDEN;
extern const char __stop_objpatch_patcher_text[] PATCH_HIDDEN;

bool patcher_holds_own_text(uintptr_t lo, uintptr_t hi)
{
	uintptr_t plo = patcher_page_of((uintptr_t)__start_objpatch_patcher_text);
	uintptr_t phi = patcher_page_of((uintptr_t)__stop_objpatch_patcher_text - 1) + patcher_pagesize;

	return lo < phi && plo < hi;
}

/* No window may hold the code that runs while it is open. */
int patcher_check_windows(const struct busy *b, char *err, size_t errlen)
{
	for (size_t i = 0, j; i < b->n; i = j) {
		j = patcher_run_end(b, i);
		if (patcher_holds_own_text(run_lo(b, i), run_hi(b, j))) {
			snprintf(err, errlen, "%#lx: shares a page with the patcher's own code: not patched",
				 (unsigned long)b->s[i].addr);
			return -1;
		}
	}
	return 0;
}

/* A thread that runs into the window meanwhile waits in on_segv(). */
int patcher_write_window(const struct busy *b, size_t i, size_t j, const struct text_store *st, size_t n,
			 char *err, size_t errlen)
{
	uintptr_t lo = run_lo(b, i), hi = run_hi(b, j);
	bool rw_failed;
	long rc;

	window_publish(lo, hi);
	rc = patcher_window_write(lo, hi - lo, st, n, &rw_failed);
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

int patcher_read_text(uintptr_t addr, uint8_t *b, size_t n, char *err, size_t errlen)
{
	/* process_vm_readv reports an unmapped address instead of faulting. */
	struct iovec local = { b, n }, remote = { (void *)addr, n };

	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n)
		return 0;
	/* Some seccomp policies forbid it, qemu-user lacks it: the mem file checks the address too. */
	if ((errno == ENOSYS || errno == EPERM) && patcher_readfd >= 0 &&
	    pread(patcher_readfd, b, n, (off_t)addr) == (ssize_t)n)
		return 0;
	if ((errno == ENOSYS || errno == EPERM) && patcher_readfd < 0 && read_via_pipe(addr, b, n) == 0)
		return 0;
	/*
	 * qemu-user for a 32-bit guest (arm) has neither: its mem file holds
	 * the host's addresses.  Text on a page the maps show executable is
	 * read directly; a page is looked up once, since only the patcher,
	 * holding patcher_lock, makes text pages non-executable.
	 */
	if (errno == ENOSYS && patcher_readfd < 0) {
		static uintptr_t seen = 1;
		uintptr_t p = patcher_page_of(addr);

		for (; p <= patcher_page_of(addr + n - 1) && (p == seen || page_executable(p)); p += patcher_pagesize)
			seen = p;
		if (p > patcher_page_of(addr + n - 1)) {
			memcpy(b, (const void *)addr, n);
			return 0;
		}
	}
	snprintf(err, errlen, "%#lx: cannot read %zu bytes: %s", (unsigned long)addr, n,
		 strerror(errno));
	return -1;
}

void patcher_hex(char *out, size_t outlen, const uint8_t *b, size_t n)
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
			patcher_hex(h1, sizeof(h1), p->expect, p->len <= PATCH_MAX_LEN ? p->len : 0);
			patcher_hex(h2, sizeof(h2), p->repl, p->len <= PATCH_MAX_LEN ? p->len : 0);
			snprintf(err, errlen,
				 "%#lx: cannot patch %zu bytes [%s] -> [%s]: not one NOP/call/jmp "
				 "of that length each", (unsigned long)a, p->len, h1, h2);
			goto fail;
		}
		if (patcher_read_text(a, cur, p->len, err, errlen))
			goto fail;
		if (memcmp(cur, p->expect, p->len)) {
			patcher_hex(h1, sizeof(h1), cur, p->len);
			patcher_hex(h2, sizeof(h2), p->expect, p->len);
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

void patcher_retire(void *p)
{
	while (atomic_load(&patcher_readers))
		sched_yield();
	free(p);
}

int patcher_remember(const struct busy *b, char *err, size_t errlen)
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
		patcher_retire(old);
	return 0;
}

int patcher_cmp_site(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct patch_site *)a)->addr;
	uintptr_t y = (uintptr_t)((const struct patch_site *)b)->addr;

	return x < y ? -1 : x > y;
}

#if PATCH_PROTOCOL == PATCH_STORE

/*
 * ---- One store per site inside an mprotect window (every arch but x86) ----
 * Which changes one store can make safely while other cores run the site,
 * and the store itself, are the arch's (arch/<family>/patch_<machine>.h).
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
	rc = patcher_write_window(b, i, j, st, j - i, err, errlen);
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

int patch_protocol_run_batch(struct busy *b, char *err, size_t errlen)
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
	if (patcher_check_windows(b, err, errlen) || patcher_remember(b, err, errlen)) {
		free(b);
		return -1;
	}
	block_async_signals(&old);
	for (i = 0; i < b->n; i = j) {
		j = patcher_run_end(b, i);
		rc = write_run(b, i, j, false, err, errlen);
		if (rc)
			break;
	}
	/* A window that could not be opened: the runs before it go back, so the batch is all or nothing. */
	if (rc == -1)
		for (size_t r = 0, e; r < i; r = e) {
			e = patcher_run_end(b, r);
			write_run(b, r, e, true, NULL, 0);
		}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(b);
	return rc ? -1 : 0;
}

int patch_text_quiescent(struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	/* No protocol to skip: the batch is one store per site already. */
	qsort(sites, n, sizeof(*sites), patcher_cmp_site);
	return patch_text_batch(sites, n, err, errlen);
}

int patch_protocol_proc_init(char *err, size_t errlen)
{
	int fd;

	patcher_fd_drop();
	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (patcher_procmem_reads_self(fd))
		patcher_fd_adopt(fd);
	else if (fd >= 0)
		close(fd);
	if (patcher_catch_segv(err, errlen))
		return -1;
	patcher_method = "mprotect+store";
	return 0;
}

void patch_protocol_proc_release(void)
{
	patcher_fd_drop();
}

/* The stores need no trap: nothing to install. */
int patch_protocol_init(char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return 0;
}

#endif	/* PATCH_STORE */

void patcher_fd_adopt(int fd)
{
	struct stat st;

	patcher_readfd = fd;
	g_readfd_dev = 0;
	g_readfd_ino = 0;
	if (fd >= 0 && fstat(fd, &st) == 0) {
		g_readfd_dev = st.st_dev;
		g_readfd_ino = st.st_ino;
	}
}

bool patcher_fd_ours(void)
{
	struct stat st;

	return patcher_readfd >= 0 && fstat(patcher_readfd, &st) == 0 && st.st_dev == g_readfd_dev &&
	       st.st_ino == g_readfd_ino;
}

void patcher_fd_drop(void)
{
	if (patcher_fd_ours())
		close(patcher_readfd);
	patcher_readfd = -1;
}

/* A descriptor the program closed since is set up again (patcher_fd_ours). */
int patcher_proc_init(char *err, size_t errlen)
{
	if (g_pid == getpid() && (patcher_readfd < 0 || patcher_fd_ours()))
		return 0;
	if (patch_protocol_proc_init(err, errlen))
		return -1;
	g_pid = getpid();
	return 0;
}

static void init_once(void)
{
	patcher_pagesize = sysconf(_SC_PAGESIZE);
	if (!patch_protocol_init(g_init_err, sizeof(g_init_err)) &&
	    pthread_atfork(atfork_prepare, atfork_parent, atfork_child))
		snprintf(g_init_err, sizeof(g_init_err), "pthread_atfork failed");
}

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
	pthread_mutex_lock(&patcher_lock);
	atomic_store(&g_patcher_tid, syscall(SYS_gettid));
	b = patcher_proc_init(err, errlen) ? NULL : prepare(sites, n, err, errlen);
	if (b)
		rc = patch_protocol_run_batch(b, err, errlen);
	atomic_store(&g_patcher_tid, 0);
	pthread_mutex_unlock(&patcher_lock);
	return rc;
}

void patch_release(void)
{
	pthread_mutex_lock(&patcher_lock);
	patch_protocol_proc_release();
	g_pid = 0;	/* the next patch opens them again */
	pthread_mutex_unlock(&patcher_lock);
}

const char *patch_method(void)
{
	return patcher_method;
}

unsigned long patch_trap_count(void)
{
	return atomic_load(&patcher_traps);
}

#else	/* no protocol for this machine */

int patch_text_batch(const struct patch_site *sites, size_t n, char *err, size_t errlen)
{
	(void)sites;
	(void)n;
	if (err && errlen)
		snprintf(err, errlen, "live text patching has no protocol for this machine (its port has no patch header)");
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

void patch_release(void)
{
}

const char *patch_method(void)
{
	return "unsupported";
}

unsigned long patch_trap_count(void)
{
	return 0;
}

#endif

int patch_text(void *addr, const uint8_t *expect, const uint8_t *repl, size_t len,
	       char *err, size_t errlen)
{
	struct patch_site s = { addr, expect, repl, len };

	return patch_text_batch(&s, 1, err, errlen);
}
