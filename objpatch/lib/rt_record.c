// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The recording path: what runs on every traced call.
 *
 * Each thread has a shadow stack of the return addresses it replaced and a
 * list of event chunks that only it writes; the trace writer reads them
 * under runtime.lock up to each chunk's release-stored count.  Nothing here takes
 * a lock or calls malloc: a signal handler may run traced code at any point,
 * so thread state and chunks come from mmap, and a handler that interrupts
 * the recorder itself is not traced (counted instead).
 *
 * Frames are matched to returns by stack address, not by position: on
 * return, every frame whose slot lies below the returning stack pointer is
 * finished, the outermost of them returning and the others unwound by
 * longjmp (or by an exception's cleanup); on entry, frames whose slots lie
 * at or below the new one are dead for the same reason.  C++ exceptions
 * need the real return addresses back on the stack while the unwinder
 * walks it: the unwinder's entry points put them back, and the first catch
 * re-hooks the frames that survived.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "objpatch/lib/rt.h"
#include "trace/exit_words.h"
#include "trace/slots.h"

_Atomic(struct tstate *) rt_threads;
_Atomic bool rt_stopped;
static uint64_t stop_ts;	/* published by rt_stopped */
_Atomic bool rt_dormant;
_Atomic uint32_t rt_session;
/*
 * objpatch attach: when the session began; earlier events are the last
 * session's leftovers.  Not an atomic (a library call on some 32-bit
 * machines): it is written while every other thread is held, before the
 * session's thread exists.
 */
static uint64_t session_ts;
static __thread struct tstate *self __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static _Atomic size_t buffered_bytes;
static size_t max_bytes = (size_t)32 << 20;
static _Atomic unsigned long chunks_freed;	/* the writer's progress, for threads waiting for room */

/*
 * A thread's first chunk is small (many threads call little); later ones
 * are 2 MiB and asked to be huge pages, so filling them costs one page
 * fault instead of 512.
 */
#define FIRST_CHUNK (64u << 10)
#define RAW_CHUNK (512u << 10)
#define CHUNK (2u << 20)
static size_t chunk_bytes = CHUNK;	/* a quarter of the budget at most: a waiting thread's fits */

static void *map_zeroed(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Ten seconds without a chunk freed: the writer is stuck (this thread holds what it waits for). */
#define WAIT_STEP_NS 200000L
#define WAIT_STEPS_IDLE 50000

/*
 * Policy wait: room in the buffers, once the writer thread has formatted
 * and freed some.  A thread whose wait cannot end (a signal handler that
 * interrupted the writer's lock holder) gives up after a long time without
 * progress, and loses the event as policy drop would.
 */
static _Atomic unsigned long stuck_at = ULONG_MAX;	/* chunks_freed when a wait gave up */

static bool wait_for_room(size_t bytes)
{
	unsigned long seen = atomic_load(&chunks_freed);
	const struct timespec step = { 0, WAIT_STEP_NS };

	/* Once a wait gave up, none waits again until the writer frees something. */
	if (seen == atomic_load(&stuck_at))
		return false;
	for (unsigned idle = 0; idle < WAIT_STEPS_IDLE; idle++) {
		if (atomic_load(&buffered_bytes) + bytes <= max_bytes)
			return true;
		if (!rt_writer_can_wait())
			return false;
		nanosleep(&step, NULL);
		if (atomic_load(&chunks_freed) != seen) {
			seen = atomic_load(&chunks_freed);
			idle = 0;
		}
	}
	atomic_store(&stuck_at, seen);
	return false;
}

/*
 * Chunks the writer freed, kept for the next one a thread needs: a fresh
 * mapping costs the kernel's zeroing of its pages again (14% of `objpatch
 * run`'s CPU on bench/runtime/calls.c, by perf).  Only by try-lock: a
 * traced call in a signal handler may interrupt the holder, and then maps
 * a chunk of its own.  A few at most, so that they barely add to the RSS.
 */
#define SPARE_CHUNKS 4
static struct chunk *spare[SPARE_CHUNKS];
static unsigned nspare;
static atomic_flag spare_lock = ATOMIC_FLAG_INIT;

static struct chunk *take_spare(size_t bytes)
{
	struct chunk *c = NULL;

	if (bytes != chunk_bytes || atomic_flag_test_and_set_explicit(&spare_lock, memory_order_acquire))
		return NULL;
	if (nspare)
		c = spare[--nspare];
	atomic_flag_clear_explicit(&spare_lock, memory_order_release);
	return c;
}

static bool keep_spare(struct chunk *c, size_t bytes)
{
	bool kept = false;

	if (bytes != chunk_bytes || atomic_flag_test_and_set_explicit(&spare_lock, memory_order_acquire))
		return false;
	if (nspare < SPARE_CHUNKS) {
		spare[nspare++] = c;
		kept = true;
	}
	atomic_flag_clear_explicit(&spare_lock, memory_order_release);
	return kept;
}

static struct chunk *new_chunk(size_t bytes)
{
	struct chunk *c;

	while (atomic_fetch_add(&buffered_bytes, bytes) + bytes > max_bytes) {
		atomic_fetch_sub(&buffered_bytes, bytes);
		if (!wait_for_room(bytes))
			return NULL;
	}
	if ((c = take_spare(bytes))) {
		atomic_store_explicit(&c->count, 0, memory_order_relaxed);
		c->consumed = 0;
		atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
		return c;
	}
	c = map_zeroed(bytes);
	if (!c) {
		atomic_fetch_sub(&buffered_bytes, bytes);
		return NULL;
	}
	if (bytes >= CHUNK)
		madvise(c, bytes, MADV_HUGEPAGE);
	c->cap = (uint32_t)((bytes - sizeof(*c)) / 8);
	return c;
}

bool rt_room_short(void)
{
	return atomic_load_explicit(&buffered_bytes, memory_order_relaxed) + chunk_bytes > max_bytes;
}

void rt_free_chunk(struct chunk *c)
{
	size_t bytes = sizeof(*c) + (size_t)c->cap * 8;

	if (c->shared)
		return;
	if (!keep_spare(c, bytes))
		munmap(c, bytes);
	atomic_fetch_sub(&buffered_bytes, bytes);
	atomic_fetch_add(&chunks_freed, 1);
}

static void thread_exit(void *arg)
{
	struct tstate *t = arg;

	/* Its last name: /proc has none for it once it is gone. */
	prctl(PR_GET_NAME, t->comm);
	atomic_store(&t->dead, true);
}

/* ---- raw recordings: chunks in memory objpatch shares (trace/slots.h) ---- */

static uint8_t *shared;		/* OBJPATCH_SHARED_FD's mapping, or NULL */
static uint32_t shared_slots;

static void map_shared(void)
{
	const char *s = getenv("OBJPATCH_SHARED_FD");
	struct stat st;
	int fd = s && *s ? atoi(s) : -1;
	void *p;

	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size < SLOTS_HEADER + SLOT_BYTES)
		return;	/* not started by objpatch record, or the descriptor was closed: private chunks */
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	shared = p;
	shared_slots = (uint32_t)((st.st_size - SLOTS_HEADER) / SLOT_BYTES);
}

/* A free slot's chunk for this thread, or NULL when all are taken. */
static struct chunk *shared_chunk(void)
{
	uint32_t i = shared ? atomic_fetch_add((_Atomic uint32_t *)shared, 1) : UINT32_MAX;
	uint8_t *slot;
	struct chunk *c;

	if (i >= shared_slots)
		return NULL;
	slot = shared + SLOTS_HEADER + (size_t)i * SLOT_BYTES;
	*(int32_t *)(slot + SLOT_TID) = (int32_t)syscall(SYS_gettid);
	atomic_store((_Atomic int32_t *)(slot + SLOT_PID), (int32_t)getpid());
	c = (struct chunk *)(slot + SLOT_CHUNK);
	c->cap = (uint32_t)((SLOT_BYTES - SLOT_CHUNK - sizeof(*c)) / 8);
	c->shared = 1;
	return c;
}

/* A raw recording's thread keeps one chunk for good: a bigger one means fewer writes. */
static struct chunk *raw_chunk(void)
{
	struct chunk *c = shared_chunk();

	return c ? c : new_chunk(RAW_CHUNK);
}

void rt_record_without_writer(void)
{
	const char *s = getenv("OBJPATCH_BUFFER_MB");

	if (!s || !*s)
		max_bytes = (size_t)1 << 30;
}

void rt_record_init(size_t buffer_mb)
{
	if (buffer_mb)
		max_bytes = buffer_mb << 20;
	while (chunk_bytes > FIRST_CHUNK && chunk_bytes > max_bytes / 4)
		chunk_bytes /= 2;
	if (runtime.format == FMT_RAW)
		map_shared();
	pthread_key_create(&exit_key, thread_exit);
}

/*
 * LeakSanitizer scans heap, stacks and globals, not our mappings: in a
 * program built with ASan the output state a thread's record points to
 * would look leaked.  Its interface is there (weak) only in such programs.
 */
extern void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));

static struct tstate *make_thread_state(void)
{
	size_t size = sizeof(struct tstate) + runtime.depth * sizeof(struct frame);
	struct tstate *t = map_zeroed(size);

	if (!t)
		return NULL;
	t->frames = (struct frame *)(t + 1);
	t->tid = (pid_t)syscall(SYS_gettid);
	prctl(PR_GET_NAME, t->comm);
	t->cur = runtime.format == FMT_RAW ? raw_chunk() : new_chunk(FIRST_CHUNK);
	if (!t->cur) {
		munmap(t, size);
		return NULL;
	}
	atomic_store(&t->head, t->cur);
	if (__lsan_register_root_region)
		__lsan_register_root_region(t, sizeof(*t));
	t->next = atomic_load(&rt_threads);
	while (!atomic_compare_exchange_weak(&rt_threads, &t->next, t))
		;
	self = t;
	pthread_setspecific(exit_key, t);
	return t;
}

/*
 * A signal handler that runs traced code while its thread's state is being
 * made gets none (it is not traced): it would make a second one and leave
 * it behind.
 */
static __thread bool making_self __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) struct tstate *thread_state(void)
{
	struct tstate *t = self;

	if (__builtin_expect(t != NULL, 1))
		return t;
	if (making_self)
		return NULL;
	making_self = true;
	atomic_signal_fence(memory_order_seq_cst);
	t = make_thread_state();
	atomic_signal_fence(memory_order_seq_cst);
	making_self = false;
	return t;
}

/* 0 stands for "running": a clock that reads 0 says 1. */
uint64_t rt_stop(void)
{
	if (!atomic_load(&rt_stopped)) {
		uint64_t now = rt_timestamp();

		stop_ts = now ? now : 1;
		atomic_store(&rt_stopped, true);
	}
	return stop_ts;
}

uint64_t rt_stop_time(void)
{
	return atomic_load(&rt_stopped) ? stop_ts : 0;
}

/*
 * The order matters to the recording path, which reads them the other
 * way: the start time, the exit instant cleared, then the new session's
 * number (the caller lets threads record after that).
 */
void rt_record_session_start(uint64_t ts)
{
	/* The counts are the session's: the start call runs with every other thread held (no owner writes them). */
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next)
		t->missed_depth = t->missed_busy = t->lost = 0;
	session_ts = ts;
	atomic_store(&rt_stopped, false);
	atomic_fetch_add(&rt_session, 1);
}

/* Where the first event of c->w[from..to) of the current session starts. */
static uint32_t session_events(const struct chunk *c, uint32_t from, uint32_t to)
{
	uint64_t start = session_ts;

	while (start && from < to && c->w[from] < start)
		from += ev_words(c->w[from + 1]);
	return from < to ? from : to;
}

/*
 * A thread meets a new session (objpatch attach) at its first traced
 * entry or return in it: the frames it has then are the last session's,
 * which return unrecorded; the session's depths count from above them.
 */
static inline void sync_session(struct tstate *t)
{
	uint32_t s = atomic_load_explicit(&rt_session, memory_order_relaxed);

	if (__builtin_expect(t->session != s, 0)) {
		t->session = s;
		t->base = t->depth;
	}
}

/* Whether frame `depth` is recorded: a session runs, and the frame is its own. */
static inline bool recorded_frame(const struct tstate *t, uint32_t depth)
{
	return depth >= t->base && !atomic_load_explicit(&rt_dormant, memory_order_relaxed);
}

/* The thread has `depth` frames left: frames entered before the session are among them no more. */
static inline void frames_left(struct tstate *t, uint32_t depth)
{
	t->depth = depth;
	if (t->base > depth)
		t->base = depth;
}

/* A thread's timestamps only grow: its events up to `limit` are a prefix. */
uint32_t rt_events_until(const struct chunk *c, uint32_t from, uint32_t to, uint64_t limit)
{
	while (from < to && c->w[from] <= limit)
		from += ev_words(c->w[from + 1]);
	return from < to ? from : to;
}

static void lock_raw(struct tstate *t)
{
	while (atomic_flag_test_and_set_explicit(&t->raw_lock, memory_order_acquire))
		sched_yield();
}

static void unlock_raw(struct tstate *t)
{
	atomic_flag_clear_explicit(&t->raw_lock, memory_order_release);
}

/*
 * Raw recordings: the owner writes its full chunk and starts it over; the
 * writer (rt_raw_drain, at a flush) writes what is there so far.  Each
 * takes the thread's lock so no words are written twice or reused early;
 * the owner only meets it held during a flush, and a signal handler cannot
 * come back here while the owner holds it (the recorder is busy then).
 */
static void spill(struct tstate *t)
{
	struct chunk *c = t->cur;
	uint64_t stop = rt_stop_time();
	uint32_t count, end;

	lock_raw(t);
	/* Past the exit instant (the process is exiting): only what came before it. */
	count = atomic_load(&c->count);
	c->consumed = session_events(c, c->consumed, count);
	end = stop ? rt_events_until(c, c->consumed, count, stop) : count;
	t->lost += rt_raw_events(t->tid, &c->w[c->consumed], end - c->consumed);
	c->consumed = 0;
	atomic_store_explicit(&c->count, 0, memory_order_release);
	unlock_raw(t);
}

/*
 * After the exit instant, what the thread recorded later is dropped, never
 * written.  The exiting thread's own lock is held only when the signal
 * whose handler called exit() interrupted its spill: waiting would never
 * end, and that chunk is left to the write it was in.
 */
void rt_raw_drain(struct tstate *t)
{
	uint64_t stop = rt_stop_time();
	struct chunk *c;
	uint32_t count, end;

	if (t == self) {
		if (atomic_flag_test_and_set_explicit(&t->raw_lock, memory_order_acquire))
			return;
	} else {
		lock_raw(t);
	}
	c = t->cur;
	if (c) {
		count = atomic_load_explicit(&c->count, memory_order_acquire);
		c->consumed = session_events(c, c->consumed, count);
		end = stop ? rt_events_until(c, c->consumed, count, stop) : count;
		t->lost += rt_raw_events(t->tid, &c->w[c->consumed], end - c->consumed);
		c->consumed = count;
	}
	unlock_raw(t);
}

/*
 * objpatch attach, at a session's end (under runtime.lock, after the final
 * flush): the chunk of each thread that has exited goes, so that a
 * process attached to again and again, its threads coming and going,
 * does not keep 512 KiB for each one for good.  Its state (a few KiB)
 * stays: the list of threads is only ever pushed to.
 */
void rt_record_release_dead(void)
{
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		struct chunk *c;

		if (!atomic_load(&t->dead) || !t->cur)
			continue;
		lock_raw(t);
		c = t->cur;
		t->cur = NULL;
		atomic_store(&t->head, NULL);
		unlock_raw(t);
		rt_free_chunk(c);
	}
}

/*
 * reserve()'s slow path: the chunk is full (or there is none).  Out of
 * line, so that the per-event path keeps no registers for it (it was a
 * call with its own prologue per event: 26 instructions, by callgrind).
 */
static __attribute__((noinline)) uint64_t *reserve_more(struct tstate *t)
{
	struct chunk *c = t->cur;

	if (!c)
		return NULL;	/* a forked child that found no chunk of its own */
	if (runtime.format == FMT_RAW) {
		/* Raw recording: write the chunk out and fill it again, from the start. */
		spill(t);
		return &c->w[0];
	}
	/* Past the exit instant nothing more is written: no more memory for it. */
	struct chunk *fresh = atomic_load_explicit(&rt_stopped, memory_order_relaxed) ? NULL : new_chunk(chunk_bytes);

	if (!fresh)
		return NULL;
	atomic_store_explicit(&c->next, fresh, memory_order_release);
	t->cur = fresh;
	return &fresh->w[0];
}

/* Room for n words in the current chunk, or NULL when the buffers are full. */
static inline __attribute__((always_inline)) uint64_t *reserve(struct tstate *t, size_t n)
{
	struct chunk *c = t->cur;

	if (__builtin_expect(c != NULL, 1)) {
		uint32_t used = atomic_load_explicit(&c->count, memory_order_relaxed);

		if (__builtin_expect(used + n <= c->cap, 1))
			return &c->w[used];
	}
	return reserve_more(t);
}

/* Publishes the n words reserve() gave at w (the current chunk's): the writer reads up to the count. */
static inline __attribute__((always_inline)) void commit(struct tstate *t, const uint64_t *w, size_t n)
{
	struct chunk *c = t->cur;

	atomic_store_explicit(&c->count, (uint32_t)(w - c->w) + (uint32_t)n, memory_order_release);
}

/* An event that found no room; past the exit instant it is no loss: nothing is written then. */
static void lose(struct tstate *t)
{
	if (!atomic_load_explicit(&rt_stopped, memory_order_relaxed))
		t->lost++;
}

static void emit_unwound(struct tstate *t, uint32_t depth, uint64_t ts)
{
	uint64_t *w = reserve(t, EV_HEADER_WORDS);

	if (!w) {
		lose(t);
		return;
	}
	w[0] = ts;
	w[1] = EV_HEADER(EV_UNWOUND, depth, 0, EV_HEADER_WORDS);
	commit(t, w, EV_HEADER_WORDS);
}

static inline __attribute__((always_inline)) bool emit_entry(struct tstate *t, uintptr_t ra, uint32_t depth, uint64_t ts)
{
	uint64_t *w = reserve(t, EV_ENTRY_WORDS);

	if (!w) {
		lose(t);
		return false;
	}
	w[0] = ts;
	w[1] = EV_ENTRY_WORD(ra, depth);
	commit(t, w, EV_ENTRY_WORDS);
	return true;
}

/* A piece's value from where the entry trampoline or the caller left it (struct rt_arg_src). */
static inline uint64_t load_piece(const uint8_t *const base[2], const struct rt_arg_src *s, unsigned unknown)
{
	uint64_t v;

	/* What this call's hook could not see is not read: it prints "?". */
	if (__builtin_expect(unknown & (s->from_slot ? ARGS_NO_STACK : ARGS_NO_REGS), 0))
		return 0;
	memcpy(&v, base[s->from_slot] + s->off, sizeof(v));
	return v >> s->shift & s->mask;
}

/*
 * The entry and its arguments, where its site's places say (the registers
 * from the trampoline's save area, the stack from the caller's argument
 * area), reserved and committed as one: the writer never sees an entry
 * without the arguments that follow it.
 */
static inline __attribute__((always_inline)) bool emit_entry_args(struct tstate *t, uintptr_t ra, uint32_t depth,
								   uint64_t ts, const uint8_t *stack,
								   const uint8_t *regs, unsigned unknown)
{
	const struct rt_arg_spec *spec = rt_args_spec(ra);
	size_t n = spec ? spec->nwords : 0;
	uint64_t *w = reserve(t, EV_ENTRY_WORDS + EV_HEADER_WORDS + n);
	const uint8_t *base[2] = { regs, stack };

	if (!w) {
		lose(t);
		return false;
	}
	w[0] = ts;
	w[1] = EV_ENTRY_WORD(ra, depth);
	w[2] = ts;
	w[3] = EV_HEADER(EV_ARGS, depth, spec ? spec->flags | unknown : ARGS_UNPLACED, EV_HEADER_WORDS + n);
	for (size_t i = 0; i < n; i++)
		w[4 + i] = load_piece(base, &spec->word[i].lo, unknown) | load_piece(base, &spec->word[i].hi, unknown) << 32;
	commit(t, w, EV_ENTRY_WORDS + EV_HEADER_WORDS + n);
	return true;
}

/* Frames whose slots lie at or below `limit` were left without returning. */
static void drop_dead_frames(struct tstate *t, uintptr_t limit, uint64_t ts)
{
	while (t->depth && (uintptr_t)t->frames[t->depth - 1].slot <= limit) {
		if (recorded_frame(t, t->depth - 1))
			emit_unwound(t, t->depth - 1 - t->base, ts);
		frames_left(t, t->depth - 1);
	}
}

static uintptr_t return_trampoline(unsigned capture)
{
	return capture == CAPTURE_WIDE_FP ? (uintptr_t)rt_return_wide : (uintptr_t)rt_return_regs;
}

static bool is_return_trampoline(uintptr_t a)
{
	return a == (uintptr_t)rt_return_regs || a == (uintptr_t)rt_return_wide;
}

/*
 * Inlined into each entry point, so that those without arguments (regs
 * NULL) have none of their code: --args off costs nothing per call.
 */
static inline __attribute__((always_inline)) void enter(uintptr_t ra, uintptr_t *slot, unsigned capture,
							 uintptr_t dead, const uint8_t *regs, const uint8_t *stack,
							 unsigned unknown)
{
	struct tstate *t;
	struct frame *f;
	uint64_t ts;
	bool tail;

	/* objpatch attach between sessions: a site being disabled still calls here. */
	if (__builtin_expect(atomic_load_explicit(&rt_dormant, memory_order_relaxed), 0))
		return;
	t = thread_state();
	if (!t)
		return;
	if (t->busy) {
		t->missed_busy++;
		return;
	}
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	sync_session(t);
	ts = rt_timestamp();
	if (dead < (uintptr_t)slot)
		dead = (uintptr_t)slot;
	/*
	 * A return address that is our trampoline already: a tail call, the
	 * top frame's function jumped here and left its hooked return address
	 * for this one.  Its frame is not dead, whatever the slots say (gcc's
	 * AArch64 frames keep the slot at their bottom, so a smaller frame's
	 * lies higher): nothing is dropped, and the new frame is pushed as
	 * that frame's tail, returning first (rt_exit).
	 */
	tail = is_return_trampoline(*slot);
	if (!tail && t->depth && (uintptr_t)t->frames[t->depth - 1].slot <= dead)
		drop_dead_frames(t, dead, ts);
	if (t->depth >= runtime.depth) {
		t->missed_depth++;
		goto out;
	}
	if (tail && !t->depth)
		goto out;	/* no frame it could belong to: left as it is */
	if (!(regs && runtime.args ? emit_entry_args(t, ra, t->depth - t->base, ts, stack, regs, unknown) :
		     emit_entry(t, ra, t->depth - t->base, ts)))
		goto out;
	f = &t->frames[t->depth];
	f->ret = *slot;
	f->tail = tail;
	f->slot = slot;
	f->ra = ra;
	f->flags = capture & ~RT_ENTER_SLOT_COPY;
	f->slot_copy = capture & RT_ENTER_SLOT_COPY;
	f->mem = 0;
	t->depth++;
	atomic_signal_fence(memory_order_seq_cst);
	*slot = return_trampoline(f->flags);
out:
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

void rt_enter_dead(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t dead)
{
	enter(ra, slot, capture, dead, NULL, NULL, 0);
}

void rt_enter(uintptr_t ra, uintptr_t *slot, unsigned capture)
{
	enter(ra, slot, capture, (uintptr_t)slot, NULL, NULL, 0);
}

void rt_enter_args(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs)
{
	enter(ra, slot, capture, (uintptr_t)slot, regs, (const uint8_t *)slot, 0);
}

void rt_enter_args_at(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs, const uint8_t *stack,
		      unsigned unknown)
{
	enter(ra, slot, capture, (uintptr_t)slot, regs, stack, unknown);
}

void rt_enter_args_dead(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t dead, const uint8_t *regs)
{
	enter(ra, slot, capture, dead, regs, (const uint8_t *)slot, 0);
}

#if defined(__x86_64__)
/*
 * x86_64's entry trampoline calls this first, having saved only the
 * general registers, and saves xmm0-7 (16 of its 42 instructions, by
 * callgrind) and calls rt_enter only when it returns false.  So it must
 * not touch a vector register: it is compiled for the general registers
 * only, and inlines nothing of the rest of this file (which may use
 * them).  It records the common entry whole or does nothing: the first
 * call of a thread, a new session, frames left dead (longjmp), a tail
 * call, a full shadow stack or chunk, a clock other than the TSC and a
 * busy recorder are all rt_enter's.  What it checks and writes is
 * enter()'s, in the same order; busy is set before anything is read,
 * since a signal handler's traced calls may move the thread to a new
 * chunk or leave frames behind.
 */
#pragma GCC push_options
#pragma GCC target("general-regs-only")
static bool quick_refused(struct tstate *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	return false;
}

bool rt_enter_quick(uintptr_t ra, uintptr_t *slot, unsigned capture)
{
	struct tstate *t = self;
	struct chunk *c;
	struct frame *f;
	uintptr_t ret = *slot;
	uint32_t depth, used;

	if (!t || t->busy || !rt_tsc || atomic_load_explicit(&rt_dormant, memory_order_relaxed))
		return false;
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	depth = t->depth;
	c = t->cur;
	if (t->session != atomic_load_explicit(&rt_session, memory_order_relaxed) || depth >= runtime.depth ||
	    (depth && (uintptr_t)t->frames[depth - 1].slot <= (uintptr_t)slot) || !c ||
	    ret == (uintptr_t)rt_return_regs || ret == (uintptr_t)rt_return_wide || (capture & RT_ENTER_SLOT_COPY))
		return quick_refused(t);
	used = atomic_load_explicit(&c->count, memory_order_relaxed);
	if (used + EV_ENTRY_WORDS > c->cap)
		return quick_refused(t);
	c->w[used] = __builtin_ia32_rdtsc();
	c->w[used + 1] = EV_ENTRY_WORD(ra, depth - t->base);
	atomic_store_explicit(&c->count, used + EV_ENTRY_WORDS, memory_order_release);
	f = &t->frames[depth];
	f->ret = ret;
	f->tail = false;
	f->slot = slot;
	f->ra = ra;
	f->flags = capture;
	f->slot_copy = false;
	f->mem = 0;
	t->depth = depth + 1;
	atomic_signal_fence(memory_order_seq_cst);
	*slot = capture == CAPTURE_WIDE_FP ? (uintptr_t)rt_return_wide : (uintptr_t)rt_return_regs;
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	return true;
}
#pragma GCC pop_options
#endif

/*
 * The frame rt_enter just pushed, if it did (a signal handler's calls in
 * between are gone again by now), learns where its value will be.
 */
static void note_mem(uintptr_t *slot, uintptr_t mem)
{
	struct tstate *t = self;

	if (t && t->depth && t->frames[t->depth - 1].slot == slot && is_return_trampoline(*slot))
		t->frames[t->depth - 1].mem = mem;
}

void rt_enter_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, uintptr_t mem)
{
	rt_enter(ra, slot, capture);
	note_mem(slot, mem);
}

void rt_enter_args_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs, uintptr_t mem)
{
	rt_enter_args(ra, slot, capture, regs);
	note_mem(slot, mem);
}

void rt_enter_args_at_mem(uintptr_t ra, uintptr_t *slot, unsigned capture, const uint8_t *regs,
			  const uint8_t *stack, unsigned unknown, uintptr_t mem)
{
	rt_enter_args_at(ra, slot, capture, regs, stack, unknown);
	note_mem(slot, mem);
}

/*
 * process_vm_readv() of our own memory, which fails instead of faulting.
 * qemu-user does not implement it (ENOSYS): then /proc/self/mem, which
 * qemu leaves to the host kernel and which holds the guest's addresses
 * one to one when qemu's guest base is 0 (checked once per process).
 * The traced program's errno is kept.
 */
static _Atomic int mem_fd = -2;		/* -2: not opened yet, -1: unusable */

static int procmem_fd(void)
{
	static const uint64_t probe = 0x68637461706a626f;	/* "objpatch" */
	uint64_t v = 0;
	int fd = atomic_load(&mem_fd), none = -2;

	if (fd != -2)
		return fd;
	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (pread(fd, &v, sizeof(v), (off_t)(uintptr_t)&probe) != sizeof(v) || v != probe)) {
		close(fd);
		fd = -1;
	}
	if (!atomic_compare_exchange_strong(&mem_fd, &none, fd)) {
		if (fd >= 0)
			close(fd);
		fd = none;
	}
	return fd;
}

/*
 * qemu-user with a guest base (32-bit guests on a 64-bit host), where
 * /proc/self/mem holds the host's addresses: write() checks the guest's
 * range and fails with EFAULT instead of faulting.  n is at most a page,
 * which a pipe's buffer takes whole.
 */
static ssize_t read_through_pipe(void *dst, uintptr_t addr, size_t n)
{
	int p[2];
	ssize_t r;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	r = write(p[1], (const void *)addr, n);
	if (r > 0)
		r = read(p[0], dst, (size_t)r);
	close(p[0]);
	close(p[1]);
	return r;
}

/*
 * The process's own pid, for process_vm_readv: getpid() is a system call
 * of its own, and a string return paid two (on Lua, 672 k string returns
 * of 11 M calls, the largest part of the cost of its trace in perf).
 * Forgotten in a forked child (rt_record_fork_child).
 */
static _Atomic pid_t own_pid;

static ssize_t read_memory(void *dst, uintptr_t addr, size_t n)
{
	struct iovec local = { dst, n }, remote = { (void *)addr, n };
	int saved = errno, fd;
	pid_t pid = atomic_load_explicit(&own_pid, memory_order_relaxed);
	ssize_t r;

	if (!pid)
		atomic_store_explicit(&own_pid, pid = getpid(), memory_order_relaxed);
	r = syscall(SYS_process_vm_readv, pid, &local, 1UL, &remote, 1UL, 0UL);

	if (r < 0 && errno == ENOSYS && (fd = procmem_fd()) >= 0)
		r = pread(fd, dst, n, (off_t)addr);
	else if (r < 0 && errno == ENOSYS)
		r = read_through_pipe(dst, addr, n);
	errno = saved;
	return r;
}

size_t rt_read_own(void *ctx, uint64_t addr, void *buf, size_t n)
{
	size_t got = 0;

	(void)ctx;
	while (got < n) {
		/* One page per read: a short one means the rest is unreadable. */
		size_t k = 4096 - ((addr + got) & 4095);
		ssize_t r;

		if (k > n - got)
			k = n - got;
		r = read_memory((uint8_t *)buf + got, (uintptr_t)(addr + got), k);
		if (r <= 0)
			break;
		got += (size_t)r;
		if ((size_t)r < k)
			break;
	}
	return got;
}

/*
 * Where the stack that the returning frame's caller runs on is surely
 * mapped, from sp up: the rest of sp's page, or up to the traced caller's
 * own return slot when that lies on the same stack (within 1 MiB; a
 * signal handler on another stack is farther away).  A struct returned in
 * memory is most often in that range, the caller's frame.
 */
static uintptr_t live_stack_end(const struct tstate *t, const struct frame *f, uintptr_t sp)
{
	uintptr_t hi = (sp | 4095) + 1, caller = f > t->frames ? (uintptr_t)f[-1].slot : 0;

	if (caller > sp && caller - sp < (1u << 20) && caller + sizeof(uintptr_t) > hi)
		hi = caller + sizeof(uintptr_t);
	return hi;
}

/*
 * Copies the string a char * function returned, up to the formatter's limit
 * and one byte more, without faulting.  What lies in the live stack
 * [sp, live_hi) (see live_stack_end: mapped, the frames the caller runs
 * in) is copied directly: a buffer of the caller's, on Lua about one string
 * in five.  Anything else, and the rest of a string that leaves that
 * range, goes by read_memory(), a system call, which stops at the first
 * unreadable byte instead of faulting: a pointer into the heap or a mapping
 * may be freed and unmapped by another thread at any moment, so no check
 * made before a direct read would make it safe.
 */
static size_t capture_string(uintptr_t addr, uint64_t *w, uintptr_t sp, uintptr_t live_hi)
{
	uint8_t *dst = (uint8_t *)w + 1;
	size_t want = runtime.strlen_max + 1, got = 0;

	if (want > STRING_WORDS * 8 - 1)
		want = STRING_WORDS * 8 - 1;
	if (addr >= sp && addr < live_hi) {
		got = live_hi - addr < want ? live_hi - addr : want;
		memcpy(dst, (const void *)addr, got);
		if (memchr(dst, 0, got))
			want = got;
	}
	while (addr && got < want) {
		/* Stay inside one page per read: a short read then means unreadable. */
		size_t n = 4096 - ((addr + got) & 4095);
		ssize_t r;

		if (n > want - got)
			n = want - got;
		r = read_memory(dst + got, addr + got, n);
		if (r <= 0)
			break;
		if (memchr(dst + got, 0, (size_t)r)) {
			got += (size_t)r;
			break;
		}
		got += (size_t)r;
	}
	((uint8_t *)w)[0] = (uint8_t)got;
	return (got + 1 + 7) / 8;
}

/*
 * Copies a struct returned in memory, as many bytes as its type has (the
 * site's rt_arg_spec, made when it was enabled): a length byte, then the
 * bytes.  Inside the live stack [sp, live_hi) it is read directly; elsewhere
 * without faulting (a system call), should the address be wrong.
 */
static size_t capture_memory(const struct tstate *t, const struct frame *f, uintptr_t addr, uint64_t *w,
			     uintptr_t sp)
{
	const struct rt_arg_spec *spec = rt_args_spec(f->ra);
	size_t want = spec ? spec->ret_bytes : 0;
	uintptr_t live_hi = live_stack_end(t, f, sp);
	ssize_t got = 0;

	if (want && addr >= sp && addr < live_hi && want <= live_hi - addr) {
		memcpy((uint8_t *)w + 1, (const void *)addr, want);
		got = (ssize_t)want;
	} else if (want && addr) {
		got = read_memory((uint8_t *)w + 1, addr, want);
	}
	if (got < 0)
		got = 0;
	((uint8_t *)w)[0] = (uint8_t)got;
	return ((size_t)got + 1 + 7) / 8;
}

static __attribute__((noinline)) void emit_exit_captured(struct tstate *t, const struct frame *f, uint32_t depth,
							 uint64_t ts, const struct ret_regs *regs, uintptr_t sp)
{
	uint64_t *w = reserve(t, EV_MAX_WORDS);
	size_t n;

	if (!w) {
		lose(t);
		return;
	}
	w[0] = ts;
	n = exit_words_from_regs(regs, (enum capture)f->flags, rt_arch_host.desc->values.wide_in_fpr0,
				 w + EV_HEADER_WORDS);
	if (f->flags == CAPTURE_STRING)
		n += capture_string((uintptr_t)regs->gpr[0], w + EV_HEADER_WORDS + n, sp, live_stack_end(t, f, sp));
	else if (f->flags == CAPTURE_MEMORY)
		n += capture_memory(t, f, (uintptr_t)regs->gpr[0], w + EV_HEADER_WORDS + n, sp);
	w[1] = EV_HEADER(EV_EXIT, depth, f->flags, EV_HEADER_WORDS + n);
	commit(t, w, EV_HEADER_WORDS + n);
}

/*
 * An exit: an integer or pointer value (most returns) or none, written
 * here, inline, as exit_words_from_regs() would (one word, gpr[0], or
 * none); every other capture out of line.
 */
static inline __attribute__((always_inline)) void emit_exit(struct tstate *t, const struct frame *f, uint32_t depth,
							     uint64_t ts, const struct ret_regs *regs, uintptr_t sp)
{
	uint32_t n = f->flags == CAPTURE_GPR;
	uint64_t *w;

	if (__builtin_expect(f->flags != CAPTURE_GPR && f->flags != CAPTURE_NONE, 0)) {
		emit_exit_captured(t, f, depth, ts, regs, sp);
		return;
	}
	w = reserve(t, EV_HEADER_WORDS + 1);
	if (!w) {
		lose(t);
		return;
	}
	w[0] = ts;
	w[1] = EV_HEADER(EV_EXIT, depth, f->flags, EV_HEADER_WORDS + n);
	w[2] = regs->gpr[0];	/* past the event when n is 0: reserved, not committed */
	commit(t, w, EV_HEADER_WORDS + n);
}

/*
 * A value returned in memory (rt_enter_mem): its first 16 bytes stand for
 * the registers, read without faulting (a smaller value's buffer may end
 * sooner); the trampoline's saved registers stay as they were.
 */
static const struct ret_regs *memory_value(const struct ret_regs *regs, uintptr_t mem, struct ret_regs *copy)
{
	*copy = *regs;
	if (read_memory(copy->gpr, mem, sizeof(copy->gpr)) != (ssize_t)sizeof(copy->gpr) &&
	    read_memory(copy->gpr, mem, 8) != 8)
		return regs;
	memcpy(copy->wide, copy->gpr, sizeof(copy->wide));
	return copy;
}

static void __attribute__((noreturn)) lost_return(uintptr_t sp)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg),
			 "objpatch: no traced frame returns to stack 0x%lx: the shadow stack is corrupt\n",
			 (unsigned long)sp);

	if (write(2, msg, (size_t)n) < 0)
		n = 0;
	abort();
}

uintptr_t rt_exit(struct ret_regs *regs, uintptr_t sp)
{
	struct tstate *t = self;
	uint64_t ts = rt_timestamp();
	uintptr_t ret;
	uint32_t f;

	if (!t || !t->depth || (uintptr_t)t->frames[t->depth - 1].slot >= sp)
		lost_return(sp);
	/*
	 * The returning frame is the outermost one whose slot lies below sp,
	 * or the last of the tail calls it made: each of those returns to the
	 * trampoline again (its `ret`), one pass per frame, so every function
	 * of the chain gets its exit, all with the value the last one returned.
	 */
	f = t->depth - 1;
	while (f > 0 && (uintptr_t)t->frames[f - 1].slot < sp)
		f--;
	while (f + 1 < t->depth && t->frames[f + 1].tail)
		f++;
	t->busy++;
	atomic_signal_fence(memory_order_seq_cst);
	sync_session(t);
	while (t->depth - 1 > f) {
		if (recorded_frame(t, t->depth - 1))
			emit_unwound(t, t->depth - 1 - t->base, ts);
		frames_left(t, t->depth - 1);
	}
	if (!recorded_frame(t, f)) {
		/* Entered before this session, or none runs: it returns unrecorded. */
	} else if (t->frames[f].mem && t->frames[f].flags == CAPTURE_MEMORY) {
		/* Its address from the entry (ppc32, ppc64 ELFv1): no register holds it at the return. */
		struct ret_regs copy = *regs;

		copy.gpr[0] = t->frames[f].mem;
		emit_exit(t, &t->frames[f], f - t->base, ts, &copy, sp);
	} else if (t->frames[f].mem) {
		struct ret_regs copy;

		emit_exit(t, &t->frames[f], f - t->base, ts, memory_value(regs, t->frames[f].mem, &copy), sp);
	} else {
		emit_exit(t, &t->frames[f], f - t->base, ts, regs, sp);
	}
	/*
	 * Read before the frame is given up: from `busy--` on, a signal
	 * handler's traced calls push their frames at index f, and a return
	 * address read after that is the handler's (found by t/91-stress.t:
	 * the thread returned into __restore_rt with the wrong stack).
	 */
	ret = t->frames[f].ret;
	frames_left(t, f);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy--;
	return ret;
}

/* ---- C++ exceptions and other stack walkers (rt_unwind.c) ---- */

struct tstate *rt_current(void)
{
	return self;
}

const struct frame *rt_frames(uint32_t *depth)
{
	*depth = self ? self->depth : 0;
	return self ? self->frames : NULL;
}


/* Where frame i really returns: a tail call's `ret` is the trampoline, its caller's is real. */
static uintptr_t real_return(const struct tstate *t, uint32_t i)
{
	while (i > 0 && t->frames[i].tail)
		i--;
	return t->frames[i].ret;
}

/* The caller's frame record, NULL where the chain ends or goes the wrong way. */
static const uintptr_t *next_record(const uintptr_t *rec)
{
	return rec[0] > (uintptr_t)rec ? (const uintptr_t *)rec[0] : NULL;
}

/*
 * A frame whose slot is the trampoline's copy (AArch64 pads): the function
 * got the return trampoline in a register, and its prologue saved it in
 * its frame record, somewhere below its entry stack pointer (slot +
 * slot_copy_above); that word is what an unwinder reads.  The records are
 * found by walking the frame-pointer chain (AArch64: {caller's x29, x30}
 * at x29), not by scanning the stack, where dead frames leave stale
 * trampoline addresses: one taken for the slot would make a later return
 * look like this frame's.  The record found becomes the frame's slot.  Not
 * found (no frame pointer, or a pac-ret function that signed it first):
 * the slot stays, the unwinder meets the trampoline and the program
 * terminates as it would untraced without unwind tables.
 */
static void find_saved_copies(struct tstate *t)
{
	const uintptr_t *rec = __builtin_frame_address(0);
	uintptr_t lo = (uintptr_t)rec;

	for (uint32_t i = t->depth; i-- > 0; lo = (uintptr_t)t->frames[i].slot) {
		struct frame *f = &t->frames[i];
		uintptr_t top = (uintptr_t)f->slot + rt_arch_host.slot_copy_above;

		if (!f->slot_copy)
			continue;
		/* Records go up the stack: one walk serves every frame. */
		for (; rec && (uintptr_t)rec < top; rec = next_record(rec)) {
			if ((uintptr_t)rec > lo && is_return_trampoline(rec[1])) {
				f->slot = (uintptr_t *)&rec[1];
				f->slot_copy = false;
				break;
			}
		}
	}
}

/* Puts the real return addresses back, for an unwinder about to walk the stack. */
/*
 * SPARC: a slot is a window's %i7 in its save area, valid in memory only
 * while the window is spilled.  flushw spills every window but ours
 * first, so that what is written here is what each window is filled with
 * again (an unwinder that spilled live windows later would write their
 * old %i7 over ours).
 */
static inline void spill_windows(void)
{
#if defined(__sparc__) && defined(__arch64__)
	__asm__ volatile("flushw" : : : "memory");
#endif
}

/*
 * The same where there is no frame-record chain (copy_scan): each copy
 * lies within copy_scan bytes below the function's entry sp, where its
 * prologue saved registers before anything of its own.
 */
static void scan_saved_copies(struct tstate *t)
{
	for (uint32_t i = 0; i < t->depth; i++) {
		struct frame *f = &t->frames[i];
		uintptr_t top = (uintptr_t)f->slot + rt_arch_host.slot_copy_above;

		if (!f->slot_copy)
			continue;
		for (uintptr_t *w = (uintptr_t *)top - 1; (uintptr_t)w + rt_arch_host.copy_scan >= top; w--) {
			if (w != f->slot && is_return_trampoline(*w)) {
				f->slot = w;
				f->slot_copy = false;
				break;
			}
		}
	}
}

void rt_restore_slots(struct tstate *t)
{
	spill_windows();
	if (rt_arch_host.copy_scan)
		scan_saved_copies(t);
	else if (rt_arch_host.slot_copy_above)
		find_saved_copies(t);
	for (uint32_t i = 0; i < t->depth; i++)
		if (is_return_trampoline(*t->frames[i].slot))
			*t->frames[i].slot = real_return(t, i);
}

/* Frames above `sp` survived (a catch, a finished walk): hook them again; the rest are gone. */
void rt_rehook_slots(struct tstate *t, uintptr_t sp)
{
	uint64_t ts = rt_timestamp();

	t->busy++;
	spill_windows();
	drop_dead_frames(t, sp, ts);
	for (uint32_t i = 0; i < t->depth; i++)
		if (*t->frames[i].slot == real_return(t, i))
			*t->frames[i].slot = return_trampoline(t->frames[i].flags);
	t->busy--;
}

/* ---- fork ---- */

/*
 * The child keeps its own thread's frames (it returns through them) but
 * none of the events: those belong to the parent, which writes them.
 * Other threads do not exist in the child.
 */
void rt_record_fork_child(void)
{
	struct tstate *t = self;
	int fd = atomic_exchange(&mem_fd, -2);

	/* It reads the parent's memory. */
	if (fd >= 0)
		close(fd);
	atomic_store(&own_pid, 0);
	/* A child forked while its parent exits runs on: its trace has no end yet. */
	atomic_store(&rt_stopped, false);
	/*
	 * The parent's slot of shared memory stays the parent's, untouched:
	 * the child fills one of its own.
	 */
	if (t && t->cur && t->cur->shared) {
		t->cur = raw_chunk();
		atomic_store(&t->head, t->cur);
	}
	/*
	 * The parent's events go, and with them their share of the buffer
	 * budget: a child forked when the parent's buffers were full would
	 * otherwise trace nothing (found by t/91-stress.t).
	 */
	for (struct tstate *o = atomic_load(&rt_threads); o; o = o->next) {
		struct chunk *keep = o == t ? o->cur : NULL, *c = atomic_load(&o->head), *next;

		for (; c && c != keep; c = next) {
			next = atomic_load(&c->next);
			rt_free_chunk(c);
		}
		if (keep)
			keep->consumed = atomic_load(&keep->count);
		atomic_store(&o->head, keep);
		o->out = NULL;
		if (o != t) {
			o->cur = NULL;
			atomic_store(&o->dead, true);
		}
	}
	if (!t)
		return;
	t->tid = (pid_t)syscall(SYS_gettid);
	/* A child of a process objpatch attached to records nothing (rt_attach_fork_child). */
	if (atomic_load(&rt_dormant))
		return;
	/* The parent recorded these entries; the child's trace opens them at the fork. */
	uint64_t now = rt_timestamp();

	for (uint32_t i = 0; i < t->depth; i++)
		emit_entry(t, t->frames[i].ra, i, now);
}
