/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The analyses' options (--summary, --graph, --sort and the filters) and
 * what they write, for any subcommand that has a trace's threads:
 * objpatch report from a recording; objpatch run once it formats in its
 * own process.  A command puts ANALYSIS_OPTIONS in its option table,
 * hands the ids it does not know to analyses_option(), calls
 * analyses_check() after parsing, and analyses_write() with its threads.
 */
#ifndef OBJPATCH_ENGINE_ANALYSES_H
#define OBJPATCH_ENGINE_ANALYSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "objpatch/engine/opts.h"
#include "trace/filter.h"
#include "trace/summary.h"
#include "trace/writer.h"

struct analyses {
	bool summary;
	enum trace_sort sort;
	const char *sort_name;		/* NULL: not given */
	const char **graph;
	size_t ngraph;
	struct trace_filter_opts fo;
	const char *min_duration;	/* as given, for messages */
	const char *cmd;		/* "objpatch report": how messages begin */
};

enum {
	ANALYSIS_SUMMARY = 100, ANALYSIS_SORT, ANALYSIS_GRAPH, ANALYSIS_TID, ANALYSIS_FILTER, ANALYSIS_EXCLUDE,
	ANALYSIS_BELOW, ANALYSIS_CALLERS, ANALYSIS_MIN_DURATION, ANALYSIS_MAX_DEPTH,
};

/*
 * The options' table entries that choose what is shown: those of run and
 * attach, whose -F, -N and -D are the runtime's filter and depth.
 */
#define ANALYSIS_VIEW_OPTIONS \
	{ "summary", 0, NULL, ANALYSIS_SUMMARY }, \
	{ "sort", 0, "total|self|calls|avg|min|max|name", ANALYSIS_SORT }, \
	{ "graph", 0, "FUNCTION", ANALYSIS_GRAPH }, \
	{ "tid", 0, "TID", ANALYSIS_TID }, \
	{ "below", 0, "FUNCTION", ANALYSIS_BELOW }, \
	{ "callers", 0, "FUNCTION", ANALYSIS_CALLERS }, \
	{ "min-duration", 0, "TIME", ANALYSIS_MIN_DURATION }

/* report's: all of them (uftrace's letters: -F, -N, -D). */
#define ANALYSIS_OPTIONS \
	ANALYSIS_VIEW_OPTIONS, \
	{ "filter", 'F', "GLOB", ANALYSIS_FILTER }, \
	{ "exclude", 'N', "GLOB", ANALYSIS_EXCLUDE }, \
	{ "max-depth", 'D', "N", ANALYSIS_MAX_DEPTH }

/* The usage lines of ANALYSIS_OPTIONS. */
void analyses_usage(FILE *f);
/* 0: taken; -1 after one line naming the option; 1: not an analysis option. */
int analyses_option(struct analyses *a, const struct cli_cmd *c, int id, const char *value);
/* After parsing, with the format asked for: 0, or CLI_ERROR after one line. */
int analyses_check(const struct analyses *a, enum trace_format format, bool format_given);
void analyses_free(struct analyses *a);

/* A thread as the writer reads it. */
struct analysis_thread {
	int tid;
	const char *name;		/* its comm, or "" */
	struct trace_events src;	/* all its events (the trace has ended) */
};

/* What the writer needs, and the trace's end. */
struct analysis_input {
	const char *source;		/* the trace's name in messages: the recording */
	const char *output;		/* the output's name in messages (NULL: standard output) */
	struct trace_settings s;	/* the writer's settings, fd included */
	const struct analysis_thread *threads;	/* newest first: it decides between events of one time */
	size_t nthreads;
	uint64_t ts0, end;		/* the trace's start, and when frames still open close */
	double ns_per_tick;
	const struct trace_counts *counts;
	bool always_header;		/* a file gets a whole trace even when empty */
};

/*
 * The trace, the summary or the graph of the threads, filtered.  0, or -1
 * after one line (a --tid that names no thread, a glob matching no call,
 * out of memory, a failed write).
 */
int analyses_write(const struct analyses *a, const struct analysis_input *in);

#endif
