// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions that call the profiling hook without a table entry: an object
 * compiled with -pg whose recordmcount step was left out.  The runtime
 * never sees them (no site), so their calls vanish from the trace.  As
 * `recordmcount --check` does for linked files, each function's first
 * bytes are decoded with the arch's call decoders (arch/arch.h); a call
 * goes to the hook when it reaches the place the module's recorded calls
 * reach (its PLT entry or GOT slot for mcount or __fentry__), decoded
 * from the file's bytes at the sites.  It reads every function's first
 * bytes, so it runs with OBJPATCH_STATS=1 only, after the start-up
 * figures are taken.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/lib/rt.h"

static const bool host_big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

/* Where the hook is, as the module's recorded calls reach it: a few distinct places. */
struct hook_targets {
	uint64_t to[4];
	size_t n;
};

/*
 * The file's bytes of the module's code at a run-time address, and how
 * many follow in its section (NULL: not code).  The file, not memory: its
 * sites are NOPs or our calls by now, and nothing unmapped is ever read.
 */
static const uint8_t *file_code(const struct rt_module *m, uintptr_t addr, size_t *avail)
{
	const struct elfobj *obj = m->file;
	uint64_t va = addr - m->bias;

	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *s = &obj->sec[i];
		const GElf_Shdr *sh = &s->sh;

		if (sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) && (sh->sh_flags & SHF_ALLOC) &&
		    s->bytes && va >= sh->sh_addr && va - sh->sh_addr < s->size) {
			*avail = (size_t)(s->size - (va - sh->sh_addr));
			return s->bytes + (va - sh->sh_addr);
		}
	}
	return NULL;
}

/* Where a call at run-time address `pc` goes, decoded from `code`; 0: no call the arch decodes. */
static uint64_t call_target(const uint8_t *code, size_t avail, uintptr_t pc)
{
	const struct arch *a = rt_arch_host.desc;
	bool be = host_big_endian && !a->code_always_le;
	uint64_t to;

	for (size_t i = 0; i < a->ndecoders; i++) {
		const struct call_decoder *d = &a->decoders[i];

		if (!d->ref && !d->jump && d->target && insn_matches(&d->insn, code, avail, be) &&
		    d->target(code, avail, be, pc, &to))
			return to;
	}
	return 0;
}

/* The targets of the module's recorded calls, as the file has them (a --nop build: none). */
static void find_hook(const struct rt_module *m, struct hook_targets *h)
{
	h->n = 0;
	for (size_t i = 0; i < m->nsites && h->n < sizeof(h->to) / sizeof(h->to[0]); i++) {
		size_t avail;
		const uint8_t *code = file_code(m, m->sites[i].addr, &avail);
		uint64_t to = code ? call_target(code, avail, m->sites[i].addr) : 0;
		bool seen = false;

		for (size_t k = 0; k < h->n; k++)
			seen |= h->to[k] == to;
		if (to && !seen)
			h->to[h->n++] = to;
	}
}

static bool is_hook(const struct hook_targets *h, uint64_t to)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->to[i] == to)
			return true;
	return false;
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
static bool calls_hook_unrecorded(const struct rt_module *m, const struct hook_targets *h, const struct sym_func *f)
{
	const struct arch *a = rt_arch_host.desc;
	unsigned align = a->insn_align ? a->insn_align : 1;
	size_t avail = 0, window = f->size;
	const uint8_t *code = file_code(m, (uintptr_t)f->addr, &avail);

	if (!code || !f->size)
		return false;
	if (a->hook_window && window > a->hook_window)
		window = a->hook_window;
	if (window > avail)
		window = avail;
	for (size_t off = 0; off < window; off += align) {
		uint64_t to = call_target(code + off, avail - off, (uintptr_t)f->addr + off);

		if (to && is_hook(h, to))
			return !is_site(m, (uintptr_t)f->addr + off);
	}
	return false;
}

void rt_report_unrecorded(size_t first)
{
	for (size_t i = first; i < rt.nmods; i++) {
		struct rt_module *m = rt.mods[i];
		struct hook_targets h;
		const char *example = NULL;
		size_t n = 0;

		if (!rt_arch_host.desc->ndecoders || rt_module_functions(m) < 0)
			continue;
		find_hook(m, &h);
		for (size_t j = 0; h.n && j < m->syms.sorted; j++)
			if (calls_hook_unrecorded(m, &h, &m->syms.funcs[j]) && !n++)
				example = m->syms.funcs[j].name;
		if (n)
			fprintf(stderr, "objpatch: %s: %zu function%s call the profiling hook without a table entry "
				"(%s%s), not traced: run recordmcount --mode=user on the objects they are in\n",
				strcmp(m->path, "/proc/self/exe") == 0 ? program_invocation_name : m->path, n,
				n == 1 ? "" : "s", example, n == 1 ? "" : ", ...");
	}
}
