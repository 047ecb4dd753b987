// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What an entry records of its function's arguments (OBJPATCH_ARGS=1),
 * and what an exit copies of a value returned in memory.
 * When a site is enabled, its function's parameters are placed by the
 * ABI (trace/arg_text.c, the same code a reader places them with) and the
 * places are kept under the site's return address in a table that entries
 * read without a lock: one multiply and, most often, one cache line.
 * Tables only grow, under runtime.lock; a grown table is published whole and
 * the old one is kept, since entries may still be reading it.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "objpatch/lib/rt.h"
#include "trace/arg_text.h"

_Static_assert(TRACE_MAX_ARGS * ARG_MAX_PIECES <= ARGS_MAX_PIECES, "an event holds every piece");

_Atomic(struct rt_arg_table *) rt_arg_table RT_HIDDEN;

static struct rt_arg_table *new_table(unsigned bits)
{
	size_t size = sizeof(struct rt_arg_table) + ((size_t)1 << bits) * sizeof(struct rt_arg_slot);
	struct rt_arg_table *t = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->bits = bits;
	return t;
}

static void put(struct rt_arg_table *t, uintptr_t ra, const struct rt_arg_spec *spec)
{
	size_t mask = ((size_t)1 << t->bits) - 1, i;

	for (i = rt_args_hash(ra, t->bits);; i = (i + 1) & mask) {
		uintptr_t k = atomic_load_explicit(&t->slot[i].ra, memory_order_relaxed);

		if (k == ra)
			return;		/* the same site's: the same places */
		if (!k)
			break;
	}
	t->slot[i].spec = spec;
	atomic_store_explicit(&t->slot[i].ra, ra, memory_order_release);
	t->used++;
}

/* Room for one more, kept at most half full; -1 when memory runs out. */
static int make_room(void)
{
	struct rt_arg_table *t = atomic_load_explicit(&rt_arg_table, memory_order_relaxed), *g;

	if (t && 2 * (t->used + 1) <= ((size_t)1 << t->bits))
		return 0;
	g = new_table(t ? t->bits + 1 : 12);
	if (!g)
		return -1;
	for (size_t i = 0; t && i < ((size_t)1 << t->bits); i++) {
		uintptr_t k = atomic_load_explicit(&t->slot[i].ra, memory_order_relaxed);

		if (k)
			put(g, k, t->slot[i].spec);
	}
	atomic_store_explicit(&rt_arg_table, g, memory_order_release);
	return 0;
}

/*
 * Where a piece is at the site's entry, for its kind of hook: an offset
 * from the registers the trampoline saved, or from the return address
 * slot for the caller's stack (or from the registers, at *stack, where the
 * port finds it per site); and how to take its `size` bytes out of the 8
 * read there.  A register's value is its low `size` bytes: at its end on
 * a big-endian machine.
 */
static struct rt_arg_src source_of(const struct arg_piece *p, unsigned kind, unsigned unknown, const int32_t *stack)
{
	const struct rt_arg_regs *ar = &rt_arch_host.arg_regs;
	bool be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	uint64_t mask = p->size < 8 ? (1ull << 8 * p->size) - 1 : ~0ull;
	uint8_t shift = be ? (uint8_t)(64 - 8 * p->size) : 0;

	switch (p->area) {
	case ARG_AREA_GPR:
		if (unknown & ARGS_NO_REGS)
			break;
		return (struct rt_arg_src){ mask, ar->gpr[p->at] + (be ? (int)sizeof(uintptr_t) - p->size : 0), 0, shift };
	case ARG_AREA_FPR:
		if (unknown & ARGS_NO_REGS)
			break;
		return (struct rt_arg_src){ mask, ar->fpr + p->at * ar->fpr_stride + p->sub, 0, shift };
	default:
		if (unknown & ARGS_NO_STACK)
			break;
		if (stack)
			return (struct rt_arg_src){ mask, *stack + p->at, 0, shift };
		return (struct rt_arg_src){ mask, ar->stack_from_slot[kind] + p->at, 1, shift };
	}
	return (struct rt_arg_src){ 0 };	/* not seen: 0 */
}

/* The places of a site's function's arguments, made when it is first enabled. */
static struct rt_arg_spec *spec_of(const struct rt_module *m, const struct rt_site *site)
{
	const struct signature *sig = sym_func_sig(&m->syms.funcs[site->func]);
	const struct rt_arg_regs *ar = &rt_arch_host.arg_regs;
	unsigned unknown = ar->unknown_at ? ar->unknown_at(site->addr, site->len, site->kind) : ar->unknown[site->kind];
	struct arg_place places[TRACE_MAX_ARGS];
	struct arg_word_pos pos[TRACE_MAX_ARGS * ARG_MAX_PIECES];
	struct rt_arg_spec *s = calloc(1, sizeof(*s));
	int32_t stack = 0;
	size_t n, k = 0;

	if (!s)
		return NULL;
	if (ar->stack_at && !(unknown & ARGS_NO_STACK) &&
	    !ar->stack_at(m->syms.funcs[site->func].addr, site->addr, site->len, &stack))
		unknown |= ARGS_NO_STACK;
	n = sig ? trace_arg_places(rt_arch_host.desc, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, sig, places) : 0;
	s->nwords = (uint8_t)trace_arg_pack(places, n, pos);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < places[i].npieces; j++, k++) {
			struct rt_arg_word *w = &s->word[pos[k].word];

			*(pos[k].shift ? &w->hi : &w->lo) =
				source_of(&places[i].piece[j], site->kind, unknown, ar->stack_at ? &stack : NULL);
		}
	s->flags = (uint8_t)(unknown | ARGS_PACKED);
	return s;
}

int rt_args_enable(const struct rt_module *m, const struct rt_site *s)
{
	const struct signature *sig = sym_func_sig(&m->syms.funcs[s->func]);
	size_t ret_bytes = sig && (sig->flags & PROTO_RELIABLE) ? rt_memory_value_bytes(sig) : 0;
	struct rt_arg_spec *spec;
	uintptr_t ra = s->addr + (rt_arch_host.ra_from_site ? rt_arch_host.ra_from_site
							    : s->len + rt_arch_host.ra_after_site);

	if (!(runtime.args || ret_bytes) || rt_args_spec(ra))
		return 0;
	if (!(spec = spec_of(m, s)) || make_room() < 0)
		return -1;
	spec->ret_bytes = (uint8_t)ret_bytes;
	put(atomic_load_explicit(&rt_arg_table, memory_order_relaxed), ra, spec);
	return 0;
}
