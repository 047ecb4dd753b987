// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions that call the profiling hook without a table entry: an object
 * compiled with -pg whose recordmcount step was left out.  The runtime
 * never sees them (no site), so their calls vanish from the trace.  As
 * `recordmcount --check` does for linked files, each function's first
 * bytes are decoded with the arch's call decoders (arch/arch.h); a call
 * goes to the hook when it reaches the place the module's recorded calls
 * reach (its PLT entry or GOT slot for mcount or __fentry__), taken from
 * the sites before they were patched (rt_modules.c).  It reads every
 * function's first bytes, so it runs with OBJPATCH_STATS=1 only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/lib/rt.h"

static const bool host_big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

/* Where a recorded call at `addr` goes, or 0: a NOP, or a form without a decoder. */
uintptr_t rt_call_target(uintptr_t addr, size_t len)
{
	const struct arch *a = rt_arch_host.desc;
	bool be = host_big_endian && !a->code_always_le;
	uint64_t to;

	for (size_t i = 0; i < a->ndecoders; i++) {
		const struct call_decoder *d = &a->decoders[i];

		if (!d->ref && !d->jump && d->target && insn_matches(&d->insn, (const uint8_t *)addr, len, be) &&
		    d->target((const uint8_t *)addr, len, be, addr, &to))
			return (uintptr_t)to;
	}
	return 0;
}

static bool is_hook(const struct rt_module *m, uintptr_t to)
{
	for (size_t i = 0; i < m->nhook_targets; i++)
		if (m->hook_targets[i] == to)
			return true;
	return false;
}

/* Bytes of code readable from `addr` on, within the module's executable sections (0: none). */
static size_t code_after(const struct rt_module *m, uintptr_t addr)
{
	const struct elfobj *obj = m->file;
	uint64_t va = addr - m->bias;

	for (size_t i = 1; i < obj->nsec; i++) {
		const GElf_Shdr *sh = &obj->sec[i].sh;

		if (sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) && (sh->sh_flags & SHF_ALLOC) &&
		    va >= sh->sh_addr && va < sh->sh_addr + sh->sh_size)
			return (size_t)(sh->sh_addr + sh->sh_size - va);
	}
	return 0;
}

static bool is_site(const struct rt_module *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->nsites;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->sites[mid].addr == addr)
			return true;
		if (m->sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Does the function call the hook within its first bytes at a place no site names? */
static bool calls_hook_unrecorded(const struct rt_module *m, const struct sym_func *f)
{
	const struct arch *a = rt_arch_host.desc;
	unsigned align = a->insn_align ? a->insn_align : 1;
	size_t avail = code_after(m, (uintptr_t)f->addr), window = f->size;

	if (!avail || !f->size)
		return false;
	if (a->hook_window && window > a->hook_window)
		window = a->hook_window;
	if (window > avail)
		window = avail;
	for (size_t off = 0; off < window; off += align) {
		uintptr_t p = (uintptr_t)f->addr + off, to = rt_call_target(p, avail - off);

		if (to && is_hook(m, to))
			return !is_site(m, p);
	}
	return false;
}

void rt_report_unrecorded(size_t first)
{
	for (size_t i = first; i < rt.nmods; i++) {
		struct rt_module *m = rt.mods[i];
		const char *example = NULL;
		size_t n = 0;

		if (!m->nhook_targets || !rt_arch_host.desc->ndecoders || rt_module_functions(m) < 0)
			continue;
		for (size_t j = 0; j < m->syms.sorted; j++)
			if (calls_hook_unrecorded(m, &m->syms.funcs[j]) && !n++)
				example = m->syms.funcs[j].name;
		if (n)
			fprintf(stderr, "objpatch: %s: %zu function%s call the profiling hook without a table entry "
				"(%s%s), not traced: run recordmcount --mode=user on the objects they are in\n",
				strcmp(m->path, "/proc/self/exe") == 0 ? program_invocation_name : m->path, n, n == 1 ? "" : "s", example, n == 1 ? "" : ", ...");
	}
}
