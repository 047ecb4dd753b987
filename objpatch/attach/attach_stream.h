/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * objpatch attach's side of a session (objpatch/lib/rt_attach.c is the
 * runtime's): the socket the runtime connects to, and the raw recording
 * it streams there, read until the session ends.
 */
#ifndef OBJPATCH_ATTACH_ATTACH_STREAM_H
#define OBJPATCH_ATTACH_ATTACH_STREAM_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct attach_channel {
	char dir[PATH_MAX];	/* private: the socket's only */
	char path[PATH_MAX];	/* the listening socket, what the runtime connects to */
	int listen_fd, fd;	/* fd: the runtime's connection, once accepted */
};

/*
 * A listening socket in a new 0700 directory under $TMPDIR or /tmp, both
 * the process's owner's when objpatch runs as root for another user's
 * process; 0, or -1 after one line.
 */
int channel_open(struct attach_channel *c, pid_t pid);
/*
 * The runtime's one connection, checked to come from process `pid`; the
 * socket and its directory removed, whatever happened.  0, or -1 after
 * one line.
 */
int channel_accept(struct attach_channel *c, pid_t pid);
/* The socket and its directory removed, the descriptors closed. */
void channel_close(struct attach_channel *c);

/* How a session's stream ended. */
struct stream_end {
	bool asked;		/* objpatch asked the runtime to stop (a signal, the duration) */
	bool complete;		/* the stream ended (the runtime finished it, or the process is gone) */
	bool abandoned;		/* a second signal, or no end after asking: objpatch stopped reading */
	bool exited;		/* the process is gone */
	bool finished;		/* the recording holds its end (the runtime's final flush) */
	bool traced;		/* the recording holds a call (some event of some thread) */
	int signal;		/* the signal that asked, 0 for none */
	double traced_s;	/* from the sites' enabling to the ask (or the stream's end) */
	uint64_t bytes;		/* the recording's size */
	uint64_t drained;	/* of them, read after objpatch asked: what the process's buffers still held */
};

/*
 * Reads the stream into `out` until it ends: the runtime's session ends
 * when objpatch shuts its side of the socket, which it does on SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT (blocked by the caller, read here) or once `seconds`
 * have passed (0: no limit); the process's exit ends it too.  0, or -1
 * after one line.
 */
int channel_stream(struct attach_channel *c, pid_t pid, int out, double seconds, struct stream_end *e);

/*
 * The signals that end a session: SIGINT, SIGTERM, SIGHUP and SIGQUIT.
 * objpatch blocks them while it holds a process (killed then, it would
 * leave a thread mid-call), and a session reads them from a signalfd.
 */
void attach_end_signals(sigset_t *set);

#endif
