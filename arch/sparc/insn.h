/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SPARC V9 instructions more than one part knows: the recorder's
 * descriptor (sparc.c), the patcher's rules (patch_sparc64.h) and the
 * runtime port (rt_sparc64.c) take them from here, so the three agree on
 * what a site holds.  Instructions are big-endian words.
 */
#ifndef ARCH_SPARC_INSN_H
#define ARCH_SPARC_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"

#define SPARC_NOP		0x01000000u	/* sethi 0, %g0 */
#define SPARC_CALL		0x40000000u	/* call disp30 (op 1) */
#define SPARC_CALL_MASK		0xc0000000u
/* A call's displacement is 30 bits of words: +-8 GiB. */
#define SPARC_CALL_REACH	((uint64_t)1 << 33)

/* Format 3 (op 2 and 3): op, rd, op3. */
#define SPARC_OP(w)		((w) >> 30)
#define SPARC_RD(w)		(((w) >> 25) & 31u)
#define SPARC_OP3(w)		(((w) >> 19) & 63u)
#define SPARC_OP2(w)		(((w) >> 22) & 7u)
#define SPARC_OP3_SAVE		0x3cu	/* op 2: save rs1, rs2|simm13, rd */
#define SPARC_SP		14u
/* The mask of `save %sp, x, %sp`: op, rd, op3 and rs1. */
#define SPARC_SAVE_SP_MASK	0xffffc000u
#define SPARC_SAVE_SP		0x9de38000u

/* `call` from pc to `to`, when the displacement fits. */
static inline bool sparc_call_to(uint64_t pc, uint64_t to, uint32_t *w)
{
	int64_t d = (int64_t)(to - pc);

	if ((d & 3) || d < -(int64_t)SPARC_CALL_REACH || d >= (int64_t)SPARC_CALL_REACH)
		return false;
	*w = SPARC_CALL | ((uint32_t)(d >> 2) & 0x3fffffffu);
	return true;
}

#endif
