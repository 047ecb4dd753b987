/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the PowerPC runtime ports (rt_ppc.c, rt_ppc64.c, rt_ppc64le.c)
 * share, in rt_powerpc.c: the site's enabled form and, for the 64-bit
 * ABIs, the stub and the disabled form next to a linker's TOC restore.
 */
#ifndef ARCH_POWERPC_RT_POWERPC_H
#define ARCH_POWERPC_RT_POWERPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/port.h"

#define PPC_CODE_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
/* make_stubs() measures from the farthest site to the far end of the stub page. */
#define PPC_STUB_REACH (PPC_BRANCH_REACH - 65536)

bool ppc_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub) RT_HIDDEN;
#ifdef __powerpc64__
void ppc64_encode_stub(uint8_t *stub, uintptr_t target) RT_HIDDEN;
const uint8_t *ppc64_site_nop(uintptr_t site, size_t len) RT_HIDDEN;
#endif

#endif
