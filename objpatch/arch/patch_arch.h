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
#ifndef OBJPATCH_ARCH_PATCH_ARCH_H
#define OBJPATCH_ARCH_PATCH_ARCH_H

#define PATCH_INT3 1
#define PATCH_STORE 2

#if defined(__x86_64__)
#include "x86_64-patch.h"
#elif defined(__aarch64__)
#include "aarch64-patch.h"
#elif defined(__arm__)
#include "arm-patch.h"
#elif defined(__mips__)
#include "mips-patch.h"
#elif defined(__s390x__)
#include "s390x-patch.h"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include "ppc64le-patch.h"
#elif defined(__i386__)
#include "i386-patch.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "riscv64-patch.h"
#endif

#endif
