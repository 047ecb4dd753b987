// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the SPARC V9 ABI (Linux sparc64) passes arguments: an array of
 * 8-byte slots, the first six in %o0-%o5 (the callee's %i0-%i5) and every
 * slot also home space in the caller's frame, from its %sp + 2047 + 128
 * (after the window save area).  An integer or pointer in slot i < 6 is in
 * %o(i), past that in its stack slot; a float or double in slot i < 16 is
 * in an FP register whatever i is: a double in %d(2i), a float in the odd
 * single %f(2i + 1), which is the second half of %d(2i) in memory order.
 * So one slot counter serves both kinds, and an FP argument leaves its
 * integer register unused (and the other way round).  In a stack slot a
 * narrower value, float or integer, lies at the slot's end (checked with
 * gcc 12).  A 16-byte-aligned value (long double, __int128, a struct
 * holding one) starts at an even slot; long double goes in %q(2i) and
 * prints "?".  Aggregates of up to 16 bytes take their slots (their float
 * fields in FP registers): "?"; larger ones are passed by reference, one
 * slot holding a copy's address: "?" too.
 */
#include "arch/abi_args.h"
#include "arch/sparc/args_sparc64.h"

#define GPRS 6	/* %o0-%o5 */
#define FP_SLOTS 16	/* %d0-%d30: the trampoline saves them 8 bytes apart */

static const struct arg_abi v9 = { .gprs = GPRS, .fprs = FP_SLOTS, .word = 8, .big_endian = true };

/* An aggregate's alignment from its fields; 0 when they are not listed (and it could be 16). */
static uint32_t aggregate_align(const struct arg_type *t)
{
	uint32_t align = 1;

	if (t->size && t->size <= 8)
		return 8;
	if (!t->fields || !t->nfields)
		return 0;
	for (size_t i = 0; i < t->nfields; i++)
		if (t->fields[i].size > align)
			align = t->fields[i].size;
	return align;
}

/*
 * How many slots a parameter takes and its alignment in slots: 1, 2 (an
 * even one) or 0 when not known; false: not placeable.
 */
static bool slots(const struct arg_type *t, unsigned *n, unsigned *align)
{
	if (t->kind == ARG_UNKNOWN || !t->size)
		return false;
	if (t->kind == ARG_AGGREGATE && t->size > 16) {
		*n = *align = 1;	/* by reference */
		return true;
	}
	*n = (t->size + 7) / 8;
	if (t->kind == ARG_AGGREGATE) {
		uint32_t a = aggregate_align(t);

		*align = !a ? 0 : a >= 16 ? 2 : 1;
	} else {
		*align = t->size >= 16 ? 2 : 1;
	}
	return true;
}

/* A scalar of up to 8 bytes in `slot`: its register of its kind, or its stack slot. */
static void scalar(struct arg_cursor *c, unsigned slot, const struct arg_type *t, struct arg_place *o)
{
	if (t->kind == ARG_FLOAT && slot < FP_SLOTS) {
		/* Its bytes at the end of the 8 the register's double has in memory. */
		arg_fpr_at(c, slot, t->size, (uint8_t)(8 - t->size), o);
		return;
	}
	if (t->kind != ARG_FLOAT && slot < GPRS) {
		c->gpr = slot;
		arg_take_gprs(c, t->size, false, o);
		return;
	}
	c->stack = slot * 8;
	arg_take_stack(c, t->size, 8, o);
}

void arg_place_sparc64(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &v9 };
	unsigned slot = 0;

	(void)big_endian;	/* Linux sparc64 is big-endian */
	for (size_t i = 0; i < n; i++) {
		unsigned take, align;

		out[i] = (struct arg_place){ 0 };
		if (c.lost || !slots(&p[i], &take, &align) || (!align && (slot & 1))) {
			/* Unplaceable, or at an odd slot it may or may not skip. */
			arg_lose(&c);
			continue;
		}
		slot += align == 2 && (slot & 1);
		if (take == 1 && p[i].kind != ARG_AGGREGATE)
			scalar(&c, slot, &p[i], &out[i]);
		slot += take;
	}
}

/* Aggregates of over 32 bytes come back in memory, its address passed in %o0. */
int arg_ret_by_address_sparc64(const struct arg_type *ret)
{
	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		return ret->size > 32;
	default:
		return -1;
	}
}
