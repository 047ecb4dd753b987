/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing an instruction pattern (struct insn_pattern, arch/arch.h) as the
 * code it matches: PAT(U32(0xd503201f), U32M(0x94000000, 0xfc000000)) is a
 * NOP then any BL.  For the descriptor files and the encodings they share;
 * kept out of arch.h so that these short names reach no other file.
 */
#ifndef ARCH_PATTERN_H
#define ARCH_PATTERN_H

#include "arch/arch.h"

#define U8(v)		{ 1, (v), 0xff }
#define U16(v)		{ 2, (v), 0xffff }
#define U32(v)		{ 4, (v), 0xffffffffu }
#define U32M(v, m)	{ 4, (v), (m) }	/* only the bits of m compared */
#define U16M(v, m)	{ 2, (v), (m) }
#define PAT(...)	{ .n = sizeof((struct insn_unit[]){ __VA_ARGS__ }) / sizeof(struct insn_unit), \
			  .u = { __VA_ARGS__ } }

#endif
