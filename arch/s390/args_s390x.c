// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the s390x ELF ABI passes arguments: integers and pointers in
 * r2-r6 (extended to 64 bits), floats and doubles in f0, f2, f4, f6 (a
 * float in the register's first four bytes, as the trampoline's `std`
 * stores it), the rest in 8-byte slots from the caller's sp + 160, a value
 * narrower than its slot at the slot's end.  Aggregates of 1, 2, 4 or 8
 * bytes travel as an integer of that size, or as a float when they are a
 * struct whose one member is a float or double; every other aggregate,
 * long double and __int128 as the address of a copy (one GPR or slot).
 * Aggregates and what goes by address print "?", but take their room.
 */
#include "arch/abi_args.h"
#include "arch/s390/args_s390x.h"

/* FPR numbers are f0, f2, f4, f6 as the trampoline saves them: 0-3. */
static const struct arg_abi s390x_abi = { .gprs = 5, .fprs = 4, .word = 8, .big_endian = true };

static void gpr_or_stack(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	if (!arg_take_gprs(c, size, false, o))
		arg_take_stack(c, size, 8, o);
}

static void fpr_or_stack(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	if (!arg_take_fpr(c, size, 0, o))
		arg_take_stack(c, size, 8, o);
}

/*
 * An aggregate of 1, 2, 4 or 8 bytes: an integer, unless it is a struct
 * whose one member (nested structs aside) is a float or double: a float
 * then.  A union's float and an array of one float go as an integer (gcc
 * and clang agree), and one member alone does not say which it is: such
 * an aggregate is not placed, nor anything after it.  Without its members
 * only 1 or 2 bytes cannot be a float.
 */
static void place_small_aggregate(struct arg_cursor *c, const struct arg_type *t)
{
	bool any_float = false;

	if (!t->fields || !t->nfields) {
		if (t->size <= 2)
			gpr_or_stack(c, t->size, NULL);
		else
			arg_lose(c);
		return;
	}
	for (size_t i = 0; i < t->nfields; i++)
		any_float |= t->fields[i].is_float;
	if (!any_float || t->nfields > 1)
		gpr_or_stack(c, t->size, NULL);
	else
		arg_lose(c);
}

static void place_aggregate(struct arg_cursor *c, const struct arg_type *t)
{
	switch (t->size) {
	case 1:
	case 2:
	case 4:
	case 8:
		place_small_aggregate(c, t);
		break;
	case 0:
		arg_lose(c);	/* GNU C's empty struct: how it is passed is not known here */
		break;
	default:
		gpr_or_stack(c, 8, NULL);	/* the address of the caller's copy */
		break;
	}
}

void arg_place_s390x(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &s390x_abi };

	(void)big_endian;	/* big-endian only */

	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (p[i].kind == ARG_INT && size >= 1 && size <= 8)
			gpr_or_stack(&c, size, o);
		else if (p[i].kind == ARG_FLOAT && (size == 4 || size == 8))
			fpr_or_stack(&c, size, o);
		else if ((p[i].kind == ARG_INT || p[i].kind == ARG_FLOAT) && size == 16)
			gpr_or_stack(&c, 8, NULL);	/* __int128, long double: by address */
		else if (p[i].kind == ARG_AGGREGATE)
			place_aggregate(&c, &p[i]);
		else
			arg_lose(&c);
	}
}

/*
 * Every aggregate, long double and __int128 comes back in memory at the
 * address the caller passes in r2, before the arguments.  A type the
 * table does not class (complex, vectors) may come back in registers.
 */
int arg_ret_by_address_s390x(const struct arg_type *ret)
{
	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return ret->size > 8;
	case ARG_AGGREGATE:
		return 1;
	default:
		return -1;
	}
}
