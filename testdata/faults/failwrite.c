// SPDX-License-Identifier: GPL-2.0-only
/*
 * LD_PRELOAD fault injector for t/43-faults.t: makes one of the calls the
 * atomic writer of recordmcount (and the libelf it uses) depends on fail
 * with a chosen errno, the way a full or failing disk would.
 *
 *   FAULT_CALL   mkstemp copy_file_range pwrite write fchmod close rename mmap
 *                pread (the call to fail)
 *   FAULT_ERRNO  ENOSPC, EIO, EDQUOT, EROFS, EPERM or a number (default EIO)
 *   FAULT_SKIP   let this many calls of that kind succeed first (default 0)
 *   FAULT_TIMES  fail this many calls, then let them succeed again (default:
 *                all, as a full disk stays full)
 *   FAULT_BYTES  copy_file_range/pwrite/write: let this many bytes in total be
 *                written first
 *                (the call that crosses the limit writes the part that fits:
 *                a short write, as a disk that fills up gives), then fail
 *   FAULT_LOG    append one line per injected fault to this file, so the
 *                test knows the fault really happened
 *   FAULT_STALL  instead of failing, stop before the first such call: create
 *                $FAULT_STALL.ready, wait until $FAULT_STALL.go exists
 *   FAULT_NO_COPY  copy_file_range fails with EXDEV, as between two file
 *                systems on an older kernel: the writer falls back to pwrite
 *   FAULT_NO_MMAP  mapping an object (a file named *.o) fails with ENODEV, as
 *                on a file system that cannot map: the reader falls back to
 *                pread
 *   FAULT_SHRUNK_MAP=N  an object named FAULT_SHRUNK_NAME is mapped as if
 *                another process had truncated it to N bytes just after:
 *                the pages past N raise SIGBUS (the file is untouched)
 *
 * Only the temporary file counts (its descriptor comes from mkstemp, or from
 * the open that creates `.BASE.rmc-PID.tmp`: FAULT_CALL=mkstemp), except
 * for mmap and pread (the input) and rename (a path).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int temp_fd = -1;
static unsigned long calls;
static unsigned long long bytes_done;

static const char *want(void)
{
	const char *c = getenv("FAULT_CALL");

	return c ? c : "";
}

static unsigned long long env_num(const char *name, unsigned long long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static int fault_errno(void)
{
	static const struct { const char *name; int value; } names[] = {
		{ "ENOSPC", ENOSPC }, { "EIO", EIO }, { "EDQUOT", EDQUOT },
		{ "EROFS", EROFS }, { "EPERM", EPERM },
	};
	const char *v = getenv("FAULT_ERRNO");

	if (!v || !*v)
		return EIO;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i].name) == 0)
			return names[i].value;
	return atoi(v);
}

static void log_fault(const char *call, int err)
{
	const char *path = getenv("FAULT_LOG");
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%s %d\n", call, err);
	fclose(f);
}

/* Waits for the test's go-ahead; for racing a replacement against the tool. */
static void stall(void)
{
	const char *base = getenv("FAULT_STALL");
	char ready[4096], go[4096];
	struct timespec ms = { 0, 1000000 };
	int fd;

	snprintf(ready, sizeof(ready), "%s.ready", base);
	snprintf(go, sizeof(go), "%s.go", base);
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 20000 && access(go, F_OK) != 0; i++)
		nanosleep(&ms, NULL);
}

/*
 * Whether this call of CALL (on descriptor FD, -2 when it has none) is the
 * one to act on.  A stall happens once and lets the call through.
 */
static int hit(const char *call, int fd)
{
	static int stalled;

	if (strcmp(want(), call) != 0 || (fd != -2 && fd != temp_fd))
		return 0;
	if (getenv("FAULT_STALL")) {
		if (!stalled++)
			stall();
		return 0;
	}
	if (calls++ < env_num("FAULT_SKIP", 0))
		return 0;
	return calls - env_num("FAULT_SKIP", 0) <= env_num("FAULT_TIMES", ~0ULL);
}

static int inject(const char *call)
{
	int err = fault_errno();

	log_fault(call, err);
	errno = err;
	return -1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int mkstemp(char *tmpl)
{
	int fd;

	if (hit("mkstemp", -2))
		return inject("mkstemp");
	fd = REAL(mkstemp)(tmpl);
	if (fd >= 0)
		temp_fd = fd;
	return fd;
}

/*
 * The temporary file `.BASE.rmc-PID.tmp` is made by open(O_CREAT | O_EXCL)
 * (elf/files.h): for the test, that is the step still called "mkstemp".
 */
static bool is_temp_create(const char *path, int flags)
{
	return (flags & O_CREAT) && (flags & O_EXCL) && strstr(path, ".rmc-") && strstr(path, ".tmp");
}

static int open_temp(int (*real)(const char *, int, ...), const char *path, int flags, mode_t mode)
{
	int fd;

	if (!is_temp_create(path, flags))
		return real(path, flags, mode);
	if (hit("mkstemp", -2))
		return inject("mkstemp");
	fd = real(path, flags, mode);
	if (fd >= 0)
		temp_fd = fd;
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	return open_temp(REAL(open), path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & O_CREAT) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	return open_temp(REAL(open64), path, flags, mode);
}

/* A write of up to N bytes under the FAULT_BYTES budget; -1 when it is spent. */
static ssize_t budgeted(const char *call, int fd, size_t n, size_t *allowed)
{
	unsigned long long limit;

	*allowed = n;
	if (strcmp(want(), call) != 0 || fd != temp_fd || !getenv("FAULT_BYTES"))
		return 0;
	limit = env_num("FAULT_BYTES", 0);
	if (bytes_done >= limit && n > 0)
		return inject(call);
	if (bytes_done + n > limit)
		*allowed = (size_t)(limit - bytes_done);
	return 0;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	size_t allowed;
	ssize_t r;

	if (!getenv("FAULT_BYTES") && hit("pwrite", fd))
		return inject("pwrite");
	if (budgeted("pwrite", fd, n, &allowed) < 0)
		return -1;
	r = REAL(pwrite)(fd, buf, allowed, off);
	if (r > 0 && fd == temp_fd)
		bytes_done += (unsigned long long)r;
	return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	size_t allowed;
	ssize_t r;

	if (!getenv("FAULT_BYTES") && hit("write", fd))
		return inject("write");
	if (budgeted("write", fd, n, &allowed) < 0)
		return -1;
	r = REAL(write)(fd, buf, allowed);
	if (r > 0 && fd == temp_fd)
		bytes_done += (unsigned long long)r;
	return r;
}

/* Whether FD's path ends in NAME. */
static bool named(int fd, const char *name)
{
	char link[64], path[4096];
	ssize_t n;
	size_t len = strlen(name);

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	return n >= (ssize_t)len && memcmp(path + n - len, name, len) == 0;
}

/* A copy of the first N bytes of FD, mapped LEN long: what a truncation leaves. */
static void *shrunk_map(size_t len, int prot, int flags, int fd, off_t off, size_t n)
{
	int mem = memfd_create("shrunk", 0);
	char buf[4096];
	void *p = MAP_FAILED;

	for (size_t done = 0; mem >= 0 && done < n;) {
		ssize_t r = REAL(pread)(fd, buf, n - done < sizeof(buf) ? n - done : sizeof(buf), (off_t)done);

		if (r <= 0 || write(mem, buf, (size_t)r) != r)
			goto out;
		done += (size_t)r;
	}
	if (mem >= 0)
		p = REAL(mmap)(NULL, len, prot, flags, mem, off);
out:
	if (mem >= 0)
		REAL(close)(mem);
	return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const char *shrunk = getenv("FAULT_SHRUNK_NAME");

	if (fd >= 0 && named(fd, ".o")) {	/* an object, not the memfd the DWARF reader maps */
		if (getenv("FAULT_NO_MMAP"))
			return errno = ENODEV, MAP_FAILED;
		if (hit("mmap", -2))
			return inject("mmap"), MAP_FAILED;
		if (shrunk && named(fd, shrunk)) {
			log_fault("shrunk_map", 0);
			return shrunk_map(len, prot, flags, fd, off, env_num("FAULT_SHRUNK_MAP", 0));
		}
	}
	return REAL(mmap)(addr, len, prot, flags, fd, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return hit("pread", -2) ? inject("pread") : REAL(pread)(fd, buf, n, off);
}

ssize_t copy_file_range(int in, loff_t *in_off, int out, loff_t *out_off, size_t n, unsigned int flags)
{
	size_t allowed;
	ssize_t r;

	if (out == temp_fd && getenv("FAULT_NO_COPY"))
		return errno = EXDEV, -1;
	if (!getenv("FAULT_BYTES") && hit("copy_file_range", out))
		return inject("copy_file_range");
	if (budgeted("copy_file_range", out, n, &allowed) < 0)
		return -1;
	r = REAL(copy_file_range)(in, in_off, out, out_off, allowed, flags);
	if (r > 0 && out == temp_fd)
		bytes_done += (unsigned long long)r;
	return r;
}

int fchmod(int fd, mode_t mode)
{
	return hit("fchmod", fd) ? inject("fchmod") : REAL(fchmod)(fd, mode);
}

int close(int fd)
{
	int r;

	if (hit("close", fd)) {
		/* As NFS does: the descriptor is gone, the error reported. */
		REAL(close)(fd);
		temp_fd = -1;
		return inject("close");
	}
	r = REAL(close)(fd);
	if (fd == temp_fd)
		temp_fd = -1;
	return r;
}

int rename(const char *from, const char *to)
{
	return hit("rename", -2) ? inject("rename") : REAL(rename)(from, to);
}
