/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a trace adds up to: per function, its calls and times (objpatch
 * report --summary, as uftrace report), and the call tree below chosen
 * functions with every activation merged (--graph, as uftrace graph).
 * Fed one thread's events at a time (trace/writer.h's struct
 * trace_events, filtered or not), as often as they grow, so that a
 * recording and a live run give it the same way.  Times are whole
 * nanoseconds per call, rounded as the text trace prints them.
 */
#ifndef TRACE_SUMMARY_H
#define TRACE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace/writer.h"

enum trace_sort { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_AVG, SORT_MIN, SORT_MAX, SORT_NAME, SORTS };

/* "total"... as --sort names them; NULL: not a key (then trace_sort_keys lists them). */
const enum trace_sort *trace_sort_by_name(const char *name);
extern const char trace_sort_keys[];

struct trace_stats;
struct trace_stats_thread;

/*
 * `graph`: the globs whose functions' call trees are wanted (NULL, 0: the
 * summary only).  `depth` is the recording's shadow-stack depth.  NULL:
 * out of memory.  The globs must outlive the stats.
 */
struct trace_stats *trace_stats_new(unsigned depth, double ns_per_tick, trace_symbolizer symbolize,
				    void *symbolize_ctx, const char **graph, size_t ngraph);
void trace_stats_free(struct trace_stats *s);
/* A thread's open frames, freed with the stats.  NULL: out of memory. */
struct trace_stats_thread *trace_stats_thread(struct trace_stats *s);
/* Every event the thread has now.  -1: out of memory (what was read counts). */
int trace_stats_read(struct trace_stats *s, struct trace_stats_thread *t, const struct trace_events *src);
/* The thread's frames still open close at `now`. */
int trace_stats_end(struct trace_stats *s, struct trace_stats_thread *t, uint64_t now);

/* How many graph roots were called. */
size_t trace_stats_graph_roots(const struct trace_stats *s);

/* The summary, text with a header line or one JSON document.  -1: a write failed. */
int trace_summary_write(struct trace_stats *s, int fd, enum trace_sort by, bool json);
/* The call trees, indented as uftrace graph's.  -1: a write failed. */
int trace_graph_write(const struct trace_stats *s, int fd);

#endif
