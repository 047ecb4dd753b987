// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the 64-bit ELFv2 ABI (ppc64le) passes arguments.  Every argument
 * takes doublewords of the parameter save area, in order, whether it is
 * passed there or not: the first 8 doublewords are r3-r10, the rest lie
 * in the caller's frame (the area starts 32 bytes above its r1).  Floats
 * and doubles go in f1-f13 instead, as doubles, and still take their
 * doubleword (and so a GPR's turn); beyond f13 they are in the save area,
 * a float in its doubleword's first (low) word.  Homogeneous float
 * aggregates (up to 8 floats or doubles) take one FPR per member; other
 * aggregates are passed by value in as many doublewords as they need,
 * split between r10 and the stack if they must.  __int128 takes two
 * doublewords with no alignment (gcc and clang agree).
 *
 * ELFv1 (ppc64, big-endian) passes them the same way but has no
 * homogeneous aggregates (an aggregate takes doublewords whatever its
 * members), and a value narrower than its doubleword lies at its end (a
 * float beyond f13 in its second word): arg_place_ppc64.
 */
#include "arch/abi_args.h"
#include "arch/powerpc/args_ppc64le.h"

#define SAVE_AREA_GPRS 8	/* r3-r10 */

static const struct arg_abi elfv2 = { .gprs = SAVE_AREA_GPRS, .fprs = 13, .word = 8 };
static const struct arg_abi elfv1 = { .gprs = SAVE_AREA_GPRS, .fprs = 13, .word = 8, .big_endian = true };

/* The next doubleword of the parameter save area: c->stack counts them all, in bytes. */
static unsigned position(const struct arg_cursor *c)
{
	return c->stack / 8;
}

/* A value of up to 8 bytes in the next doubleword: its GPR, or its place on the stack. */
static void one_dword(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	unsigned pos = position(c);

	if (pos < SAVE_AREA_GPRS) {
		c->gpr = pos;
		arg_take_gprs(c, size, false, o);
		c->stack += 8;
	} else {
		arg_take_stack(c, size, 8, o);
	}
}

/* `size` bytes in GPRs and the stack, not captured: only the doublewords taken matter. */
static void skip_dwords(struct arg_cursor *c, uint32_t size)
{
	c->stack += (size + 7) / 8 * 8;
}

static void real(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	/* In an FPR a float is held as a double: the event keeps its 8 bytes. */
	if (arg_take_fpr(c, 8, 0, o)) {
		skip_dwords(c, 8);
		return;
	}
	/* No FPR left but a GPR: the ABI's rule for that is not one this placer knows. */
	if (position(c) < SAVE_AREA_GPRS) {
		arg_lose(c);
		return;
	}
	arg_take_stack(c, size, 8, o);
}

static bool any_float(const struct arg_type *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (t->fields[i].is_float)
			return true;
	return false;
}

static bool overlapping(const struct arg_type *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		for (size_t j = i + 1; j < t->nfields; j++)
			if (t->fields[i].offset < t->fields[j].offset + t->fields[j].size &&
			    t->fields[j].offset < t->fields[i].offset + t->fields[i].size)
				return true;
	return false;
}

/* Aggregates print "?": only the FPRs (ELFv2: `homogeneous`) and doublewords they take matter. */
static void place_aggregate(struct arg_cursor *c, const struct arg_type *t, bool homogeneous)
{
	unsigned members;
	uint8_t member_size;

	if (!homogeneous) {
		if (!t->size) {
			arg_lose(c);
			return;
		}
		skip_dwords(c, t->size);
		return;
	}

	/*
	 * Unlisted members (anything over 16 bytes, bitfields, long double,
	 * vectors) leave unknown whether it is homogeneous and whether it is
	 * quadword-aligned; a union of floats is homogeneous by its largest
	 * member, which the flattened list does not say; nor does an empty
	 * struct's size say what it takes.
	 */
	if (!t->size || !t->fields || !t->nfields || (any_float(t) && (t->is_union || overlapping(t)))) {
		arg_lose(c);
		return;
	}
	if (arg_homogeneous_float(t, 8, &members, &member_size)) {
		if (c->fpr + members > c->abi->fprs) {
			arg_lose(c);	/* the members that do not fit go elsewhere */
			return;
		}
		c->fpr += members;
	}
	/* Listed members are at most 8 bytes: the aggregate is doubleword-aligned at most. */
	skip_dwords(c, t->size);
}

static void place(const struct arg_abi *abi, const struct arg_type *p, size_t n, struct arg_place *out)
{
	struct arg_cursor c = { .abi = abi };

	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (c.lost)
			continue;
		if (p[i].kind == ARG_INT && size <= 8)
			one_dword(&c, size, o);
		else if (p[i].kind == ARG_INT && size == 16)
			skip_dwords(&c, 16);	/* __int128: not captured */
		else if (p[i].kind == ARG_FLOAT && (size == 4 || size == 8))
			real(&c, size, o);
		else if (p[i].kind == ARG_AGGREGATE)
			place_aggregate(&c, &p[i], abi == &elfv2);
		else
			arg_lose(&c);	/* long double: IBM double-double (f-regs) or IEEE (a VR, aligned) */
	}
}

void arg_place_ppc64le(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	(void)big_endian;	/* ELFv2 here is little-endian */
	place(&elfv2, p, n, out);
}

void arg_place_ppc64(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	(void)big_endian;	/* ELFv1 is big-endian */
	place(&elfv1, p, n, out);
}

/*
 * ELFv2: an aggregate of up to 16 bytes comes back in r3:r4, a homogeneous
 * float aggregate of up to 8 members in f1-f8, any other in memory whose
 * address the caller passes in r3.
 */
int arg_ret_by_address_ppc64le(const struct arg_type *ret)
{
	unsigned members;
	uint8_t member_size;

	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		if (ret->size <= 16)
			return 0;
		if (!ret->fields || ret->is_union)
			return -1;
		return !arg_homogeneous_float(ret, 8, &members, &member_size);
	default:
		return -1;
	}
}
