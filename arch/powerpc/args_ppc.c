// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the 32-bit PowerPC SysV ABI (Linux ppc, big-endian) passes
 * arguments.  Integers and pointers of up to 4 bytes take the next of
 * r3-r10; a 64-bit integer takes the next odd-even pair (r3:r4, r5:r6,
 * r7:r8, r9:r10; the high word in the lower-numbered register), skipping
 * a register to reach one.  float and double take the next of f1-f8,
 * held as doubles.  Aggregates (and so every struct and union) are passed
 * by reference: a copy's address in a GPR.  What does not fit goes in the
 * caller's parameter area, which starts 8 bytes above its r1 (after the
 * back chain and the LR save word): 4-byte words, 8-byte values aligned
 * to 8; once a 64-bit integer went there, r10 stays unused.
 */
#include "arch/abi_args.h"
#include "arch/powerpc/args_ppc.h"

#define GPRS 8	/* r3-r10 */
#define FPRS 8	/* f1-f8 */

static const struct arg_abi sysv32 = { .gprs = GPRS, .fprs = FPRS, .word = 4, .big_endian = true };

static void integer(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	if (size <= 4) {
		if (!arg_take_gprs(c, size, false, o))
			arg_take_stack(c, size, 4, o);
		return;
	}
	if (!arg_take_gprs(c, 8, true, o)) {
		c->gpr = GPRS;	/* r10 is not used after a pair that did not fit */
		arg_take_stack(c, 8, 8, o);
	}
}

static void real(struct arg_cursor *c, uint32_t size, struct arg_place *o)
{
	/* In an FPR a float is held as a double: the event keeps its 8 bytes. */
	if (arg_take_fpr(c, 8, 0, o))
		return;
	arg_take_stack(c, size, size, o);
}

/*
 * IBM double-double: the next two FPRs, no pair alignment (f2:f3 after a
 * double in f1); when they do not fit, 16 stack bytes aligned to 8, and no
 * FPR is used after it.  Not captured: it prints "?".
 */
static void ibm_long_double(struct arg_cursor *c)
{
	if (c->fpr + 2 <= FPRS) {
		c->fpr += 2;
		return;
	}
	c->fpr = FPRS;
	arg_take_stack(c, 16, 8, NULL);
}

void arg_place_ppc(const struct arg_type *p, size_t n, bool big_endian, struct arg_place *out)
{
	struct arg_cursor c = { .abi = &sysv32 };

	(void)big_endian;	/* Linux ppc is big-endian */
	for (size_t i = 0; i < n; i++) {
		struct arg_place *o = &out[i];
		uint32_t size = p[i].size;

		*o = (struct arg_place){ 0 };
		if (c.lost)
			continue;
		if (p[i].kind == ARG_INT && size <= 8)
			integer(&c, size, o);
		else if (p[i].kind == ARG_FLOAT && (size == 4 || size == 8))
			real(&c, size, o);
		else if (p[i].kind == ARG_AGGREGATE)
			integer(&c, 4, NULL);	/* its copy's address; the aggregate prints "?" */
		else if (p[i].kind == ARG_FLOAT && size == 16)
			ibm_long_double(&c);
		else
			arg_lose(&c);
	}
}
