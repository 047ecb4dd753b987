// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stack walkers meet the return trampoline where a return address should
 * be, and C++'s unwinder would find no frame description there and
 * terminate.  So the unwinder's entry points are interposed: the real
 * return addresses go back on the stack before the walk, and the first
 * catch (or the end of a walk that unwinds nothing) hooks the frames that
 * survived again.  Interposition works for LD_PRELOAD and for programs
 * linking libobjpatch.a dynamically; a fully static C++ program would get
 * two definitions, so these live in an object of their own.  A runtime
 * objpatch attach loaded RTLD_LOCAL interposes on nothing: it points the
 * modules' GOT slots at the same hooks (rt_unwind_hook_modules()).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "objpatch/lib/rt.h"

#define API __attribute__((visibility("default")))

struct _Unwind_Exception;
struct _Unwind_Context;
typedef int (*unwind_trace_fn)(struct _Unwind_Context *, void *);

API int _Unwind_RaiseException(struct _Unwind_Exception *e);
API int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);
API int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop, void *arg);
API int _Unwind_Backtrace(unwind_trace_fn fn, void *arg);
API void *__cxa_begin_catch(void *e);

static void *next_symbol(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "objpatch: %s not found after the tracing runtime\n", name);
		abort();
	}
	return p;
}

/* The real entry points: found after the runtime, or (attached) set by rt_unwind_hook_modules(). */
static int (*real_raise)(struct _Unwind_Exception *);
static int (*real_resume_or_rethrow)(struct _Unwind_Exception *);
static void *(*real_begin_catch)(void *);

/*
 * Each entry point is a local function with the exported name as its
 * alias: the hooks below take the local one's address.  `&name` would be
 * read through the runtime's own GOT, which a runtime loaded RTLD_LOCAL
 * resolves in the global scope first: to libgcc_s's or libstdc++'s real
 * function, so the "hooked" slot would get the real one back.
 */
#define FORWARD(ret, name, params, args, real)                                        \
	static ret hook_##name params                                                 \
	{                                                                             \
		if (!real)                                                            \
			real = (ret(*) params)next_symbol(#name);                     \
		if (rt_current() && rt_current()->depth)                              \
			rt_restore_slots(rt_current());                               \
		return real args;                                                     \
	}                                                                             \
	API ret name params __attribute__((alias("hook_" #name)));

static int (*real_forced)(struct _Unwind_Exception *, void *, void *);

FORWARD(int, _Unwind_RaiseException, (struct _Unwind_Exception *e), (e), real_raise)
FORWARD(int, _Unwind_Resume_or_Rethrow, (struct _Unwind_Exception *e), (e), real_resume_or_rethrow)
FORWARD(int, _Unwind_ForcedUnwind, (struct _Unwind_Exception *e, void *stop, void *arg), (e, stop, arg), real_forced)

/* A walk that does not unwind (backtrace()): every frame survives it. */
API int _Unwind_Backtrace(unwind_trace_fn fn, void *arg)
{
	static int (*real)(unwind_trace_fn, void *);
	int rc;

	if (!real)
		real = (int (*)(unwind_trace_fn, void *))next_symbol("_Unwind_Backtrace");
	if (!rt_current() || !rt_current()->depth)
		return real(fn, arg);
	rt_restore_slots(rt_current());
	rc = real(fn, arg);
	rt_rehook_slots(rt_current(), 0);
	return rc;
}

static void *hook___cxa_begin_catch(void *e)
{
	void *(*real)(void *);

	if (!real_begin_catch)
		real_begin_catch = (void *(*)(void *))next_symbol("__cxa_begin_catch");
	real = real_begin_catch;
	/*
	 * The catching function's stack pointer: frames below it were unwound
	 * (on ppc64 their slots lie up to slot_above_sp above it, in its frame).
	 */
	if (rt_current() && rt_current()->depth)
		rt_rehook_slots(rt_current(), (uintptr_t)__builtin_dwarf_cfa() + rt_arch_host.slot_above_sp);
	return real(e);
}
API void *__cxa_begin_catch(void *e) __attribute__((alias("hook___cxa_begin_catch")));

/*
 * Loaded by objpatch attach (dlopen, RTLD_LOCAL), the runtime interposes on
 * nothing: libstdc++'s __cxa_throw calls libgcc_s's _Unwind_RaiseException
 * and the program's catch calls libstdc++'s __cxa_begin_catch, both through
 * their modules' GOT.  Those slots are pointed at the entry points above,
 * the real ones found in the global scope (where the runtime is not), so
 * that an exception thrown through traced frames is caught as in `objpatch
 * run`.  A slot in RELRO is made writable for the store.  Called for every
 * module, again when modules were loaded; x86_64's relocations only.
 */
#if defined(__x86_64__)
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT

struct hook {
	const char *name;
	void *to;
	void **real;
};

static struct hook hooks[] = {
	{ "_Unwind_RaiseException", (void *)hook__Unwind_RaiseException, (void **)&real_raise },
	{ "_Unwind_Resume_or_Rethrow", (void *)hook__Unwind_Resume_or_Rethrow, (void **)&real_resume_or_rethrow },
	{ "__cxa_begin_catch", (void *)hook___cxa_begin_catch, (void **)&real_begin_catch },
};

/* A d_ptr of a module's dynamic section: the loader adjusted most of them to addresses already. */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
	return v >= info->dlpi_addr ? v : v + info->dlpi_addr;
}

/* The slot at `slot` pointed at `to`, RELRO or not. */
static void store_slot(const struct dl_phdr_info *info, void **slot, void *to)
{
	uintptr_t page = (uintptr_t)slot & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
	bool relro = false;

	if (*slot == to)
		return;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_GNU_RELRO && (uintptr_t)slot >= lo && (uintptr_t)slot < lo + ph->p_memsz)
			relro = true;
	}
	if (relro && mprotect((void *)page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE) < 0)
		return;
	__atomic_store_n(slot, to, __ATOMIC_RELEASE);
	if (relro)
		mprotect((void *)page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ);
}

static void hook_relocs(const struct dl_phdr_info *info, const ElfW(Rela) *r, size_t size, const ElfW(Sym) *syms,
			const char *strs)
{
	for (size_t i = 0; r && i < size / sizeof(*r); i++) {
		unsigned long type = ELF64_R_TYPE(r[i].r_info);
		const char *name = strs + syms[ELF64_R_SYM(r[i].r_info)].st_name;

		if ((type != R_JUMP_SLOT && type != R_GLOB_DAT) || !ELF64_R_SYM(r[i].r_info))
			continue;
		for (size_t h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++)
			if (*hooks[h].real && !strcmp(name, hooks[h].name))
				store_slot(info, (void **)(info->dlpi_addr + r[i].r_offset), hooks[h].to);
	}
}

static int hook_module(struct dl_phdr_info *info, size_t size, void *self)
{
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	size_t jmpsz = 0, relasz = 0;
	const ElfW(Sym) *syms = NULL;
	const char *strs = NULL;
	const ElfW(Dyn) *dyn = NULL;

	(void)size;
	if (info->dlpi_addr == (uintptr_t)self || !info->dlpi_name)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_JMPREL)
			jmprel = (const ElfW(Rela) *)dyn_addr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_PLTRELSZ)
			jmpsz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_RELA)
			rela = (const ElfW(Rela) *)dyn_addr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_RELASZ)
			relasz = dyn->d_un.d_val;
		else if (dyn->d_tag == DT_SYMTAB)
			syms = (const ElfW(Sym) *)dyn_addr(info, dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strs = (const char *)dyn_addr(info, dyn->d_un.d_ptr);
	}
	if (!syms || !strs)
		return 0;
	hook_relocs(info, jmprel, jmpsz, syms, strs);
	hook_relocs(info, rela, relasz, syms, strs);
	return 0;
}

/* The runtime's own load address: its module is left alone. */
static uintptr_t own_base(void)
{
	Dl_info d;

	return dladdr((void *)own_base, &d) ? (uintptr_t)d.dli_fbase : 0;
}

void rt_unwind_hook_modules(void)
{
	for (size_t h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++)
		if (!*hooks[h].real)
			*hooks[h].real = dlsym(RTLD_DEFAULT, hooks[h].name);
	dl_iterate_phdr(hook_module, (void *)own_base());
}
#else
void rt_unwind_hook_modules(void)
{
}
#endif
