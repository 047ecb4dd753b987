// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which machine the compiler builds for, and so which instrumentation:
 * the compiler says (-dumpmachine, given the command's -m32 or --target),
 * arch/machines.h's rows name the machine, its descriptor the flags.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "arch/arch.h"
#include "objpatch/cc/compiler.h"
#include "util/hash.h"

struct machine_row {
	const char *name, *prefix, *port;
	const struct arch *arch;
};

static const struct machine_row machine_rows[] = {
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) \
	{ #name, #prefix, #port, &arch_##desc },
#include "arch/machines.h"
#undef MACHINE
};

/* A triple's CPU as the rows spell it: clang says i386 and armv7, Debian's prefixes i686 and arm. */
static const struct cpu_alias {
	const char *pattern, *cpu;
} cpu_aliases[] = {
	{ "i[3-7]86", "i686" },
	{ "armv[4-8]*", "arm" },
};

/* Flags that change the machine after the triple: gcc's -m32 still says x86_64. */
static const struct cpu_flag {
	const char *cpu, *flag, *becomes;
} cpu_flags[] = {
	{ "x86_64", "-m32", "i686" },
	{ "i686", "-m64", "x86_64" },
};

static void canonical_cpu(char *cpu, size_t size, const struct cmdline *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(cpu_aliases); i++)
		if (fnmatch(cpu_aliases[i].pattern, cpu, 0) == 0)
			snprintf(cpu, size, "%s", cpu_aliases[i].cpu);
	for (size_t f = 0; f < c->ntarget_flags; f++)
		for (size_t i = 0; i < ARRAY_SIZE(cpu_flags); i++)
			if (strcmp(cpu, cpu_flags[i].cpu) == 0 && strcmp(c->target_flags[f], cpu_flags[i].flag) == 0)
				snprintf(cpu, size, "%s", cpu_flags[i].becomes);
}

/* The compiler's -dumpmachine line; -1 with one line on stderr. */
static int dump_machine(const struct compiler *cc, const struct cmdline *c, char *out, size_t size)
{
	const char *argv[16];
	size_t n = 0;
	int fds[2], status;
	ssize_t got = 0, r;
	pid_t pid;

	argv[n++] = cc->path;
	for (size_t i = 1; i < cc->nwords; i++)
		argv[n++] = cc->words[i];
	for (size_t i = 0; i < c->ntarget_flags && n < 14; i++)
		argv[n++] = c->target_flags[i];
	argv[n++] = "-dumpmachine";
	argv[n] = NULL;
	if (pipe(fds) < 0 || (pid = fork()) < 0)
		return perror("objpatch-cc: -dumpmachine"), -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while ((size_t)got < size - 1 && (r = read(fds[0], out + got, size - 1 - got)) > 0)
		got += r;
	close(fds[0]);
	out[got] = 0;
	out[strcspn(out, "\n")] = 0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !*out) {
		fprintf(stderr, "objpatch-cc: %s -dumpmachine failed: the compiler must name its target "
			"(gcc and clang do); OBJPATCH_CC_OFF=1 runs it untouched\n", cc->words[0]);
		return -1;
	}
	return 0;
}

/*
 * The -dumpmachine answer is kept per compiler binary and target flags in
 * ~/.cache/objpatch-cc/ (XDG_CACHE_HOME): its exec was half of the
 * wrapper's cost per compile (bench/RESULTS-wrapper.md).  The key holds the
 * binary's inode, size and mtime, so a replaced compiler is asked again.
 * The cache only saves time: when it cannot be read or written the compiler
 * is asked, and nothing is said.
 */
static bool cache_key(const struct compiler *cc, const struct cmdline *c, char *key, size_t size)
{
	struct stat st;
	size_t n;

	if (stat(cc->path, &st) < 0)
		return false;
	n = (size_t)snprintf(key, size, "%s %ju %jd %jd.%09ld", cc->path, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
			     (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	for (size_t i = 1; i < cc->nwords && n < size; i++)
		n += (size_t)snprintf(key + n, size - n, " %s", cc->words[i]);
	for (size_t i = 0; i < c->ntarget_flags && n < size; i++)
		n += (size_t)snprintf(key + n, size - n, " %s", c->target_flags[i]);
	return n < size && !strchr(key, '\n');
}

/* The cache file of a key: FNV-1a of the key names it, the key inside proves it. */
static bool cache_path(const char *key, char *path, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	uint64_t h = hash_fnv1a64(key);

	if (xdg && *xdg == '/')
		return (size_t)snprintf(path, size, "%s/objpatch-cc/%016" PRIx64, xdg, h) < size;
	return home && *home == '/' &&
	       (size_t)snprintf(path, size, "%s/.cache/objpatch-cc/%016" PRIx64, home, h) < size;
}

static bool cache_read(const char *path, const char *key, char *triple, size_t size)
{
	char buf[4096 + 256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	size_t klen = strlen(key);

	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = 0;
	if ((size_t)got <= klen + 1 || memcmp(buf, key, klen) != 0 || buf[klen] != '\n')
		return false;
	buf[klen + 1 + strcspn(buf + klen + 1, "\n")] = 0;
	return (size_t)snprintf(triple, size, "%s", buf + klen + 1) < size && *triple;
}

/* Written whole or not at all (make -j runs many of us): a temporary file renamed. */
static void cache_write(const char *path, const char *key, const char *triple)
{
	char dir[4096], tmp[4200];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		/* ~/.cache itself may be missing */
		char *parent = strrchr(dir, '/');

		*parent = 0;
		mkdir(dir, 0755);
		*parent = '/';
		mkdir(dir, 0755);
	}
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (dprintf(fd, "%s\n%s\n", key, triple) < 0 || close(fd) < 0 || rename(tmp, path) < 0)
		unlink(tmp);
}

static int target_triple(const struct compiler *cc, const struct cmdline *c, char *triple, size_t size)
{
	char key[4096], path[4096];
	bool cacheable = cache_key(cc, c, key, sizeof(key)) && cache_path(key, path, sizeof(path));

	if (cacheable && cache_read(path, key, triple, size))
		return 0;
	if (dump_machine(cc, c, triple, size) < 0)
		return -1;
	if (cacheable)
		cache_write(path, key, triple);
	return 0;
}

int cc_target_of(const struct compiler *cc, const struct cmdline *c, struct cc_target *t)
{
	char triple[128], cpu[64];

	if (target_triple(cc, c, triple, sizeof(triple)) < 0)
		return -1;
	snprintf(cpu, sizeof(cpu), "%.*s", (int)strcspn(triple, "-"), triple);
	canonical_cpu(cpu, sizeof(cpu), c);
	for (size_t i = 0; i < ARRAY_SIZE(machine_rows); i++) {
		const struct machine_row *m = &machine_rows[i];
		size_t len = strcspn(m->prefix, "-");

		if (strlen(cpu) != len || strncmp(cpu, m->prefix, len) != 0)
			continue;
		snprintf(t->machine, sizeof(t->machine), "%s", m->name);
		t->flags = strcmp(m->port, "-") == 0 ? NULL : cc->clang ? m->arch->cc.clang : m->arch->cc.gcc;
		return 0;
	}
	snprintf(t->machine, sizeof(t->machine), "%s", cpu);
	t->flags = NULL;
	return 0;
}
