/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The chunks a raw recording's threads fill, in memory `objpatch record`
 * shares with the traced processes (a memfd whose descriptor they inherit,
 * OBJPATCH_SHARED_FD): what a process had not written to its recording
 * when it died (SIGKILL, SIGSEGV, _exit) is still there for objpatch,
 * which appends it to the recording once the process is gone.
 *
 * The memory is a page of header, then slots of SLOT_BYTES, one per
 * thread, taken in turn by every process.  Numbers are in the traced
 * machine's byte order; the layout is the same for 32- and 64-bit ones.
 */
#ifndef TRACE_SLOTS_H
#define TRACE_SLOTS_H

#include <stdint.h>

#define SLOTS_HEADER 4096u
#define SLOT_BYTES (512u << 10)
#define SLOTS_MAX 256u

/* Offsets in a slot: who owns it, then the chunk (objpatch/lib/rt.h's struct chunk). */
#define SLOT_PID 0	/* int32: 0, free */
#define SLOT_TID 4	/* int32 */
#define SLOT_CHUNK 16
#define CHUNK_COUNT 0	/* uint32: words the thread committed */
#define CHUNK_CONSUMED 4	/* uint32: words already written to the recording */
#define CHUNK_WORDS 24	/* the event words */

#endif
