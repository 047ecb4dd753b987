// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process for objpatch attach --list (t/98-attach-list.t): it loads
 * each library named on its command line with dlopen, calls the
 * library's lib_checksum() through dlsym, prints "ready" and then one
 * line for each line read on standard input, and exits 5 at its end.
 * Built with -pg -mfentry and recordmcount --nop, or unrecorded: the same
 * output either way, so a listing that disturbed it shows.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum mode { QUIET, LOUD = 3 };

struct pair {
	int a, b;
};

static int pair_sum(struct pair p)
{
	return p.a + p.b;
}

bool echo_line(const char *line, enum mode m)
{
	return printf("%s: %s", m == LOUD ? "READ" : "read", line) > 0;
}

double mean(const double *v, unsigned n)
{
	double s = 0;

	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

static long load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	long (*checksum)(long);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return -1;
	}
	*(void **)&checksum = dlsym(h, "lib_checksum");
	return checksum ? checksum(pair_sum((struct pair){ 20, 22 })) : -1;
}

int main(int argc, char **argv)
{
	static const double v[] = { 1, 2, 3, 4 };
	char line[256];

	for (int i = 1; i < argc; i++)
		printf("checksum %d: %ld\n", i, load(argv[i]));
	printf("mean %g\nready\n", mean(v, 4));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		echo_line(line, strncmp(line, "LOUD", 4) ? QUIET : LOUD);
		fflush(stdout);
	}
	puts("bye");
	return 5;
}
