// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run one command once, for the runtime benchmark (bench/runtime.sh).
 *
 *   runit [-e NAME=VALUE]... [-o FILE] -- PROG [ARG...]
 *
 * Prints one tab-separated line: wall time, CPU time (user + system), the
 * system part of it, all in nanoseconds; maximum resident set in KiB; exit
 * status (128+signal when killed); start-to-main in nanoseconds, or -1.
 *
 * CPU time is what wait4 reports: the child and every descendant it waited
 * for, all threads included, so a tracer's recorder threads and processes
 * count.  Start-to-main is the time from just before the spawn to the
 * CLOCK_MONOTONIC value that a benchmark program prints as "main_ns=N" on
 * standard output first thing in main: it includes what a tracer does
 * before main (loading, patching) and nothing after.
 *
 * -e sets a variable for the child only, so that an LD_PRELOAD meant for
 * the measured program does not load into this launcher.  The child's
 * standard error is ours; its standard output comes through a pipe and,
 * apart from the main_ns line, goes to our standard error: the measurement
 * line stays alone on standard output.  With -o, the child's standard
 * output goes straight to FILE instead (for a tool that formats a trace
 * there, so that no pipe and no copy of ours is part of what it costs); no
 * start-to-main is read then.
 */
#include <fcntl.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

/* The environment with the -e settings replacing variables of the same name. */
static char **child_env(char **set, int nset)
{
	int n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc((size_t)(n + nset + 1), sizeof(*env));
	if (!env)
		return NULL;
	for (int i = 0; i < n; i++) {
		int replaced = 0;

		for (int j = 0; j < nset && !replaced; j++) {
			size_t len = (size_t)(strchr(set[j], '=') - set[j]) + 1;

			replaced = strncmp(environ[i], set[j], len) == 0;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (int j = 0; j < nset; j++)
		env[k++] = set[j];
	return env;
}

/* Copies the child's output to stderr; returns the main_ns value it printed, or -1. */
static long long drain(int fd)
{
	FILE *in = fdopen(fd, "r");
	char line[4096];
	long long main_ns = -1;

	if (!in)
		return -1;
	while (fgets(line, sizeof(line), in)) {
		if (main_ns < 0 && strncmp(line, "main_ns=", 8) == 0)
			main_ns = strtoll(line + 8, NULL, 10);
		else
			fputs(line, stderr);
	}
	fclose(in);
	return main_ns;
}

int main(int argc, char **argv)
{
	char **set = calloc((size_t)argc, sizeof(*set)), **env;
	int nset = 0, i = 1, pipefd[2] = { -1, -1 }, status, rc;
	posix_spawn_file_actions_t fa;
	long long t0, wall, main_ns = -1;
	const char *out = NULL;
	struct rusage ru;
	pid_t pid;

	if (!set)
		return 2;
	for (; i < argc && strcmp(argv[i], "-e") == 0 && i + 1 < argc && strchr(argv[i + 1], '='); i += 2)
		set[nset++] = argv[i + 1];
	if (i + 1 < argc && strcmp(argv[i], "-o") == 0) {
		out = argv[i + 1];
		i += 2;
	}
	if (i + 1 >= argc || strcmp(argv[i], "--") != 0) {
		fprintf(stderr, "usage: runit [-e NAME=VALUE]... [-o FILE] -- PROG [ARG...]\n");
		return 2;
	}
	env = child_env(set, nset);
	if (!env || (!out && pipe(pipefd) != 0) || posix_spawn_file_actions_init(&fa) != 0)
		return perror("runit"), 2;
	if (out) {
		posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	} else {
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
		posix_spawn_file_actions_addclose(&fa, pipefd[0]);
		posix_spawn_file_actions_addclose(&fa, pipefd[1]);
	}
	t0 = now_ns();
	rc = posix_spawnp(&pid, argv[i + 1], &fa, NULL, argv + i + 1, env);
	posix_spawn_file_actions_destroy(&fa);
	if (!out)
		close(pipefd[1]);
	if (rc != 0) {
		fprintf(stderr, "runit: %s%s%s: %s\n", argv[i + 1], out ? " > " : "", out ? out : "", strerror(rc));
		return 2;
	}
	if (!out)
		main_ns = drain(pipefd[0]);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return perror("runit: wait4"), 2;
	wall = now_ns() - t0;
	printf("%lld\t%lld\t%lld\t%ld\t%d\t%lld\n", wall, tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime),
	       tv_ns(ru.ru_stime), ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	       main_ns < 0 ? -1 : main_ns - t0);
	free(env);
	free(set);
	return 0;
}
