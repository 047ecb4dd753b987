/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The x86 encodings a site may hold, written once for the recorder's
 * descriptor and the checker's decoders (x86.c), the runtime's ports
 * (rt_x86_64.c, rt_i386.c) and the int3 patch protocol (rt_x86.c,
 * patch_x86.h): the hook calls, the NOPs that replace them, and what the
 * protocol writes and emulates.
 */
#ifndef ARCH_X86_INSN_H
#define ARCH_X86_INSN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_CALL_REL32	0xe8	/* call rel32: the non-PIC hook call, and ours to a stub */
#define X86_JMP_REL32	0xe9	/* jmp rel32: a tail call the protocol may write; i386's stubs */
#define X86_INT3	0xcc	/* the protocol's temporary first byte; stubs' padding */
#define X86_ADDR32	0x67	/* `addr32 call rel32`: GNU ld's relaxed GOT call */
#define X86_BND		0xf2	/* `bnd jmp` in MPX-era PLTs */
/* ff /2 and ff /4: call and jmp through memory, told apart by the ModRM byte. */
#define X86_GRP5	0xff
/* ff 15: `call *disp32(%rip)` on x86_64, `call *abs32` on i386 (no RIP-relative form). */
#define X86_CALL_MEM	0x15
#define X86_JMP_MEM	0x25	/* ff 25: the PLT's and x86_64 stubs' `jmp *disp32(%rip)` */
/*
 * ff 90+r: i386 PIC's `call *mcount@GOT(%reg)`, ModRM mod 10 and reg 2;
 * ModRM & X86_MODRM_RM_OFF leaves those fields.  Base 4 (0x94) is the SIB
 * escape, a 7-byte form no compiler uses for the hook.
 */
#define X86_CALL_REG_DISP32	0x90
#define X86_MODRM_RM_OFF	0xf8
#define X86_CALL_SIB_DISP32	0x94

/*
 * The recorder's NOPs, which the runtime and the protocol also read, as
 * lists of bytes: X(b) for each, so a descriptor makes a pattern of them
 * (X86_64_NOP5(U8)) and C code an array ({ X86_64_NOP5(X86_BYTE) }).
 * x86_64: nopl and nopw 0(%rax,%rax,1), also what x86_nop_len() decodes;
 * i386: the lea forms the kernel's ftrace uses, which are no NOPs on
 * x86_64 (they clear the upper half of %rsi).
 */
#define X86_BYTE(b)	(b)
#define X86_64_NOP5(X)	X(0x0f), X(0x1f), X(0x44), X(0x00), X(0x00)
#define X86_64_NOP6(X)	X(0x66), X86_64_NOP5(X)
#define I386_NOP5(X)	X(0x3e), X(0x8d), X(0x74), X(0x26), X(0x00)	/* ds lea 0(%esi,%eiz,1),%esi */
#define I386_NOP6(X)	X(0x8d), X(0xb6), X(0x00), X(0x00), X(0x00), X(0x00)	/* lea 0(%esi),%esi */

/* The little-endian 32-bit displacement (rel32, disp32, abs32) at p. */
static inline int32_t x86_rel32(const uint8_t *p)
{
	int32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * A NOP of the pads -fpatchable-function-entry makes: 0x90 and the 0f 1f
 * forms, with their 66 and cs prefixes; its length, or 0.
 */
static inline size_t x86_nop_len(const uint8_t *c, size_t avail)
{
	static const uint8_t disp_len[4] = { 0, 1, 4, 0 };
	size_t p = 0, modrm_len;

	while (p < avail && c[p] == 0x66 && p < 8)
		p++;
	if (p < avail && c[p] == 0x2e)
		p++;
	if (p < avail && c[p] == 0x90)
		return p + 1;
	if (avail < p + 3 || c[p] != 0x0f || c[p + 1] != 0x1f || ((c[p + 2] >> 3) & 7) != 0 || (c[p + 2] >> 6) == 3)
		return 0;
	modrm_len = 1 + disp_len[c[p + 2] >> 6] + ((c[p + 2] & 7) == 4);
	if ((c[p + 2] >> 6) == 0 && (c[p + 2] & 7) == 5)
		modrm_len += 4;
	return avail >= p + 2 + modrm_len ? p + 2 + modrm_len : 0;
}

/*
 * A run of whole NOPs: what the protocol may replace as one NOP.  The
 * compilers' pads (gcc's 0x90s, clang's nopl 8(%rax,%rax)) become one NOP
 * of ours; a run of several only while no other thread runs, since a
 * thread may be inside it (rt_modules.c).
 */
static inline bool x86_nop_run(const uint8_t *b, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!(n = x86_nop_len(b + i, len - i)))
			return false;
	return true;
}

#endif
