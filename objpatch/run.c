// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch run: starts a program with the tracing runtime preloaded and
 * the settings in its environment (the runtime reads them at start-up, see
 * man/libobjpatch.3), and exits as the program did.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: objpatch run [--filter GLOB]... [--output FILE] [--format text|json|folded]\n"
		   "                    [--hex] [--depth N] [--lib LIBOBJPATCH] -- PROGRAM [ARGS...]\n"
		   "Traces PROGRAM's functions (every one without --filter; '!GLOB' excludes).\n");
}

/* libobjpatch.so beside this binary (the build tree) or in ../lib (an installation). */
static int find_runtime(char *out, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	static const char *const where[] = { "/libobjpatch.so", "/../lib/libobjpatch.so" };

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if (strlen(self) + strlen(where[i]) >= len)
			continue;
		strcpy(out, self);
		strcat(out, where[i]);
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

static int append_env(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name);
	char *v;
	int rc;

	if (!old || !*old)
		return setenv(name, value, 1);
	if (asprintf(&v, "%s%s%s", value, sep, old) < 0)
		return -1;
	rc = setenv(name, v, 1);
	free(v);
	return rc;
}

struct run_opts {
	char *filter;
	const char *output, *format, *lib, *depth;
	bool hex;
};

static int add_filter(struct run_opts *o, const char *glob)
{
	char *f;

	if (strchr(glob, ',')) {
		fprintf(stderr, "objpatch run: --filter %s: a pattern cannot hold ','\n", glob);
		return -1;
	}
	if (asprintf(&f, "%s%s%s", o->filter ? o->filter : "", o->filter ? "," : "", glob) < 0)
		return -1;
	free(o->filter);
	o->filter = f;
	return 0;
}

/* Returns the index of PROGRAM in argv, or -1 after a message. */
static int parse(int argc, char **argv, struct run_opts *o)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--"))
			return i + 1 < argc ? i + 1 : -1;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--hex")) {
			o->hex = true;
			continue;
		}
		if (a[0] != '-')
			return i;
		if (!v) {
			fprintf(stderr, "objpatch run: %s needs a value\n", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--filter")) {
			if (add_filter(o, v) < 0)
				return -1;
		} else if (!strcmp(a, "--output")) {
			o->output = v;
		} else if (!strcmp(a, "--format")) {
			if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "folded")) {
				fprintf(stderr, "objpatch run: --format %s: not text, json or folded\n", v);
				return -1;
			}
			o->format = v;
		} else if (!strcmp(a, "--lib")) {
			o->lib = v;
		} else if (!strcmp(a, "--depth")) {
			o->depth = v;
		} else {
			fprintf(stderr, "objpatch run: unknown option %s\n", a);
			return -1;
		}
	}
	return -1;
}

static int set_environment(const struct run_opts *o)
{
	char lib[PATH_MAX], out[PATH_MAX];

	if (o->lib) {
		if (!realpath(o->lib, lib)) {
			fprintf(stderr, "objpatch run: %s: %s\n", o->lib, strerror(errno));
			return -1;
		}
	} else if (find_runtime(lib, sizeof(lib)) < 0) {
		fprintf(stderr, "objpatch run: libobjpatch.so not found beside objpatch; use --lib\n");
		return -1;
	}
	/* The program may change directory: the output's path must not depend on it. */
	if (o->output && o->output[0] != '/') {
		if (!getcwd(out, sizeof(out)) || strlen(out) + strlen(o->output) + 2 > sizeof(out))
			return -1;
		strcat(out, "/");
		strcat(out, o->output);
	} else if (o->output) {
		snprintf(out, sizeof(out), "%s", o->output);
	}
	if (append_env("LD_PRELOAD", lib, ":") || setenv("OBJPATCH_FILTER", o->filter ? o->filter : "*", 1) ||
	    (o->output && setenv("OBJPATCH_OUTPUT", out, 1)) ||
	    (o->format && setenv("OBJPATCH_FORMAT", o->format, 1)) || (o->hex && setenv("OBJPATCH_HEX", "1", 1)) ||
	    (o->depth && setenv("OBJPATCH_DEPTH", o->depth, 1))) {
		perror("objpatch run: setenv");
		return -1;
	}
	return 0;
}

int run_main(int argc, char **argv)
{
	struct run_opts o = { 0 };
	int prog = parse(argc, argv, &o), status;
	pid_t pid;

	if (prog < 0) {
		run_usage(stderr);
		free(o.filter);
		return 2;
	}
	if (set_environment(&o) < 0) {
		free(o.filter);
		return 2;
	}
	free(o.filter);
	pid = fork();
	if (pid < 0) {
		perror("objpatch run: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[prog], argv + prog);
		fprintf(stderr, "objpatch run: %s: %s\n", argv[prog], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("objpatch run: waitpid");
			return 2;
		}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "objpatch run: %s: killed by signal %d\n", argv[prog], WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
