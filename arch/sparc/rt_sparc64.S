/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sparc64 (SPARC V9, 64-bit ABI) trampolines.  A site is the traced
 * function's `call _mcount` (gcc) or `call mcount` (clang), which both put
 * after the function's `save`: the function (F) runs in its own register
 * window, its arguments in %i0-%i5 (and %d0-%d30), its return address in
 * %i7.  The enabled site calls a stub near its module, which jumps here
 * through %g1 (rt_sparc64.c) with %o7 = the site, after the site's delay
 * slot ran.  gcc and clang treat the hook as an ordinary call: F's %o
 * registers, %g1 and the FP registers are dead across it; its %i and %l
 * registers are its own window's, which the hook cannot reach without
 * `restore`.  We keep %g1-%g5 and %f0-%f31 anyway (%g5 holds a nested
 * function's static chain; FP arguments are read from our copy).
 *
 * F's return address lives in a register, not in memory: our `save` makes
 * F's window the previous one and `flushw` spills it (with every older
 * one) to F's window save area at F's %sp + 2047, where its %i7 is the
 * 16th word.  That word is the slot rt_enter may point at the return
 * trampoline; our final `restore` faults F's window back in from memory
 * (flushw left none in the register file), so F runs on with the new %i7.
 * The slot lies below F's entry %sp (its caller's frame), a word of F's
 * own frame, like x86's return address below the caller's frame.
 *
 * rt_sparc64_enter() (rt_sparc64.c) gets the site, F's save area, the
 * capture and, for --args, our copy of F's %i0-%i5 and %d0-%d30.
 */
#include "arch/port.h"

/* %g2 and %g3 are the application's (kept here, not used): the assembler asks that it be said. */
	.register %g2, #scratch
	.register %g3, #scratch

#define BIAS 2047
/*
 * Our frame: the 176 bytes every V9 frame has (window save area and six
 * argument slots), then %i0-%i5 of F (48 bytes) and %d0-%d30 (128):
 * rt_sparc64.c's arg_regs; then %g1-%g5.
 */
#define LOC 176
#define EGPR (LOC + 0)
#define EFPR (LOC + 48)
#define EG (LOC + 176)
#define EFRAME 400
/* rt_sparc64.c's flag on the capture: record the arguments. */
#define RT_SPARC_ARGS 0x200

.macro ENTRY name, capture, args=0
	RT_FUNCTION \name
	.p2align 5
\name:
	.cfi_startproc
	save %sp, -EFRAME, %sp
	.cfi_def_cfa_register %fp
	.cfi_window_save
	.cfi_register %o7, %i7
	flushw
	stx %g1, [%sp + BIAS + EG + 0]
	stx %g2, [%sp + BIAS + EG + 8]
	stx %g3, [%sp + BIAS + EG + 16]
	stx %g4, [%sp + BIAS + EG + 24]
	stx %g5, [%sp + BIAS + EG + 32]
	std %f0, [%sp + BIAS + EFPR + 0]
	std %f2, [%sp + BIAS + EFPR + 8]
	std %f4, [%sp + BIAS + EFPR + 16]
	std %f6, [%sp + BIAS + EFPR + 24]
	std %f8, [%sp + BIAS + EFPR + 32]
	std %f10, [%sp + BIAS + EFPR + 40]
	std %f12, [%sp + BIAS + EFPR + 48]
	std %f14, [%sp + BIAS + EFPR + 56]
	std %f16, [%sp + BIAS + EFPR + 64]
	std %f18, [%sp + BIAS + EFPR + 72]
	std %f20, [%sp + BIAS + EFPR + 80]
	std %f22, [%sp + BIAS + EFPR + 88]
	std %f24, [%sp + BIAS + EFPR + 96]
	std %f26, [%sp + BIAS + EFPR + 104]
	std %f28, [%sp + BIAS + EFPR + 112]
	std %f30, [%sp + BIAS + EFPR + 120]
	/* F's window, spilled: its %i0-%i5 are words 8-13. */
	add %fp, BIAS, %o1
.if \args
	ldx [%o1 + 64], %g1
	stx %g1, [%sp + BIAS + EGPR + 0]
	ldx [%o1 + 72], %g1
	stx %g1, [%sp + BIAS + EGPR + 8]
	ldx [%o1 + 80], %g1
	stx %g1, [%sp + BIAS + EGPR + 16]
	ldx [%o1 + 88], %g1
	stx %g1, [%sp + BIAS + EGPR + 24]
	ldx [%o1 + 96], %g1
	stx %g1, [%sp + BIAS + EGPR + 32]
	ldx [%o1 + 104], %g1
	stx %g1, [%sp + BIAS + EGPR + 40]
	add %sp, BIAS + LOC, %o3
	mov \capture + RT_SPARC_ARGS, %o2
.else
	mov 0, %o3
	mov \capture, %o2
.endif
	call rt_sparc64_enter
	 mov %i7, %o0
	ldx [%sp + BIAS + EG + 0], %g1
	ldx [%sp + BIAS + EG + 8], %g2
	ldx [%sp + BIAS + EG + 16], %g3
	ldx [%sp + BIAS + EG + 24], %g4
	ldx [%sp + BIAS + EG + 32], %g5
	ldd [%sp + BIAS + EFPR + 0], %f0
	ldd [%sp + BIAS + EFPR + 8], %f2
	ldd [%sp + BIAS + EFPR + 16], %f4
	ldd [%sp + BIAS + EFPR + 24], %f6
	ldd [%sp + BIAS + EFPR + 32], %f8
	ldd [%sp + BIAS + EFPR + 40], %f10
	ldd [%sp + BIAS + EFPR + 48], %f12
	ldd [%sp + BIAS + EFPR + 56], %f14
	ldd [%sp + BIAS + EFPR + 64], %f16
	ldd [%sp + BIAS + EFPR + 72], %f18
	ldd [%sp + BIAS + EFPR + 80], %f20
	ldd [%sp + BIAS + EFPR + 88], %f22
	ldd [%sp + BIAS + EFPR + 96], %f24
	ldd [%sp + BIAS + EFPR + 104], %f26
	ldd [%sp + BIAS + EFPR + 112], %f28
	ldd [%sp + BIAS + EFPR + 120], %f30
	/* To the site + 8, past its delay slot; `restore` fills F's window from the (new) save area. */
	ret
	 restore
	.cfi_endproc
	.size \name, . - \name
.endm

/* One per enum capture (arch/port.h), in its order, with CAPTURE_MEMORY's; then the same recording the arguments too. */
RT_ENTRY_SET ENTRY, rt_entry_mcount, 1
RT_ENTRY_SET ENTRY, rt_entry_args_mcount, 1, 1

/* No entry-hook sites on this machine (pad_site_len 0). */
RT_ENTRY_SET RT_UNREACHED_ENTRY, rt_entry_fentry, 0, illtrap

/*
 * The return trampoline.  F returns with `ret; restore` (or `return
 * %i7 + 8`): to the slot's word + 8, which is why the symbol rt_enter
 * writes there is 8 bytes before our first instruction.  We arrive in F's
 * caller's window with F's values in its %o0-%o3 and %f0-%f7, and take a
 * window of our own, so that those %o registers are our %i ones and stay
 * as they are.  struct ret_regs (arch/port.h) at LOC: gpr = %o0, %o1;
 * fpr[0] = %d0:%d2, which is also long double's %q0 (wide_in_fpr0);
 * fpr[1] = %d4:%d6; wide = %q0 again.  rt_exit is given the caller's
 * %sp + 2047: above F's slot, which lay in F's frame below it, and below
 * the caller's own slot in its save area.  The caller gets the real
 * return address back in %o7 too, as if F had returned itself.
 */
#define RFRAME 240
#define RREGS LOC

	RT_FUNCTION rt_return_regs
	RT_FUNCTION rt_return_wide
	.p2align 5
	/* The unwinder looks up the address before a return address: no FDE there. */
	nop
rt_return_regs:
rt_return_wide:
	.cfi_startproc
	.cfi_undefined %o7
	/* Never run: the function jumps 8 bytes past the symbol. */
	illtrap 0
	illtrap 0
	save %sp, -RFRAME, %sp
	stx %i0, [%sp + BIAS + RREGS + 0]
	stx %i1, [%sp + BIAS + RREGS + 8]
	std %f0, [%sp + BIAS + RREGS + 16]
	std %f2, [%sp + BIAS + RREGS + 24]
	std %f4, [%sp + BIAS + RREGS + 32]
	std %f6, [%sp + BIAS + RREGS + 40]
	std %f0, [%sp + BIAS + RREGS + 48]
	std %f2, [%sp + BIAS + RREGS + 56]
	add %sp, BIAS + RREGS, %o0
	call rt_exit
	 add %fp, BIAS, %o1
	ldd [%sp + BIAS + RREGS + 16], %f0
	ldd [%sp + BIAS + RREGS + 24], %f2
	ldd [%sp + BIAS + RREGS + 32], %f4
	ldd [%sp + BIAS + RREGS + 40], %f6
	mov %o0, %i7
	ret
	 restore
	.cfi_endproc
	.size rt_return_regs, . - rt_return_regs
	.size rt_return_wide, . - rt_return_wide

/*
 * gcc's PIC code takes its GOT pointer from this helper (`call` it with
 * %l7 = the GOT's offset from the call), which it emits as a weak copy in
 * a COMDAT section of every object, the program's start files included.
 * The patcher's SIGSEGV handler (objpatch_patcher_text) reads its globals
 * through the GOT while a window makes program pages non-executable, and
 * in a program linking libobjpatch.a the copy the linker kept lies among
 * the program's first functions: the handler faulted again inside itself
 * and the process died.  This strong definition in the patcher's section
 * wins over every weak copy; it does what gcc's does, nothing more.
 */
	.section objpatch_patcher_text, "ax", @progbits
	.globl __sparc_get_pc_thunk.l7
	.hidden __sparc_get_pc_thunk.l7
	.type __sparc_get_pc_thunk.l7, @function
	.p2align 2
__sparc_get_pc_thunk.l7:
	.cfi_startproc
	.cfi_register %o7, %o7
	jmp %o7 + 8
	 add %o7, %l7, %l7
	.cfi_endproc
	.size __sparc_get_pc_thunk.l7, . - __sparc_get_pc_thunk.l7

	.section .note.GNU-stack, "", @progbits
