// SPDX-License-Identifier: GPL-2.0-only
/*
 * The init of scripts/kernel-series-test.sh's user boot, linked statically
 * into an initramfs with binfmt_misc.ko.  It loads the module, adds all its
 * functions to the graph tracer's filter (":mod:binfmt_misc"), and then makes
 * system calls whose results it knows, printing each on the console:
 *
 *   kernel-series-init: bm_register_write = -22
 *
 * names the function whose return line in the kernel's trace must show that
 * value.  The module's functions prove that the loader loaded their
 * prototype table (patch 4); generic_file_llseek() (the initramfs's ramfs
 * calls it through a pointer, so no compiler inlines it) returning
 * 0x123456789 proves, on 32-bit ARM, that the tracer saw r1 as well as r0
 * (patch 6).  When /probes
 * exists its lines go to kprobe_events (kretprobes on the module's functions,
 * for the comparison with objpatch annotate) before the calls.  Then init
 * returns, the kernel panics, and ftrace_dump_on_oops prints the trace.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TAG "kernel-series-init: "

static int failures;

static void fail(const char *what)
{
	printf(TAG "FAILED: %s: %s\n", what, strerror(errno));
	failures++;
}

/* A system call's result as the kernel returned it: -errno on failure. */
static long long result(long long r)
{
	return r < 0 ? -errno : r;
}

static void report(const char *func, long long value)
{
	printf(TAG "%s = %lld\n", func, value);
	fflush(stdout);
}

/* Writes @text to @path with @flags: write()'s result, or -errno. */
static long long write_file(const char *path, const char *text, int flags)
{
	long long r;
	int fd = open(path, O_WRONLY | flags);

	if (fd < 0) {
		fail(path);
		return -errno;
	}
	r = result(write(fd, text, strlen(text)));
	close(fd);
	return r;
}

static void load_module(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0) != 0)
		fail(path);
	if (fd >= 0)
		close(fd);
}

static void add_probes(void)
{
	char line[256];
	FILE *f = fopen("/probes", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (write_file("/t/kprobe_events", line, O_APPEND) < 0)
			fail(line);
	fclose(f);
	if (write_file("/t/events/kprobes/enable", "1", 0) < 0)
		fail("/t/events/kprobes/enable");
}

/* binfmt_misc: a bad rule, a good one, its status, its removal. */
static void use_binfmt_misc(void)
{
	char status[64];
	int fd;

	if (mkdir("/b", 0755) || mount("binfmt_misc", "/b", "binfmt_misc", 0, NULL)) {
		fail("mount binfmt_misc");
		return;
	}
	report("bm_register_write", write_file("/b/register", ":bad", 0));
	report("bm_register_write", write_file("/b/register", ":objpatch:E::opt::/init:", 0));
	/* bm_status_read: 7.3 reads an entry through seq_read, not the module's own function. */
	fd = open("/b/status", O_RDONLY);
	if (fd < 0) {
		fail("/b/status");
	} else {
		report("bm_status_read", result(read(fd, status, sizeof(status))));
		close(fd);
	}
	report("bm_entry_write", write_file("/b/objpatch", "-1", 0));
	report("bm_status_write", write_file("/b/status", "2", 0));
}

/* 64-bit results: one above 32 bits, one negative. */
static void use_llseek(void)
{
	int fd = open("/f", O_RDWR | O_CREAT, 0600);

	if (fd < 0) {
		fail("/f");
		return;
	}
	report("generic_file_llseek", result(lseek(fd, 0x123456789LL, SEEK_SET)));
	report("generic_file_llseek", result(lseek(fd, -5, SEEK_SET)));
	close(fd);
}

int main(void)
{
	if (mkdir("/t", 0755) || mount("tracefs", "/t", "tracefs", 0, NULL))
		fail("mount tracefs");
	load_module("/binfmt_misc.ko");
	if (write_file("/t/set_ftrace_filter", ":mod:binfmt_misc\n", O_APPEND) < 0)
		fail("/t/set_ftrace_filter");
	add_probes();
	use_binfmt_misc();
	use_llseek();
	printf(TAG "done, %d failures\n", failures);
	fflush(stdout);
	return 0;
}
