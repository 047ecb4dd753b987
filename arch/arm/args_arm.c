// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where 32-bit ARM's AAPCS passes arguments, with the VFP (hard-float)
 * variant armhf uses: integers, pointers and other aggregates in r0-r3
 * (an 8-byte aligned value in an even pair, r0:r1 or r2:r3), floats,
 * doubles and homogeneous float aggregates of up to four members in the
 * VFP registers s0-s15 / d0-d7, the rest in the caller's outgoing
 * argument area, 4-byte slots, 8-byte aligned values at a multiple of 8.
 *
 * VFP registers are taken as the lowest run of free single-precision
 * slots that fits (a double's at an even slot), so a float after a double
 * back-fills the hole an earlier float left (float, double, float: s0,
 * d1, s1).  Once a VFP argument has gone to the stack, no later one uses a
 * register; once a core argument has, no later core one does.  Only an
 * aggregate may be split between r-registers and the stack, and only
 * while nothing is on the stack yet.
 *
 * Variadic functions use the base standard for their named parameters
 * too: floats and doubles in r-registers and the stack, as integers of
 * their size would be.
 */
#include "arch/abi_args.h"
#include "arch/arm/args_arm.h"

#define GPRS 4
#define VFP_SLOTS 16

static const struct arg_abi aapcs = { .gprs = GPRS, .fprs = VFP_SLOTS, .word = 4 };

struct aapcs_cursor {
	struct arg_cursor c;
	uint16_t vfp_used;	/* single-precision slots taken, s0 = bit 0 */
	bool vfp_closed;	/* a VFP argument went to the stack: no register is free any more */
	bool variadic;		/* the base standard: no VFP registers */
};

/* The lowest run of `n` free slots starting at a multiple of `align`, or -1. */
static int vfp_find(uint16_t used, unsigned n, unsigned align)
{
	for (unsigned s = 0; s + n <= VFP_SLOTS; s += align) {
		uint16_t mask = (uint16_t)(((1u << n) - 1) << s);

		if (!(used & mask))
			return (int)s;
	}
	return -1;
}

/*
 * A VFP candidate of `count` members of `msize` bytes (4: floats, 8:
 * doubles): its first slot, or -1 when it goes to the stack, which closes
 * the VFP registers for every later argument.
 */
static int vfp_take(struct aapcs_cursor *a, unsigned count, unsigned msize)
{
	unsigned per = msize / 4;
	int s = a->vfp_closed ? -1 : vfp_find(a->vfp_used, count * per, per);

	if (s < 0) {
		a->vfp_closed = true;
		return -1;
	}
	a->vfp_used |= (uint16_t)(((1u << (count * per)) - 1) << s);
	return s;
}

/* A float or double in VFP registers, else on the stack at its natural alignment. */
static void place_vfp_scalar(struct aapcs_cursor *a, uint32_t size, struct arg_place *o)
{
	int s = vfp_take(a, 1, size);

	if (s >= 0)
		arg_fpr_at(&a->c, (unsigned)s, size, 0, o);
	else
		arg_take_stack(&a->c, size, size, o);
}

/* A scalar of up to 8 bytes in core registers (8-byte ones in an even pair), else on the stack. */
static void place_core_scalar(struct aapcs_cursor *a, uint32_t size, struct arg_place *o)
{
	if (arg_take_gprs(&a->c, size, true, o))
		return;
	a->c.gpr = GPRS;
	arg_take_stack(&a->c, size, size > 4 ? 8 : 4, o);
}

/*
 * An aggregate in core registers (not captured): whole, or split with the
 * stack while nothing is on the stack yet, or whole on the stack.  Its
 * size counts in words.
 */
static void place_core_aggregate(struct aapcs_cursor *a, uint32_t size, uint32_t align)
{
	struct arg_cursor *c = &a->c;
	uint32_t words = (size + 3) / 4;

	if (align == 8)
		c->gpr += c->gpr & 1;
	if (c->gpr + words <= GPRS) {
		c->gpr += words;
		return;
	}
	if (c->gpr < GPRS && c->stack == 0) {
		c->stack = (words - (GPRS - c->gpr)) * 4;
		c->gpr = GPRS;
		return;
	}
	c->gpr = GPRS;
	arg_take_stack(c, words * 4, align, NULL);
}

/*
 * An aggregate's alignment from its (flattened, scalar) members, 4 at
 * least; 0 when that cannot be told (no members listed, or a layout that
 * is not the natural one: packed or over-aligned).
 */
static uint32_t aggregate_align(const struct arg_type *t)
{
	uint32_t align = 4;

	if (!t->fields || !t->nfields || !t->size)
		return 0;
	for (size_t i = 0; i < t->nfields; i++) {
		uint32_t s = t->fields[i].size;

		if ((s & (s - 1)) || s > 8 || t->fields[i].offset % s)
			return 0;
		if (s > align)
			align = s;
	}
	return t->size % align ? 0 : align;
}

/* Whether all members are floats of one size: then the homogeneous test alone decides. */
static bool all_float(const struct arg_type *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (!t->fields[i].is_float || t->fields[i].size != t->fields[0].size)
			return false;
	return true;
}

static void place_aggregate(struct aapcs_cursor *a, const struct arg_type *t)
{
	uint32_t align = aggregate_align(t);
	unsigned members;
	uint8_t msize;

	if (!align) {
		arg_lose(&a->c);
		return;
	}
	if (!a->variadic && arg_homogeneous_float(t, 4, &members, &msize)) {
		if (vfp_take(a, members, msize) < 0)
			arg_take_stack(&a->c, t->size, msize, NULL);
		return;
	}
	/*
	 * Floats of one size that are not one per slot (a union of floats,
	 * more than four with a union among them): the compiler may count
	 * them as a homogeneous aggregate the flattened list cannot show.
	 */
	if (!a->variadic && all_float(t) && t->nfields * t->fields[0].size != t->size) {
		arg_lose(&a->c);
		return;
	}
	place_core_aggregate(a, t->size, align);
}

static void place(const struct arg_type *p, size_t n, bool big_endian, bool variadic, struct arg_place *out)
{
	/* Big-endian ARM (no hard-float system has one) is not placed: every argument prints "?". */
	struct aapcs_cursor a = { .c = { .abi = &aapcs, .lost = big_endian }, .variadic = variadic };

	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (p[i].kind == ARG_INT && (size == 1 || size == 2 || size == 4 || size == 8))
			place_core_scalar(&a, size, o);
		else if (p[i].kind == ARG_FLOAT && (size == 4 || size == 8) && variadic)
			place_core_scalar(&a, size, o);
		else if (p[i].kind == ARG_FLOAT && (size == 4 || size == 8))
			place_vfp_scalar(&a, size, o);	/* long double is a double here: captured like one */
		else if (p[i].kind == ARG_AGGREGATE)
			place_aggregate(&a, &p[i]);
		else
			arg_lose(&a.c);
	}
}

void arg_place_arm(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	place(p, n, big_endian, false, out);
}

void arg_place_arm_variadic(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	place(p, n, big_endian, true, out);
}

/*
 * AAPCS: an aggregate of up to 4 bytes comes back in r0, a homogeneous
 * float aggregate (VFP variant) in s0-s15/d0-d7, any other in memory
 * whose address the caller passes in r0.
 */
int arg_ret_by_address_arm(const struct arg_type *ret)
{
	unsigned members;
	uint8_t member_size;

	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		if (ret->size <= 4)
			return 0;
		if (!ret->fields || ret->is_union)
			return -1;	/* a float aggregate or not: only its members say */
		return !arg_homogeneous_float(ret, 4, &members, &member_size);
	default:
		return -1;
	}
}
