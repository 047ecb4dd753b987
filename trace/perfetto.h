/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Perfetto's native trace format (a protobuf Trace of TracePackets), for
 * the trace writer's --format perfetto (trace/writer.c): a track per
 * process and per thread, a slice per call with its name interned, the
 * return value as a typed debug annotation.  Its own encoder: the field
 * numbers are those of Perfetto's public .proto files, cited in
 * trace/perfetto.c.  Bytes go to the writer's output through a sink.
 */
#ifndef TRACE_PERFETTO_H
#define TRACE_PERFETTO_H

#include <stddef.h>
#include <stdint.h>
#include "trace/writer.h"

/* Appends `n` bytes to the trace. */
typedef void (*perfetto_sink)(void *ctx, const void *bytes, size_t n);

struct perfetto;
struct perfetto_track;

/* NULL: out of memory.  `s` must outlive it (values are read by its machine and options). */
struct perfetto *perfetto_new(const struct trace_settings *s, perfetto_sink sink, void *ctx);
void perfetto_free(struct perfetto *p);
/*
 * The trace's first packet: it starts the packet sequence (its interning
 * state) and describes the process; then `note` (NULL: none) as an
 * instant event on the process's track.
 */
void perfetto_start(struct perfetto *p, const char *note);
/*
 * Thread `tid`'s track, described the first time it is asked for.
 * `name` (the thread's comm, "" while unknown) is read then and again by
 * perfetto_end_trace(), since threads are often named only at the end:
 * it must live as long as `p`.  NULL: out of memory.
 */
struct perfetto_track *perfetto_thread(struct perfetto *p, int tid, const char *name);
/*
 * A slice named `name` begins at `ns` (from the trace's start) on track
 * `t`; `args` is its entry's EV_ARGS event (NULL: none), shown as one
 * typed debug annotation per parameter of `sig`.
 */
void perfetto_begin(struct perfetto *p, struct perfetto_track *t, uint64_t ns, const char *name,
		    const uint64_t *args, const struct signature *sig);
/*
 * The innermost slice of `t` ends at `ns`: returned, `ev` being its exit
 * event and `sig` its function's signature (NULL: unknown), or closed for
 * `why` ("unwound", "lost", "unfinished") with `ev` NULL.
 */
void perfetto_end(struct perfetto *p, struct perfetto_track *t, uint64_t ns, const uint64_t *ev,
		  const struct signature *sig, const char *why);
/*
 * The trace's end: threads named since they were described are described
 * again, and what was not recorded becomes an instant event on the
 * process's track.
 */
void perfetto_end_trace(struct perfetto *p, const struct trace_counts *c);

#endif
