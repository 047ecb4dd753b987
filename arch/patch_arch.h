/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The machine's part of the live text patcher, one header per architecture,
 * included through arch/patch_protocol.h by the patcher's files only.  Each
 * defines
 *  - PATCH_PROTOCOL: PATCH_INT3 (x86: trap, emulate, rewrite; arch/x86/rt_x86.c)
 *    or PATCH_STORE (one store per site inside an mprotect window;
 *    objpatch/lib/patch.c);
 *  - CONTEXT_IP(uc): the interrupted instruction of a signal's ucontext_t;
 *  - raw_syscall4(): a system call without libc, for code that runs while
 *    a page of program text is not executable;
 *  - PATCHER_TEXT_ARCH: attributes for that code (", target(...)" or empty);
 *  - classify(): INSN_NOP, INSN_CALL, ... for the site forms it may write,
 *    else INSN_BAD;
 *  - store_text(): one store of the mprotect writer, always inlined (it
 *    runs inside the window);
 * and for PATCH_STORE:
 *  - store_ok(): whether changing a site from `old` to `new` is one store
 *    another core may see half-done never (old or new, nothing else).
 * It may define
 *  - PATCH_HANDLER_RETURN(uc): a handler of the patcher's is about to
 *    return into the program (i386 under qemu: the thread's own %gs);
 *  - PATCH_ATFORK_CHILD(): the child's side of a fork, beside the patcher's.
 * No header for a machine: patch.c fails every patch with a message.
 */
#ifndef ARCH_PATCH_ARCH_H
#define ARCH_PATCH_ARCH_H

#define PATCH_INT3 1
#define PATCH_STORE 2

/* What an instruction at a site is, for the protocol that replaces it. */
enum insn_kind { INSN_BAD, INSN_NOP, INSN_CALL, INSN_JMP, INSN_CALL_IND };

/* Shared by the patcher's files, not exported from the runtime. */
#define PATCH_HIDDEN __attribute__((visibility("hidden")))

/*
 * The machine's part: its runtime port's patch header, which the Makefile
 * names (arch/<family>/patch_<port>.h of arch/machines.h's row).
 */
#ifdef RT_PORT_PATCH_H
#include RT_PORT_PATCH_H
#endif

#ifndef PATCH_HANDLER_RETURN
#define PATCH_HANDLER_RETURN(uc) ((void)(uc))
#endif
#ifndef PATCH_ATFORK_CHILD
#define PATCH_ATFORK_CHILD() ((void)0)
#endif

#endif
