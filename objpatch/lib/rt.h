/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracing runtime's internals (libobjpatch): loaded modules and their
 * sites, the per-thread recording path, and the trace writer.  The public
 * interface is objpatch.h.
 */
#ifndef OBJPATCH_LIB_RT_H
#define OBJPATCH_LIB_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "arch/port.h"
#include "elf/elfobj.h"
#include "trace/format.h"
#include "tables/sig.h"

/* ---- what each port provides and calls: arch/port.h ---- */

/* A formatter value from those words, for the function's return type. */
void rt_raw_value(const uint64_t *w, enum capture c, const struct sig_type *ret,
		  struct raw_value *v) RT_HIDDEN;

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
