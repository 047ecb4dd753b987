// SPDX-License-Identifier: GPL-2.0-only
/*
 * The session's channel (attach_stream.h).  A filesystem socket in a
 * private directory, not an abstract one: only the process's owner (and
 * root) can reach it, and objpatch accepts one connection, whose peer it
 * checks to be the process (SO_PEERCRED), then removes both, so nothing
 * is left anywhere and nothing depends on the process's working directory
 * or umask.  Its path is absolute: the runtime connects from wherever the
 * process runs (a process in another mount namespace, a container's, does
 * not see objpatch's /tmp: not handled).
 *
 * The stream is read as it comes (a runtime whose reader is behind makes
 * the process's threads wait) into a file that objpatch reports once the
 * stream ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "objpatch/attach/attach_stream.h"
#include "objpatch/attach/proc.h"
#include "trace/raw.h"

/* The runtime connected during the call that started it: its connection is queued by the time we look. */
#define ACCEPT_MS 5000
/* After asking the runtime to stop: silence this long means it cannot (the process is stopped, say). */
#define STOP_WAIT_MS 15000
/* Silence before objpatch looks whether the process is still there (no pidfd: older kernels). */
#define LOOK_MS 500
/* A recording the runtime finished unasked: its process is exiting, and this long is plenty for that. */
#define EXIT_WAIT_MS 10000
/*
 * --duration counts from the sites' enabling (the "tracing" line), which the
 * session's thread does once the process runs again: on a loaded machine that
 * can take longer than a short duration.  A runtime that never says it began
 * is asked to stop after this long plus the duration.
 */
#define BEGIN_WAIT_MS 15000

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The owner of the process (its effective ids, which the runtime connects with). */
static bool process_owner(pid_t pid, uid_t *uid, gid_t *gid)
{
	char v[128];
	unsigned long r, e;

	if (!proc_status_field(pid, "Uid", v, sizeof(v)) || sscanf(v, "%lu %lu", &r, &e) != 2)
		return false;
	*uid = (uid_t)e;
	if (!proc_status_field(pid, "Gid", v, sizeof(v)) || sscanf(v, "%lu %lu", &r, &e) != 2)
		return false;
	*gid = (gid_t)e;
	return true;
}

/* Root attaching to another user's process: the directory and socket become that user's. */
static int hand_over(struct attach_channel *c, pid_t pid)
{
	uid_t uid;
	gid_t gid;

	if (geteuid() != 0 || !process_owner(pid, &uid, &gid) || uid == 0)
		return 0;
	if (chown(c->path, uid, gid) < 0 || chown(c->dir, uid, gid) < 0) {
		fprintf(stderr, "objpatch attach: %s: chown: %s\n", c->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int channel_open(struct attach_channel *c, pid_t pid)
{
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	mode_t old;
	int rc;

	c->listen_fd = c->fd = -1;
	c->path[0] = 0;
	snprintf(c->dir, sizeof(c->dir), "%s/objpatch-attach.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(c->dir)) {
		fprintf(stderr, "objpatch attach: %s: %s: set TMPDIR to a directory you can write\n", c->dir,
			strerror(errno));
		c->dir[0] = 0;
		return -1;
	}
	if (strlen(c->dir) + 3 > sizeof(a.sun_path)) {
		fprintf(stderr, "objpatch attach: %s: too long for a socket's path: set TMPDIR to a shorter one\n",
			c->dir);
		channel_close(c);
		return -1;
	}
	memcpy(c->path, c->dir, strlen(c->dir));
	memcpy(c->path + strlen(c->dir), "/s", 3);
	memcpy(a.sun_path, c->path, strlen(c->path) + 1);
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	old = umask(0077);
	rc = c->listen_fd < 0 ? -1 : bind(c->listen_fd, (struct sockaddr *)&a, sizeof(a));
	umask(old);
	if (rc < 0 || listen(c->listen_fd, 1) < 0) {
		fprintf(stderr, "objpatch attach: %s: %s\n", c->path, strerror(errno));
		channel_close(c);
		return -1;
	}
	if (hand_over(c, pid) < 0) {
		channel_close(c);
		return -1;
	}
	return 0;
}

/* Gone from the file system: the connection stays. */
static void remove_paths(struct attach_channel *c)
{
	if (c->path[0])
		unlink(c->path);
	if (c->dir[0])
		rmdir(c->dir);
	c->path[0] = c->dir[0] = 0;
}

void channel_close(struct attach_channel *c)
{
	remove_paths(c);
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	if (c->fd >= 0)
		close(c->fd);
	c->listen_fd = c->fd = -1;
}

int channel_accept(struct attach_channel *c, pid_t pid)
{
	struct pollfd p = { .fd = c->listen_fd, .events = POLLIN };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	while (poll(&p, 1, ACCEPT_MS) < 0 && errno == EINTR)
		;
	fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	remove_paths(c);
	close(c->listen_fd);
	c->listen_fd = -1;
	if (fd < 0) {
		fprintf(stderr, "objpatch attach: %d: the runtime did not connect to objpatch's socket (%s)\n", (int)pid,
			strerror(errno));
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid != pid) {
		fprintf(stderr, "objpatch attach: %d: the socket's peer is process %d, not the one attached to\n",
			(int)pid, (int)cred.pid);
		close(fd);
		return -1;
	}
	c->fd = fd;
	return 0;
}

void attach_end_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

/* The session's end signals as they come: the caller blocked them. */
static int signal_fd(void)
{
	sigset_t s;

	attach_end_signals(&s);
	return signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int pid_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

static int copy_out(int out, const char *buf, ssize_t n)
{
	while (n > 0) {
		ssize_t w = write(out, buf, (size_t)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= w;
	}
	return 0;
}

/*
 * Where the stream is, read from the recording as it grows: the records'
 * types say when the runtime has begun (its first clock sample follows
 * its modules, whose sites are patched by then) and when it has ended the
 * recording (the exit instant's counts).
 */
struct progress {
	uint64_t written, next;	/* bytes in the recording; where the next record's head is */
	bool begun, ended, events;	/* events: some thread's call recorded */
	uint64_t begun_ms, asked_bytes;
};

static void follow(int out, struct progress *p)
{
	struct raw_record rec;
	uint16_t header_bytes;

	if (!p->next && p->written >= 22 && pread(out, &header_bytes, 2, 20) == 2)
		p->next = header_bytes;
	while (p->next && p->written >= p->next + sizeof(rec) &&
	       pread(out, &rec, sizeof(rec), (off_t)p->next) == (ssize_t)sizeof(rec)) {
		p->begun |= rec.type == RAW_CLOCK;
		p->ended |= rec.type == RAW_COUNTS;
		p->events |= rec.type == RAW_EVENTS && rec.bytes > sizeof(uint64_t);
		p->next += sizeof(rec) + rec.bytes;
	}
}

/* The stream's next bytes: 1 more to come, 0 at its end, -1 after one line. */
static int read_some(struct attach_channel *c, int out, struct progress *p)
{
	char buf[65536];
	ssize_t n = read(c->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n < 0 && errno != ECONNRESET) {
		fprintf(stderr, "objpatch attach: reading the runtime's stream: %s\n", strerror(errno));
		return -1;
	}
	if (n <= 0)
		return 0;
	if (copy_out(out, buf, n) < 0) {
		fprintf(stderr, "objpatch attach: writing the recording: %s: set TMPDIR to a file system with room\n",
			strerror(errno));
		return -1;
	}
	p->written += (uint64_t)n;
	follow(out, p);
	return 1;
}

/* Asks the runtime to end the session: it sees the end of objpatch's side. */
static void ask_stop(struct attach_channel *c, struct stream_end *e, struct progress *p, uint64_t *deadline)
{
	if (e->asked)
		return;
	e->asked = true;
	p->asked_bytes = p->written;
	if (p->begun)
		e->traced_s = (double)(now_ms() - p->begun_ms) / 1000;
	shutdown(c->fd, SHUT_WR);
	*deadline = now_ms() + STOP_WAIT_MS;
}

/* A signal: the first asks for the end, a second gives up waiting for it. */
static void on_signal(int sfd, struct attach_channel *c, struct stream_end *e, struct progress *p,
		      uint64_t *deadline)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (e->asked) {
			e->abandoned = true;
			return;
		}
		e->signal = (int)si.ssi_signo;
		ask_stop(c, e, p, deadline);
	}
}

/* How long poll() may wait: until the deadline, or a look at the process now and then. */
static int wait_ms(uint64_t deadline, int pidfd)
{
	uint64_t now = now_ms();
	uint64_t left = deadline > now ? deadline - now : 0;

	if (pidfd < 0 && left > LOOK_MS)
		left = LOOK_MS;
	return deadline == UINT64_MAX && pidfd >= 0 ? -1 : (int)left;
}

int channel_stream(struct attach_channel *c, pid_t pid, int out, double seconds, struct stream_end *e)
{
	int sfd = signal_fd(), pidfd = pid_fd(pid), rc = 0;
	uint64_t duration_ms = (uint64_t)(seconds * 1000 + 0.5);
	uint64_t deadline = seconds > 0 ? now_ms() + BEGIN_WAIT_MS + duration_ms : UINT64_MAX;
	struct pollfd p[3] = { { .fd = c->fd, .events = POLLIN }, { .fd = sfd, .events = POLLIN },
			       { .fd = pidfd, .events = POLLIN } };

	struct progress pr = { 0 };
	bool said = false;

	memset(e, 0, sizeof(*e));
	while (!e->complete && !e->abandoned && rc == 0) {
		int n = poll(p, 3, wait_ms(deadline, pidfd));

		if (n < 0 && errno != EINTR) {
			rc = -1;
			fprintf(stderr, "objpatch attach: poll: %s\n", strerror(errno));
		} else if (n > 0 && p[0].revents) {
			int r = read_some(c, out, &pr);

			rc = r < 0 ? -1 : 0;
			e->complete = r == 0;
			if (pr.begun && !said) {
				pr.begun_ms = now_ms();
				/* A script waits for this line to know the sites are enabled. */
				fprintf(stderr, "objpatch attach: %d: tracing; Ctrl-C detaches\n", (int)pid);
				said = true;
				/* The duration is the time traced: it starts now, the sites enabled. */
				if (seconds > 0 && !e->asked)
					deadline = now_ms() + duration_ms;
			}
		} else if (n > 0 && p[1].revents) {
			on_signal(sfd, c, e, &pr, &deadline);
		} else if (n > 0 && p[2].revents) {
			e->exited = true;	/* the stream's end follows: the kernel closes the socket */
			p[2].fd = -1;
		} else if (now_ms() >= deadline) {
			if (e->asked)
				e->abandoned = true;
			else
				ask_stop(c, e, &pr, &deadline);
		} else if (pidfd < 0 && !proc_live_thread(pid)) {
			e->exited = true;
		}
	}
	e->finished = pr.ended;
	e->traced = pr.events;
	e->bytes = pr.written;
	e->drained = e->asked ? pr.written - pr.asked_bytes : 0;
	if (!e->asked && pr.begun)
		e->traced_s = (double)(now_ms() - pr.begun_ms) / 1000;
	/* The exit handler finished it (rt_attach_exit()): the process is on its way out. */
	for (uint64_t until = now_ms() + EXIT_WAIT_MS; !e->exited && e->finished && !e->asked && now_ms() < until;) {
		struct pollfd q = { .fd = pidfd, .events = POLLIN };

		if (pidfd >= 0 ? poll(&q, 1, 100) > 0 : (usleep(10000), !proc_live_thread(pid)))
			e->exited = true;
	}
	if (!e->exited && !proc_live_thread(pid))
		e->exited = true;
	if (sfd >= 0)
		close(sfd);
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}
