/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Calling a function in a thread of another process that ptrace holds
 * stopped (`objpatch attach`, objpatch/cli/inject.c): what a machine's
 * port gives the generic caller.  The port knows the host's ptrace
 * register sets and the target's calling convention; the caller knows
 * /proc, the threads and the target's memory.
 *
 * A call returns to address 0, so the thread stops with SIGSEGV at pc 0
 * when the function returns: no code is written into the target.
 */
#ifndef ARCH_REMOTE_H
#define ARCH_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REMOTE_GP_WORDS 64
#define REMOTE_EXTRA_MAX 16384
#define REMOTE_ARGS_MAX 4
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
};

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
};

/* This host's port for programs of `machine` and `elfclass`, or NULL. */
const struct remote_port *remote_port_for(uint16_t machine, uint8_t elfclass);

#endif
