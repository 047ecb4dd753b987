/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The machine's part of objpatch/patch.c, one header per architecture,
 * included by patch.c only.  Each defines
 *  - PATCH_PROTOCOL: PATCH_INT3 (x86: trap, emulate, rewrite) or
 *    PATCH_STORE (one store per site inside an mprotect window);
 *  - CONTEXT_IP(uc): the interrupted instruction of a signal's ucontext_t;
 *  - raw_syscall4(): a system call without libc, for code that runs while
 *    a page of program text is not executable;
 *  - PATCHER_TEXT_ARCH: attributes for that code (", target(...)" or empty);
 * and for PATCH_STORE:
 *  - classify(): INSN_NOP or INSN_CALL for the site forms it may write, else
 *    INSN_BAD;
 *  - store_ok(): whether changing a site from `old` to `new` is one store
 *    another core may see half-done never (old or new, nothing else);
 *  - store_text(): that store, always inlined (it runs inside the window).
 * No header for a machine: patch.c fails every patch with a message.
 */
#ifndef ARCH_PATCH_ARCH_H
#define ARCH_PATCH_ARCH_H

#define PATCH_INT3 1
#define PATCH_STORE 2

/* What an instruction at a site is, for the protocol that replaces it. */
enum insn_kind { INSN_BAD, INSN_NOP, INSN_CALL, INSN_JMP, INSN_CALL_IND };

#if defined(__x86_64__)
#include "arch/x86/patch_x86_64.h"
#elif defined(__aarch64__)
#include "arch/arm64/patch_aarch64.h"
#elif defined(__arm__)
#include "arch/arm/patch_arm.h"
#elif defined(__mips__)
#include "arch/mips/patch_mips.h"
#elif defined(__s390x__)
#include "arch/s390/patch_s390x.h"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include "arch/powerpc/patch_ppc64le.h"
#elif defined(__i386__)
#include "arch/x86/patch_i386.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch/riscv/patch_riscv64.h"
#endif

#endif
