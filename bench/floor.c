// SPDX-License-Identifier: GPL-2.0-only
/*
 * What any in-place object rewriter costs before it does any work, for
 * bench/kernel-corpus.sh to show beside the tools (built statically, as
 * recordmcount is):
 *
 *   floor exec FILE...   nothing: the cost of starting a process
 *   floor copy FILE...   each file copied to a temporary file in its
 *                        directory (copy_file_range) and renamed over it:
 *                        the file system's part of an atomic rewrite
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_over(const char *path)
{
	char tmp[4096];
	struct stat st;
	int in = open(path, O_RDONLY | O_CLOEXEC), out;
	off_t done = 0;

	if (in < 0 || fstat(in, &st) < 0)
		return perror(path), -1;
	snprintf(tmp, sizeof(tmp), "%s.floor.tmp", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		return perror(tmp), close(in), -1;
	while (done < st.st_size) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)(st.st_size - done), 0);

		if (n <= 0)
			return perror(path), close(in), close(out), unlink(tmp), -1;
		done += n;
	}
	close(in);
	if (fchmod(out, st.st_mode & 07777) < 0 || close(out) < 0 || rename(tmp, path) < 0)
		return perror(tmp), unlink(tmp), -1;
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2 || (strcmp(argv[1], "exec") && strcmp(argv[1], "copy"))) {
		fprintf(stderr, "usage: floor exec|copy FILE...\n");
		return 2;
	}
	if (strcmp(argv[1], "copy") == 0)
		for (int i = 2; i < argc; i++)
			rc |= copy_over(argv[i]) < 0;
	return rc;
}
