/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SH-4 encodings the descriptor (sh.c), the patch header and the port
 * (rt_sh4.c) share: gcc -pg's call sequence around the literal word the
 * recorder records, and the stub's.  Halfwords, little-endian on Linux.
 */
#ifndef ARCH_SH_INSN_H
#define ARCH_SH_INSN_H

#define SH_JMP_R1	0x412bu	/* jmp @r1: the sequence's jump through the loaded word */
#define SH_LDS_L_POP_PR	0x4f26u	/* lds.l @r15+,pr: right after the word, where the hook returns */
#define SH_NOP		0x0009u	/* nop: the pad that aligns the word */
#define SH_MOV_L_PC8_R1	0xd101u	/* mov.l @(4 + 1 * 4, pc & ~3),r1: the stub's load of its target */

#endif
