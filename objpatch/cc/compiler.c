// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding the real compiler and running it: directly (posix_spawn, no
 * shell), since a build runs the wrapper once per object.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "objpatch/cc/compiler.h"

extern char **environ;
bool cc_verbose;

static const char *const launchers[] = { "ccache", "distcc", "sccache", "icecc" };

bool is_launcher(const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (strcmp(base, launchers[i]) == 0)
			return true;
	return false;
}

bool compiler_is_clang(const char *path, const char *name)
{
	char *real = realpath(path, NULL);
	bool clang = strstr(name, "clang") || (real && strstr(strrchr(real, '/'), "clang"));

	free(real);
	return clang;
}

/*
 * A directory of links named gcc, cc... to objpatch-cc in front of PATH
 * (ccache's way) must not find the wrapper again: compare the files.
 */
static bool is_self(const char *path, const struct stat *self)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == self->st_dev && st.st_ino == self->st_ino;
}

char *find_compiler(const char *name)
{
	const char *path = getenv("PATH");
	struct stat self;
	bool have_self = stat("/proc/self/exe", &self) == 0;
	char buf[PATH_MAX];

	if (strchr(name, '/')) {
		if (access(name, X_OK) == 0 && !(have_self && is_self(name, &self)))
			return strdup(name);
		fprintf(stderr, "objpatch-cc: %s: %s: name the real compiler (CC='objpatch-cc gcc')\n", name,
			access(name, X_OK) == 0 ? "is objpatch-cc itself" : strerror(errno));
		return NULL;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; ; ) {
		const char *end = strchrnul(p, ':');
		int len = (int)(end - p);

		snprintf(buf, sizeof(buf), "%.*s/%s", len, len ? p : ".", name);
		if (access(buf, X_OK) == 0 && !(have_self && is_self(buf, &self)))
			return strdup(buf);
		if (!*end)
			break;
		p = end + 1;
	}
	fprintf(stderr, "objpatch-cc: %s: no such compiler in PATH (other than objpatch-cc): install it, or name "
		"the compiler first (CC='objpatch-cc gcc')\n", name);
	return NULL;
}

static void show(char *const argv[])
{
	fputs("objpatch-cc:", stderr);
	for (size_t i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

int run_wait(char *const argv[])
{
	pid_t pid;
	int status, err;

	if (cc_verbose)
		show(argv);
	err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
	if (err) {
		fprintf(stderr, "objpatch-cc: %s: %s\n", argv[0], strerror(err));
		return 127;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_exec(char *const argv[])
{
	if (cc_verbose)
		show(argv);
	execv(argv[0], argv);
	fprintf(stderr, "objpatch-cc: %s: %s\n", argv[0], strerror(errno));
	return 127;
}
