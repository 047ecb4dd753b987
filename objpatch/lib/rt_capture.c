// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What an exit event keeps of the return registers (struct ret_regs, filled
 * by each arch's return trampoline); trace_value() (trace/machine.c) reads
 * the value back.  The same on every ABI the runtime supports: the first
 * integer register or two, the first FP register or two, and a wide FP
 * value (x87's st(0), saved apart; AArch64's binary128, which is all of q0).
 */
#include <string.h>
#include "objpatch/lib/rt.h"

static const uint8_t *wide_fp(const struct ret_regs *r)
{
	return rt_arch_host.desc->values.wide_in_fpr0 ? r->fpr[0] : r->wide;
}

size_t rt_capture_words(const struct ret_regs *r, enum capture c, uint64_t *w)
{
	switch (c) {
	case CAPTURE_GPR:
	case CAPTURE_STRING:
	case CAPTURE_MEMORY:
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
	return ev_capture_words(c);
}
