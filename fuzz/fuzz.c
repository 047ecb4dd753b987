// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sanitizer/common_interface_defs.h>
#include "fuzz/fuzz.h"
#include "tables/tables.h"

/* Bytes a file written by an iteration may have. */
#define FUZZ_MAX_OUTPUT (64 << 20)

static int input_fd = -1;
static char scratch[256];
static char path_buf[320];
static int fds_at_start = -1;
static int devnull = -1, real_stdout = -1, real_stderr = -1;

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fuzz_mute(false);
	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* Entries of a directory other than . and .. (the descriptor readdir uses excluded). */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		fuzz_fail("cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void remove_scratch(void)
{
	DIR *d = opendir(scratch);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(scratch);
}

void fuzz_init(void)
{
	const char *base = getenv("FUZZ_SCRATCH");
	struct stat st;

	if (elf_version(EV_CURRENT) == EV_NONE)
		fuzz_fail("libelf is out of date");
	/*
	 * A section aligned to 2^32 in a 4 KB object makes libelf write 4 GiB
	 * of padding (objcopy makes the same file, sparse): the write must
	 * fail cleanly instead, with EFBIG (SIGXFSZ is ignored in fuzz_begin:
	 * libFuzzer sets its handler after this).
	 */
	if (setrlimit(RLIMIT_FSIZE, &(struct rlimit){ FUZZ_MAX_OUTPUT, FUZZ_MAX_OUTPUT }) < 0)
		fuzz_fail("setrlimit: %s", strerror(errno));
	/* tmpfs when there is one: every iteration writes a file */
	if (!base)
		base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
	snprintf(scratch, sizeof(scratch), "%s/rmc-fuzz.XXXXXX", base);
	if (!mkdtemp(scratch))
		fuzz_fail("cannot create a scratch directory in %s: %s", base, strerror(errno));
	atexit(remove_scratch);
	input_fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (input_fd < 0)
		fuzz_fail("memfd_create: %s", strerror(errno));
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	real_stdout = fcntl(1, F_DUPFD_CLOEXEC, 3);
	real_stderr = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (devnull < 0 || real_stdout < 0 || real_stderr < 0)
		fuzz_fail("cannot duplicate the standard descriptors: %s", strerror(errno));
	__sanitizer_set_report_fd((void *)(intptr_t)real_stderr);
}

void fuzz_mute(bool mute)
{
	if (devnull < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(mute ? devnull : real_stdout, 1);
	dup2(mute ? devnull : real_stderr, 2);
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "we");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		fuzz_fail("cannot write %s", path);
}

unsigned fuzz_begin(const uint8_t *data, size_t size)
{
	signal(SIGXFSZ, SIG_IGN);
	fds_at_start = count_entries("/proc/self/fd");
	return size > FUZZ_OPTION_BYTE ? data[FUZZ_OPTION_BYTE] : 0;
}

int fuzz_load(struct elfobj *obj, const uint8_t *data, size_t size, bool mapped)
{
	size_t done = 0;

	if (ftruncate(input_fd, 0) < 0)
		fuzz_fail("ftruncate: %s", strerror(errno));
	while (done < size) {
		ssize_t n = pwrite(input_fd, data + done, size - done, (off_t)done);

		if (n <= 0)
			fuzz_fail("cannot write the input: %s", strerror(errno));
		done += (size_t)n;
	}
	if (lseek(input_fd, 0, SEEK_SET) < 0)
		fuzz_fail("lseek: %s", strerror(errno));
	return mapped ? elfobj_load_mapped(obj, "input", input_fd) : elfobj_load(obj, "input", input_fd);
}

const char *fuzz_scratch_path(const char *name)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", scratch, name);
	return path_buf;
}

void fuzz_check_leftovers(void)
{
	int fds = count_entries("/proc/self/fd");
	int left = count_entries(scratch);

	if (fds_at_start >= 0 && fds != fds_at_start)
		fuzz_fail("%d descriptors open after the iteration, %d before", fds, fds_at_start);
	if (left)
		fuzz_fail("%d files left in %s", left, scratch);
}

void fuzz_check_error(const struct elfobj *obj)
{
	if (!obj->err[0])
		fuzz_fail("failed without a message");
	if (strchr(obj->err, '\n'))
		fuzz_fail("message of more than one line: %s", obj->err);
}

/*
 * The harnesses that need nothing more than fuzz_init(); one that does
 * defines its own, which the linker takes over this weak one.
 */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	return 0;
}

bool fuzz_has_proto_table(const struct elfobj *obj)
{
	for (size_t i = 1; i < obj->nsec; i++)
		if (strcmp(obj->sec[i].name, PROTO_TABLE) == 0 || strcmp(obj->sec[i].name, PROTO_RET_TABLE) == 0 ||
		    strcmp(obj->sec[i].name, PROTO_STRINGS) == 0)
			return true;
	return false;
}
