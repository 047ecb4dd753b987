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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "objpatch/lib/rt.h"
#include "trace/raw.h"

static int raw_fd = -1;
static pid_t raw_pid;
static size_t raw_modules_written;

static void raw_writev(struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(raw_fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
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
}

static void raw_record(uint32_t type, const void *head, size_t head_len, const void *body, size_t body_len)
{
	static const uint8_t zeros[8];
	size_t pad = (8 - (head_len + body_len) % 8) % 8;
	struct raw_record r = { type, (uint32_t)(head_len + body_len + pad) };
	struct iovec iov[4] = { { &r, sizeof(r) }, { (void *)head, head_len }, { (void *)body, body_len },
				{ (void *)zeros, pad } };

	raw_writev(iov, 4);
}

/* Opens this process's recording (a forked child's is FILE.pid); async-signal-safe. */
static int raw_open(void)
{
	struct raw_header h = { .machine = rt_arch_host.desc->machine, .elfclass = rt_arch_host.desc->elfclass,
				.depth = rt.depth, .pid = (int32_t)getpid() };
	char path[4096];

	if (raw_fd >= 0 && raw_pid == h.pid)
		return 0;
	if (raw_fd >= 0)
		close(raw_fd);
	raw_pid = h.pid;
	raw_modules_written = 0;
	if (rt_output_path(path, sizeof(path), raw_pid) < 0)
		return raw_fd = -1;
	raw_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (raw_fd < 0)
		return -1;
	memcpy(h.magic, RAW_MAGIC, sizeof(h.magic));
	if (write(raw_fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		close(raw_fd);
		return raw_fd = -1;
	}
	return 0;
}

/* A thread's events, written as they are; called by the thread itself when its chunk is full. */
void rt_raw_events(pid_t tid, const uint64_t *w, size_t n)
{
	uint64_t t = (uint64_t)tid;

	if (n && raw_open() == 0)
		raw_record(RAW_EVENTS, &t, sizeof(t), w, n * 8);
}

static void raw_modules(void)
{
	for (; raw_modules_written < rt.nmods; raw_modules_written++) {
		const struct rt_module *m = rt.mods[raw_modules_written];
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
	}
}

/* Everything the threads recorded since they last wrote, and the clock. */
int rt_raw_flush(bool final, uint64_t ts0, uint64_t ns0)
{
	uint64_t clock[4] = { ts0, ns0, rt_timestamp(), rt_mono_ns() };
	uint64_t counts[4] = { 0, 0, 0, clock[2] };

	if (raw_open() < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", rt.output, strerror(errno));
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
	if (final)
		raw_record(RAW_COUNTS, counts, sizeof(counts), NULL, 0);
	return 0;
}
