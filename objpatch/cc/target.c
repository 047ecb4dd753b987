// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which machine the compiler builds for, and so which instrumentation:
 * the compiler says (-dumpmachine, given the command's -m32 or --target),
 * arch/machines.h's rows name the machine, its descriptor the flags.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "arch/arch.h"
#include "objpatch/cc/run.h"

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

int cc_target_of(const struct compiler *cc, const struct cmdline *c, struct cc_target *t)
{
	char triple[128], cpu[64];

	if (dump_machine(cc, c, triple, sizeof(triple)) < 0)
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
