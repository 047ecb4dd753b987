/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* x86 encodings, as the recorder's descriptor and the runtime's patcher both read them. */
#ifndef ARCH_X86_INSN_H
#define ARCH_X86_INSN_H
#include <stddef.h>
#include <stdint.h>

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

#endif
