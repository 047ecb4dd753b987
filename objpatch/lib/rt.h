/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracing runtime's internals (libobjpatch): loaded modules and their
 * sites, the per-thread recording path, and its output (through the trace
 * layer's writer, or raw).  The public interface is objpatch.h.
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
#include "trace/event.h"
#include "trace/symbols.h"
#include "util/hash.h"

/* What each port provides and calls: arch/port.h. */

/* ---- modules and sites (rt_modules.c, rt_sites.c) ---- */

struct rt_site {
	uintptr_t addr;
	uint32_t func;		/* index in the module's functions (syms.funcs) */
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
	struct sym_table syms;	/* its functions, loaded when a name is first needed */
	bool funcs_ready;
	uint8_t *stubs;		/* a page within reach of every site */
	struct elfobj *file;	/* its mapped file: names and signatures point into it */
};

/* One pattern of OBJPATCH_FILTER. */
struct rt_filter {
	const char *glob;
	bool on;
};

struct rt_state {
	pthread_mutex_t lock;	/* modules, patching, flushing */
	struct rt_module **mods;
	size_t nmods;
	char err[512];
	/* settings from the environment */
	unsigned depth;
	bool hex;
	bool errno_names;	/* OBJPATCH_ERRNO_NAMES: negative errnos by name */
	bool args;		/* OBJPATCH_ARGS: entries record their arguments (the port's entry_args) */
	bool stats;
	size_t strlen_max;
	struct rt_filter *start_filters;	/* OBJPATCH_FILTER's patterns, in order */
	size_t nstart_filters;
	char *note;		/* a line about the whole trace, for its head; NULL once something is traced */
	/* output */
	int format;		/* enum rt_format */
	char *output;		/* NULL: standard error */
	pid_t output_pid;	/* the process `output` is for; children add their pid */
	size_t buffer_mb;
	unsigned flush_ms;	/* OBJPATCH_FLUSH_MS: the writer thread's period; 0: none, the trace at exit */
	bool drop;		/* OBJPATCH_POLICY=drop: events that find the buffers full are lost, not waited for */
};

enum rt_format { FMT_TEXT, FMT_JSON, FMT_FOLDED, FMT_RAW, FMT_SVG, FMT_PERFETTO };

/* The first process's pid, for the processes it starts (rt_settings.c, rt_output.c). */
#define RT_FIRST_PID_VAR "OBJPATCH_FIRST_PID"
/* The name of the thread of an objpatch attach session (rt_attach.c; objpatch/attach/attach_trace.c reads it). */
#define RT_SESSION_THREAD "objpatch-attach"
/* Set in a process's environment by objpatch attach for the length of its dlopen (rt_api.c). */
#define RT_ATTACH_VAR "OBJPATCH_ATTACH"

/* rt_settings.c: rt's settings from the OBJPATCH_* variables; a bad value stops the program. */
void rt_read_settings(void) RT_HIDDEN;
/*
 * objpatch attach's settings for a session, from the environment it put in
 * place for the call (read from environ itself): -1 with runtime.err set for a
 * value the runtime cannot use; nothing printed, nothing exits.
 */
int rt_read_attach_settings(void) RT_HIDDEN;
/* The value of an OBJPATCH_* variable as objpatch attach wrote it in environ, or NULL. */
const char *rt_attach_setting(const char *name) RT_HIDDEN;

/*
 * ---- objpatch attach (rt_attach.c) ----
 * rt_attached: loaded by objpatch attach (its constructor saw
 * OBJPATCH_ATTACH), so it stays dormant between sessions and writes
 * nothing to the process's standard error.  rt_dormant: no session runs,
 * so nothing is recorded, every traced frame still returns through its
 * trampoline.  rt_session counts the sessions: a frame entered in an
 * earlier one is never recorded in a later one (struct tstate's base).
 */
extern bool rt_attached RT_HIDDEN;
/*
 * objpatch attach holds every other thread stopped, none inside a
 * patchable entry: sites may change as when no other thread exists
 * (pads of several NOPs joined into one).  Set for the start call only.
 */
extern bool rt_all_held RT_HIDDEN;
extern _Atomic bool rt_dormant RT_HIDDEN;
extern _Atomic uint32_t rt_session RT_HIDDEN;
/*
 * Exported for objpatch attach, which calls it remotely (not in objpatch.h:
 * no program calls it): 0; 2 when another session runs; 3 when a held
 * thread has the runtime's lock (inside fork()); or -1 with
 * objpatch_error() saying why.  objpatch_attach_owner: the pid of the
 * objpatch whose session runs, 0 between sessions (read by the next one).
 * objpatch_attach_enable_held(): the second call with pads (rt_attach.c),
 * 0, 3 or -1 the same way.
 */
int objpatch_attach_start(void);
int objpatch_attach_enable_held(void);
extern volatile int objpatch_attach_owner;
/* Threads inside fork() between the runtime's handlers (rt_api.c), read by objpatch attach. */
extern volatile int objpatch_attach_forking;
/*
 * Attached (rt_unwind.c, weak: not in a static program's link): the C++
 * unwinder's entry points hooked in every module's GOT.
 */
void rt_unwind_hook_modules(void) __attribute__((weak)) RT_HIDDEN;
/* The process is exiting: the session's trace is finished on its socket (the destructor's). */
void rt_attach_exit(void) RT_HIDDEN;
/* A forked child of an attached process is dormant at once, with no socket (the atfork handler's). */
void rt_attach_fork_child(void) RT_HIDDEN;
/* rt_api.c: the runtime's fork handlers registered (once per process); 0 or pthread_atfork's error. */
int rt_fork_handlers(void) RT_HIDDEN;

extern struct rt_state runtime RT_HIDDEN;

/* rt_sites.c: every new module's sites as the filters want them; the filters. */
int rt_scan_modules(size_t *patched) RT_HIDDEN;
/* Sites changed, or -1; *matched: the functions with a site the pattern names. */
int rt_set_filter(const char *glob, bool on, size_t *matched) RT_HIDDEN;
/*
 * The patterns f[0..n) applied together, in order (the last that names a
 * function decides): each site goes straight to its final state in one
 * change, so no thread runs a site that one pattern enables and a later
 * one disables.  `fresh`: earlier patterns are forgotten and every site
 * the patterns do not name is disabled.  0, or -1 with runtime.err set.
 */
int rt_set_filters(const struct rt_filter *f, size_t n, bool fresh) RT_HIDDEN;
/* Why a pattern cannot be used (an unclosed '[', a trailing '\\'), or NULL. */
const char *rt_pattern_error(const char *glob) RT_HIDDEN;
/* Functions with a site in the loaded modules, and how many of them are traced. */
void rt_count_functions(size_t *funcs, size_t *traced) RT_HIDDEN;
/*
 * At the end of a trace whose OBJPATCH_FILTER names functions: one line on
 * standard error naming the traced functions the writer never saw called
 * (struct sym_func's `called`), most likely inlined at every call site.
 */
void rt_report_uncalled(void) RT_HIDDEN;
/* The functions with a site that the pattern names. */
size_t rt_count_matches(const char *glob) RT_HIDDEN;

/* rt_modules.c: new modules appended to runtime.mods from *first on, their sites checked. */
int rt_load_modules(bool quiescent, size_t *first) RT_HIDDEN;
/* The module's function names and which function each site is in; loaded on first use. */
int rt_module_functions(struct rt_module *m) RT_HIDDEN;
/* A site's disabled form: the NOP, unless the arch wants another there (ppc64's `b .+8`). */
const uint8_t *rt_site_nop(const struct rt_site *s) RT_HIDDEN;
/* Whether this machine's port captures arguments. */
bool rt_args_supported(void) RT_HIDDEN;
/* The bytes of one stub in a module's stub page (MIPS n64: longer). */
size_t rt_stub_size(void) RT_HIDDEN;
/* The function a return address belongs to, or NULL (lock held or at output time). */
struct sym_func *rt_func_for_ra(uintptr_t ra) RT_HIDDEN;
/*
 * The bytes of the value a function returns in memory that an exit copies
 * (CAPTURE_MEMORY: where the port has its trampolines and the address
 * comes back in a register); 0: it does not.
 */
size_t rt_memory_value_bytes(const struct signature *sig) RT_HIDDEN;
/*
 * rt_args.c: where an entry finds its function's arguments (OBJPATCH_ARGS),
 * and an exit the size of a value returned in memory.
 */
struct rt_arg_spec {
	uint8_t ret_bytes;	/* rt_memory_value_bytes() of the function */
	uint8_t nwords;
	uint8_t flags;		/* the event's: ARGS_PACKED, and ARGS_NO_STACK, ARGS_NO_REGS for what the hook cannot see */
	/*
	 * Each word of the event: two pieces (trace_arg_pack()), each read as
	 * 8 bytes at `off` from the saved registers or the slot, shifted
	 * right by `shift` (big-endian: the piece is the first bytes) and
	 * masked to its size (mask 0: no piece, or one not seen), so that an
	 * entry reads them without a branch.
	 */
	struct rt_arg_word {
		struct rt_arg_src {
			uint64_t mask;
			int32_t off;
			uint8_t from_slot;
			uint8_t shift;
		} lo, hi;
	} word[ARGS_MAX_PIECES];
};
/* Called for each site being enabled (with --args, or returning in memory), under runtime.lock; -1 when out of memory. */
int rt_args_enable(const struct rt_module *m, const struct rt_site *s) RT_HIDDEN;
/*
 * The sites' places, by the return address of their hook call: open
 * addressing, at most half full, read without a lock (rt_args.c grows it).
 */
struct rt_arg_table {
	unsigned bits;
	size_t used;
	struct rt_arg_slot {
		_Atomic uintptr_t ra;	/* 0: free; set last, with release, by the lock holder */
		const struct rt_arg_spec *spec;
	} slot[];
};
extern _Atomic(struct rt_arg_table *) rt_arg_table RT_HIDDEN;

static inline size_t rt_args_hash(uintptr_t ra, unsigned bits)
{
	return (size_t)(hash_mix64(ra) >> (64 - bits));
}

/* The places of the site whose hook call returns to `ra`, or NULL; inline, as every traced entry asks. */
static inline const struct rt_arg_spec *rt_args_spec(uintptr_t ra)
{
	const struct rt_arg_table *t = atomic_load_explicit(&rt_arg_table, memory_order_acquire);
	size_t mask, i;

	if (!t)
		return NULL;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = rt_args_hash(ra, t->bits);; i = (i + 1) & mask) {
		uintptr_t k = atomic_load_explicit(&t->slot[i].ra, memory_order_acquire);

		if (k == ra)
			return t->slot[i].spec;
		if (!k)
			return NULL;
	}
}
/* rt_unrecorded.c: one line per module whose functions call the hook without a table entry. */
void rt_report_unrecorded(size_t first) RT_HIDDEN;
void rt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2))) RT_HIDDEN;
/* A message for the user: on standard error, or in runtime.err when objpatch attach loaded the runtime. */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2))) RT_HIDDEN;

/* Sites are a few bytes: a loop beats a call to memcmp 20,000 times over. */
static inline bool rt_same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* ---- recording (rt_record.c) ---- */

/* The same layout on every machine: objpatch reads it in shared memory (trace/slots.h). */
struct chunk {
	_Atomic uint32_t count;	/* words written; release-stored by the owner */
	uint32_t consumed;	/* words the writer has formatted */
	uint32_t cap;
	uint32_t shared;	/* in objpatch's shared memory: never unmapped */
	union {
		_Atomic(struct chunk *) next;	/* set by the owner, read by the writer */
		uint64_t next_space;
	};
	uint64_t w[];
};

struct trace_thread;

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
	/* the writer's, under runtime.lock: where reading resumes, and its state of the thread */
	struct chunk *read;
	uint32_t read_pos;
	struct trace_thread *out;
	bool after_entry;	/* the writer just read an entry: its next event is read whatever its time */
	/* Its name (comm): taken when it starts and ends, and at each flush while it runs. */
	char comm[16];
	/*
	 * objpatch attach: the session this thread last recorded in, and how
	 * many of its frames (the outermost) were entered before it: those
	 * return unrecorded, and the session's depths count from them.
	 */
	uint32_t session, base;
};

extern _Atomic(struct tstate *) rt_threads RT_HIDDEN;
/*
 * The exit instant, set once by the exit handler: a trace holds every
 * thread's events up to it and none after, whatever the threads still
 * running record meanwhile.  A flag, which the recording path reads only
 * where it would take more memory or write, and the time (64-bit atomics
 * are a library call on some 32-bit machines).
 */
extern _Atomic bool rt_stopped RT_HIDDEN;
/* Sets the exit instant, now, unless it is set already; returns it.  The exit handler's. */
uint64_t rt_stop(void) RT_HIDDEN;
/* The exit instant, or 0 while the process runs. */
uint64_t rt_stop_time(void) RT_HIDDEN;
/* Where the first event of c->w[from..to) later than `limit` starts (`to`: none is). */
uint32_t rt_events_until(const struct chunk *c, uint32_t from, uint32_t to, uint64_t limit) RT_HIDDEN;
struct tstate *rt_current(void) RT_HIDDEN;
void rt_restore_slots(struct tstate *t) RT_HIDDEN;
void rt_rehook_slots(struct tstate *t, uintptr_t sp) RT_HIDDEN;
/* The writer frees chunks it has consumed. */
void rt_free_chunk(struct chunk *c) RT_HIDDEN;
/* Whether the event budget has no room left for another chunk: threads may be waiting for the writer. */
bool rt_room_short(void) RT_HIDDEN;
void rt_record_init(size_t buffer_mb) RT_HIDDEN;
/* Raw recordings: the header, modules and clock, written at start-up and after dlopen (rt_output.c). */
void rt_raw_begin(void) RT_HIDDEN;
void rt_raw_start(uint64_t ts0, uint64_t ns0) RT_HIDDEN;
void rt_record_fork_child(void) RT_HIDDEN;
/*
 * objpatch attach: a session starts at `ts`; what the threads recorded
 * before it (after the last one's end) is never written, and the counts
 * of lost events start again.  Called with every other thread held.
 */
void rt_record_session_start(uint64_t ts) RT_HIDDEN;
/* objpatch attach, at a session's end: the chunks of the threads that have exited freed. */
void rt_record_release_dead(void) RT_HIDDEN;
/* No writer thread frees the buffers: the budget of a trace written at exit (1 GiB, or OBJPATCH_BUFFER_MB). */
void rt_record_without_writer(void) RT_HIDDEN;

/* ---- output (rt_output.c: traces; rt_raw.c: raw recordings, trace/raw.h) ---- */

void rt_output_init(void) RT_HIDDEN;
int rt_flush(bool final) RT_HIDDEN;
/*
 * A signal is ending the process (rt_signals.c): the trace finished as at
 * exit, by the writer thread (this thread waits), else by this thread.
 * Raw recordings are left to objpatch record.  Returns when the trace is
 * finished, when give_up() says so (another signal), or after 30 s.
 */
void rt_output_finish(bool (*give_up)(void)) RT_HIDDEN;
/* rt_signals.c: the ending signals the process leaves at their default action, handled. */
void rt_signals_install(void) RT_HIDDEN;
/* rt_status.c: at exit, the sites found and whether the trace was written, for objpatch run. */
void rt_status_report(bool written) RT_HIDDEN;
/* CLOCK_MONOTONIC in nanoseconds, the clock timestamps are calibrated against. */
uint64_t rt_mono_ns(void) RT_HIDDEN;
/* Raw recordings: what the threads recorded, and the clock from its first sample (ts0, ns0). */
int rt_raw_flush(bool final, uint64_t ts0, uint64_t ns0) RT_HIDDEN;
/*
 * Raw recordings: a thread's events to the file; async-signal-safe.  The
 * events lost: OBJPATCH_POLICY=drop and a recording that could not take
 * them without waiting (a pipe whose reader is behind).
 */
uint64_t rt_raw_events(pid_t tid, const uint64_t *w, size_t n) RT_HIDDEN;
/* Raw recordings: what a thread has not written yet (rt_record.c). */
void rt_raw_drain(struct tstate *t) RT_HIDDEN;
void rt_output_fork_child(void) RT_HIDDEN;
/*
 * objpatch attach: the session's raw recording goes to `fd` (a connected
 * socket), from its header on; ended, the socket is closed where no
 * thread writes it, and nothing is written until the next session.
 */
void rt_raw_session_begin(int fd) RT_HIDDEN;
void rt_raw_session_end(void) RT_HIDDEN;
/* Whether the session's socket still has its number (the program may have closed it and reused the number). */
bool rt_raw_session_ours(void) RT_HIDDEN;
/* A forked child's copy of the session's socket closed unwritten (another thread may have held the lock). */
void rt_raw_fork_child(void) RT_HIDDEN;
/* A message for the user in the session's recording (RAW_NOTE); nothing between sessions. */
void rt_raw_note(const char *msg) RT_HIDDEN;
/* Whether a write to the session's socket failed: objpatch is gone, or stopped reading. */
bool rt_raw_failed(void) RT_HIDDEN;
/*
 * The filter's patterns were (re)read (runtime.start_filters): kept as the
 * recording's RAW_FILTER payload, made here since raw_open, which writes
 * it, may not allocate.
 */
void rt_raw_filter_read(void) RT_HIDDEN;
/* The writer thread (OBJPATCH_FLUSH_MS): started at start-up and in a forked child. */
void rt_writer_start(void) RT_HIDDEN;
/*
 * A recording thread found the buffers full: whether it should wait for
 * the writer to free some (policy wait, a writer running), which it is
 * then asked to do at once.
 */
bool rt_writer_can_wait(void) RT_HIDDEN;
/* A running thread's name as it is now, into t->comm (the writer's, under runtime.lock). */
void rt_thread_comm(struct tstate *t) RT_HIDDEN;
/* The program's name, for the trace's process name. */
const char *rt_program_name(void) RT_HIDDEN;
/* OBJPATCH_OUTPUT for a process: ".PID" before the extension unless it is the first. */
int rt_output_path(char *buf, size_t size, pid_t pid) RT_HIDDEN;

#endif
