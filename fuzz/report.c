// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recording reader (trace/raw.c) and the trace writer behind it, as
 * `objpatch report` runs them: the input is a recording, reported in every
 * format to /dev/null, read from a regular file (whose size bounds every
 * record) and, when it fits in a pipe's buffer, from a pipe (whose size is
 * not known: the reader must not trust a record's claimed size there
 * either).  Besides the sanitizers: the status is 0 or 1, never a crash,
 * and what it prints on standard error (caught in a memory file) is lines
 * of `objpatch report: ...` (or the writer's `objpatch: ...` counts), a
 * failure's last one naming the recording and the byte offset.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz/fuzz.h"
#include "objpatch/engine/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int err_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	err_fd = memfd_create("fuzz-stderr", MFD_CLOEXEC);
	if (err_fd < 0)
		fuzz_fail("memfd_create failed");
	return 0;
}

/* What report wrote to standard error, NUL-terminated, in buf. */
static const char *caught(char *buf, size_t cap)
{
	ssize_t n = pread(err_fd, buf, cap - 1, 0);

	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* Every line is `objpatch report: ...`; after a failure the last names where the recording went wrong. */
static void check_messages(const char *text, int rc, const char *path)
{
	const char *line = text, *last = NULL;

	while (*line) {
		const char *end = strchr(line, '\n');

		if (!end)
			fuzz_fail("a message without its newline: %s", line);
		/* The writer's own counts (lost events) say "objpatch: ", as in a live run. */
		if (strncmp(line, "objpatch report: ", 17) && strncmp(line, "objpatch: ", 10))
			fuzz_fail("a message not from objpatch report: %.*s", (int)(end - line), line);
		last = line;
		line = end + 1;
	}
	if (rc == 1 && (!last || (strncmp(last + 17, path, strlen(path)) && !strstr(last, "out of memory"))))
		fuzz_fail("status 1 with no line naming the recording: %s", last ? last : "(nothing)");
	if (rc == 1 && !strstr(last, ": offset ") && !strstr(last, "out of memory"))
		fuzz_fail("a failure that names no offset: %s", last);
}

static void report(const char *path, const char *format)
{
	char *argv[] = { "objpatch", "report", "--format", (char *)format, "--output", "/dev/null", (char *)path, NULL };
	static char text[1 << 16];
	int rc;

	if (ftruncate(err_fd, 0) < 0 || lseek(err_fd, 0, SEEK_SET) < 0)
		fuzz_fail("cannot reset the caught standard error");
	fuzz_mute(true);
	fflush(stderr);
	dup2(err_fd, 2);
	rc = report_main(7, argv);
	fuzz_mute(false);
	if (rc != 0 && rc != 1)
		fuzz_fail("objpatch report %s exited %d", format, rc);
	check_messages(caught(text, sizeof(text)), rc, path);
}

/* The input through a pipe, when the pipe's buffer holds it whole. */
static void report_pipe(const uint8_t *data, size_t size)
{
	int p[2];
	char path[64];

	if (size > 65536 || pipe2(p, O_CLOEXEC) < 0)
		return;
	if (size && write(p[1], data, size) != (ssize_t)size)
		fuzz_fail("cannot fill the pipe");
	close(p[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	report(path, "text");
	close(p[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "text", "json", "folded" };
	char path[512];

	fuzz_begin(data, size);
	snprintf(path, sizeof(path), "%s", fuzz_scratch_path("rec.data"));
	fuzz_write_file(path, data, size);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		report(path, formats[i]);
	unlink(path);
	report_pipe(data, size);
	fuzz_check_leftovers();
	return 0;
}
