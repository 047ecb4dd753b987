// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * x86_64 and i386: the int3 protocol of the live text patcher (generic
 * part: objpatch/lib/patch.c; what the two share: arch/patch_protocol.h;
 * what differs between the machines: patch_x86_64.h, patch_i386.h).
 *
 * Sites are 5 or 6 bytes at any alignment, so no single store can change
 * one while another core runs it.  Protocol, per batch (the kernel's
 * text_poke_bp_batch): publish the batch for the trap handler, write 0xcc
 * over the first byte of every site, sync cores, write bytes 1..len-1,
 * sync, write the new first bytes, sync, unpublish, wait until no trap
 * handler still reads the batch.  So three core syncs per batch whatever
 * its size.
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
 * i386 emulates with 4-byte return addresses and `call *abs32`; it has no
 * red zone, so a call whose return address would land in the signal frame
 * is not emulated: the thread goes back to the int3 until the batch is
 * written.
 *
 * Writer: pwrite() to /proc/self/mem.  The kernel writes through its own
 * mapping of the page (FOLL_FORCE; for a private file mapping it first
 * breaks COW), so the program's mapping stays r-x all the time: no W+X
 * window, no fault for threads running on the page, no SIGSEGV path; it
 * costs one syscall per write.  A memfd alias would need the text to live
 * in a memfd, which the loader's mappings do not.  Kernels booted with
 * proc_mem.force_override=never refuse it (checked once on a scratch r-x
 * page), and under qemu-user (i386) it does not reach the code that runs
 * (procmem_runs): then the fallback writes through the generic patcher's
 * mprotect windows, which stay executable on i386 (WINDOW_PROT).
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
 * The trap handler and what it calls must hold no sites (SIGTRAP is blocked
 * inside it: a nested int3 would kill the process), so this file is never
 * built with -pg/-mrecord-mcount.
 *
 * Core sync: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE),
 * registered once per process.  Without it (kernels < 4.16): the
 * mprotect-IPI trick (changing a touched page's protection sends a
 * TLB-shootdown IPI to every CPU running this mm; returning from the
 * interrupt serialises the core), as JVMs did before membarrier.  Best
 * effort only: kernels that flush TLBs by broadcast (AMD INVLPGB, 6.15+)
 * send no IPI, but they all have membarrier.  OBJPATCH_PATCH_SYNC=ipi
 * forces it (for tests).
 */
/* i386: /proc/self/mem offsets are addresses, and those above 2 GiB too. */
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "arch/patch_protocol.h"

static int g_memfd = -1;		/* the /proc/self/mem writer */
static bool g_membarrier;
static void *g_ipi_page;
static _Atomic(struct busy *) g_busy;
static struct sigaction g_old_trap;

/*
 * A call pushes its return address below the interrupted stack pointer,
 * where nothing of the thread's lives (x86_64: a signal frame starts below
 * the red zone) unless this signal's own frame reaches it
 * (signal_frame_has(), i386): then 0, and the thread goes back to the
 * int3, to trap again until the batch is written (a few microseconds: the
 * patcher waits for nothing but core syncs).
 */
__attribute__((no_sanitize("address")))
static int emulate(const siginfo_t *si, ucontext_t *uc, const struct busy_site *s)
{
	greg_t *r = uc->uc_mcontext.gregs;
	uintptr_t next = s->addr + s->len, target = next;
	enum insn_kind kind = classify(s->insn, s->len);

	switch (kind) {
	case INSN_CALL:
	case INSN_JMP:
		target = next + (intptr_t)x86_rel32(s->insn + 1);
		break;
	case INSN_CALL_IND:
		target = call_ind_target(uc, s->insn, next);
		break;
	default:
		break;
	}
	if (kind == INSN_CALL || kind == INSN_CALL_IND) {
		uintptr_t word = (uintptr_t)r[CONTEXT_SP_REG] - sizeof(uintptr_t);

		if (signal_frame_has(si, uc, word))
			return 0;
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
		if (!patcher_known(ip))
			return 0;
		/* Acquire: a 0xcc seen here was written after its batch was published. */
		if (__atomic_load_n((const uint8_t *)ip, __ATOMIC_ACQUIRE) != X86_INT3) {
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
		atomic_fetch_add(&patcher_readers, 1);
		ours = steer_trap(si, ctx);
		atomic_fetch_sub(&patcher_readers, 1);
	}
	if (ours) {
		atomic_fetch_add_explicit(&patcher_traps, 1, memory_order_relaxed);
		PATCH_HANDLER_RETURN(ctx);
	} else {
		patcher_chain(&g_old_trap, sig, si, ctx);
	}
}

static void sync_cores(void)
{
	if (g_membarrier) {
		syscall(SYS_membarrier, (long)MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0L, 0L);
		return;
	}
	*(volatile char *)g_ipi_page = 1;
	mprotect(g_ipi_page, patcher_pagesize, PROT_READ);
	mprotect(g_ipi_page, patcher_pagesize, PROT_READ | PROT_WRITE);
}

/* Does the kernel let us write a read-only executable page through /proc/self/mem? */
static bool procmem_works(int fd)
{
	static const uint8_t probe = 0xc3;
	uint8_t *p = mmap(NULL, patcher_pagesize, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	bool ok;

	if (p == MAP_FAILED)
		return false;
	ok = pwrite(fd, &probe, 1, (off_t)(uintptr_t)p) == 1 && *(volatile uint8_t *)p == probe &&
	     procmem_runs(fd, p);
	munmap(p, patcher_pagesize);
	return ok;
}

/*
 * Per process: membarrier registration and the /proc/self/mem descriptor
 * belong to one mm, so a forked child redoes this (the old fd would write
 * into the PARENT).
 */
int patch_protocol_proc_init(char *err, size_t errlen)
{
	const char *force = getenv("OBJPATCH_PATCH_WRITE"), *sync_env;
	int fd;

	patcher_fd_drop();
	g_memfd = -1;
	sync_env = getenv("OBJPATCH_PATCH_SYNC");
	g_membarrier = !(sync_env && !strcmp(sync_env, "ipi")) &&
		       syscall(SYS_membarrier, (long)MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE,
			       0L, 0L) == 0;
	if (!g_membarrier && !g_ipi_page) {
		g_ipi_page = mmap(NULL, patcher_pagesize, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g_ipi_page == MAP_FAILED) {
			g_ipi_page = NULL;
			snprintf(err, errlen, "mmap: %s", strerror(errno));
			return -1;
		}
	}
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	X86_PROC_INIT(fd);
	if (fd >= 0 && !(force && !strcmp(force, "mprotect")) && procmem_works(fd)) {
		patcher_fd_adopt(fd);
		g_memfd = fd;
		patcher_method = g_membarrier ? "procmem+membarrier" : "procmem+mprotect-ipi";
		return 0;
	}
	if (fd >= 0)
		close(fd);
	patcher_method = g_membarrier ? "mprotect+membarrier" : "mprotect+mprotect-ipi";
	return patcher_catch_segv(err, errlen);
}

void patch_protocol_proc_release(void)
{
	patcher_fd_drop();
	g_memfd = -1;
}

int patch_protocol_init(char *err, size_t errlen)
{
	if (patcher_install(SIGTRAP, on_trap, &g_old_trap)) {
		snprintf(err, errlen, "sigaction(SIGTRAP): %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* One site's bytes [from, to) (or an int3) through /proc/self/mem. */
static int write_site(const struct busy_site *s, size_t from, size_t to, bool int3,
		      char *err, size_t errlen)
{
	static const uint8_t cc = X86_INT3;
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
		/* The program may have closed it and opened a file of its own with that number. */
		if (!patcher_fd_ours()) {
			snprintf(err, errlen, "the program closed the runtime's /proc/self/mem descriptor");
			g_memfd = patcher_readfd = -1;
			return -1;
		}
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
			st[n].b[0] = X86_INT3;
		else
			memcpy(st[n].b, s->insn + from, end - from);
		n++;
	}
	rc = n ? patcher_write_window(b, i, j, st, n, err, errlen) : 0;
	free(st);
	return rc ? -1 : 0;
}

static int write_step(const struct busy *b, size_t from, size_t to, bool int3,
		      char *err, size_t errlen)
{
	size_t i = 0;

	while (i < b->n) {
		size_t j = g_memfd < 0 ? patcher_run_end(b, i) : i + 1;

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
	patcher_retire(b);
	write_step(old, 0, 1, true, NULL, 0);
	write_step(old, 1, PATCH_MAX_LEN, false, NULL, 0);
	write_step(old, 0, 1, false, NULL, 0);
	atomic_store(&g_busy, NULL);
	patcher_retire(old);
}

int patch_protocol_run_batch(struct busy *b, char *err, size_t errlen)
{
	if ((g_memfd < 0 && patcher_check_windows(b, err, errlen)) || patcher_remember(b, err, errlen)) {
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
	patcher_retire(b);
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

	if (patcher_read_text(lo, buf, hi - lo, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint8_t *at = buf + ((uintptr_t)s[i].addr - lo);

		if (memcmp(at, s[i].expect, s[i].len)) {
			char found[3 * PATCH_MAX_LEN + 1];

			patcher_hex(found, sizeof(found), at, s[i].len);
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
	uintptr_t lo = patcher_page_of((uintptr_t)s[0].addr);
	uintptr_t hi = patcher_page_of((uintptr_t)s[n - 1].addr + s[n - 1].len - 1) + (uintptr_t)patcher_pagesize;
	struct text_store *st;
	sigset_t all, old;
	bool rw_failed;
	long rc;

	if (patcher_holds_own_text(lo, hi))
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

			patcher_hex(found, sizeof(found), s[i].addr, s[i].len);
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
	rc = patcher_window_write(lo, hi - lo, st, n, &rw_failed);
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

	if (patch_init(err, errlen))
		return -1;
	pthread_mutex_lock(&patcher_lock);
	if (patcher_proc_init(err, errlen) == 0 && g_memfd < 0) {
		pthread_mutex_unlock(&patcher_lock);
		return patch_text_batch(sites, n, err, errlen);
	}
	pthread_mutex_unlock(&patcher_lock);
	for (size_t k = 1; k < n; k++)
		if (sites[k].addr < sites[k - 1].addr) {
			qsort(sites, n, sizeof(*sites), patcher_cmp_site);
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
