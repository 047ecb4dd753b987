/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flame graphs: the trace writer's calls aggregated by stack, one frame per
 * (caller's frame, function), with each frame's total and self time, its
 * calls and its most frequent return values, written as one self-contained
 * SVG (no network, no external reference) whose few lines of script zoom
 * into a frame and search frames by regular expression.  The writer feeds
 * it at flush time, never on the recording path.
 */
#ifndef TRACE_SVG_H
#define TRACE_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct svg_graph;

/* Where the SVG's bytes go, in pieces of at most a few KiB. */
typedef void (*svg_sink)(void *ctx, const char *s, size_t n);

/* NULL: out of memory. */
struct svg_graph *svg_new(void);
void svg_free(struct svg_graph *g);

/*
 * The frame of `name` called from frame `parent` (0: a root, called from
 * no traced function), made on first use (then *made is set); 0 when out
 * of memory (its calls are then dropped).  Names are compared as pointers
 * and must outlive the graph.
 */
uint32_t svg_frame(struct svg_graph *g, uint32_t parent, const char *name, bool *made);
/*
 * The file the frame's function is in (NULL: unknown, the default), which
 * picks its colour family; compared as a pointer, it must outlive the graph.
 */
void svg_frame_module(struct svg_graph *g, uint32_t frame, const char *module);

/*
 * One call of `frame` ended: it took `ticks`, of which `callee_ticks` in
 * the functions it called; `value` is what it returned as the text trace
 * shows it ("" for void), or why it has none ("(unfinished)").
 */
void svg_call(struct svg_graph *g, uint32_t frame, uint64_t ticks, uint64_t callee_ticks, const char *value);

/* What the picture says about the whole trace. */
struct svg_head {
	const char *process;	/* the program's name, or NULL */
	int pid;
	const char *note;	/* the writer's note, or NULL */
	double ns_per_tick;
	uint64_t missed_depth, missed_busy, lost;	/* trace/writer.h's trace_counts */
};

/* The whole picture, of the calls seen so far. */
void svg_write(struct svg_graph *g, const struct svg_head *h, svg_sink sink, void *ctx);

#endif
