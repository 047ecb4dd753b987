/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The contract between the tracing runtime (objpatch/lib) and one machine's
 * port (arch/<family>/rt_<machine>.[cS]): what a port provides (its
 * rt_arch_host, entry and return trampolines, timestamps) and the entry
 * points its trampolines and helpers call, which the runtime implements.
 * The runtime is above this layer and a port never includes it: each side
 * sees the other only through this header.
 */
#ifndef ARCH_PORT_H
#define ARCH_PORT_H

/*
 * The numbers the trampolines (arch/<family>/rt_*.S) pass to the runtime:
 * enum site_kind's and enum capture's values, which the assembler cannot
 * read from the enums, and the flag a capture may carry.  Only these are
 * seen from assembly; the C part checks them against the enums below, so
 * an enum that changes without them does not build.
 */
#define RT_SITE_MCOUNT 0
#define RT_SITE_FENTRY 1
#define RT_CAPTURE_GPR 0
#define RT_CAPTURE_NONE 1
#define RT_CAPTURE_FP 2
#define RT_CAPTURE_WIDE_FP 3
#define RT_CAPTURE_STRING 4
#define RT_CAPTURE_ALL 5
#define RT_CAPTURE_MEMORY 6
/* rt_enter's `capture` with the trampoline's copy of the slot (struct rt_arch's slot_copy_above). */
#define RT_ENTER_SLOT_COPY 0x100

#ifdef __ASSEMBLER__
/*
 * The entry trampolines of one site kind, one per capture in enum
 * capture's order, so that no port lists them by hand: the port's macro
 * `entry` gets each one's name (`name`_gpr...) and capture, then `more`
 * (its own arguments: a site kind, an "arguments" flag).  with_mem 1: also
 * the trampoline of a value returned in memory (memory_address_returned).
 */
.macro RT_ENTRY_SET entry, name, with_mem, more:vararg
	\entry \name\()_gpr, RT_CAPTURE_GPR, \more
	\entry \name\()_none, RT_CAPTURE_NONE, \more
	\entry \name\()_fp, RT_CAPTURE_FP, \more
	\entry \name\()_wide, RT_CAPTURE_WIDE_FP, \more
	\entry \name\()_string, RT_CAPTURE_STRING, \more
	\entry \name\()_all, RT_CAPTURE_ALL, \more
	.if \with_mem
	\entry \name\()_mem, RT_CAPTURE_MEMORY, \more
	.endif
.endm

/*
 * A symbol of the trampolines: global, so that the runtime's C code and
 * its other objects reach it; hidden, so that no program's symbol is ever
 * bound to it; a function to whatever reads the symbol table.  `%function`:
 * on ARM `@` starts a comment.
 */
.macro RT_FUNCTION name
	.globl \name
	.hidden \name
	.type \name, %function
.endm

/*
 * For RT_ENTRY_SET, in a port without entry-hook sites (pad_site_len 0):
 * the symbols the descriptor names, never reached, each the one
 * instruction `trap` (the machine's trapping instruction).
 */
.macro RT_UNREACHED_ENTRY name, capture, trap
	RT_FUNCTION \name
\name:
	\trap
	.size \name, . - \name
.endm
#endif

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/arch.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))

/* How the hook finds the traced function's return address. */
enum site_kind {
	SITE_MCOUNT,	/* called after the prologue: the frame pointer locates it */
	SITE_FENTRY,	/* called as the first instruction: it is on top of the stack */
	SITE_KINDS,
};

/*
 * What a function's exit records, chosen per site from its return type when
 * the site is enabled (each has its own entry trampoline), so most calls
 * store one word or none.
 */
enum capture {
	CAPTURE_GPR,	/* the first integer return register (also: type unknown) */
	CAPTURE_NONE,	/* void */
	CAPTURE_FP,	/* the first FP register's low 8 bytes */
	CAPTURE_WIDE_FP,	/* long double: x87's st(0), AArch64's whole q0 */
	CAPTURE_STRING,	/* char *: the characters too, while they still exist */
	CAPTURE_ALL,	/* both integer and both FP registers: structs, __int128 */
	/*
	 * A struct returned in memory whose address comes back in the first
	 * integer register (x86's rax, eax): the address, and the struct's
	 * bytes (up to SIG_MEMBERS_MAX_SIZE), copied before the caller reuses them.
	 * Only ports with its trampolines (entry[kind][CAPTURE_MEMORY]) use it.
	 */
	CAPTURE_MEMORY,
	CAPTURES,
};

_Static_assert(SITE_MCOUNT == RT_SITE_MCOUNT && SITE_FENTRY == RT_SITE_FENTRY && SITE_KINDS == 2,
	       "enum site_kind and the trampolines' RT_SITE_* differ");
_Static_assert(CAPTURE_GPR == RT_CAPTURE_GPR && CAPTURE_NONE == RT_CAPTURE_NONE && CAPTURE_FP == RT_CAPTURE_FP &&
	       CAPTURE_WIDE_FP == RT_CAPTURE_WIDE_FP && CAPTURE_STRING == RT_CAPTURE_STRING &&
	       CAPTURE_ALL == RT_CAPTURE_ALL && CAPTURE_MEMORY == RT_CAPTURE_MEMORY &&
	       CAPTURES == RT_CAPTURE_MEMORY + 1, "enum capture and the trampolines' RT_CAPTURE_* differ");
/* The flags a trampoline adds to a capture (RT_ENTER_SLOT_COPY, MIPS's RT_MIPS_ARGS) lie above it. */
_Static_assert(CAPTURES <= RT_ENTER_SLOT_COPY, "a capture collides with RT_ENTER_SLOT_COPY");

#define STUB_SIZE 16
#define RT_MAX_SITE 8

/*
 * What the generic code needs beyond the recorder's descriptor (arch.h),
 * which already knows the call and NOP encodings a site may hold, the ABI's
 * return values and where pads are traced: a reader of the port's
 * recordings finds those there too (trace/machine.c).
 */
struct rt_arch {
	const struct arch *desc;	/* this machine's descriptor */
	/* The enabled form of a site of `len` bytes: a call to `stub`; false if out of reach. */
	bool (*encode_call)(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub);
	/* A stub (STUB_SIZE bytes) that jumps to `target` from anywhere. */
	void (*encode_stub)(uint8_t *stub, uintptr_t target);
	/* How far a site's call reaches, each way. */
	uintptr_t reach;
	/* The entry trampolines, by kind and capture. */
	void (*entry[SITE_KINDS][CAPTURES])(void);
	/*
	 * The same, also recording the arguments (objpatch --args): they call
	 * rt_enter_args with where they saved the argument registers, laid out
	 * as `arg_regs` says.  Empty: this port does not capture arguments.
	 */
	void (*entry_args[SITE_KINDS][CAPTURES])(void);
	struct rt_arg_regs {
		uint16_t gpr[8];	/* each integer argument register's offset in the save area */
		uint16_t fpr;		/* the first FP argument register's */
		uint8_t fpr_stride;	/* from one FP register (ARM: single-precision slot) to the next */
		/*
		 * The caller's outgoing argument area, from the return address
		 * slot rt_enter gets (rt_enter_args_at: from its `stack`), by
		 * site kind.
		 */
		int16_t stack_from_slot[SITE_KINDS];
		/*
		 * By site kind, what a hook called after the prologue cannot
		 * see as the call left it: ARGS_NO_STACK (the frame's size is
		 * not known), ARGS_NO_REGS (the compiler made the hook an
		 * ordinary call, moving the arguments away and reusing their
		 * registers).  Those arguments print "?".
		 */
		uint8_t unknown[SITE_KINDS];
		/*
		 * The same for one site, where its kind does not tell (ARM:
		 * clang's sites are recorded as SITE_MCOUNT like gcc's, and
		 * told apart by their bytes); NULL: unknown[kind].
		 */
		uint8_t (*unknown_at)(uintptr_t site, size_t len, unsigned kind);
		/*
		 * Where one site's caller's stack arguments are, in bytes from
		 * the saved registers, for a hook whose distance from them
		 * depends on its function (ARM: the prologue that ran before
		 * it; `func` is the function's address); false: not known,
		 * they print "?".  NULL: stack_from_slot.
		 */
		bool (*stack_at)(uintptr_t func, uintptr_t site, size_t len, int32_t *from_regs);
	} arg_regs;
	/* A hook call returns this many bytes past the site's end (MIPS: its delay slot). */
	uint8_t ra_after_site;
	/*
	 * Where a hook call returns from the site's address, when a toggle
	 * writes only part of the call (ARM: 4, of which a Thumb site's
	 * toggle writes the first halfword); 0: the site's end and
	 * ra_after_site.
	 */
	uint8_t ra_from_site;
	/*
	 * -fpatchable-function-entry pads are traced as entry-hook sites
	 * (SITE_FENTRY) where the descriptor gives their place (pad_site_len,
	 * pad_site_offset); before the site, pad_prefix is written once at
	 * start-up (AArch64's `mov x9, x30`, which keeps the caller's return
	 * address for the trampoline while the `bl` takes x30).
	 */
	uint8_t pad_prefix_len;
	uint8_t pad_prefix[4];
	/*
	 * A trampoline that finds the return address in a register (AArch64
	 * pads: x9) keeps a copy in its own frame as the slot and passes
	 * RT_ENTER_SLOT_COPY.  The function then saves what it got somewhere
	 * below slot + slot_copy_above (its entry stack pointer), where an
	 * unwinder reads it: rt_restore_slots() looks for it there.
	 */
	uint8_t slot_copy_above;
	/*
	 * 0: rt_restore_slots() finds those copies by walking the
	 * frame-record chain (AArch64's {x29, x30}).  Else the function's
	 * prologue saved it within this many bytes below slot +
	 * slot_copy_above, which is searched downward from there: the first
	 * word holding a return trampoline is the copy (SH-4: gcc pushes the
	 * callee-saved registers, then pr, and has no record chain).
	 */
	uint8_t copy_scan;
	/*
	 * ppc64: the disabled form of the site at `site` when it is not the
	 * recorder's NOP (`b .+8` over the TOC restore a linker put after a
	 * call to _mcount through a PLT stub), else NULL.  NULL: always the NOP.
	 */
	const uint8_t *(*site_nop)(uintptr_t site, size_t len);
	/*
	 * ppc, ppc64: how far a function's return-address slot (the LR save
	 * word in its caller's frame) lies ABOVE its entry stack pointer; stack limits
	 * handed to rt_rehook_slots() move up by it.  0: below (x86, AArch64).
	 */
	uint8_t slot_above_sp;
	/*
	 * s390x: a site's bytes in either state, from its kind and stub, where
	 * the disabled form is a branch that never branches, to the stub: then
	 * a toggle rewrites one byte.  Every site is written to that form when
	 * its module is loaded, before anything enables it.  NULL: encode_call,
	 * and the NOP.
	 */
	bool (*encode_site)(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub, unsigned kind, bool on);
	/* MIPS n64: a stub's bytes, when a 64-bit address needs more than STUB_SIZE.  0: STUB_SIZE. */
	uint8_t stub_size;
	/*
	 * A recorded site made ready when its module is loaded, where the
	 * recorder's call forms and NOPs are not the whole story.  Given the
	 * recorded address in *site (site_before bytes before it and
	 * site_after from it are readable text), it returns how many bytes a
	 * toggle writes, after moving *site to them (MIPS: the sequence's call
	 * word) and putting back what recordmcount --nop took (ARM's `push
	 * {lr}`, MIPS's stack adjustment); 0 for a site it cannot drive, or
	 * RT_SITE_REFUSED for a hook call whose return address its trampolines
	 * cannot find (s390x: clang's mcount after the prologue).  Called
	 * before the module's code runs (`quiescent`: no other thread runs
	 * either), then with site NULL once after the module's last site: its
	 * writes may wait till then, to be made in one batch.  NULL: the
	 * recorder's call forms and NOPs decide (rt_site_length()).
	 */
	size_t (*prepare_site)(uintptr_t *site, unsigned kind, bool quiescent);
	uint8_t site_before, site_after;
	/*
	 * ARM: the stub area's size (0: one page), and what fills it beyond
	 * the stubs encode_stub writes at its start (Thumb sites' sleds).
	 */
	uint32_t stub_area;
	void (*fill_stubs)(uint8_t *area, size_t size);
	/*
	 * MIPS: `jal` reaches only the aligned region (mask: its size - 1) its
	 * delay slot is in, so the stub page must lie in the text's.  0: any.
	 */
	uintptr_t reach_region;
};

extern const struct rt_arch rt_arch_host RT_HIDDEN;

#define RT_SITE_REFUSED ((size_t)-1)
/* The recorder's reading of a site: the length of the hook call or NOP at `code`, or 0. */
size_t rt_site_length(const uint8_t *code) RT_HIDDEN;

/* The entry trampolines of a site kind, one per capture, as the arch's .S names them. */
#define RT_ENTRIES(kind)                                                         \
	void rt_entry_##kind##_gpr(void) RT_HIDDEN;                              \
	void rt_entry_##kind##_none(void) RT_HIDDEN;                             \
	void rt_entry_##kind##_fp(void) RT_HIDDEN;                               \
	void rt_entry_##kind##_wide(void) RT_HIDDEN;                             \
	void rt_entry_##kind##_string(void) RT_HIDDEN;                           \
	void rt_entry_##kind##_all(void) RT_HIDDEN;
#define RT_ENTRIES_ARGS(kind)                                                    \
	void rt_entry_args_##kind##_gpr(void) RT_HIDDEN;                         \
	void rt_entry_args_##kind##_none(void) RT_HIDDEN;                        \
	void rt_entry_args_##kind##_fp(void) RT_HIDDEN;                          \
	void rt_entry_args_##kind##_wide(void) RT_HIDDEN;                        \
	void rt_entry_args_##kind##_string(void) RT_HIDDEN;                      \
	void rt_entry_args_##kind##_all(void) RT_HIDDEN;
#define RT_ENTRY_ARGS_ROW(kind) { rt_entry_args_##kind##_gpr, rt_entry_args_##kind##_none, \
				  rt_entry_args_##kind##_fp, rt_entry_args_##kind##_wide, \
				  rt_entry_args_##kind##_string, rt_entry_args_##kind##_all }
#define RT_ENTRY_ROW(kind) { rt_entry_##kind##_gpr, rt_entry_##kind##_none, rt_entry_##kind##_fp, \
			     rt_entry_##kind##_wide, rt_entry_##kind##_string, rt_entry_##kind##_all }
/* The rows of a port that also captures values returned in memory (arch_values.memory_address_returned). */
#define RT_ENTRIES_MEM(kind)                                                     \
	void rt_entry_##kind##_mem(void) RT_HIDDEN;                              \
	void rt_entry_args_##kind##_mem(void) RT_HIDDEN;
#define RT_ENTRY_ARGS_ROW_MEM(kind) { rt_entry_args_##kind##_gpr, rt_entry_args_##kind##_none, \
				      rt_entry_args_##kind##_fp, rt_entry_args_##kind##_wide, \
				      rt_entry_args_##kind##_string, rt_entry_args_##kind##_all, \
				      rt_entry_args_##kind##_mem }
#define RT_ENTRY_ROW_MEM(kind) { rt_entry_##kind##_gpr, rt_entry_##kind##_none, rt_entry_##kind##_fp, \
				 rt_entry_##kind##_wide, rt_entry_##kind##_string, rt_entry_##kind##_all, \
				 rt_entry_##kind##_mem }

/* Registers saved by the return trampoline, in its layout (x86_64.S, ...). */
struct ret_regs {
	uint64_t gpr[2];
	uint8_t fpr[2][16];	/* the first two vector registers */
	uint8_t wide[16];	/* CAPTURE_WIDE_FP on x86_64: st(0) */
};

#define CAPTURE_MAX_WORDS 6

/* The entry trampoline a stub jumps to: entry, or with OBJPATCH_ARGS entry_args. */
void (*rt_entry_trampoline(unsigned kind, unsigned capture))(void) RT_HIDDEN;

/*
 * Reads the process's own memory without faulting (a read_mem_fn): where
 * the live writer reads string arguments, when it formats them, and a
 * port reads code that may not be mapped.
 */
size_t rt_read_own(void *ctx, uint64_t addr, void *buf, size_t n) RT_HIDDEN;
uint64_t rt_timestamp(void) RT_HIDDEN;
void rt_timestamp_init(void) RT_HIDDEN;

/* Called by the trampolines (C ABI).  `capture` may carry RT_ENTER_SLOT_COPY. */
void rt_enter(uintptr_t ra, uintptr_t *slot, unsigned capture) RT_HIDDEN;
/*
 * x86_64: rt_enter's common case, compiled for the general registers only
 * (it leaves every vector and x87 register as it was), or false, having
 * done nothing: then the trampoline saves the vector registers and calls
 * rt_enter.  rt_tsc: rt_timestamp reads the TSC (x86's tsc.h).
 */
bool rt_enter_quick(uintptr_t ra, uintptr_t *slot, unsigned capture) RT_HIDDEN;
extern bool rt_tsc RT_HIDDEN;
/*
 * rt_enter, where frames whose slots lie at or below `dead` (not only
 * below `slot`) are known dead (ARM: a leaf's slot lies below its own
 * saved registers, where a frame longjmp skipped had its slot).
 */
void rt_enter_dead(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t dead) RT_HIDDEN;
/*
 * rt_enter for a function that returns its value in memory its caller
 * provides, at `mem` (s390x: structs, __int128, long double, through a
 * hidden pointer): the exit records the first 16 bytes there as the
 * registers (ret_regs.gpr) and as the wide value (ret_regs.wide); for a
 * CAPTURE_MEMORY trampoline's call (ppc32), `mem` stands for the address
 * a register would have returned, and the struct's bytes are copied.
 */
void rt_enter_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t mem) RT_HIDDEN;
/* rt_enter, and the arguments from the registers the trampoline saved at `regs` (arg_regs). */
void rt_enter_args(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs) RT_HIDDEN;
/* Both: the arguments, and a value returned at `mem`. */
void rt_enter_args_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs, uintptr_t mem) RT_HIDDEN;
/* Both: rt_enter_dead's bound and rt_enter_args' registers (ARM). */
void rt_enter_args_dead(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t dead, const uint8_t *regs)
	RT_HIDDEN;
/*
 * rt_enter_args, with the caller's stack arguments at `stack` +
 * stack_from_slot (not from the slot): where the slot's distance from
 * them differs by function (MIPS: ra is saved where the prologue says).
 * `unknown` (ARGS_NO_STACK, ARGS_NO_REGS): what this call's hook could not
 * see, beyond what arg_regs says of every site of its kind; not read,
 * printed "?".
 */
void rt_enter_args_at(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs,
		      const uint8_t *stack, unsigned unknown) RT_HIDDEN;
/* Both: rt_enter_args_at's, and a value returned at `mem` (sparc64). */
void rt_enter_args_at_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs,
			  const uint8_t *stack, unsigned unknown, uintptr_t mem) RT_HIDDEN;
uintptr_t rt_exit(struct ret_regs *regs, uintptr_t sp) RT_HIDDEN;
/* The return trampolines written into hooked return slots: wide FP needs its own. */
extern void rt_return_regs(void) RT_HIDDEN;
extern void rt_return_wide(void) RT_HIDDEN;

struct frame {
	uintptr_t ret;		/* the real return address */
	uintptr_t *slot;	/* where it lives on the stack */
	uintptr_t ra;		/* the hook's return address: identifies the site */
	uint32_t flags;		/* enum capture */
	bool slot_copy;		/* slot is the trampoline's copy (RT_ENTER_SLOT_COPY) */
	bool tail;		/* entered by a tail call: `ret` is the trampoline, for the frame below */
	uintptr_t mem;		/* rt_enter_mem: where the value will be returned; 0: registers */
};

/*
 * The calling thread's traced frames, outermost first, and how many
 * (*depth); NULL and 0 before its first traced call.  Ports that search
 * the stack for a return slot (ARM) check what the runtime holds.
 */
const struct frame *rt_frames(uint32_t *depth) RT_HIDDEN;

#endif /* !__ASSEMBLER__ */
#endif
