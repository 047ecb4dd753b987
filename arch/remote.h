/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Calling a function in a thread of another process that ptrace holds
 * stopped (`objpatch attach`, objpatch/attach/inject.c): what a machine's
 * port gives the generic caller.  The port knows the host's ptrace
 * register sets and the target's calling convention; the caller knows
 * /proc, the threads and the target's memory.
 *
 * A call returns to address 0, so the thread stops with SIGSEGV at pc 0
 * when the function returns; or, where the port has a signal frame
 * (sigframe), into code that restores the thread by itself (rt_sigreturn),
 * so that a tracer killed at any instant leaves the target whole.
 */
#ifndef ARCH_REMOTE_H
#define ARCH_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REMOTE_GP_WORDS 64
#define REMOTE_EXTRA_MAX 16384
#define REMOTE_ARGS_MAX 6
/* The most bytes a port writes below the data for a call's frame. */
#define REMOTE_FRAME_MAX 64

/*
 * Everything of a thread a call may change: the host's ptrace general
 * registers, and the rest (x87, vector registers), which the called code
 * uses freely and the interrupted code expects back.
 */
struct remote_state {
	uint64_t gp[REMOTE_GP_WORDS];
	size_t extra_len;
	unsigned extra_kind;	/* the port's: which register set extra holds */
	uint8_t extra[REMOTE_EXTRA_MAX];
};

struct remote_call {
	uint64_t fn;
	uint64_t args[REMOTE_ARGS_MAX];
	unsigned nargs;
	uint64_t below;		/* the frame goes below this address (data lies above it) */
	uint64_t ret;		/* where the call returns: 0 (a SIGSEGV stop), or a restore stub's address */
};

/* The most bytes a port's signal frame takes (arch/remote.h's sigframe). */
#define REMOTE_SIGFRAME_MAX (REMOTE_EXTRA_MAX + 1024)
/* The most bytes of a port's restore stub. */
#define REMOTE_STUB_MAX 64

struct remote_port {
	const char *name;	/* arch/machines.h's name: "x86_64" */
	uint16_t machine;	/* EM_* */
	uint8_t elfclass;
	unsigned word;		/* bytes of a pointer in the target */
	unsigned red_zone;	/* bytes below the stack pointer that the interrupted code may use */
	/* 0, or -1 with errno set. */
	int (*save)(pid_t tid, struct remote_state *s);
	int (*restore)(pid_t tid, const struct remote_state *s);
	uint64_t (*pc)(const struct remote_state *s);
	uint64_t (*sp)(const struct remote_state *s);
	uint64_t (*retval)(const struct remote_state *s);
	/*
	 * The registers for c->fn(c->args) returning to 0, from the thread's
	 * own; the words of the frame (return address, stack arguments) are
	 * put in `frame` (REMOTE_FRAME_MAX bytes), to be written at *frame_at.
	 * Returns the frame's size.
	 */
	size_t (*prepare)(struct remote_state *s, const struct remote_call *c, uint8_t *frame, uint64_t *frame_at);
	/*
	 * Calls that leave no state behind if objpatch dies during them (NULL
	 * where the port has none): a call returns into a stub that restores
	 * `s`, the thread's own state, through rt_sigreturn from a signal frame
	 * below `below`.  sigframe(): the frame's bytes in buf, to be written
	 * at *at, which is also the call's `below`; its size, 0 if it does not
	 * fit.  A system call the thread was in is rewound to restart, as the
	 * kernel does for a signal handler's frame.
	 */
	size_t (*sigframe)(const struct remote_state *s, uint64_t sigmask, uint64_t below, uint8_t *buf, size_t cap,
			   uint64_t *at);
	/*
	 * The stub's code in `code`: keeps the returned value at the stack
	 * pointer's word below (the return address's slot), writes `value` at
	 * `addr` (environ back), then rt_sigreturn.  Its size.
	 */
	size_t (*stub)(uint64_t addr, uint64_t value, uint8_t *code);
	/*
	 * The same stub that first sends signal `sig` to thread `tid` of
	 * process `tgid` (tgkill), just before rt_sigreturn: a tracer that
	 * runs the call with PTRACE_CONT sees the call's end as that signal's
	 * stop, at *signal_end (the offset in the stub after tgkill), instead
	 * of a stop at every system call.  NULL where the port has none.
	 */
	size_t (*stub_signal)(uint64_t addr, uint64_t value, int tgid, int tid, int sig, uint8_t *code,
			      size_t *signal_end);
	/* The call's entry code in `code`: writes `value` at `addr` (environ swapped), then jumps to fn.  Its size. */
	size_t (*entry)(uint64_t addr, uint64_t value, uint64_t fn, uint8_t *code);
	/* At a system call's entry stop, the number that makes the thread go on as `s` (-1: none). */
	long (*restart_nr)(const struct remote_state *s);
	/* The bytes of libc's signal-return code (mov $NR, ax; syscall): a stub without the two first steps. */
	const uint8_t *sigreturn_code;
	size_t sigreturn_len;
	long sigreturn_nr;	/* rt_sigreturn's system call number */
	/* The system call a thread stopped at (orig ax, -1 for none), and to set it. */
	long (*syscall_nr)(const struct remote_state *s);
	void (*set_syscall_nr)(struct remote_state *s, long nr);
};

/* This host's port for programs of `machine` and `elfclass`, or NULL. */
const struct remote_port *remote_port_for(uint16_t machine, uint8_t elfclass);

#endif
