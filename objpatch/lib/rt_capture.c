// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What an exit event keeps of the return registers (struct ret_regs, filled
 * by each arch's return trampoline), and the formatter's value back from it.
 * The same on every 64-bit ABI the runtime supports: the first integer
 * register or two, the first FP register or two, and a wide FP value (x87's
 * st(0), saved apart; AArch64's binary128, which is all of q0).
 */
#include <string.h>
#include "objpatch/lib/rt.h"

static const uint8_t *wide_fp(const struct ret_regs *r)
{
	return rt_arch_host.wide_in_fpr0 ? r->fpr[0] : r->wide;
}

size_t rt_capture_count(enum capture c)
{
	static const uint8_t words[CAPTURES] = {
		[CAPTURE_GPR] = 1, [CAPTURE_NONE] = 0, [CAPTURE_FP] = 1, [CAPTURE_WIDE_FP] = 2,
		[CAPTURE_STRING] = 1, [CAPTURE_ALL] = 4,
	};

	return c < CAPTURES ? words[c] : 0;
}

size_t rt_capture_words(const struct ret_regs *r, enum capture c, uint64_t *w)
{
	switch (c) {
	case CAPTURE_GPR:
	case CAPTURE_STRING:
		w[0] = r->gpr[0];
		break;
	case CAPTURE_FP:
		memcpy(&w[0], r->fpr[0], 8);
		break;
	case CAPTURE_WIDE_FP:
		memcpy(&w[0], wide_fp(r), 16);
		break;
	case CAPTURE_ALL:
		w[0] = r->gpr[0];
		w[1] = r->gpr[1];
		memcpy(&w[2], r->fpr[0], 8);
		memcpy(&w[3], r->fpr[1], 8);
		break;
	default:
		break;
	}
	return rt_capture_count(c);
}

void rt_raw_value(const uint64_t *w, enum capture c, const struct sig_type *ret, struct raw_value *v)
{
	memset(v, 0, sizeof(*v));
	switch (c) {
	case CAPTURE_GPR:
	case CAPTURE_STRING:
		v->gpr[0] = w[0];
		break;
	case CAPTURE_FP:
		memcpy(v->fpr, &w[0], 8);
		v->have_fpr = true;
		if (rt_arch_host.fp_st0_double && ret && ret->size == 4) {
			double d;
			float f;

			memcpy(&d, &w[0], sizeof(d));
			f = (float)d;	/* exact: st(0) held a float's value */
			memset(v->fpr, 0, sizeof(v->fpr));
			memcpy(v->fpr, &f, sizeof(f));
		}
		break;
	case CAPTURE_WIDE_FP:
		memcpy(v->fpr, &w[0], 16);
		v->have_fpr = true;
		break;
	case CAPTURE_ALL:
		v->gpr[0] = w[0];
		v->gpr[1] = w[1];
		/* Structs holding floats are flagged and printed raw (format.c): fpr is for FP types. */
		memcpy(v->fpr, &w[2], 8);
		v->have_fpr = ret->cls == TC_FLOAT;
		break;
	default:
		break;
	}
}
