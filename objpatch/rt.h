/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracing runtime's internals (libobjpatch): loaded modules and their
 * sites, the per-thread recording path, and the trace writer.  The public
 * interface is objpatch.h.
 */
#ifndef OBJPATCH_RT_H
#define OBJPATCH_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "../recordmcount/elfobj.h"
#include "format.h"
#include "sig.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))

/* ---- per-architecture part (objpatch/arch/<arch>.c and .S) ---- */

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
	CAPTURES,
};

#define STUB_SIZE 16
#define RT_MAX_SITE 8

/*
 * What the generic code needs beyond the recorder's descriptor (arch/), which
 * already knows the call and NOP encodings a site may hold.
 */
struct rt_arch {
	uint16_t machine;
	uint8_t elfclass;
	/* The enabled form of a site of `len` bytes: a call to `stub`; false if out of reach. */
	bool (*encode_call)(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub);
	/* A stub (STUB_SIZE bytes) that jumps to `target` from anywhere. */
	void (*encode_stub)(uint8_t *stub, uintptr_t target);
	/* How far a site's call reaches, each way. */
	uintptr_t reach;
	/* The entry trampolines, by kind and capture. */
	void (*entry[SITE_KINDS][CAPTURES])(void);
	/* A wide FP return (long double) is the first FP register's 16 bytes, not ret_regs.wide. */
	bool wide_in_fpr0;
	/*
	 * -fpatchable-function-entry pads, traced as entry-hook sites
	 * (SITE_FENTRY); pad_site_len 0: not on this arch.  The site is
	 * pad_site_len bytes at pad_site_offset from the function's entry;
	 * before it, pad_prefix is written once at start-up (AArch64's
	 * `mov x9, x30`, which keeps the caller's return address for the
	 * trampoline while the `bl` takes x30).
	 */
	uint8_t pad_site_len, pad_site_offset, pad_prefix_len;
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
	 * i386: float and double both come back in x87's st(0), and the return
	 * trampoline does not know which: CAPTURE_FP's word is st(0) stored as
	 * a binary64 (exact for either), which rt_raw_value narrows for a float.
	 */
	bool fp_st0_double;
	/*
	 * ppc64: the disabled form of the site at `site` when it is not the
	 * recorder's NOP (`b .+8` over the TOC restore a linker put after a
	 * call to _mcount through a PLT stub), else NULL.  NULL: always the NOP.
	 */
	const uint8_t *(*site_nop)(uintptr_t site, size_t len);
	/*
	 * ppc64: how far a function's return-address slot (the LR save word in
	 * its caller's frame) lies ABOVE its entry stack pointer; stack limits
	 * handed to rt_rehook_slots() move up by it.  0: below (x86, AArch64).
	 */
	uint8_t slot_above_sp;
	/* ppc64: the e_flags that pick this ABI's recorder descriptor (2: ELFv2, not ELFv1). */
	uint32_t e_flags;
	/*
	 * s390x: a site's bytes in either state, from its kind and stub, where
	 * the disabled form is a branch that never branches, to the stub: then
	 * a toggle rewrites one byte.  Every site is written to that form when
	 * its module is loaded, before anything enables it.  NULL: encode_call,
	 * and the NOP.
	 */
	bool (*encode_site)(uint8_t *code, size_t len, uintptr_t site, uintptr_t stub, unsigned kind, bool on);
	/*
	 * MIPS: how far past a recorded address the hook's return address
	 * can lie (a recording's sites are the recorded addresses, the
	 * sequence is not read again).  0: RT_MAX_SITE.
	 */
	uint8_t ra_span;
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
#define RT_ENTRY_ROW(kind) { rt_entry_##kind##_gpr, rt_entry_##kind##_none, rt_entry_##kind##_fp, \
			     rt_entry_##kind##_wide, rt_entry_##kind##_string, rt_entry_##kind##_all }

/* Registers saved by the return trampoline, in its layout (x86_64.S, ...). */
struct ret_regs {
	uint64_t gpr[2];
	uint8_t fpr[2][16];	/* the first two vector registers */
	uint8_t wide[16];	/* CAPTURE_WIDE_FP on x86_64: st(0) */
};

#define CAPTURE_MAX_WORDS 6

uint64_t rt_timestamp(void) RT_HIDDEN;
void rt_timestamp_init(void) RT_HIDDEN;
/* How many words rt_capture_words() writes for a capture. */
size_t rt_capture_count(enum capture c) RT_HIDDEN;
/* The words of an exit event that keep what `capture` needs; returns how many. */
size_t rt_capture_words(const struct ret_regs *r, enum capture c, uint64_t *w) RT_HIDDEN;
/* A formatter value from those words, for the function's return type. */
void rt_raw_value(const uint64_t *w, enum capture c, const struct sig_type *ret,
		  struct raw_value *v) RT_HIDDEN;

/* Called by the trampolines (C ABI).  `capture` may carry RT_ENTER_SLOT_COPY. */
#define RT_ENTER_SLOT_COPY 0x100u
void rt_enter(uintptr_t ra, uintptr_t *slot, unsigned capture) RT_HIDDEN;
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
 * registers (ret_regs.gpr) and as the wide value (ret_regs.wide).
 */
void rt_enter_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t mem) RT_HIDDEN;
uintptr_t rt_exit(struct ret_regs *regs, uintptr_t sp) RT_HIDDEN;
/* The return trampolines written into hooked return slots: wide FP needs its own. */
extern void rt_return_regs(void) RT_HIDDEN;
extern void rt_return_wide(void) RT_HIDDEN;

/* ---- modules and sites (rt_modules.c) ---- */

struct rt_func {
	uintptr_t addr;
	uint64_t size;		/* 0: unknown */
	const char *name;	/* never NULL: "0x..." when nothing names it */
	const char *sigtext;	/* the table's signature, NULL if none */
	struct signature *sig;	/* parsed on first use (rt_func_sig) */
	bool parsed;
};

struct rt_site {
	uintptr_t addr;
	uint32_t func;		/* index in the module's functions */
	uint8_t len;
	uint8_t kind;		/* enum site_kind */
	bool enabled;
	bool broken;		/* refused: its bytes were not what the table said */
};

struct rt_module {
	char *path;
	uintptr_t bias;
	uintptr_t lo, hi;	/* the text the sites are in */
	struct rt_site *sites;	/* sorted by address */
	size_t nsites;
	struct rt_func *funcs;	/* sorted by address (those naming bare sites at the end) */
	size_t nfuncs, nfuncs_cap;
	bool funcs_ready;	/* loaded when a name is first needed */
	uint8_t *stubs;		/* a page within reach of every site */
	struct elfobj *file;	/* its mapped file: names and signatures point into it */
	char **made_names;	/* "0x..." names of code no symbol describes */
	size_t nmade;
};

struct rt_state {
	pthread_mutex_t lock;	/* modules, patching, flushing */
	struct rt_module **mods;
	size_t nmods;
	char err[512];
	/* settings from the environment */
	unsigned depth;
	bool hex;
	bool stats;
	size_t strlen_max;
	/* output */
	int format;		/* enum rt_format */
	char *output;		/* NULL: standard error */
	pid_t output_pid;	/* the process `output` is for; children add their pid */
	int output_fd;		/* without `output`: 2 in a traced program, 1 in objpatch report */
	bool replay;		/* objpatch report: events and clock come from a recording */
	pid_t replay_pid;	/* ... of this process */
	size_t buffer_mb;
};

enum rt_format { FMT_TEXT, FMT_JSON, FMT_FOLDED, FMT_RAW };

extern struct rt_state rt RT_HIDDEN;

int rt_scan_modules(size_t *patched) RT_HIDDEN;
int rt_set_filter(const char *glob, bool on) RT_HIDDEN;
/* The function a return address belongs to, or NULL (lock held or at output time). */
struct rt_func *rt_func_for_ra(uintptr_t ra) RT_HIDDEN;
/* The function's parsed signature, or NULL; parsed once, under rt.lock. */
const struct signature *rt_func_sig(struct rt_func *f) RT_HIDDEN;
void rt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2))) RT_HIDDEN;

/* ---- recording (rt_record.c) ---- */

enum ev_type { EV_ENTRY = 1, EV_EXIT, EV_UNWOUND };

/*
 * Events are runs of 64-bit words: {timestamp, word}.  An entry's word is
 * the hook's return address (which names the site; user-space code lies
 * below 2^48) | depth << 48 | 1 << 63.  Any other event's word is a header,
 * bit 63 clear: type | depth << 8 | capture << 32 | nwords << 48, and an
 * exit's header is followed by the words rt_capture_words() chose.
 */
#define EV_HEADER_WORDS 2
#define EV_ENTRY_WORDS 2
#define EV_ENTRY_BIT	(1ull << 63)
#define EV_RA_MASK	((1ull << 48) - 1)
#define EV_DEPTH_MAX	0x7fff		/* an entry's depth field */
#define STRING_WORDS 16	/* captured characters: up to 127 and a length byte */
#define EV_MAX_WORDS (EV_HEADER_WORDS + CAPTURE_MAX_WORDS + STRING_WORDS)
#define EV_HEADER(type, depth, capture, words) \
	((uint64_t)(type) | (uint64_t)(depth) << 8 | (uint64_t)(capture) << 32 | (uint64_t)(words) << 48)
#define EV_ENTRY_WORD(ra, depth) (((uint64_t)(ra) & EV_RA_MASK) | (uint64_t)(depth) << 48 | EV_ENTRY_BIT)

static inline unsigned ev_type(uint64_t w)
{
	return w & EV_ENTRY_BIT ? EV_ENTRY : (unsigned)(w & 0xff);
}

static inline unsigned ev_depth(uint64_t w)
{
	return w & EV_ENTRY_BIT ? (unsigned)((w >> 48) & EV_DEPTH_MAX) : (unsigned)((w >> 8) & 0xffffff);
}

static inline unsigned ev_words(uint64_t w)
{
	return w & EV_ENTRY_BIT ? EV_ENTRY_WORDS : (unsigned)((w >> 48) & 0x7fff);
}

static inline enum capture ev_capture(uint64_t w)
{
	return w & EV_ENTRY_BIT ? CAPTURE_GPR : (enum capture)((w >> 32) & 0xff);
}

static inline uintptr_t ev_ra(uint64_t w)
{
	return (uintptr_t)(w & EV_RA_MASK);
}

struct chunk {
	_Atomic(struct chunk *) next;	/* set by the owner, read by the writer */
	_Atomic uint32_t count;	/* words written; release-stored by the owner */
	uint32_t consumed;	/* words the writer has formatted */
	uint32_t cap;
	uint32_t pad;
	uint64_t w[];
};

struct frame {
	uintptr_t ret;		/* the real return address */
	uintptr_t *slot;	/* where it lives on the stack */
	uintptr_t ra;		/* the hook's return address: identifies the site */
	uint32_t flags;		/* enum capture */
	bool slot_copy;		/* slot is the trampoline's copy (RT_ENTER_SLOT_COPY) */
	bool tail;		/* entered by a tail call: `ret` is the trampoline, for the frame below */
	uintptr_t mem;		/* rt_enter_mem: where the value will be returned; 0: registers */
};

struct tstate {
	struct tstate *next;	/* all threads, newest first */
	pid_t tid;
	_Atomic bool dead;
	uint32_t depth;		/* frames in use */
	volatile uint32_t busy;	/* inside the recorder: nested hooks are not traced */
	uint64_t missed_depth, missed_busy, lost;
	atomic_flag raw_lock;	/* raw recordings: the owner and the writer take turns on the chunk */
	_Atomic(struct chunk *) head;	/* oldest chunk not yet freed by the writer */
	struct chunk *cur;
	struct frame *frames;
	/* the writer's state, under rt.lock */
	void *out_state;
};

extern _Atomic(struct tstate *) rt_threads RT_HIDDEN;
struct tstate *rt_current(void) RT_HIDDEN;
void rt_restore_slots(struct tstate *t) RT_HIDDEN;
void rt_rehook_slots(struct tstate *t, uintptr_t sp) RT_HIDDEN;
/* The writer frees chunks it has consumed. */
void rt_free_chunk(struct chunk *c) RT_HIDDEN;
void rt_record_init(size_t buffer_mb) RT_HIDDEN;
void rt_record_fork_child(void) RT_HIDDEN;
/* objpatch report: a thread holding recorded events, and more of them. */
struct tstate *rt_replay_thread(pid_t tid) RT_HIDDEN;
int rt_replay_events(struct tstate *t, const uint64_t *w, size_t n) RT_HIDDEN;
/* objpatch report: a module of the recording, by its file and load bias. */
int rt_replay_module(const char *path, uintptr_t bias) RT_HIDDEN;

/* ---- output (rt_output.c) ---- */

/*
 * The raw recording (OBJPATCH_FORMAT=raw, `objpatch record`), formatted
 * later by `objpatch report` on the same machine with the same files: a
 * header, then records of 8-byte-aligned payloads in host byte order.
 */
#define RAW_MAGIC "OBJPATCH-RAW-1\n"

struct raw_header {
	char magic[16];
	uint16_t machine;	/* e_machine and class of the recording runtime */
	uint8_t elfclass;
	uint8_t pad;
	uint32_t depth;		/* OBJPATCH_DEPTH */
	int32_t pid;
	uint32_t pad2;
};

enum raw_type {
	RAW_MODULE = 1,	/* u64 bias, then the path and a NUL */
	RAW_CLOCK,	/* u64 ts0, ns0, ts, ns: two samples of timestamp and CLOCK_MONOTONIC */
	RAW_EVENTS,	/* u64 tid, then a thread's event words */
	RAW_COUNTS,	/* u64 missed_depth, missed_busy, lost, the final flush's timestamp */
};

struct raw_record {
	uint32_t type;
	uint32_t bytes;		/* payload, a multiple of 8 */
};


void rt_output_init(void) RT_HIDDEN;
/* objpatch report: the recording's clock, and the time its last flush happened. */
void rt_output_set_clock(uint64_t ts0, uint64_t ns0, double ns_per_tick, uint64_t end) RT_HIDDEN;
int rt_flush(bool final) RT_HIDDEN;
/* Raw recordings: a thread's events to the file; async-signal-safe. */
void rt_raw_events(pid_t tid, const uint64_t *w, size_t n) RT_HIDDEN;
/* Raw recordings: what a thread has not written yet (rt_record.c). */
void rt_raw_drain(struct tstate *t) RT_HIDDEN;
void rt_output_fork_child(void) RT_HIDDEN;

#endif
