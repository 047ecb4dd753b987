// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorded sites of a running process's files (attach_sites.h), read
 * with the tables reader from the files as the process sees them
 * (/proc/PID/root): the runtime would find the same ones once loaded,
 * and a process without any is refused before anything is done to it.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "elf/dynsym.h"
#include "objpatch/attach/attach_sites.h"
#include "objpatch/attach/proc.h"
#include "trace/symbols.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A pattern as the runtime matches it, without the '!' of an exclusion. */
static bool names(const char *glob, const char *name)
{
	if (glob[0] == '!')
		glob++;
	return fnmatch(glob, name, 0) == 0;
}

/* The functions the sites `addr` (sorted) are in: counted, and matched against each pattern. */
static int count_functions(struct elfobj *obj, const uint64_t *addr, size_t n, const char *const *globs,
			   size_t nglobs, struct attach_sites *a)
{
	struct sym_table syms = { 0 };
	struct sym_walk w = { 0 };
	size_t last = SIZE_MAX;

	if (sym_load(&syms, obj, 0) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		size_t f = sym_site_function(&syms, &w, addr[i]);

		if (f == SIZE_MAX) {
			sym_free(&syms);
			return -1;
		}
		if (f == last)
			continue;	/* the function's other sites */
		last = f;
		a->funcs++;
		for (size_t g = 0; g < nglobs; g++)
			a->matches[g] += names(globs[g], syms.funcs[f].name);
	}
	sym_free(&syms);
	return 0;
}

/* The module's pads, where the process has them (the module mapped at `base`). */
static int add_pads(struct attach_sites *a, struct elfobj *obj, uint64_t base, const struct arch *arch,
		    const struct table_entry *te, size_t nt)
{
	uint64_t vaddr = 0, *p;
	size_t n = 0;

	for (size_t i = 0; i < nt; i++)
		n += te[i].patchable && te[i].addr;
	if (!n)
		return 0;
	if (!(p = realloc(a->pads, (a->npads + n) * sizeof(*p))))
		return -1;
	a->pads = p;
	dynsym_first_load(obj, &vaddr);
	for (size_t i = 0; i < nt; i++)
		if (te[i].patchable && te[i].addr)
			a->pads[a->npads++] = te[i].addr + base - vaddr;
	a->pad_len = arch->pad_site_len;
	return 0;
}

/*
 * C++ frames (a .gcc_except_table) that an exception may cross, in a file
 * that reaches neither the C++ runtime nor the unwinder through dynamic
 * symbols: both are linked in (-static-libstdc++ -static-libgcc), and
 * __cxa_throw calls _Unwind_RaiseException directly, where the attached
 * runtime has no GOT slot to point at its hooks (rt_unwind.c).  An i386
 * runtime hooks no slot at all (x86_64's relocations only).
 */
static bool cxx_unhookable(struct elfobj *obj)
{
	static const char *const entries[] = { "__cxa_throw", "__cxa_begin_catch", "_Unwind_Resume",
					       "_Unwind_RaiseException" };
	bool cxx = false;

	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].name && !strcmp(obj->sec[i].name, ".gcc_except_table"))
			cxx = true;
	if (obj->ehdr.e_machine != EM_X86_64)
		return cxx;
	for (size_t i = 0; cxx && i < sizeof(entries) / sizeof(entries[0]); i++)
		if (dynsym_imports(obj, entries[i]))
			return false;
	return cxx;
}

/* One mapped file's sites; a file that cannot be read has none that objpatch could name. */
static int module_sites(pid_t live, const char *path, uint64_t base, const char *const *globs, size_t nglobs,
			struct attach_sites *a)
{
	char at[PATH_MAX + 32];
	struct table_entry *te = NULL;
	struct elfobj obj;
	const struct arch *arch;
	uint64_t *addr = NULL;
	size_t nt = 0, bad, pads, n = 0;
	struct stat st;
	int fd, rc = 0;

	snprintf(at, sizeof(at), "/proc/%d/root%s", (int)live, path);
	/* A device or a FIFO mapped by the process: opening it could act or block. */
	if (stat(at, &st) < 0 || !S_ISREG(st.st_mode) || (fd = open(at, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (elfobj_load_mapped(&obj, path, fd) < 0) {
		close(fd);
		return 0;
	}
	close(fd);
	arch = arch_for_ehdr(&obj.ehdr);
	if (arch && sym_read_sites(&obj, arch->pad_site_len, arch->pad_site_offset, &te, &nt, &bad, &pads) == 0 &&
	    nt && (addr = malloc(nt * sizeof(*addr)))) {
		for (size_t i = 0; i < nt; i++)
			if (te[i].addr)
				addr[n++] = te[i].addr;
		qsort(addr, n, sizeof(*addr), cmp_u64);
		if (n)
			a->modules++;
		if (n && !a->cxx_unhooked && cxx_unhookable(&obj) && !(a->cxx_unhooked = strdup(path)))
			rc = -1;
		if (n && (count_functions(&obj, addr, n, globs, nglobs, a) < 0 || add_pads(a, &obj, base, arch, te, nt) < 0))
			rc = -1;
	}
	free(addr);
	free(te);
	elfobj_free(&obj);
	return rc;
}

int attach_sites_count(pid_t live, const char *const *globs, size_t nglobs, struct attach_sites *a)
{
	struct proc_module *mods = NULL;
	ssize_t n = proc_modules(live, &mods);
	int rc = 0;

	memset(a, 0, sizeof(*a));
	if (n < 0 || !(a->matches = calloc(nglobs + 1, sizeof(*a->matches)))) {
		free(mods);
		return -1;
	}
	for (ssize_t i = 0; i < n && rc == 0; i++)
		rc = module_sites(live, mods[i].path, mods[i].base, globs, nglobs, a);
	free(mods);
	if (a->npads)
		qsort(a->pads, a->npads, sizeof(*a->pads), cmp_u64);
	return rc;
}
