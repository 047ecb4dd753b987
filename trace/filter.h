/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filters of a thread's events (trace/writer.h's struct trace_events), for
 * any reader of them (the writer's formats, trace/summary.h): a chain of
 * stages, each giving the events its input gives that it keeps, their
 * depths rewritten to the number of kept frames open around them, so that
 * what comes out is a well-formed trace of its own.  Decisions that need
 * what comes later (--callers, --min-duration) hold the undecided frames'
 * entries on a stack as deep as the recording's shadow stack, never more.
 * The chain runs where the writer runs (never on the recording path).
 */
#ifndef TRACE_FILTER_H
#define TRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace/writer.h"

/* What a user asked for; the strings must outlive the filters. */
struct trace_filter_opts {
	/* --filter / --exclude, in order: the last glob a name matches decides */
	const char **globs;
	bool *glob_on;		/* true: --filter, false: --exclude */
	size_t nglobs;
	const char **below;	/* these functions and what they call */
	size_t nbelow;
	const char **callers;	/* these functions and the frames leading to them */
	size_t ncallers;
	uint64_t min_ns;	/* 0: none; else calls that took at least this (and their callers) */
	unsigned max_depth;	/* 0: none; else frames shallower than this */
	const int *tids;	/* the threads shown; none: all */
	size_t ntids;
};

/* Which of the options named a function that some call matched. */
enum trace_filter_kind { TF_MATCH, TF_BELOW, TF_CALLERS, TF_MIN_DURATION, TF_MAX_DEPTH, TF_KINDS };

struct trace_filter_set;
struct trace_filter;

/*
 * The options' shared state (names matched once per address).  `depth`
 * is the recording's shadow-stack depth, `ns_per_tick` its clock rate.
 * NULL: out of memory.
 */
struct trace_filter_set *trace_filter_set_new(const struct trace_filter_opts *o, unsigned depth, double ns_per_tick,
					      trace_symbolizer symbolize, void *symbolize_ctx);
void trace_filter_set_free(struct trace_filter_set *s);
/* Whether the options filter events at all (else give the writer the thread's own events). */
bool trace_filter_active(const struct trace_filter_set *s);
/*
 * Whether --filter / --exclude keep the function `name` (o->nglobs > 0), as
 * the runtime's filter: in order, the last match decides; a first
 * --exclude keeps the rest.
 */
bool trace_filter_keeps(const struct trace_filter_opts *o, const char *name);
/* Whether a thread is shown (--tid). */
bool trace_filter_tid(const struct trace_filter_opts *o, int tid);
/* Whether an option of that kind kept a call, after the filters ran: false names a mistake (a glob matching nothing). */
bool trace_filter_matched(const struct trace_filter_set *s, enum trace_filter_kind k);

/* One thread's chain over `src` (copied).  NULL: out of memory. */
struct trace_filter *trace_filter_new(struct trace_filter_set *s, const struct trace_events *src);
void trace_filter_free(struct trace_filter *f);
/* The filtered events: valid as long as the filter. */
const struct trace_events *trace_filter_events(struct trace_filter *f);
/*
 * The input is whole: once it runs out, frames still undecided are decided
 * as if they closed at `now` (when trace_write_end closes them).
 */
void trace_filter_end(struct trace_filter *f, uint64_t now);

/* ---- the options' values, checked: NULL, or the cause and its fix ---- */

/* "10us", "1.5ms", "2s", "100ns" (a unit is needed) as nanoseconds. */
const char *trace_parse_duration(const char *s, uint64_t *ns);
/* An fnmatch(3) glob as the runtime's --filter reads it. */
const char *trace_glob_error(const char *glob);

#endif
