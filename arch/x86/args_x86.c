// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where x86's C ABIs pass arguments: the SysV x86_64 psABI (integers in
 * rdi, rsi, rdx, rcx, r8, r9, floats and doubles in xmm0-7, the rest in
 * 8-byte stack slots above the return address) and i386's (everything on
 * the stack, in 4-byte slots).
 */
#include "arch/abi_args.h"
#include "arch/x86/args_x86.h"

static const struct arg_abi sysv64 = { .gprs = 6, .fprs = 8, .word = 8 };
static const struct arg_abi sysv32 = { .word = 4 };

/*
 * An aggregate of up to 16 bytes goes in registers by its eightbytes: SSE
 * when only floats lie in one, INTEGER otherwise; all of it on the stack
 * when the registers of either class run out.  Without its fields, neither
 * its place nor the next parameter's is known.
 */
static void place_aggregate_64(struct arg_cursor *c, const struct arg_type *t)
{
	bool sse[2] = { true, true };
	unsigned ints = 0, sses = 0, n = (t->size + 7) / 8;

	if (t->size > 16) {
		/* In memory, aligned to 8 unless a member wants 16: only known from its fields. */
		arg_take_stack(c, t->size, 8, NULL);
		if (!t->fields)
			arg_lose_stack(c);
		return;
	}
	if (!t->fields || !t->nfields || !t->size) {
		arg_lose(c);
		return;
	}
	for (size_t i = 0; i < t->nfields; i++)
		if (!t->fields[i].is_float)
			sse[t->fields[i].offset / 8 & 1] = false;
	for (unsigned i = 0; i < n; i++)
		sse[i] ? sses++ : ints++;
	if (c->gpr + ints <= c->abi->gprs && c->fpr + sses <= c->abi->fprs) {
		c->gpr += ints;
		c->fpr += sses;
		return;
	}
	arg_take_stack(c, t->size, 8, NULL);
}

void arg_place_x86_64(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &sysv64 };

	(void)big_endian;	/* little-endian only */

	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (p[i].kind == ARG_INT && size <= 8) {
			if (!arg_take_gprs(&c, size, false, o))
				arg_take_stack(&c, size, 8, o);
		} else if (p[i].kind == ARG_INT && size == 16) {
			/* __int128: two GPRs, or 16-aligned memory; not captured */
			if (!arg_take_gprs(&c, size, false, NULL))
				arg_take_stack(&c, size, 16, NULL);
		} else if (p[i].kind == ARG_FLOAT && size <= 8) {
			if (!arg_take_fpr(&c, size, 0, o))
				arg_take_stack(&c, size, 8, o);
		} else if (p[i].kind == ARG_FLOAT && size == 16) {
			arg_take_stack(&c, size, 16, NULL);	/* long double: memory */
		} else if (p[i].kind == ARG_AGGREGATE) {
			place_aggregate_64(&c, &p[i]);
		} else {
			arg_lose(&c);
		}
	}
}

void arg_place_i386(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &sysv32 };

	(void)big_endian;

	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (!size || p[i].kind == ARG_UNKNOWN) {
			arg_lose(&c);
			continue;
		}
		/* Scalars of up to 8 bytes are captured; long double (12) and aggregates take their room. */
		bool scalar = (p[i].kind == ARG_INT || p[i].kind == ARG_FLOAT) && size <= 8;

		arg_take_stack(&c, size, 4, scalar ? o : NULL);
	}
}

/*
 * SysV x86_64: an aggregate over 16 bytes comes back in memory, its
 * address passed in rdi; smaller ones, __int128 and long double (st0) in
 * registers.
 */
int arg_ret_by_address_x86_64(const struct arg_type *ret)
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
