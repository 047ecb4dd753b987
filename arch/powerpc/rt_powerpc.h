/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the PowerPC runtime ports (rt_ppc.c, rt_ppc64.c, rt_ppc64le.c)
 * share, in rt_powerpc.c: the site's enabled form and, for the 64-bit
 * ABIs, the stub and the disabled form next to a linker's TOC restore.
 */
#ifndef ARCH_POWERPC_RT_POWERPC_H
#define ARCH_POWERPC_RT_POWERPC_H

#include "arch/port.h"

#ifdef __ASSEMBLER__
/*
 * PPC_REGS op, base, stride, regs...: `op` (stw, std, stfd; lwz, ld, lfd)
 * of each register in turn at r1 + base, base + stride, ...: the save
 * areas of the 32-bit and 64-bit trampolines (rt_ppc.S, rt_ppc64.S) hold
 * the same register lists in their own word sizes.
 */
.macro PPC_REGS op, base, stride, regs:vararg
	.set .Lppc_at, \base
	.irp r, \regs
	\op \r, .Lppc_at(1)
	.set .Lppc_at, .Lppc_at + \stride
	.endr
.endm

/* PPC_VREGS op, base, regs...: stvx or lvx of each vector register at r1 + base, base + 16, ...; clobbers r11. */
.macro PPC_VREGS op, base, regs:vararg
	.set .Lppc_at, \base
	.irp r, \regs
	li 11, .Lppc_at
	\op \r, 1, 11
	.set .Lppc_at, .Lppc_at + 16
	.endr
.endm
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PPC_CODE_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
/* make_stubs() measures from the farthest site to the far end of the stub page. */
#define PPC_STUB_REACH (PPC_BRANCH_REACH - 65536)

bool ppc_encode_call(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub) RT_HIDDEN;
#ifdef __powerpc64__
void ppc64_encode_stub(uint8_t *stub, uintptr_t target) RT_HIDDEN;
const uint8_t *ppc64_site_nop(uintptr_t site, size_t len) RT_HIDDEN;
#if _CALL_ELF != 2
/* ELFv1: whether the machine has AltiVec, whose v2-v9 the return trampoline then keeps. */
extern int rt_ppc64_vmx RT_HIDDEN;
#endif
#endif
#endif

#endif
