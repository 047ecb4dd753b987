/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The raw recording (OBJPATCH_FORMAT=raw, `objpatch record`), which the
 * runtime writes (objpatch/lib/rt_raw.c) and `objpatch report` formats
 * later, on any machine: a header, then records of 8-byte-aligned payloads,
 * all in the recording machine's byte order.
 */
#ifndef TRACE_RAW_H
#define TRACE_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "trace/machine.h"

#define RAW_MAGIC "OBJPATCH-RAW-1\n"

/*
 * Its depth (1..EV_DEPTH_MAX, below 2^16) also tells the byte order: read
 * in the other one it is 2^16 or more.
 */
struct raw_header {
	char magic[16];
	uint16_t machine;	/* e_machine and class of the recording runtime */
	uint8_t elfclass;
	uint8_t pad;
	uint32_t depth;		/* OBJPATCH_DEPTH */
	int32_t pid;
	uint32_t pad2;
};

enum raw_type {
	RAW_MODULE = 1,	/* u64 bias, then the path and a NUL */
	RAW_CLOCK,	/* u64 ts0, ns0, ts, ns: two samples of timestamp and CLOCK_MONOTONIC */
	RAW_EVENTS,	/* u64 tid, then a thread's event words (whole events) */
	RAW_COUNTS,	/* u64 missed_depth, missed_busy, lost, the final flush's timestamp */
};

struct raw_record {
	uint32_t type;
	uint32_t bytes;		/* payload, a multiple of 8 */
};

/* A recording being read: what its header said, in the reader's byte order. */
struct raw_reader {
	FILE *f;
	bool swap;		/* recorded in the other byte order */
	struct raw_header h;
	struct trace_machine machine;
	uint64_t *buf;		/* the last record's payload */
	size_t cap;		/* words */
	char err[96];		/* why reading failed */
};

/* The header of the recording `f`: 0, or -1 with r->err set. */
int raw_read_header(struct raw_reader *r, FILE *f);
/*
 * The next record, its payload in r->buf with every number in the reader's
 * byte order (a RAW_MODULE's path and a string's characters stay bytes),
 * its events checked to be whole: 1; 0 at the end of the file; -1 with
 * r->err set.
 */
int raw_read_record(struct raw_reader *r, struct raw_record *rec);
void raw_reader_free(struct raw_reader *r);

#endif
