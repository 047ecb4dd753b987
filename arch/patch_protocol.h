/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live text patcher (arch/patch.h) in two parts.  The generic patcher,
 * objpatch/lib/patch.c, owns the API, the checks of a batch, the sites ever
 * patched, the mprotect window with its SIGSEGV handler, and reading text.
 * A protocol decides how a checked batch changes while other threads run
 * its sites: PATCH_STORE, one store per site (patch.c too, for every
 * machine but x86), or PATCH_INT3, x86's trap-and-emulate
 * (arch/x86/rt_x86.c).  The machine's header (patch_arch.h) says which.
 * This is what each part offers the other; included by the patcher's
 * files only.
 */
#ifndef ARCH_PATCH_PROTOCOL_H
#define ARCH_PATCH_PROTOCOL_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "arch/patch.h"
#include "arch/patch_arch.h"

/*
 * Code that must never lie on a page the mprotect writer makes RW: what the
 * patching thread runs inside a window, and the SIGSEGV path that threads
 * meeting a window run.  A section of its own (after .text) keeps it off
 * the pages of the program's functions even when the patcher is linked
 * into the program (libobjpatch.a), and its bounds let the writer refuse
 * the rare window that would still hold it.
 */
#define PATCHER_TEXT __attribute__((section("objpatch_patcher_text") PATCHER_TEXT_ARCH))

/* One site of a batch. */
struct busy_site {
	uintptr_t addr;
	size_t len;
	uint8_t insn[PATCH_MAX_LEN];	/* the replacement (x86: which traps emulate) */
	uint8_t old[PATCH_MAX_LEN];	/* what was there, to roll back */
};

/* A batch: its sites checked against the text, sorted by addr, none overlapping. */
struct busy {
	size_t n;
	struct busy_site s[];
};

/* What a window writes at one site: n bytes at `at` (store protocol: one aligned instruction). */
struct text_store {
	uintptr_t at;
	uint8_t n;
	uint8_t b[PATCH_MAX_LEN];
};

/* ---- The generic patcher's, for a protocol ---- */

extern pthread_mutex_t patcher_lock PATCH_HIDDEN;	/* held by every patch call, and over fork() */
extern long patcher_pagesize PATCH_HIDDEN;
extern const char *patcher_method PATCH_HIDDEN;	/* patch_method(): the protocol sets it per process */
extern int patcher_readfd PATCH_HIDDEN;		/* /proc/self/mem for reading text where it works, else -1 */
extern atomic_int patcher_readers PATCH_HIDDEN;	/* signal handlers that may read a batch or the known sites */
extern atomic_ulong patcher_traps PATCH_HIDDEN;	/* patch_trap_count() */

/*
 * patcher_readfd, told apart from a descriptor of the program's: a
 * process objpatch attached to may close descriptors it does not know
 * and open a file that gets the same number, which must never be written
 * to or closed.  patcher_fd_adopt(fd) makes fd patcher_readfd;
 * patcher_fd_ours() says whether it still is the file adopted;
 * patcher_fd_drop() closes it only if so, and forgets it.
 */
void patcher_fd_adopt(int fd) PATCH_HIDDEN;
bool patcher_fd_ours(void) PATCH_HIDDEN;
void patcher_fd_drop(void) PATCH_HIDDEN;
/* With patcher_lock held: the protocol's per-process set-up, unless this process has it. */
int patcher_proc_init(char *err, size_t errlen) PATCH_HIDDEN;
/* sigaction() for the patcher's handlers: synchronous signals only may interrupt them. */
int patcher_install(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old) PATCH_HIDDEN;
/* A signal that is not the patcher's, to the handler installed before. */
void patcher_chain(const struct sigaction *old, int sig, siginfo_t *si, void *ctx) PATCH_HIDDEN;
/* patch_before_default()'s function, or NULL. */
extern void (*patcher_before_default)(int sig) PATCH_HIDDEN;
/* The mprotect writer's SIGSEGV handler, installed once.  0, or -1 with err. */
int patcher_catch_segv(char *err, size_t errlen) PATCH_HIDDEN;
/* Does reading our addresses from /proc/self/mem (fd, or -1) give our bytes (qemu-user: not with a guest base)? */
bool patcher_procmem_reads_self(int fd) PATCH_HIDDEN;

/* Has ip ever been a site of a batch (signal-safe)? */
bool patcher_known(uintptr_t ip) PATCH_HIDDEN;
/* Adds a batch's sites to the known ones: before anything is written. */
int patcher_remember(const struct busy *b, char *err, size_t errlen) PATCH_HIDDEN;
/* Frees what a signal handler may still read, once none runs. */
void patcher_retire(void *p) PATCH_HIDDEN;

uintptr_t patcher_page_of(uintptr_t a) PATCH_HIDDEN;
/* Sites [i, end) of b share one window: their pages touch. */
size_t patcher_run_end(const struct busy *b, size_t i) PATCH_HIDDEN;
/* Do pages [lo, hi) hold the patcher's own section (PATCHER_TEXT), which no window may make RW? */
bool patcher_holds_own_text(uintptr_t lo, uintptr_t hi) PATCH_HIDDEN;
/* No window of the batch holds the patcher's section: 0, or -1 with err. */
int patcher_check_windows(const struct busy *b, char *err, size_t errlen) PATCH_HIDDEN;
/*
 * Writes st[0..n), for sites [i, j) of b, through one window that other
 * threads wait on.  Returns 0, -1 (nothing written) or -2 (written, left RW).
 */
int patcher_write_window(const struct busy *b, size_t i, size_t j, const struct text_store *st, size_t n,
			 char *err, size_t errlen) PATCH_HIDDEN;
/*
 * The stores alone, pages [lo, lo + len) RW meanwhile, for a process with
 * no other thread.  0 or -errno; *rw_failed: nothing was written.
 */
long patcher_window_write(uintptr_t lo, size_t len, const struct text_store *st, size_t n, bool *rw_failed)
	PATCH_HIDDEN;

/* Reads program text without faulting on an unmapped address: 0, or -1 with err. */
int patcher_read_text(uintptr_t addr, uint8_t *b, size_t n, char *err, size_t errlen) PATCH_HIDDEN;
/* "0f 1f 44" for messages. */
void patcher_hex(char *out, size_t outlen, const uint8_t *b, size_t n) PATCH_HIDDEN;
/* qsort() of struct patch_site by address. */
int patcher_cmp_site(const void *a, const void *b) PATCH_HIDDEN;

/* ---- A protocol's, for the generic patcher (and patch.h's patch_text_quiescent()) ---- */

/* Once, before the first patch: the protocol's signal handlers.  0, or -1 with err. */
int patch_protocol_init(char *err, size_t errlen) PATCH_HIDDEN;
/*
 * Once per process (again in a forked child: descriptors and registrations
 * belong to one mm), with patcher_lock held: the writer, patcher_method and
 * patcher_readfd.  0, or -1 with err.
 */
int patch_protocol_proc_init(char *err, size_t errlen) PATCH_HIDDEN;
/* With patcher_lock held: what patch_protocol_proc_init() opened, closed (patch_release()). */
void patch_protocol_proc_release(void) PATCH_HIDDEN;
/* Writes a checked batch with patcher_lock held, all or nothing, and frees it.  0, or -1 with err. */
int patch_protocol_run_batch(struct busy *b, char *err, size_t errlen) PATCH_HIDDEN;

#endif
