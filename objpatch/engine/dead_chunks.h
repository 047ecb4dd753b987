/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch record: the events a traced process had not written when it died (objpatch/engine/dead_chunks.c). */
#ifndef OBJPATCH_ENGINE_DEAD_CHUNKS_H
#define OBJPATCH_ENGINE_DEAD_CHUNKS_H

#include <stdbool.h>
#include <sys/types.h>

/* The shared chunks (trace/slots.h), their descriptor in OBJPATCH_SHARED_FD; -1 with a line on failure. */
int salvage_prepare(const char *cmd);
/*
 * Once the program has exited: the unwritten events of every process that
 * is gone appended to its recording (`output`, or output.PID), after its
 * last whole record.  `swap`: the traced machine's byte order is not ours.
 * Returns the words appended.
 */
size_t salvage_slots(const char *cmd, int fd, const char *output, bool swap);

#endif
