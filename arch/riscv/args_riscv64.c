// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the RISC-V LP64D calling convention passes arguments: integers in
 * a0-a7, floats and doubles in fa0-fa7 (a float NaN-boxed: its 4 bytes are
 * the register's low ones) and, once those are used up, in the integer
 * registers and then on the stack, in 8-byte slots from the caller's sp.
 * A value of two words (__int128, long double, aggregates of 9 to 16
 * bytes) takes two registers, any two for a named argument; with one left
 * it is split, its low word in a7 and its high word in the first stack
 * slot.  On the stack a value is aligned to its own alignment, at least 8
 * and at most 16.  Aggregates larger than 16 bytes are passed by
 * reference.  A struct whose flattened members are one float, two floats,
 * or a float and an integer goes in FP registers (and an integer one)
 * when enough of them are free: the FP calling convention's flattening.
 */
#include "arch/abi_args.h"
#include "arch/riscv/args_riscv64.h"

static const struct arg_abi lp64d = { .gprs = 8, .fprs = 8, .word = 8 };

/* The integer calling convention, for a value of 1 to 16 bytes aligned to `align`. */
static void integer_conv(struct arg_cursor *c, uint32_t size, uint32_t align, struct arg_place *o)
{
	if (arg_take_gprs(c, size, false, o))
		return;
	if (size > 8 && c->gpr + 1 == c->abi->gprs) {
		/* Split: a7 and the first stack slot (the stack is still empty then). */
		arg_take_gprs(c, 8, false, NULL);
		arg_take_stack(c, 8, 8, NULL);
		return;
	}
	c->gpr = c->abi->gprs;
	arg_take_stack(c, size, align > 16 ? 16 : align, o);
}

/* A float or double: an FP register while one is free, else as an integer of its size. */
static void real(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	if (!arg_take_fpr(c, size, 0, o))
		integer_conv(c, size, size, o);
}

/* Whether two members share bytes: a union's (or a union's inside the struct). */
static bool overlapping(const struct arg_type *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		for (size_t j = i + 1; j < t->nfields; j++)
			if (t->fields[i].offset < t->fields[j].offset + t->fields[j].size &&
			    t->fields[j].offset < t->fields[i].offset + t->fields[i].size)
				return true;
	return false;
}

/*
 * The flattening rule: a struct of one float, or of two members at least
 * one of which is a float (no member larger than 8 bytes: the table lists
 * no others), needs that many FP registers and, for an integer member, an
 * integer register.  Returns whether it went there.
 */
static bool flattened(struct arg_cursor *c, const struct arg_type *t)
{
	unsigned floats = 0, ints;

	if (t->is_union || t->nfields > 2 || overlapping(t))
		return false;
	for (size_t i = 0; i < t->nfields; i++)
		floats += t->fields[i].is_float;
	ints = (unsigned)t->nfields - floats;
	if (!floats || c->fpr + floats > c->abi->fprs || c->gpr + ints > c->abi->gprs)
		return false;
	c->fpr += floats;
	c->gpr += ints;
	return true;
}

/* The alignment of an aggregate whose members are listed: its largest member's (up to 8 bytes each). */
static uint32_t aggregate_align(const struct arg_type *t)
{
	uint32_t align = 1;

	for (size_t i = 0; i < t->nfields; i++)
		if (t->fields[i].size > align)
			align = t->fields[i].size;
	return align;
}

/* Aggregates print "?": only the registers and stack they use matter. */
static void place_aggregate(struct arg_cursor *c, const struct arg_type *t)
{
	if (!t->size)
		return;		/* an empty struct (a GNU C extension) takes nothing */
	if (t->size > 16) {
		integer_conv(c, 8, 8, NULL);	/* a pointer to the caller's copy */
		return;
	}
	/*
	 * Unlisted members (bitfields, long double, __int128, complex) leave
	 * both the flattening and the alignment unknown.
	 */
	if (!t->fields || !t->nfields) {
		arg_lose(c);
		return;
	}
	if (!flattened(c, t))
		integer_conv(c, t->size, aggregate_align(t), NULL);
}

void arg_place_riscv64(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &lp64d };

	(void)big_endian;	/* RISC-V Linux is little-endian */
	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (p[i].kind == ARG_INT && size <= 8)
			integer_conv(&c, size, 8, o);
		else if (p[i].kind == ARG_INT && size == 16)
			integer_conv(&c, 16, 16, NULL);	/* __int128: not captured */
		else if (p[i].kind == ARG_FLOAT && (size == 4 || size == 8))
			real(&c, size, o);
		else if (p[i].kind == ARG_FLOAT && size == 16)
			integer_conv(&c, 16, 16, NULL);	/* long double (binary128), wider than FLEN: not captured */
		else if (p[i].kind == ARG_AGGREGATE)
			place_aggregate(&c, &p[i]);
		else
			arg_lose(&c);
	}
}

/* LP64D: an aggregate over 16 bytes comes back in memory, its address passed in a0. */
int arg_ret_by_address_riscv64(const struct arg_type *ret)
{
	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		return ret->size > 16;
	default:
		return -1;
	}
}
