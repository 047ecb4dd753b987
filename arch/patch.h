/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The only code of the tracing runtime that writes program text: replaces
 * one instruction at a call site while other threads may be executing it.
 * x86 (a 5- or 6-byte NOP, `call rel32`, `call *disp32(%rip)`): with the
 * int3-first protocol of the kernel's text_poke_bp (arch/x86/rt_x86.c).
 * Every other machine with a port: one aligned store per site, of the
 * forms its patch header (arch/<family>/patch_<port>.h) allows.  A machine
 * without one fails every call with a message.
 *
 * Rules a caller relies on:
 *  - `expect` and `repl` must each be ONE whole instruction of exactly `len`
 *    bytes (len <= 8) that the protocol can write: on x86 one the trap
 *    handler can emulate, a NOP, `e8 rel32`, `e9 rel32` (len 5) or
 *    `ff 15 disp32` (len 6); elsewhere a form the patch header classifies
 *    (AArch64: `nop` or `bl`, len 4, 4-byte aligned).  Equal lengths keep every return address
 *    (site + len) on an instruction boundary whichever version a thread
 *    comes back to.
 *  - The bytes are replaced only if they currently equal `expect`;
 *    otherwise nothing is written and `err` names the address and the bytes
 *    found.  A batch is checked whole before anything is written: one bad
 *    site refuses the whole batch.
 *  - Calls are serialised internally; they may come from any thread, but
 *    not from a signal handler.
 * Returns 0 on success, -1 with a message in err (if errlen > 0).
 */
#ifndef ARCH_PATCH_H
#define ARCH_PATCH_H

#include <stddef.h>
#include <stdint.h>

#define PATCH_MAX_LEN 8

struct patch_site {
	void *addr;
	const uint8_t *expect;
	const uint8_t *repl;
	size_t len;
};

/*
 * Sets up the patcher now: its signal handler and its fork handlers.  A
 * caller that holds a lock of its own around patch calls, and takes it in
 * a pthread_atfork handler too, calls this before registering that handler:
 * fork handlers run in reverse order, so the caller's lock is then taken
 * before the patcher's, the order of every patch call (else a fork during a
 * patch deadlocks).  Returns 0, or -1 with the reason in err.
 */
int patch_init(char *err, size_t errlen);
int patch_text(void *addr, const uint8_t *expect, const uint8_t *repl, size_t len,
	       char *err, size_t errlen);
int patch_text_batch(const struct patch_site *sites, size_t n, char *err, size_t errlen);

/*
 * The same, for a process with no other thread (start-up): sites are
 * checked and written directly, close ones in one write.  Sorts `sites`.
 * A site whose bytes are not `expect` fails the call; sites before it in
 * address order may have been written.
 */
int patch_text_quiescent(struct patch_site *sites, size_t n, char *err, size_t errlen);

/*
 * How text is written and cores are synchronised ("procmem+membarrier",
 * ..., "mprotect+store" on AArch64), decided on the first patch.  In the environment (for tests),
 * OBJPATCH_PATCH_WRITE=mprotect forces the mprotect fallback writer and
 * OBJPATCH_PATCH_SYNC=ipi the fallback core sync.
 */
const char *patch_method(void);

/*
 * The descriptors the patcher keeps open (/proc/self/mem) closed, until the
 * next patch opens them again: a process that objpatch attach left
 * dormant keeps no descriptor of ours.  Call it with no patch running.
 */
void patch_release(void);

/*
 * A signal the patcher's handlers (SIGSEGV, SIGTRAP) pass on to its
 * default action, which ends the process, first goes to fn: the tracing
 * runtime finishes its trace there (objpatch/lib/rt_signals.c).
 */
void patch_before_default(void (*fn)(int sig));

/* Threads that hit a site's temporary int3 and were steered by the handler. */
unsigned long patch_trap_count(void);

#endif
