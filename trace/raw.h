/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The raw recording (OBJPATCH_FORMAT=raw, `objpatch record`), which the
 * runtime writes (objpatch/lib/rt_raw.c) and `objpatch report` formats
 * later, on any machine: a header, then records of 8-byte-aligned payloads,
 * all in the recording machine's byte order (man/objpatch-recording.5, the
 * contract: a change here is a change there).
 *
 * The digit of the magic is the format's version, bumped only for a change
 * an older reader would misread; a compatible addition (a header field
 * after the last, a record type) bumps the header's `minor`, and older
 * readers skip what they do not know: the header says its own length, and
 * every record its size.  Version 2 added each module's identity and the
 * names and signatures of its traced functions, so that a recording
 * reports right after the program was rebuilt; version 3 the byte-order
 * mark, the word size and the header's length; version 4, written only
 * for recordings made with --args, the EV_ARGS event.  Readers take 1 to 4.
 * Minor 1 added RAW_NOTE, minor 2 RAW_FILTER.
 */
#ifndef TRACE_RAW_H
#define TRACE_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "trace/machine.h"

#define RAW_MAGIC "OBJPATCH-RAW-4\n"
#define RAW_MAGIC_V3 "OBJPATCH-RAW-3\n"
#define RAW_MAGIC_V2 "OBJPATCH-RAW-2\n"
#define RAW_MAGIC_V1 "OBJPATCH-RAW-1\n"
#define RAW_MAGIC_PREFIX "OBJPATCH-RAW-"
#define RAW_VERSION 4
#define RAW_MINOR 2
/* Minor 1: the recording may hold RAW_NOTE records (only objpatch attach's streams are written so). */
#define RAW_MINOR_NOTES 1
/* Minor 2: it holds a RAW_FILTER record; before, which functions were traced is unknown. */
#define RAW_MINOR_FILTER 2
/* Written as a native u32: its bytes say the recording's byte order. */
#define RAW_BYTE_ORDER 0x01020304u
#include "elf/elfobj.h"

/* Version 3's header, as written: offsets in man/objpatch-recording.5. */
struct raw_header {
	char magic[16];		/* RAW_MAGIC, NUL-padded */
	uint32_t byte_order;	/* RAW_BYTE_ORDER */
	uint16_t header_bytes;	/* this header's length: where the records start */
	uint16_t minor;		/* compatible additions since version 3 */
	uint16_t machine;	/* e_machine and class of the recording runtime */
	uint8_t elfclass;
	uint8_t word_bytes;	/* its pointer size: 4 or 8 */
	uint32_t flags;		/* RAW_FLAG_* */
	uint32_t depth;		/* OBJPATCH_DEPTH */
	int32_t pid;
};

/*
 * Versions 1 and 2's header: no byte-order mark, so the depth (1 to
 * EV_DEPTH_MAX, below 2^16) tells the byte order (read in the other one
 * it is 2^16 or more).
 */
struct raw_header_v2 {
	char magic[16];
	uint16_t machine;
	uint8_t elfclass;
	uint8_t flags;		/* version 2 */
	uint32_t depth;
	int32_t pid;
	uint32_t pad2;
};

/* The header the runtime writes (its own word size); no allocation: raw_open is async-signal-safe. */
void raw_header_init(struct raw_header *h, uint16_t machine, uint8_t elfclass, uint32_t flags, uint32_t depth,
		     int32_t pid);

/* OBJPATCH_ERRNO_NAMES was set: the report names errnos too. */
#define RAW_FLAG_ERRNO_NAMES 1
#define RAW_FLAG_ARGS 2	/* entries have their arguments (EV_ARGS): version 4 */

enum raw_type {
	RAW_MODULE = 1,	/* u64 bias, then the path and a NUL */
	RAW_CLOCK,	/* u64 ts0, ns0, ts, ns: two samples of timestamp and CLOCK_MONOTONIC */
	RAW_EVENTS,	/* u64 tid, then a thread's event words (whole events) */
	RAW_COUNTS,	/* u64 missed_depth, missed_busy, lost, the final flush's timestamp */
	/* Version 2: */
	RAW_MODULE_ID,	/* u64 module (RAW_MODULE's rank), size, mtime in ns, build ID bytes, then them */
	/*
	 * u64 module, nfuncs, nsites; nsites (u64 site's run-time address,
	 * u64 function); nfuncs (u64 name bytes, u64 signature bytes (0:
	 * none), the name, the signature, padded to 8 bytes).
	 */
	RAW_FUNCTIONS,
	RAW_THREAD,	/* u64 tid, then its name (/proc/.../comm) and a NUL */
	RAW_PROCESS,	/* the program's name and a NUL */
	/*
	 * Minor 1: a message of the runtime's for the user and a NUL: what it
	 * would have printed on the process's standard error, had objpatch
	 * attach not loaded it (a site it refused to patch, a table entry
	 * left alone).  Only an attach session's recording has them.
	 */
	RAW_NOTE,
	/*
	 * Minor 2: the filter the process was traced with (OBJPATCH_FILTER,
	 * objpatch record -F), its patterns in order as the runtime read
	 * them, each a NUL-terminated string, '!' first for one that excludes;
	 * "*" alone for no filter.  After RAW_PROCESS; so that objpatch report
	 * can name the functions it matched that never ran.
	 */
	RAW_FILTER,
};

/* What a module's file was when it was recorded. */
struct raw_module_id {
	uint64_t size;
	uint64_t mtime_ns;
	uint8_t build_id[64];	/* NT_GNU_BUILD_ID's bytes, if it has one */
	size_t build_id_len;
};

/* The identity of a loaded file: its stat and its build ID note. */
void raw_module_id(struct elfobj *obj, struct raw_module_id *id);
/*
 * Whether the file `now` is the one recorded as `then`: their build IDs
 * when both have one, else size and time.  *why says how they differ.
 */
bool raw_same_module(const struct raw_module_id *then, const struct raw_module_id *now, const char **why);

struct raw_record {
	uint32_t type;
	uint32_t bytes;		/* payload, a multiple of 8 */
};

/*
 * A recording being read: what its header said, in the reader's byte
 * order (versions 1 and 2's header converted to version 3's fields).
 */
struct raw_reader {
	FILE *f;
	bool swap;		/* recorded in the other byte order */
	unsigned version;	/* 1 to RAW_VERSION */
	struct raw_header h;
	struct trace_machine machine;
	const uint64_t *payload;	/* the last record's payload: in buf, or in map */
	uint64_t *buf;		/* the last record's payload when it was copied */
	size_t cap;		/* words */
	/*
	 * The file mapped by the caller, or NULL: events in the reader's byte
	 * order are then left where they lie instead of being copied (most of
	 * a recording, read once more for nothing), and not checked: the
	 * caller checks them with raw_check_events() before it reads them.
	 */
	const uint8_t *map;
	uint64_t map_len;
	uint64_t off;		/* the file's offset of the next byte read */
	uint64_t rec_off;	/* the last record's offset (its type word) */
	uint64_t size;		/* the file's size; UINT64_MAX when not a regular file */
	char err[160];		/* why reading failed: "offset N: reason" */
};

/* The header of the recording `f`: 0, or -1 with r->err set. */
int raw_read_header(struct raw_reader *r, FILE *f);
/*
 * The next record, its payload in r->buf with every number in the reader's
 * byte order (a RAW_MODULE's path and a string's characters stay bytes),
 * its events checked to be whole (but those left in r->map: r->payload is
 * not r->buf then): 1; 0 at the end of the file; -1 with
 * r->err set.  A record's claimed size is checked against what the file
 * holds before any memory is taken for it.
 */
int raw_read_record(struct raw_reader *r, struct raw_record *rec);
/*
 * Checks the events of a RAW_EVENTS payload left in the mapping (after its
 * thread ID word: `w`, `n` words), from the start until at least `want`
 * words are checked or the end: NULL and *checked the words checked (whole
 * events), or what is wrong and *checked where.  `args`: the recording's
 * version is 4 or later (EV_ARGS events).
 */
const char *raw_check_events(const uint64_t *w, size_t n, bool args, size_t want, size_t *checked);
/* r->err for a record the caller found corrupt: "offset N: " and the reason. */
void raw_record_error(struct raw_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void raw_reader_free(struct raw_reader *r);

#endif
