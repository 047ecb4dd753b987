/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The PowerPC instructions more than one part knows: the recorder's
 * descriptor (powerpc.c), the patchers' rules (patch_ppc.h,
 * patch_ppc64le.h) and the runtime ports (rt_ppc.c, rt_ppc64le.c) take
 * them from here, so they always agree on what a site holds.
 */
#ifndef ARCH_POWERPC_INSN_H
#define ARCH_POWERPC_INSN_H

#include <stdint.h>
#include "arch/arch.h"

#define PPC_NOP		0x60000000u	/* ori 0,0,0 */
#define PPC_B		0x48000000u	/* b: AA (absolute) and LK (link) clear */
#define PPC_LK		0x00000001u
#define PPC_BL		(PPC_B | PPC_LK)
#define PPC_BL_MASK	0xfc000003u	/* the opcode, AA and LK */
#define PPC_LI		0x03fffffcu	/* a branch's offset in bytes, signed, from itself */
#define PPC_BRANCH_REACH ((uintptr_t)1 << 25)	/* each way */
/*
 * b .+8: the runtime's disabled form of a site whose next word is the TOC
 * restore a linker put after a call through a PLT stub (rt_ppc64le.c).
 */
#define PPC_B_PLUS_8	(PPC_B | 8u)

/* The branch `op` (PPC_B or PPC_BL) to `d` bytes from itself: d a multiple of 4 within PPC_BRANCH_REACH. */
static inline uint32_t ppc_branch(uint32_t op, int64_t d)
{
	return op | ((uint32_t)d & PPC_LI);
}

/* How far the branch `w` goes, in bytes from itself. */
static inline int64_t ppc_branch_offset(uint32_t w)
{
	return insn_sext(w & PPC_LI, 26);
}

#endif
