/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace writer: threads' event words (trace/event.h) as text, JSON,
 * folded stacks, a flame graph (trace/svg.h) or Perfetto's protobuf trace
 * (trace/perfetto.h), the threads merged by time.  The runtime feeds it from its
 * buffers, objpatch report from a recording; each says where a thread's
 * events are and which function a return address is in.
 */
#ifndef TRACE_WRITER_H
#define TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace/machine.h"
#include "trace/symbols.h"

enum trace_format { TRACE_TEXT, TRACE_JSON, TRACE_FOLDED, TRACE_SVG, TRACE_PERFETTO };

/* Where the writer reads one thread's events, which may still be growing. */
struct trace_events {
	/* The thread's next event, whole, or NULL when it has none (yet). */
	const uint64_t *(*peek)(void *ctx);
	/* The event peek() returned, `words` long, is read; it stays readable until the next peek. */
	void (*consume)(void *ctx, size_t words);
	void *ctx;
};

/* The function a hook's return address names, or NULL (then it is shown by address). */
typedef struct sym_func *(*trace_symbolizer)(void *ctx, uint64_t ra);
/* The file a function the symbolizer gave is in, or NULL; it must outlive the writer. */
typedef const char *(*trace_module_namer)(void *ctx, const struct sym_func *f);

struct trace_settings {
	enum trace_format format;
	unsigned depth;		/* frames deeper than this were not recorded */
	bool hex;		/* integers in hex */
	bool errno_names;	/* negative errnos by name (format_opts) */
	size_t strlen_max;	/* characters of a returned string shown */
	int pid;		/* the traced process */
	const char *process_name;	/* JSON's process_name, or NULL; must outlive the writer */
	int fd;			/* where the trace goes */
	const struct trace_machine *machine;	/* the recording's: how to read its values */
	trace_symbolizer symbolize;
	void *symbolize_ctx;	/* also module_of's */
	trace_module_namer module_of;	/* SVG's colour per module; NULL: one colour family */
	/*
	 * Where string arguments' characters are read when they are
	 * formatted (the live writer: the traced process's own memory, as
	 * it is then); NULL: a recording, whose strings show as addresses.
	 */
	read_mem_fn read_args;
	/*
	 * Bytes of output gathered per write (0: the least, 64 KiB): a
	 * report's trace of millions of lines goes to a file in larger
	 * writes, which the file system takes for less CPU per byte; a
	 * traced process keeps the least.
	 */
	size_t out_buffer;
};

/* What the recorder could not record, for the trace's end. */
struct trace_counts {
	uint64_t missed_depth;	/* calls deeper than the shadow stack */
	uint64_t missed_busy;	/* calls of signal handlers inside the recorder */
	uint64_t lost;		/* events that found the buffers full */
};

struct trace_writer;
struct trace_thread;

/* NULL: out of memory.  `s` is copied; its machine must outlive the writer. */
struct trace_writer *trace_writer_new(const struct trace_settings *s);
void trace_writer_free(struct trace_writer *w);
/*
 * Timestamps as time: `ts0` is the trace's start (JSON's 0), `ns_per_tick`
 * the rate.  A later call (a trace written in passes, each with a better
 * rate) keeps `ts0` and sets the rate of the ticks from `from` on, which no
 * event written before may pass: time in the output never runs backwards.
 */
void trace_writer_clock(struct trace_writer *w, uint64_t ts0, double ns_per_tick, uint64_t from);
/* Whether a write to the output failed (a full disk...): the trace is not whole. */
bool trace_writer_failed(const struct trace_writer *w);
/* The writer's state of a thread, freed with the writer; NULL: out of memory. */
struct trace_thread *trace_thread_new(struct trace_writer *w, int tid, const struct trace_events *src);
/* The thread's name (its comm), for JSON's thread_name metadata at the trace's end; copied. */
void trace_thread_name(struct trace_thread *t, const char *name);
/* One line of the writer's user about the whole trace (NULL: none); it makes the trace have a head. */
void trace_writer_note(struct trace_writer *w, const char *note);
/*
 * How many frames the thread still had when the trace ends: frames open
 * deeper than that are closed as "lost" (their exits found the buffers
 * full), the others as "unfinished".  Not called: all "unfinished".
 */
void trace_thread_running(struct trace_thread *t, unsigned depth);

/*
 * Writes the events the threads hold now, merged by time (at equal times,
 * the first of `threads` first), after the header, which comes before the
 * first event or now if `header` (a file always gets a whole trace).
 */
void trace_write(struct trace_writer *w, struct trace_thread *const *threads, size_t n, bool header);
/*
 * The trace's end, if it has begun: frames still open close at `now`
 * ("unfinished"), then what was not recorded (also on standard error).
 */
void trace_write_end(struct trace_writer *w, struct trace_thread *const *threads, size_t n, uint64_t now,
		     const struct trace_counts *c);

#endif
