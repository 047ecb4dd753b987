// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch report: formats a raw recording (objpatch record) with the same
 * writer the runtime uses, reading names and return types from the traced
 * program's files as they are now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "objpatch/cli/report.h"
#include "objpatch/lib/rt.h"

static void report_usage(FILE *f)
{
	fprintf(f, "usage: objpatch report [--format text|json|folded] [--hex] [--output FILE] [RECORDING]\n"
		   "Formats RECORDING (default objpatch.data), written by objpatch record.\n");
}

struct reader {
	const char *path;
	FILE *f;
	uint64_t *buf;
	size_t cap;
};

/* 1: a record read; 0: end of file; -1: an error, reported. */
static int next_record(struct reader *r, struct raw_record *rec)
{
	size_t got = fread(rec, 1, sizeof(*rec), r->f);

	if (got == 0 && feof(r->f))
		return 0;
	if (got != sizeof(*rec) || rec->bytes % 8) {
		fprintf(stderr, "objpatch report: %s: truncated or corrupt record\n", r->path);
		return -1;
	}
	if (rec->bytes / 8 > r->cap) {
		uint64_t *b = realloc(r->buf, rec->bytes);

		if (!b) {
			fprintf(stderr, "objpatch report: %s: out of memory (%u bytes)\n", r->path, rec->bytes);
			return -1;
		}
		r->buf = b;
		r->cap = rec->bytes / 8;
	}
	if (fread(r->buf, 1, rec->bytes, r->f) != rec->bytes) {
		fprintf(stderr, "objpatch report: %s: truncated record\n", r->path);
		return -1;
	}
	return 1;
}

static int read_header(struct reader *r)
{
	struct raw_header h;

	if (fread(&h, 1, sizeof(h), r->f) != sizeof(h) || memcmp(h.magic, RAW_MAGIC, sizeof(h.magic))) {
		fprintf(stderr, "objpatch report: %s: not an objpatch recording\n", r->path);
		return -1;
	}
	if (h.machine != rt_arch_host.machine || h.elfclass != rt_arch_host.elfclass) {
		fprintf(stderr, "objpatch report: %s: recorded on machine %u, this is %u: report it there\n",
			r->path, h.machine, rt_arch_host.machine);
		return -1;
	}
	if (!h.depth || h.depth > EV_DEPTH_MAX) {
		fprintf(stderr, "objpatch report: %s: corrupt header (depth %u)\n", r->path, h.depth);
		return -1;
	}
	rt.depth = h.depth;
	rt.replay_pid = h.pid;
	return 0;
}

static int apply_record(struct reader *r, const struct raw_record *rec)
{
	const uint64_t *w = r->buf;
	size_t n = rec->bytes / 8;
	struct tstate *t;

	switch (rec->type) {
	case RAW_MODULE:
		if (n < 2 || memchr(w + 1, 0, (n - 1) * 8) == NULL)
			break;
		if (rt_replay_module((const char *)(w + 1), (uintptr_t)w[0]) < 0)
			fprintf(stderr, "objpatch report: %s (its functions are shown by address)\n", rt.err);
		return 0;
	case RAW_CLOCK:
		if (n < 4)
			break;
		rt_output_set_clock(w[0], w[1], w[2] > w[0] ? (double)(w[3] - w[1]) / (double)(w[2] - w[0]) : 1.0,
				    w[2]);
		return 0;
	case RAW_EVENTS:
		if (n < 1 || !(t = rt_replay_thread((pid_t)w[0])) || rt_replay_events(t, w + 1, n - 1) < 0) {
			fprintf(stderr, "objpatch report: %s: out of memory\n", r->path);
			return -1;
		}
		return 0;
	case RAW_COUNTS:
		if (n < 4 || !(t = atomic_load(&rt_threads)))
			return 0;
		t->missed_depth = w[0];
		t->missed_busy = w[1];
		t->lost = w[2];
		return 0;
	default:
		return 0;	/* a later version's record */
	}
	fprintf(stderr, "objpatch report: %s: corrupt record of type %u\n", r->path, rec->type);
	return -1;
}

static int parse(int argc, char **argv, const char **in)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			report_usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--hex")) {
			rt.hex = true;
		} else if (!strcmp(a, "--format") && v) {
			i++;
			if (!strcmp(v, "text"))
				rt.format = FMT_TEXT;
			else if (!strcmp(v, "json"))
				rt.format = FMT_JSON;
			else if (!strcmp(v, "folded"))
				rt.format = FMT_FOLDED;
			else
				return fprintf(stderr, "objpatch report: --format %s: not text, json or folded\n", v), -1;
		} else if (!strcmp(a, "--output") && v) {
			rt.output = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			return fprintf(stderr, "objpatch report: %s: unknown option or missing value\n", a), -1;
		} else if (*in) {
			return fprintf(stderr, "objpatch report: one recording at a time\n"), -1;
		} else {
			*in = a;
		}
	}
	return 0;
}

int report_main(int argc, char **argv)
{
	struct reader r = { 0 };
	struct raw_record rec;
	const char *in = NULL;
	int rc;

	rt.format = FMT_TEXT;
	rt.strlen_max = 64;
	rt.output_fd = 1;
	rt.output_pid = getpid();
	rt.replay = true;
	if (parse(argc, argv, &in) < 0) {
		report_usage(stderr);
		return 2;
	}
	r.path = in ? in : "objpatch.data";
	r.f = fopen(r.path, "rb");
	if (!r.f) {
		fprintf(stderr, "objpatch report: %s: %s\n", r.path, strerror(errno));
		return 1;
	}
	rt_record_init(1u << 20);
	rc = read_header(&r);
	while (rc == 0 && (rc = next_record(&r, &rec)) == 1)
		rc = apply_record(&r, &rec);
	fclose(r.f);
	free(r.buf);
	if (rc < 0)
		return 1;
	return rt_flush(true) < 0 ? 1 : 0;
}
