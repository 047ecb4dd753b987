/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The s390x instructions more than one part knows: the recorder's
 * descriptor (s390.c), the patcher's rules (patch_s390x.h) and the runtime
 * port (rt_s390x.c) take them from here, so the three always agree on
 * what a site holds.  A site is a 6-byte RIL instruction: c0, a byte of
 * register or mask and operation, a signed 32-bit count of halfwords.
 */
#ifndef ARCH_S390_INSN_H
#define ARCH_S390_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"
#include "arch/pattern.h"

#define S390_RIL_LEN	6
#define S390_RIL	0xc0		/* byte 0 of brasl and brcl */
#define S390_BRASL_OP	0x05		/* byte 1 of brasl %rN: N << 4 | 5 */
#define S390_BRASL(r)	((uint8_t)((r) << 4 | S390_BRASL_OP))
/* byte 1 of brcl 0,X: a branch whose mask never branches, a NOP whatever X is */
#define S390_BRCL_NEVER	0x04
#define S390_RIL_REACH	((uintptr_t)1 << 32)	/* each way */

/* The first halfwords, for the descriptor's patterns: brasl (any register) and brcl 0. */
#define S390_BRASL_HW		(S390_RIL << 8 | S390_BRASL_OP)
#define S390_BRASL_HW_MASK	0xff0fu
#define S390_BRCL_NEVER_HW	(S390_RIL << 8 | S390_BRCL_NEVER)

/*
 * gcc -pg's save of %r14 just before `brasl %r14,_mcount`, and its reload
 * just after, as pattern units: RXY instructions, 6 bytes each.
 */
#define S390_STG_R14_8_R15	U16(0xe3e0), U16(0xf008), U16(0x0024)
#define S390_LG_R14_8_R15	U16(0xe3e0), U16(0xf008), U16(0x0004)
#define S390_RXY_LEN		6

static inline bool s390_is_brasl(const uint8_t *b)
{
	return b[0] == S390_RIL && (b[1] & 0x0f) == S390_BRASL_OP;
}

static inline bool s390_is_brcl_never(const uint8_t *b)
{
	return b[0] == S390_RIL && b[1] == S390_BRCL_NEVER;
}

/* The RIL instruction `byte1` to `d` bytes from itself: d even, within S390_RIL_REACH. */
static inline void s390_ril(uint8_t *code, uint8_t byte1, int64_t d)
{
	code[0] = S390_RIL;
	code[1] = byte1;
	insn_store(code + 2, 4, (uint32_t)(int32_t)(d / 2), true);
}

/* How far a RIL branch with displacement field `disp` goes, in bytes from itself. */
static inline int64_t s390_ril_offset(uint32_t disp)
{
	return insn_sext(disp, 32) * 2;
}

#endif
