// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Opening the user's inputs without blocking, following an output's
 * symlinks, and the temporary files beside an output (files.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/files.h"

#define TEMP_TAG ".rmc-"
#define TEMP_EXT ".tmp"

/*
 * A stream reader's FIFO, as cat opens one: blocking, so that open waits
 * for the writer.  (Opened without blocking and opened again, the first
 * open would let a waiting writer write and go, and its data with it.)
 */
static const char *open_fifo(const char *path, int *fd, struct stat *st)
{
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (f < 0)
		return strerror(errno);
	if (fstat(f, st) < 0 || (!S_ISFIFO(st->st_mode) && !S_ISREG(st->st_mode))) {
		close(f);
		return "not a regular file or FIFO";
	}
	*fd = f;
	return NULL;
}

const char *file_open_input(const char *path, bool allow_fifo, int *fd, struct stat *st)
{
	int flags, f;

	*fd = -1;
	if (allow_fifo && stat(path, st) == 0 && S_ISFIFO(st->st_mode))
		return open_fifo(path, fd, st);
	/* O_NONBLOCK: a FIFO's open(2) would wait for a writer; fstat, not stat first, sees what was opened */
	if ((f = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return strerror(errno);
	if (fstat(f, st) < 0) {
		int err = errno;

		close(f);
		return strerror(err);
	}
	if (!S_ISREG(st->st_mode)) {
		/* a FIFO here only if it replaced a file since the stat above */
		close(f);
		return allow_fifo ? "not a regular file or FIFO" : "not a regular file";
	}
	if ((flags = fcntl(f, F_GETFL)) < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int err = errno;

		close(f);
		return strerror(err);
	}
	*fd = f;
	return NULL;
}

/* The link's target, relative ones from LINK's directory. */
static char *link_target(const char *link)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	const char *slash;
	char *path;

	if (n < 0)
		return NULL;
	buf[n] = 0;
	slash = strrchr(link, '/');
	if (buf[0] == '/' || !slash)
		return strdup(buf);
	if (asprintf(&path, "%.*s/%s", (int)(slash - link), link, buf) < 0)
		return NULL;
	return path;
}

char *file_follow_links(const char *path)
{
	char *p = strdup(path);
	struct stat st;

	/* as the kernel does: at most 40 links */
	for (int hops = 0; p && hops <= 40; hops++) {
		char *next;

		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			return p;	/* a missing file is created there; other errors are the caller's */
		next = link_target(p);
		free(p);
		p = next;
	}
	if (p)
		errno = ELOOP;
	free(p);
	return NULL;
}

/* PATH's directory ("." if none) and base name, split at the last slash. */
static void split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
}

char *file_temp_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *tmp;

	if (asprintf(&tmp, "%.*s." "%s" TEMP_TAG "%d" TEMP_EXT, (int)(base - path), path, base, (int)getpid()) < 0)
		return NULL;
	return tmp;
}

/* The pid in NAME if it is `.BASE.rmc-PID.tmp`, else 0. */
static long temp_pid(const char *name, const char *base)
{
	size_t blen = strlen(base), tlen = strlen(TEMP_TAG);
	const char *digits;
	char *end;
	long pid;

	if (name[0] != '.' || strncmp(name + 1, base, blen) != 0 || strncmp(name + 1 + blen, TEMP_TAG, tlen) != 0)
		return 0;
	digits = name + 1 + blen + tlen;
	if (*digits < '1' || *digits > '9')
		return 0;
	errno = 0;
	pid = strtol(digits, &end, 10);
	if (errno || pid <= 0 || pid > INT_MAX || strcmp(end, TEMP_EXT) != 0)
		return 0;
	return pid;
}

/*
 * Whether PID may still be writing its temporary file: alive (or not ours to
 * signal: EPERM), and not a zombie, which a killed run is until its parent
 * (or init, when strace or a shell died first) reaps it.
 */
static bool pid_may_write(long pid)
{
	char path[64], buf[256], *paren;
	FILE *f;
	bool zombie = false;

	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "re"))) {
		/* "PID (COMM) STATE ...": COMM may hold anything, the state follows its last ')' */
		if (fgets(buf, sizeof(buf), f) && (paren = strrchr(buf, ')')) && paren[1] == ' ')
			zombie = paren[2] == 'Z';
		fclose(f);
	}
	return !zombie;
}

unsigned file_remove_stale_temps(const char *path)
{
	const char *base;
	unsigned removed = 0;
	struct dirent *e;
	char *dir;
	DIR *d;

	split_path(path, &dir, &base);
	if (!dir || !*base || !(d = opendir(dir))) {
		free(dir);
		return 0;
	}
	while ((e = readdir(d))) {
		long pid = temp_pid(e->d_name, base);
		struct stat st;

		/* A live pid may be a run on the same object right now; a reused pid leaves its file to make clean. */
		if (!pid || pid == getpid() || pid_may_write(pid))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			removed += unlinkat(dirfd(d), e->d_name, 0) == 0;
	}
	closedir(d);
	free(dir);
	return removed;
}
