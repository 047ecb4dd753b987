// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time a tool the way Kbuild runs it, without a shell in between.
 *
 *   timeit each TOOL [ARG...] -- FILE...   one process per file
 *   timeit all  TOOL [ARG...] -- FILE...   one process for all files
 *
 * Prints one tab-separated line per process: file (or "ALL"), wall time in
 * nanoseconds, maximum resident set in KiB, exit status, CPU time (user +
 * system) in nanoseconds, the system part of it in nanoseconds; then "TOTAL"
 * and the wall time of the whole loop.
 * CPU time is the figure to trust when other work shares the machine.
 * A tool's own output, on either stream, goes to our standard error, so the
 * table on standard output stays clean.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Runs argv; returns the exit status (128+signal when killed), -1 if it could not start. */
static int run(char **argv, long long *ns, long *maxrss_kb, long long *cpu_ns, long long *sys_ns)
{
	struct rusage ru;
	long long t0 = now_ns();
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*ns = now_ns() - t0;
	*maxrss_kb = ru.ru_maxrss;
	*sys_ns = ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL;
	*cpu_ns = ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL + *sys_ns;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	int sep = 0, ntool, nfiles;
	char **cmd;
	long long t0, ns, cpu, sys;
	long rss;

	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	if (argc < 4 || !sep || sep == 2 || (strcmp(argv[1], "each") && strcmp(argv[1], "all"))) {
		fprintf(stderr, "usage: timeit each|all TOOL [ARG...] -- FILE...\n");
		return 2;
	}
	ntool = sep - 2;
	nfiles = argc - sep - 1;
	cmd = calloc((size_t)(ntool + nfiles + 1), sizeof(*cmd));
	if (!cmd)
		return 2;
	memcpy(cmd, argv + 2, (size_t)ntool * sizeof(*cmd));
	t0 = now_ns();
	if (strcmp(argv[1], "all") == 0) {
		memcpy(cmd + ntool, argv + sep + 1, (size_t)nfiles * sizeof(*cmd));
		int st = run(cmd, &ns, &rss, &cpu, &sys);

		if (st < 0)
			return perror(cmd[0]), 2;
		printf("ALL\t%lld\t%ld\t%d\t%lld\t%lld\n", ns, rss, st, cpu, sys);
	} else {
		for (int i = 0; i < nfiles; i++) {
			cmd[ntool] = argv[sep + 1 + i];
			int st = run(cmd, &ns, &rss, &cpu, &sys);

			if (st < 0)
				return perror(cmd[0]), 2;
			printf("%s\t%lld\t%ld\t%d\t%lld\t%lld\n", cmd[ntool], ns, rss, st, cpu, sys);
		}
	}
	printf("TOTAL\t%lld\n", now_ns() - t0);
	free(cmd);
	return 0;
}
