// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch attach --list PID: what could be traced in a running process.
 * Its modules are the files it has mapped executable (/proc/PID/maps:
 * the program, the libraries it was linked with and those it loaded with
 * dlopen), each read where the process sees it, /proc/PID/root/PATH, with
 * the tables `objpatch list` reads.  Nothing is done to the process: no
 * ptrace, no signal, so it can be listed while a debugger holds it, and
 * kernel.yama.ptrace_scope, which restricts attaching only, does not apply.
 *
 * A file deleted or replaced since the process mapped it ("(deleted)" in
 * maps) no longer holds what runs: it is named in one line, unread, but
 * for the program itself, which /proc/PID/exe still opens as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/dynsym.h"
#include "objpatch/attach/attach.h"
#include "objpatch/attach/attach_list.h"
#include "objpatch/engine/listing.h"
#include "objpatch/attach/proc.h"
#include "util/array.h"

#define DELETED_SUFFIX " (deleted)"

/* A file of the process, from the lines of its maps that name it. */
struct module {
	char *path;		/* as maps names it, without DELETED_SUFFIX */
	unsigned long inode;
	uint64_t base;		/* where its offset 0 is mapped */
	bool has_base, exec, deleted;
	/* once read: */
	enum { UNREAD, LISTED, NO_SITES, GONE, FAILED } state;
	bool via_exe;		/* read through /proc/PID/exe */
	uint64_t bias;		/* added to the file's addresses in the process */
	struct listing l;	/* LISTED only */
};

struct process {
	pid_t pid, live;	/* live: a thread that has not exited, whose /proc entry shows the memory */
	struct module *m;
	size_t n, cap;
	size_t listed, no_sites, gone, failed;
};

/* How to record the sites, after the refusal's cause. */
#define HOW_TO_RECORD "compile them with -pg (or -fpatchable-function-entry) and run recordmcount --mode=user " \
		      "on their objects (objpatch list FILE says it of each file)"

int attach_refuse_unrecorded(pid_t pid)
{
	return attach_refuse(pid, "no recorded call sites in its program or libraries: " HOW_TO_RECORD);
}

/* The module a line of maps belongs to: the same file, or a new one at the end. */
static struct module *module_for(struct process *p, const char *path, unsigned long inode, bool deleted)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->m[i].inode == inode && p->m[i].deleted == deleted && !strcmp(p->m[i].path, path))
			return &p->m[i];
	if (!grow_array(&p->m, p->n, &p->cap, sizeof(*p->m)))
		return NULL;
	p->m[p->n] = (struct module){ .path = strdup(path), .inode = inode, .deleted = deleted };
	return p->m[p->n].path ? &p->m[p->n++] : NULL;
}

/* One line of maps into its module; false when memory is out. */
static bool add_map_line(struct process *p, char *line)
{
	uint64_t start, off;
	unsigned long inode;
	char perms[8];
	int pos = 0;
	size_t len;
	bool deleted;
	struct module *m;

	if (sscanf(line, "%" SCNx64 "-%*x %7s %" SCNx64 " %*x:%*x %lu %n", &start, perms, &off, &inode, &pos) < 4 ||
	    !pos || line[pos] != '/')
		return true;	/* anonymous memory, [stack], [vdso] */
	line += pos;
	line[strcspn(line, "\n")] = 0;
	len = strlen(line);
	deleted = len > strlen(DELETED_SUFFIX) && !strcmp(line + len - strlen(DELETED_SUFFIX), DELETED_SUFFIX);
	if (deleted)
		line[len - strlen(DELETED_SUFFIX)] = 0;
	if (!(m = module_for(p, line, inode, deleted)))
		return false;
	if (!off && !m->has_base) {
		m->base = start;
		m->has_base = true;
	}
	m->exec |= perms[2] == 'x';
	return true;
}

/*
 * The process's modules, in the order of their addresses: files with an
 * executable mapping (a file only read, by mmap, is no module).  0, or -1
 * with errno set.
 */
static int read_modules(struct process *p)
{
	char name[64];
	char *line = NULL;
	size_t cap = 0, k = 0;
	int rc = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)p->live);
	if (!(f = fopen(name, "re")))
		return -1;
	while (rc == 0 && getline(&line, &cap, f) > 0)
		if (!add_map_line(p, line)) {
			errno = ENOMEM;
			rc = -1;
		}
	free(line);
	fclose(f);
	for (size_t i = 0; i < p->n; i++) {
		if (p->m[i].exec && p->m[i].has_base)
			p->m[k++] = p->m[i];
		else
			free(p->m[i].path);
	}
	p->n = k;
	return rc;
}

/* Whether `m` is the process's program: /proc/PID/exe names it, deleted or not. */
static bool is_program(const struct process *p, const struct module *m)
{
	char link[64], exe[PATH_MAX + sizeof(DELETED_SUFFIX)];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)p->live);
	if ((n = readlink(link, exe, sizeof(exe) - 1)) <= 0)
		return false;
	exe[n] = 0;
	return !strncmp(exe, m->path, strlen(m->path)) &&
	       !strcmp(exe + strlen(m->path), m->deleted ? DELETED_SUFFIX : "");
}

/* Reads one module's tables; one line when it cannot be read. */
static void read_module(struct process *p, struct module *m)
{
	char path[PATH_MAX + 64];
	uint64_t vaddr = 0;
	struct stat st;
	int fd;

	m->via_exe = m->deleted && is_program(p, m);
	if (m->deleted && !m->via_exe) {
		m->state = GONE;
		return;
	}
	if (m->via_exe)
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->live);
	else
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->live, m->path);
	/* A device mapped executable is no module, and opening it could act or block. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return;	/* UNREAD: neither listed nor counted */
	m->state = FAILED;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "objpatch attach: %d: %s: %s\n", (int)p->pid, path, strerror(errno));
		return;
	}
	/* Mapped: most modules (libc) hold no table, and only their section headers are read. */
	if (listing_read(&m->l, m->path, fd, true) == 0 && (!m->l.nsites || listing_functions(&m->l) == 0))
		m->state = m->l.nsites ? LISTED : NO_SITES;
	close(fd);
	if (m->state == FAILED)
		fprintf(stderr, "objpatch attach: %d: %s: %s\n", (int)p->pid, m->path, m->l.obj.err);
	if (m->state == LISTED && dynsym_first_load(&m->l.obj, &vaddr))
		m->bias = m->base - vaddr;
	else if (m->state == LISTED)
		m->bias = m->l.obj.ehdr.e_type == ET_EXEC ? 0 : m->base;
}

static void tally(struct process *p)
{
	for (size_t i = 0; i < p->n; i++) {
		p->listed += p->m[i].state == LISTED;
		p->no_sites += p->m[i].state == NO_SITES;
		p->gone += p->m[i].state == GONE;
		p->failed += p->m[i].state == FAILED;
		if (p->m[i].state != LISTED)
			listing_free(&p->m[i].l);	/* keep only what is printed */
	}
}

static void free_process(struct process *p)
{
	for (size_t i = 0; i < p->n; i++) {
		listing_free(&p->m[i].l);
		free(p->m[i].path);
	}
	free(p->m);
}

/* The process and its modules read; 0, or the refusal's status after its line. */
static int open_process(struct process *p, pid_t pid)
{
	char state[64];

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (!proc_status_field(pid, "State", state, sizeof(state))) {
		errno = ESRCH;
		return attach_refuse(pid, "no such process: give the pid of a running process (pgrep NAME finds it)");
	}
	if (!(p->live = proc_live_thread(pid))) {
		errno = ESRCH;
		return attach_refuse(pid, "the process has exited (state %s): nothing runs there to list", state);
	}
	if (read_modules(p) < 0) {
		int e = errno;

		free_process(p);
		errno = e;
		/* The kernel's ptrace read check: the same user, and no capability objpatch lacks. */
		if ((e == EACCES || e == EPERM) && geteuid() == 0)
			return attach_refuse(pid, "its memory map cannot be read (%s): the process holds capabilities objpatch "
				      "lacks, or is not dumpable; run objpatch with the capabilities it has", strerror(e));
		if (e == EACCES || e == EPERM)
			return attach_refuse(pid, "its memory map cannot be read (%s): run objpatch as the process's user or "
				      "as root", strerror(e));
		return attach_refuse(pid, "its memory map: %s", strerror(e));
	}
	for (size_t i = 0; i < p->n; i++)
		read_module(p, &p->m[i]);
	tally(p);
	return 0;
}

static void print_text(pid_t pid, const struct module *m)
{
	const char *del = m->deleted ? DELETED_SUFFIX : "";

	if (m->state == GONE) {
		printf("%s%s: deleted or replaced since the process mapped it at 0x%" PRIx64 ": not read, its "
		       "functions are not listed\n", m->path, del, m->base);
		return;
	}
	printf("%s%s: %zu function%s, loaded at 0x%" PRIx64, m->path, del, m->l.nfuncs, m->l.nfuncs == 1 ? "" : "s",
	       m->base);
	if (m->via_exe)
		printf(" (read through /proc/%d/exe)", (int)pid);
	putchar('\n');
	listing_print(&m->l, false, "");
}

static void print_json(const struct module *m, bool first)
{
	printf("%s\n  {\"path\": ", first ? "" : ",");
	listing_json_string(m->path);
	printf(", \"load_address\": %" PRIu64 ", \"deleted\": %s, ", m->base, m->deleted ? "true" : "false");
	if (m->state == GONE) {
		printf("\"bias\": null, \"sites\": null, \"functions\": null}");
		return;
	}
	printf("\"bias\": %" PRIu64 ", \"sites\": %zu, \"functions\": ", m->bias, m->l.nsites);
	listing_print(&m->l, true, "  ");
	putchar('}');
}

int attach_list(pid_t pid, bool json)
{
	struct process p;
	bool first = true;
	int rc = open_process(&p, pid);

	if (rc)
		return rc;
	if (!p.listed) {
		if (p.gone)
			rc = attach_refuse(pid, "no recorded call sites in the files of its program and libraries that are left "
				    "(%zu were deleted or replaced since it mapped them): " HOW_TO_RECORD, p.gone);
		else
			rc = attach_refuse_unrecorded(pid);
		free_process(&p);
		return rc;
	}
	if (json)
		printf("{\"pid\": %d, \"modules\": [", (int)pid);
	for (size_t i = 0; i < p.n; i++) {
		if (p.m[i].state != LISTED && p.m[i].state != GONE)
			continue;
		if (json)
			print_json(&p.m[i], first);
		else
			print_text(pid, &p.m[i]);
		first = false;
	}
	if (json)
		printf("\n], \"modules_without_sites\": %zu}\n", p.no_sites);
	else if (p.no_sites)
		printf("and %zu more module%s with no recorded call sites: nothing in %s can be traced\n", p.no_sites,
		       p.no_sites == 1 ? "" : "s", p.no_sites == 1 ? "it" : "them");
	fflush(stdout);
	for (size_t i = 0; i < p.n; i++)
		if (p.m[i].state == LISTED)
			listing_warn_unrecorded(&p.m[i].l, p.m[i].path);
	free_process(&p);
	return p.failed ? 1 : 0;
}
