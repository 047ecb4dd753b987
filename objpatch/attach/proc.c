// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/PID's status, maps and exe, read for objpatch attach before and
 * while it holds the process.
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/elfobj.h"
#include "objpatch/attach/proc.h"
#include "util/array.h"

bool proc_status_field(pid_t pid, const char *field, char *out, size_t len)
{
	char path[64], line[512];
	size_t flen = strlen(field);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *v = line + flen + 1;

		if (strncmp(line, field, flen) || line[flen] != ':')
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = 0;
		snprintf(out, len, "%s", v);
		found = true;
	}
	fclose(f);
	return found;
}

bool proc_exited(pid_t tid)
{
	char state[64];

	return !proc_status_field(tid, "State", state, sizeof(state)) || state[0] == 'Z' || state[0] == 'X';
}

pid_t proc_live_thread(pid_t pid)
{
	char path[64];
	struct dirent *e;
	pid_t live = 0;
	DIR *d;

	if (!proc_exited(pid))
		return pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while (!live && (e = readdir(d)))
		if (e->d_name[0] != '.' && !proc_exited((pid_t)atoi(e->d_name)))
			live = (pid_t)atoi(e->d_name);
	closedir(d);
	return live;
}

bool proc_exe_machine(pid_t pid, uint16_t *machine, uint8_t *elfclass)
{
	char path[64];
	GElf_Ehdr eh;
	Elf *e;
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh);
	if (ok) {
		*machine = eh.e_machine;
		*elfclass = (uint8_t)gelf_getclass(e);
	}
	elf_end(e);
	close(fd);
	return ok;
}

/* One line of maps: its start, file offset and path ("" for anonymous memory). */
static bool parse_map(char *line, uint64_t *start, uint64_t *off, char **path)
{
	int pos = 0;

	if (sscanf(line, "%" SCNx64 "-%*x %*s %" SCNx64 " %*s %*u %n", start, off, &pos) < 2 || !pos)
		return false;
	*path = line + pos;
	(*path)[strcspn(*path, "\n")] = 0;
	return true;
}

/* Calls `each` on every mapping until it returns true. */
static bool each_map(pid_t pid, bool (*each)(uint64_t start, uint64_t off, const char *path, void *ctx), void *ctx)
{
	char name[64];
	char *line = NULL;
	size_t cap = 0;
	bool done = false;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(name, "re")))
		return false;
	while (!done && getline(&line, &cap, f) > 0) {
		uint64_t start, off;
		char *path;

		if (parse_map(line, &start, &off, &path))
			done = each(start, off, path, ctx);
	}
	free(line);
	fclose(f);
	return done;
}

struct module_search {
	bool (*want)(const char *path);
	struct proc_module *m;
};

static bool module_at(uint64_t start, uint64_t off, const char *path, void *ctx)
{
	struct module_search *s = ctx;

	if (off || path[0] != '/' || !s->want(path))
		return false;
	snprintf(s->m->path, sizeof(s->m->path), "%s", path);
	s->m->base = start;
	return true;
}

bool proc_find_module(pid_t pid, bool (*want)(const char *path), struct proc_module *m)
{
	struct module_search s = { want, m };

	return each_map(pid, module_at, &s);
}

struct module_list {
	struct proc_module *m;
	size_t n, cap;
	bool failed;
};

static bool add_listed(uint64_t start, uint64_t off, const char *path, void *ctx)
{
	struct module_list *l = ctx;

	if (off || path[0] != '/')
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->m[i].path, path))
			return false;
	if (!grow_array(&l->m, l->n, &l->cap, sizeof(*l->m))) {
		l->failed = true;
		return true;
	}
	snprintf(l->m[l->n].path, sizeof(l->m[l->n].path), "%s", path);
	l->m[l->n++].base = start;
	return false;
}

ssize_t proc_modules(pid_t pid, struct proc_module **out)
{
	struct module_list l = { 0 };

	each_map(pid, add_listed, &l);
	if (l.failed) {
		free(l.m);
		return -1;
	}
	*out = l.m;
	return (ssize_t)l.n;
}
