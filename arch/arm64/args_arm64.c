// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where AAPCS64 passes arguments: integers and pointers in x0-x7, floats
 * and doubles in v0-v7 (their low bytes), the rest in 8-byte stack slots.
 * When an argument of one class goes to the stack, no later argument of
 * that class uses a register (NGRN or NSRN becomes 8).
 */
#include "arch/abi_args.h"
#include "arch/arm64/args_arm64.h"

static const struct arg_abi aapcs64_le = { .gprs = 8, .fprs = 8, .word = 8 };
static const struct arg_abi aapcs64_be = { .gprs = 8, .fprs = 8, .word = 8, .big_endian = true };

static void gprs_or_stack(struct arg_cursor *c, uint32_t size, uint32_t align, struct arg_place *o)
{
	if (arg_take_gprs(c, size, align == 16, o))
		return;
	c->gpr = c->abi->gprs;
	arg_take_stack(c, size, align, o);
}

/* Homogeneous float aggregates go in consecutive v registers, others as integers or by reference. */
static void place_aggregate(struct arg_cursor *c, const struct arg_type *t)
{
	unsigned members;
	uint8_t member_size;

	if (arg_homogeneous_float(t, 4, &members, &member_size)) {
		if (c->fpr + members <= c->abi->fprs) {
			c->fpr += members;
		} else {
			c->fpr = c->abi->fprs;
			arg_take_stack(c, t->size, 8, NULL);
		}
		return;
	}
	if (t->size > 16) {
		gprs_or_stack(c, 8, 8, NULL);	/* a pointer to the caller's copy */
		return;
	}
	/* Its alignment (16 for __int128 members) is known only from its fields. */
	if (!t->fields || !t->nfields || !t->size) {
		arg_lose(c);
		return;
	}
	gprs_or_stack(c, t->size, 8, NULL);
}

void arg_place_aarch64(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = big_endian ? &aapcs64_be : &aapcs64_le };

	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (p[i].kind == ARG_INT && size <= 8) {
			gprs_or_stack(&c, size, 8, o);
		} else if (p[i].kind == ARG_INT && size == 16) {
			gprs_or_stack(&c, size, 16, NULL);	/* __int128: not captured */
		} else if (p[i].kind == ARG_FLOAT && size <= 16) {
			struct arg_place *where = size <= 8 ? o : NULL;	/* long double: not captured */

			if (!arg_take_fpr(&c, size, 0, where)) {
				c.fpr = c.abi->fprs;
				arg_take_stack(&c, size, size > 8 ? 16 : 8, where);
			}
		} else if (p[i].kind == ARG_AGGREGATE) {
			place_aggregate(&c, &p[i]);
		} else {
			arg_lose(&c);
		}
	}
}
