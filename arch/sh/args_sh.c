// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where Linux SH-4's C ABI (gcc's, FPU in double mode) passes arguments,
 * as gcc 14 compiles them (docs/architectures.md, "sh4"): integers and
 * pointers in r4-r7, a long long in the next two registers with no
 * even-pair rule, or wholly on the stack when one register is left (what
 * follows it is then not placed: "?"); stack arguments in 4-byte slots
 * from the entry sp.  FP arguments count single registers fr4-fr11: a
 * float takes the next one, fr(4 + (n ^ 1)) (each pair swapped on
 * little-endian), a double the next even pair dr(4 + n), its high word in
 * fr(4 + n); a skipped single stays unused.  Past fr11 they go on the
 * stack.  A struct by value takes the next integer registers, one a
 * word, or the stack when none is left, and prints "?" itself.  A
 * struct returned in memory gets its address in r2, no argument's place
 * (sh.c's ret_address_apart).
 */
#include "arch/abi_args.h"
#include "arch/sh/args_sh.h"

#define GPRS 4		/* r4-r7 */
#define FP_SINGLES 8	/* fr4-fr11 */

static const struct arg_abi sh = { .gprs = GPRS, .fprs = FP_SINGLES, .word = 4 };

static void fpr_piece(struct arg_place *o, unsigned i, unsigned reg)
{
	o->piece[i] = (struct arg_piece){ .area = ARG_AREA_FPR, .size = 4, .sub = 0, .at = (uint16_t)reg };
	o->npieces = (uint8_t)(i + 1);
}

static void fp_arg(struct arg_cursor *c, unsigned *singles, const struct arg_type *t, struct arg_place *o)
{
	unsigned n = *singles;

	if (t->size == 8)
		n += n & 1;
	if (t->size == 4 && n < FP_SINGLES) {
		fpr_piece(o, 0, n ^ 1);
		*singles = n + 1;
		return;
	}
	if (t->size == 8 && n + 2 <= FP_SINGLES) {
		/* Least significant first: the low word is the pair's second register. */
		fpr_piece(o, 0, n + 1);
		fpr_piece(o, 1, n);
		*singles = n + 2;
		return;
	}
	*singles = FP_SINGLES;
	arg_take_stack(c, t->size, 4, o);
}

void arg_place_sh(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &sh };
	unsigned singles = 0;

	(void)big_endian;	/* Debian's sh4 is little-endian */
	for (size_t i = 0; i < n; i++) {
		const struct arg_type *t = &p[i];

		out[i] = (struct arg_place){ 0 };
		if (c.lost || t->kind == ARG_UNKNOWN || !t->size || (t->kind != ARG_AGGREGATE && t->size > 8)) {
			arg_lose(&c);
			continue;
		}
		if (t->kind == ARG_AGGREGATE) {
			/* Its words in the next integer registers, doubles and all ("?" itself). */
			unsigned words = (t->size + 3) / 4;

			if (c.gpr + words <= GPRS)
				c.gpr += words;
			else if (c.gpr == GPRS)
				arg_take_stack(&c, t->size, 4, NULL);
			else
				arg_lose(&c);	/* split between registers and stack: not known */
			continue;
		}
		if (t->kind == ARG_FLOAT) {
			fp_arg(&c, &singles, t, &out[i]);
			continue;
		}
		if (arg_take_gprs(&c, t->size, false, &out[i]))
			continue;
		if (c.gpr < GPRS) {
			/* A long long with one register left: not known what follows it. */
			arg_lose(&c);
			continue;
		}
		arg_take_stack(&c, t->size, 4, &out[i]);
	}
}

/*
 * gcc returns a struct in registers when it gives it a scalar mode: 1, 2,
 * 4 or 8 bytes, aligned at least as the mode (4 at most: {short, short}
 * and char[4] are not), r0 or r0:r1; a lone float or double field in fr0
 * or dr0.  Others, structs of several floats included ({float, float}),
 * come back in memory at the address passed in r2 (and returned in r0).
 * Checked with gcc 14 (testdata/runtime/rt_sh4.c).
 */
int arg_ret_by_address_sh(const struct arg_type *ret)
{
	uint32_t align = 1, want;
	bool floats = false;

	switch (ret->kind) {
	case ARG_INT:
	case ARG_FLOAT:
		return 0;
	case ARG_AGGREGATE:
		break;
	default:
		return -1;
	}
	if (!ret->fields || !ret->nfields)
		return -1;
	for (size_t i = 0; i < ret->nfields; i++) {
		if (ret->fields[i].size > align)
			align = ret->fields[i].size;
		floats |= ret->fields[i].is_float;
	}
	if (floats)
		return !(ret->nfields == 1 && ret->fields[0].offset == 0 && ret->fields[0].size == ret->size);
	if (ret->size != 1 && ret->size != 2 && ret->size != 4 && ret->size != 8)
		return 1;
	want = ret->size < 4 ? ret->size : 4;
	return align < want;
}
