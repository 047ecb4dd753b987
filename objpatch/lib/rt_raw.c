// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Raw recordings (OBJPATCH_FORMAT=raw, trace/raw.h): the events as they are
 * in the buffers, for objpatch report, which formats them later, here or
 * on another machine.
 *
 * They are written straight to their file (O_APPEND, one write per record,
 * so records of different threads never interleave): a thread whose chunk
 * fills writes it and reuses it, so a long recording costs a write per
 * 512 KiB of events instead of ever more fresh memory.
 *
 * With each module go its identity and the names and signatures of the
 * functions its sites are in, and with each flush the threads' names: the
 * report needs neither the files as they were nor the process.
 *
 * objpatch attach streams a session's recording to a socket objpatch
 * reads (rt_raw_session_begin): sent with MSG_NOSIGNAL, since a write to
 * a socket whose reader died would otherwise kill the process with
 * SIGPIPE; the descriptor is only used and closed under write_lock, so
 * that no thread ever writes to a number the program has reused since.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "objpatch/lib/rt.h"
#include "trace/raw.h"

static int raw_fd = -1;
static struct stat raw_session_file;	/* the session's socket, told apart from a file of the program's */
static pid_t raw_pid;
static size_t raw_modules_written;
static bool raw_failed;		/* a write failed: the recording is not whole */
static uint64_t clock0[2];	/* ts0, ns0: the clock's first sample */
static atomic_flag write_lock = ATOMIC_FLAG_INIT;	/* a pipe takes big writes in pieces */
static _Atomic uintptr_t write_owner;	/* the thread in raw_record_or_drop() under write_lock */
/* A thread's identity for write_owner without a system call: the address of its copy. */
static __thread char owner_tag __attribute__((tls_model("initial-exec")));
static char *filter_payload;	/* RAW_FILTER's (rt_raw_filter_read) */
static size_t filter_len;

/* A recording that cannot take more now (policy drop: O_NONBLOCK): wait for it. */
static bool wait_writable(void)
{
	struct pollfd p = { .fd = raw_fd, .events = POLLOUT };

	return poll(&p, 1, -1) >= 0 || errno == EINTR;
}

/* objpatch attach's socket: MSG_NOSIGNAL, and a record that may be dropped is not waited for. */
static ssize_t send_iov(struct iovec *iov, int n, bool droppable)
{
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n };

	return sendmsg(raw_fd, &m, MSG_NOSIGNAL | (droppable && runtime.drop ? MSG_DONTWAIT : 0));
}

/*
 * The session's socket could not take a record (objpatch died, or has not
 * read for the socket's send timeout: rt_attach.c): no more is sent, and
 * objpatch, if it still reads, sees the end of the stream.
 */
static void session_broken(void)
{
	raw_failed = true;
	if (rt_raw_session_ours())
		shutdown(raw_fd, SHUT_WR);
}

/*
 * A process objpatch attached to may close descriptors it does not know
 * and give the number to a file or a connection of its own: the
 * session's socket is written to, shut and closed only while its number
 * still names it.
 */
bool rt_raw_session_ours(void)
{
	struct stat st;

	return raw_fd >= 0 && fstat(raw_fd, &st) == 0 && st.st_dev == raw_session_file.st_dev &&
	       st.st_ino == raw_session_file.st_ino;
}

/* false: nothing written, the recording was full and `droppable` */
static bool raw_writev(struct iovec *iov, int n, bool droppable)
{
	while (n > 0) {
		ssize_t w;

		if (rt_attached && (raw_failed || !rt_raw_session_ours())) {
			raw_failed = true;
			return true;
		}
		w = rt_attached ? send_iov(iov, n, droppable) : writev(raw_fd, iov, n);
		if (rt_attached && w < 0 && errno != EINTR && !(errno == EAGAIN && droppable && runtime.drop)) {
			session_broken();
			return true;
		}
		if (w < 0 && errno == EAGAIN && droppable)
			return false;
		droppable = false;	/* begun: the record is finished whole */
		if ((w < 0 && errno == EINTR) || (w < 0 && errno == EAGAIN && wait_writable()))
			continue;
		if (w <= 0) {
			raw_failed = true;
			return true;
		}
		/* A short write (a full disk): finish it, the file stays parseable up to there. */
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return true;
}

static bool raw_record_or_drop(uint32_t type, const void *head, size_t head_len, const void *body,
			       size_t body_len, bool droppable)
{
	static const uint8_t zeros[8];
	size_t pad = (8 - (head_len + body_len) % 8) % 8;
	struct raw_record r = { type, (uint32_t)(head_len + body_len + pad) };
	struct iovec iov[4] = { { &r, sizeof(r) }, { (void *)head, head_len }, { (void *)body, body_len },
				{ (void *)zeros, pad } };
	uintptr_t self = (uintptr_t)&owner_tag;
	bool written;

	/*
	 * This thread holds the lock already: a signal handler interrupted its
	 * record and exits (t/94-stream's SIGHUP).  That record can never be
	 * finished, so none is begun after it; waiting for it spun forever.
	 */
	if (atomic_load_explicit(&write_owner, memory_order_relaxed) == self)
		return !droppable;
	while (atomic_flag_test_and_set_explicit(&write_lock, memory_order_acquire))
		sched_yield();
	atomic_store_explicit(&write_owner, self, memory_order_relaxed);
	/* objpatch attach between sessions: no socket, nothing written (and nothing lost). */
	written = raw_fd < 0 || raw_writev(iov, 4, droppable);
	atomic_store_explicit(&write_owner, 0, memory_order_relaxed);
	atomic_flag_clear_explicit(&write_lock, memory_order_release);
	return written;
}

static void raw_record(uint32_t type, const void *head, size_t head_len, const void *body, size_t body_len)
{
	raw_record_or_drop(type, head, head_len, body, body_len, false);
}

void rt_raw_filter_read(void)
{
	size_t len = 0;
	char *p;

	for (size_t i = 0; i < runtime.nstart_filters; i++)
		len += !runtime.start_filters[i].on + strlen(runtime.start_filters[i].glob) + 1;
	free(filter_payload);
	filter_len = 0;
	/* No pattern: every function, as the runtime traces then. */
	if (!(filter_payload = p = malloc(len ? len : 2)))
		return;
	if (!runtime.nstart_filters)
		memcpy(p, "*", 2);
	for (size_t i = 0; i < runtime.nstart_filters; i++) {
		if (!runtime.start_filters[i].on)
			*p++ = '!';
		p = stpcpy(p, runtime.start_filters[i].glob) + 1;
	}
	filter_len = len ? len : 2;
}

/* What the process is and what it traces: after the header, before any other record. */
static void raw_identity(void)
{
	raw_record(RAW_PROCESS, rt_program_name(), strlen(rt_program_name()) + 1, NULL, 0);
	if (filter_len)
		raw_record(RAW_FILTER, filter_payload, filter_len, NULL, 0);
}

/* Opens this process's recording (a forked child's is FILE.pid); async-signal-safe. */
static int raw_open(void)
{
	struct raw_header h = { .machine = rt_arch_host.desc->machine, .elfclass = rt_arch_host.desc->elfclass,
				.flags = (runtime.errno_names ? RAW_FLAG_ERRNO_NAMES : 0) |
					 (runtime.args && rt_args_supported() ? RAW_FLAG_ARGS : 0),
				.depth = runtime.depth, .pid = (int32_t)getpid() };
	char path[4096];

	if (raw_fd >= 0 && raw_pid == h.pid)
		return 0;
	if (rt_attached)
		return -1;	/* a session's socket comes from rt_raw_session_begin() only */
	if (raw_fd >= 0)
		close(raw_fd);
	raw_pid = h.pid;
	raw_modules_written = 0;
	if (rt_output_path(path, sizeof(path), raw_pid) < 0)
		return raw_fd = -1;
	raw_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | (runtime.drop ? O_NONBLOCK : 0), 0644);
	if (raw_fd < 0)
		return -1;
	raw_header_init(&h, h.machine, h.elfclass, h.flags, h.depth, h.pid);	/* version 3 or, with arguments, 4 */
	if (write(raw_fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		close(raw_fd);
		return raw_fd = -1;
	}
	raw_identity();
	return 0;
}

/* Events in n words. */
static uint64_t count_events(const uint64_t *w, size_t n)
{
	uint64_t events = 0;

	for (size_t i = 0; i < n; i += ev_words(w[i + 1]))
		events++;
	return events;
}

/*
 * A thread's events, written as they are; called by the thread itself
 * when its chunk is full.  With them a sample of the clock: a recording
 * that ends there (the process was killed) still has its time's rate.
 */
uint64_t rt_raw_events(pid_t tid, const uint64_t *w, size_t n)
{
	uint64_t t = (uint64_t)tid, clock[4] = { clock0[0], clock0[1], rt_timestamp(), rt_mono_ns() };

	if (!n || raw_open() < 0)
		return 0;
	if (!raw_record_or_drop(RAW_EVENTS, &t, sizeof(t), w, n * 8, true))
		return count_events(w, n);
	raw_record(RAW_CLOCK, clock, sizeof(clock), NULL, 0);
	return 0;
}

/* The module's file as it was: a report checks the file it reads against it. */
static void raw_module_identity(uint64_t index, const struct rt_module *m)
{
	struct raw_module_id id;
	uint64_t head[4];

	if (!m->file)
		return;
	raw_module_id(m->file, &id);
	head[0] = index;
	head[1] = id.size;
	head[2] = id.mtime_ns;
	head[3] = id.build_id_len;
	raw_record(RAW_MODULE_ID, head, sizeof(head), id.build_id, id.build_id_len);
}

/* An owned buffer of words that grows: a RAW_FUNCTIONS record being built. */
struct words {
	uint64_t *w;
	size_t n, cap;
	bool failed;
};

/* Appends `n1` then `n2` bytes, zero-padded to whole words. */
static void put_bytes(struct words *b, const void *p1, size_t n1, const void *p2, size_t n2)
{
	size_t need = b->n + (n1 + n2 + 7) / 8;

	if (b->failed || need == b->n)
		return;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint64_t *w;

		while (cap < need)
			cap *= 2;
		if (!(w = realloc(b->w, cap * 8))) {
			b->failed = true;
			return;
		}
		b->w = w;
		b->cap = cap;
	}
	b->w[need - 1] = 0;	/* the padding */
	memcpy((char *)(b->w + b->n), p1, n1);
	if (n2)
		memcpy((char *)(b->w + b->n) + n1, p2, n2);
	b->n = need;
}

static void put_function(struct words *b, const struct sym_func *f)
{
	uint64_t len[2] = { strlen(f->name), f->sigtext ? strlen(f->sigtext) : 0 };

	put_bytes(b, len, sizeof(len), NULL, 0);
	put_bytes(b, f->name, len[0], f->sigtext, len[1]);
}

/*
 * The functions the module's sites are in (those its events can name),
 * and which one each site is in: RAW_FUNCTIONS.  Without them the report
 * falls back to the file.
 */
static void raw_module_functions(uint64_t index, struct rt_module *m)
{
	struct words b = { 0 };
	uint32_t *rank = NULL, *order = NULL, used = 0;
	uint64_t head[3] = { index, 0, m->nsites };

	if (rt_module_functions(m) < 0 || !(rank = malloc((m->syms.nfuncs + 1) * sizeof(*rank))) ||
	    !(order = malloc((m->nsites + 1) * sizeof(*order))))
		goto out;
	memset(rank, 0xff, (m->syms.nfuncs + 1) * sizeof(*rank));
	put_bytes(&b, head, sizeof(head), NULL, 0);
	for (size_t i = 0; i < m->nsites; i++) {
		uint32_t fi = m->sites[i].func;
		uint64_t pair[2];

		if (rank[fi] == UINT32_MAX) {
			order[used] = fi;
			rank[fi] = used++;
		}
		pair[0] = m->sites[i].addr;
		pair[1] = rank[fi];
		put_bytes(&b, pair, sizeof(pair), NULL, 0);
	}
	for (uint32_t r = 0; r < used; r++)
		put_function(&b, &m->syms.funcs[order[r]]);
	if (!b.failed) {
		b.w[1] = used;
		raw_record(RAW_FUNCTIONS, b.w, b.n * 8, NULL, 0);
	}
out:
	free(rank);
	free(order);
	free(b.w);
}

static void raw_modules(void)
{
	for (; raw_modules_written < runtime.nmods; raw_modules_written++) {
		const struct rt_module *m = runtime.mods[raw_modules_written];
		uint64_t bias = m->bias;
		char exe[4096];
		ssize_t n;
		const char *path = m->path;

		/* The report runs in another process: name the executable by its path. */
		if (!strcmp(path, "/proc/self/exe") && (n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
			exe[n] = 0;
			path = exe;
		}
		raw_record(RAW_MODULE, &bias, sizeof(bias), path, strlen(path) + 1);
		raw_module_identity(raw_modules_written, m);
		raw_module_functions(raw_modules_written, runtime.mods[raw_modules_written]);
	}
}

/*
 * The recording's start, before any event: its modules and the clock, so
 * that a process killed before its first flush leaves a recording that
 * names its functions (objpatch record appends the events it had not
 * written, trace/slots.h).
 */
void rt_raw_start(uint64_t ts0, uint64_t ns0)
{
	uint64_t clock[4] = { ts0, ns0, rt_timestamp(), rt_mono_ns() };

	clock0[0] = ts0;
	clock0[1] = ns0;
	if (raw_open() < 0)
		return;
	raw_modules();
	raw_record(RAW_CLOCK, clock, sizeof(clock), NULL, 0);
}

/*
 * Everything the threads recorded since they last wrote, and the clock; the
 * final flush ends the recording at the exit instant (RAW_COUNTS' time):
 * what the threads record later is not written (rt_raw_drain).
 */
int rt_raw_flush(bool final, uint64_t ts0, uint64_t ns0)
{
	uint64_t clock[4] = { ts0, ns0, rt_timestamp(), rt_mono_ns() };
	uint64_t counts[4] = { 0, 0, 0, final ? rt_stop() : clock[2] };

	if (raw_open() < 0) {
		if (!rt_attached)
			rt_warn("%s: %s", runtime.output, strerror(errno));
		return -1;
	}
	raw_modules();
	raw_record(RAW_CLOCK, clock, sizeof(clock), NULL, 0);
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		rt_raw_drain(t);
		counts[0] += t->missed_depth;
		counts[1] += t->missed_busy;
		counts[2] += t->lost;
	}
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		uint64_t tid = (uint64_t)t->tid;

		rt_thread_comm(t);
		raw_record(RAW_THREAD, &tid, sizeof(tid), t->comm, strnlen(t->comm, sizeof(t->comm) - 1) + 1);
	}
	if (final)
		raw_record(RAW_COUNTS, counts, sizeof(counts), NULL, 0);
	return raw_failed ? -1 : 0;
}

/* The header raw_open() writes to a file, then the process's name and filter, to the session's socket. */
void rt_raw_session_begin(int fd)
{
	struct raw_header h;
	uint32_t flags = (runtime.errno_names ? RAW_FLAG_ERRNO_NAMES : 0) | (runtime.args && rt_args_supported() ? RAW_FLAG_ARGS : 0);
	struct iovec iov = { &h, sizeof(h) };

	raw_header_init(&h, rt_arch_host.desc->machine, rt_arch_host.desc->elfclass, flags, runtime.depth, (int32_t)getpid());
	while (atomic_flag_test_and_set_explicit(&write_lock, memory_order_acquire))
		sched_yield();
	raw_fd = fd;
	raw_pid = getpid();
	raw_failed = fstat(fd, &raw_session_file) < 0;
	raw_modules_written = 0;
	raw_writev(&iov, 1, false);
	atomic_flag_clear_explicit(&write_lock, memory_order_release);
	raw_identity();
}

void rt_raw_session_end(void)
{
	while (atomic_flag_test_and_set_explicit(&write_lock, memory_order_acquire))
		sched_yield();
	if (rt_raw_session_ours())
		close(raw_fd);
	raw_fd = -1;
	atomic_flag_clear_explicit(&write_lock, memory_order_release);
}

void rt_raw_fork_child(void)
{
	atomic_store(&write_owner, 0);
	atomic_flag_clear(&write_lock);
	rt_raw_session_end();
}

void rt_raw_note(const char *msg)
{
	raw_record(RAW_NOTE, msg, strlen(msg) + 1, NULL, 0);
}

bool rt_raw_failed(void)
{
	return raw_failed;
}
