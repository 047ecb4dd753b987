/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Holding a running process with ptrace and calling functions in one of
 * its threads (objpatch attach): every thread stopped, one borrowed for
 * calls, then all let go as they were.
 */
#ifndef OBJPATCH_ATTACH_INJECT_H
#define OBJPATCH_ATTACH_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "arch/remote.h"

#define INJECT_SIGS_MAX 8
/* Steps of a hold that attach -v names, with their times. */
#define INJECT_STEPS_MAX 10

struct inject_thread {
	pid_t tid;
	bool gone;		/* exited while held */
	bool signal_stop;	/* in a signal-delivery-stop: sigs[0] is its signal */
	int sigs[INJECT_SIGS_MAX];	/* signals held back, handed back at the detach */
	unsigned nsigs;
};

struct inject {
	pid_t pid;
	const struct remote_port *port;
	int mem;		/* /proc/PID/mem */
	struct inject_thread *t;
	size_t n, cap;
	char err[1024];
	int errnum;		/* errno of the call that failed (EPERM: ptrace refused; ESRCH: a refusal) */
	pid_t failed_tid;	/* the thread PTRACE_SEIZE refused, 0 if none */
	bool group_stop;	/* a thread was in a group-stop: the process is stopped */
	/*
	 * Calls that objpatch killed at any instant leaves the process whole
	 * after (the port's sigframe): libc's rt_sigreturn code, and a page of
	 * the process for the entry and return code (0: not mapped yet).
	 */
	uint64_t sigreturn, mmap_fn, munmap_fn, page;
	size_t page_thread;
	/* The word a call's entry writes and its return writes back (environ), 0 addr: none. */
	uint64_t swap_addr, swap_new, swap_old;
	uint64_t held_ns;	/* CLOCK_MONOTONIC when the first thread was seized; at the detach, how long it held */
	/* Where the hold went: each step's name and length, in order (inject_step()). */
	struct { const char *what; uint64_t ns; } steps[INJECT_STEPS_MAX];
	size_t nsteps;
	uint64_t step_ns;	/* CLOCK_MONOTONIC at the end of the last step */
	bool chld_blocked, chld_ignored;	/* SIGCHLD as objpatch had it before the hold */
	bool no_syscall_info;	/* the kernel has no PTRACE_GET_SYSCALL_INFO: the port's registers instead */
	/*
	 * The call being made joins pads: only safe while every other thread
	 * stays stopped, so it never shares the process (wait_call()).
	 */
	bool alone;
};

/* An address range (a function's code) a borrowed thread should not be inside. */
struct inject_range {
	uint64_t lo, hi;
};

/*
 * Stops every thread of `pid`: -1 with in->err and in->errnum set
 * (nothing held then).
 */
int inject_stop(struct inject *in, pid_t pid, const struct remote_port *port);

/*
 * The thread to borrow: one whose pc and the top of whose stack hold no
 * address of `avoid` (it is not inside malloc or the loader, whose locks
 * the call would need), at a moment when no thread is inside: the
 * process is let run for a moment and stopped again until then, or for
 * a bounded number of rounds.  -1 with in->err set on failure.
 */
ssize_t inject_pick(struct inject *in, const struct inject_range *avoid, size_t navoid);

/* Where a thread must not be while pads are joined: `len`-byte places at the sorted `at`, and code. */
struct inject_places {
	const uint64_t *at;
	size_t n;
	unsigned len;
	const struct inject_range *avoid;
	size_t navoid;
	uint64_t forking;	/* the address of an int counting the threads inside fork() (0: none) */
};

/*
 * Lets the process run for a moment and holds it again until no thread's
 * pc is inside one of the places (a pad of several NOPs about to become
 * one instruction) and none is inside the code to avoid (whose locks the
 * call would wait for), for a bounded number of rounds: the thread to
 * borrow then, or -1 with in->err set.
 */
ssize_t inject_settle(struct inject *in, const struct inject_places *p);

/* How long threads inside fork() are waited for, in all (they run meanwhile). */
#define INJECT_FORK_WAIT_MS 10000

/*
 * Lets every held thread run a while (longer as `round` grows), and on
 * while the int at address `forking` (0: none) is not 0, until `deadline`
 * (inject_now_ms()'s clock); then holds them again: 0, or -1 with in->err
 * set.
 */
int inject_let_run(struct inject *in, int round, uint64_t forking, uint64_t deadline);

uint64_t inject_now_ms(void);

/* The step `what` of the hold ends now (from the end of the one before): attach -v prints them. */
void inject_step(struct inject *in, const char *what);

int inject_read(struct inject *in, uint64_t addr, void *buf, size_t len);
int inject_write(struct inject *in, uint64_t addr, const void *buf, size_t len);
/* A pointer-sized word of the target. */
int inject_read_word(struct inject *in, uint64_t addr, uint64_t *v);
int inject_write_word(struct inject *in, uint64_t addr, uint64_t v);

/* The lowest stack address the interrupted code of thread `i` may use: data for a call goes below. */
int inject_stack_top(struct inject *in, size_t i, uint64_t *top);

/*
 * fn(args...) in thread i, its frame below `below`; its value in *ret.
 * The thread's registers are put back as they were, whatever happens.
 * `what` names the function in messages.
 */
int inject_call(struct inject *in, size_t i, const char *what, const struct remote_call *c, uint64_t *ret);

/*
 * Where libc's rt_sigreturn code (the port's sigreturn_code), mmap and
 * munmap are in the process: calls from then on are safe from objpatch's
 * death (0 for any: calls return to address 0, as before).
 */
void inject_safe_calls(struct inject *in, uint64_t sigreturn, uint64_t mmap_fn, uint64_t munmap_fn);

/* Lets every thread go as it was (signals held back handed back); closes in. */
void inject_detach(struct inject *in);

#endif
