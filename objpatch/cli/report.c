// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch report: formats a raw recording (objpatch record), made on this
 * machine or another, with the trace writer the runtime uses
 * (trace/writer.c).  Names and return types come from the recording
 * (version 2 holds those of every traced function), so that it reports
 * right after a rebuild; a version 1 recording, or a module recorded
 * without them, is read from the module's file, if that is still the file
 * recorded.  It links no runtime: the recording's header says which
 * machine's conventions its words follow (trace/machine.c), and files are
 * read with the table and ELF readers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "objpatch/cli/opts.h"
#include "objpatch/cli/report.h"
#include "trace/event.h"
#include "trace/raw.h"
#include "trace/writer.h"

static void report_usage(FILE *f)
{
	fprintf(f, "usage: objpatch report [OPTIONS] [RECORDING]\n"
		   "Formats RECORDING (default objpatch.data), written by objpatch record.\n"
		   "      --format=FMT    text, json or folded (default text)\n"
		   "      --hex           integers in hex\n"
		   "      --errno-names   negative integers that are errno values with their names\n"
		   "                      (the recording's choice when it was made with them)\n"
		   "  -o, --output=FILE   the trace (default standard output)\n"
		   "  -h, --help          this text\n"
		   "Exit status: 0; 1 when the recording could not be read or the trace written;\n"
		   "2 for a usage error.\n");
}

/* ---- the recording's modules: what names its return addresses ---- */

struct site {
	uint64_t addr;
	uint32_t func;		/* index in the module's functions, once they are loaded */
};

struct module {
	char *path;
	uint64_t bias;
	struct elfobj file;	/* names and signatures point into its mapping */
	struct site *sites;	/* sorted by address */
	size_t nsites;
	struct sym_table syms;
	bool funcs_ready;	/* loaded when a name is first needed */
	bool funcs_failed;
	/* What the recording says of it (version 2) */
	bool has_id;
	struct raw_module_id id;
	uint64_t *recorded;	/* its RAW_FUNCTIONS payload */
	size_t nrecorded;
	char *strings;		/* the recorded names and signatures, NUL-terminated */
};

/*
 * A recorded thread: where its RAW_EVENTS records are in the recording,
 * read one at a time as the writer gets to them, so that memory stays a
 * record per thread whatever the recording's length.
 */
struct thread {
	int tid;
	char name[64];
	off_t *records;		/* offsets of its RAW_EVENTS records */
	size_t nrecords, cap_records, next;
	uint64_t *w;		/* the record being read: its event words */
	size_t n, cap;
	size_t pos;		/* where the writer reads next */
	FILE *f;		/* the recording, and how to read it */
	struct raw_reader *r;
};

struct report {
	const char *path;
	FILE *f;
	struct raw_reader r;
	struct module **mods;
	size_t nmods, cap_mods;
	struct thread *threads;	/* in the order they first appear */
	size_t nthreads, cap_threads;
	uint64_t ts0;
	double ns_per_tick;
	uint64_t end;		/* the last flush's timestamp: when unfinished frames close */
	uint64_t last_event;	/* the latest event's: later than `end` when the process was killed */
	struct trace_counts counts;
	char *process_name;
	/* options */
	enum trace_format format;
	bool hex;
	bool errno_names;
	const char *output;	/* NULL: standard output */
};

static void free_module(struct module *m)
{
	sym_free(&m->syms);
	free(m->sites);
	elfobj_free(&m->file);
	free(m->recorded);
	free(m->strings);
	free(m->path);
	free(m);
}

static int cmp_site(const void *a, const void *b)
{
	uint64_t x = ((const struct site *)a)->addr, y = ((const struct site *)b)->addr;

	return x < y ? -1 : x > y;
}

/* The sites the recording machine's runtime traced, by their run-time address. */
static int load_sites(struct module *m, const struct trace_machine *mach)
{
	struct table_entry *te;
	size_t nt, bad, pads;

	if (sym_read_sites(&m->file, mach->arch->pad_site_len, mach->arch->pad_site_offset, &te, &nt, &bad, &pads) < 0)
		return -1;
	m->sites = calloc(nt ? nt : 1, sizeof(*m->sites));
	if (!m->sites) {
		free(te);
		return -1;
	}
	for (size_t i = 0; i < nt; i++)
		if (te[i].addr)	/* 0: names no site */
			m->sites[m->nsites++].addr = te[i].addr + m->bias;
	free(te);
	qsort(m->sites, m->nsites, sizeof(*m->sites), cmp_site);
	return 0;
}

/* A RAW_MODULE: read when the whole recording is (resolve_modules). */
static int add_module(struct report *rp, const char *path, uint64_t bias)
{
	struct module *m = calloc(1, sizeof(*m));

	if (!m || !(m->path = strdup(path)) || !grow_array(&rp->mods, rp->nmods, &rp->cap_mods, sizeof(*rp->mods))) {
		if (m)
			free(m->path);
		free(m);
		return -1;
	}
	m->bias = bias;
	rp->mods[rp->nmods++] = m;
	return 0;
}

/* The module's file, if it is the one recorded; 0, or -1 with the reason printed. */
static int load_file(struct report *rp, struct module *m)
{
	char why[600] = "out of memory";
	struct raw_module_id now;
	const char *diff;
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, sizeof(why), "%s: %s", m->path, strerror(errno));
		goto fail;
	}
	if (elfobj_load_mapped(&m->file, m->path, fd) < 0) {
		if (m->file.err[0])
			snprintf(why, sizeof(why), "%s", m->file.err);
		goto fail;
	}
	if (m->has_id) {
		raw_module_id(&m->file, &now);
		if (!raw_same_module(&m->id, &now, &diff)) {
			fprintf(stderr, "objpatch report: %s: not the file recorded (%s), its functions are shown by "
				"address: report before rebuilding, or record again\n", m->path, diff);
			close(fd);
			return -1;
		}
	}
	if (load_sites(m, &rp->r.machine) < 0) {
		if (m->file.err[0])
			snprintf(why, sizeof(why), "%s", m->file.err);
		goto fail;
	}
	close(fd);
	return 0;
fail:
	fprintf(stderr, "objpatch report: %s (its functions are shown by address)\n", why);
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The words of a RAW_FUNCTIONS payload (checked by raw_read_record): its sites and functions. */
static int recorded_functions(struct module *m)
{
	const uint64_t *w = m->recorded;
	uint64_t nfuncs = w[1], nsites = w[2];
	size_t at = 3 + 2 * nsites, pool = 0;
	char *p;

	m->sites = calloc(nsites ? nsites : 1, sizeof(*m->sites));
	m->syms.funcs = calloc(nfuncs ? nfuncs : 1, sizeof(*m->syms.funcs));
	for (uint64_t f = 0, i = at; f < nfuncs; f++) {
		pool += w[i] + w[i + 1] + 2;
		i += 2 + (w[i] + w[i + 1] + 7) / 8;
	}
	if (!m->sites || !m->syms.funcs || !(m->strings = p = malloc(pool ? pool : 1)))
		return -1;
	for (uint64_t i = 0; i < nsites; i++) {
		if (w[4 + 2 * i] >= nfuncs)
			return -1;
		m->sites[i] = (struct site){ w[3 + 2 * i], (uint32_t)w[4 + 2 * i] };
	}
	m->nsites = nsites;
	qsort(m->sites, m->nsites, sizeof(*m->sites), cmp_site);
	for (uint64_t f = 0; f < nfuncs; f++) {
		const char *bytes = (const char *)(w + at + 2);
		struct sym_func *fn = &m->syms.funcs[f];

		fn->name = memcpy(p, bytes, w[at]);
		p[w[at]] = 0;
		p += w[at] + 1;
		if (w[at + 1]) {
			fn->sigtext = memcpy(p, bytes + w[at], w[at + 1]);
			p[w[at + 1]] = 0;
			p += w[at + 1] + 1;
		}
		at += 2 + (w[at] + w[at + 1] + 7) / 8;
	}
	m->syms.nfuncs = m->syms.cap = m->syms.sorted = nfuncs;
	m->funcs_ready = true;
	return 0;
}

/*
 * Every module's sites and functions: from the recording when it holds
 * them, else from the file.  A module that has neither is shown by address.
 */
static void resolve_modules(struct report *rp)
{
	for (size_t i = 0; i < rp->nmods; i++) {
		struct module *m = rp->mods[i];

		if (m->recorded && recorded_functions(m) < 0) {
			fprintf(stderr, "objpatch report: %s: %s's recorded functions are corrupt or too many "
				"(they are read from the file)\n", rp->path, m->path);
			sym_free(&m->syms);
			free(m->sites);
			m->sites = NULL;
			m->nsites = 0;
			m->funcs_ready = false;
			free(m->recorded);
			m->recorded = NULL;
		}
		if (!m->recorded && load_file(rp, m) < 0)
			m->nsites = 0;
	}
}

/* Names and signatures, and which function each site is in: read on first use. */
static bool module_functions(struct module *m)
{
	struct sym_walk w = { 0 };

	if (m->funcs_ready || m->funcs_failed)
		return m->funcs_ready;
	m->funcs_failed = sym_load(&m->syms, &m->file, m->bias) < 0;
	for (size_t i = 0; i < m->nsites && !m->funcs_failed; i++) {
		size_t fi = sym_site_function(&m->syms, &w, m->sites[i].addr);

		m->funcs_failed = fi == SIZE_MAX;
		m->sites[i].func = (uint32_t)fi;
	}
	if (m->funcs_failed)
		fprintf(stderr, "objpatch report: %s: %s (its functions are shown by address)\n", m->path,
			m->file.err[0] ? m->file.err : "out of memory");
	m->funcs_ready = !m->funcs_failed;
	return m->funcs_ready;
}

/* The site a return address is past: the last one starting below it, no further than ra_span. */
static const struct site *site_for_ra(const struct module *m, uint64_t ra, uint64_t span)
{
	size_t lo = 0, hi = m->nsites;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sites[mid].addr < ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ra - m->sites[lo - 1].addr <= span ? &m->sites[lo - 1] : NULL;
}

static struct sym_func *symbolize(void *ctx, uint64_t ra)
{
	struct report *rp = ctx;
	uint64_t span = trace_ra_span(&rp->r.machine);

	for (size_t i = 0; i < rp->nmods; i++) {
		struct module *m = rp->mods[i];
		const struct site *s;

		if (!m->nsites || ra <= m->sites[0].addr || ra > m->sites[m->nsites - 1].addr + span)
			continue;
		s = site_for_ra(m, ra, span);
		if (s && module_functions(m))
			return &m->syms.funcs[s->func];
	}
	return NULL;
}

/* ---- the recorded threads, read by the writer ---- */

static struct thread *thread_of(struct report *rp, int tid)
{
	for (size_t i = 0; i < rp->nthreads; i++)
		if (rp->threads[i].tid == tid)
			return &rp->threads[i];
	if (!grow_array(&rp->threads, rp->nthreads, &rp->cap_threads, sizeof(*rp->threads)))
		return NULL;
	rp->threads[rp->nthreads] = (struct thread){ .tid = tid };
	return &rp->threads[rp->nthreads++];
}

/*
 * A record of the thread's events at `off`; its last one's time may end
 * the trace (a process that was killed wrote no final clock).
 */
static int add_events(struct report *rp, int tid, off_t off, const uint64_t *w, size_t n)
{
	struct thread *t = thread_of(rp, tid);
	size_t last = 0;

	if (!t || !grow_array(&t->records, t->nrecords, &t->cap_records, sizeof(*t->records)))
		return -1;
	t->records[t->nrecords++] = off;
	t->f = rp->r.f;
	t->r = &rp->r;
	for (size_t i = 0; i < n; i += ev_words(w[i + 1]))
		last = i;
	if (n && w[last] > rp->last_event)
		rp->last_event = w[last];
	return 0;
}

/* The thread's next record, read again (it was checked the first time). */
static bool next_record(struct thread *t)
{
	struct raw_record rec;

	if (t->next >= t->nrecords || fseeko(t->f, t->records[t->next++], SEEK_SET) < 0 ||
	    raw_read_record(t->r, &rec) != 1 || rec.bytes < 8)
		return false;
	if (rec.bytes / 8 - 1 > t->cap) {
		uint64_t *b = realloc(t->w, rec.bytes);

		if (!b)
			return false;
		t->w = b;
		t->cap = rec.bytes / 8;
	}
	memcpy(t->w, t->r->buf + 1, rec.bytes - 8);
	t->n = rec.bytes / 8 - 1;
	t->pos = 0;
	return true;
}

static const uint64_t *thread_peek(void *ctx)
{
	struct thread *t = ctx;

	while (t->pos >= t->n)
		if (!next_record(t))
			return NULL;
	return &t->w[t->pos];
}

static void thread_consume(void *ctx, size_t words)
{
	struct thread *t = ctx;

	t->pos += words;
}

/* ---- reading the recording ---- */

static int apply_record(struct report *rp, const struct raw_record *rec, off_t off)
{
	const uint64_t *w = rp->r.buf;
	size_t n = rec->bytes / 8;

	switch (rec->type) {
	case RAW_MODULE:
		if (n < 2 || memchr(w + 1, 0, (n - 1) * 8) == NULL)
			break;
		if (add_module(rp, (const char *)(w + 1), w[0]) < 0)
			goto oom;
		return 0;
	case RAW_MODULE_ID:
		if (w[0] >= rp->nmods)
			break;
		rp->mods[w[0]]->has_id = true;
		rp->mods[w[0]]->id = (struct raw_module_id){ .size = w[1], .mtime_ns = w[2], .build_id_len = w[3] };
		memcpy(rp->mods[w[0]]->id.build_id, w + 4, w[3]);
		return 0;
	case RAW_FUNCTIONS:
		if (w[0] >= rp->nmods || rp->mods[w[0]]->recorded)
			break;
		if (!(rp->mods[w[0]]->recorded = malloc(n * 8)))
			goto oom;
		memcpy(rp->mods[w[0]]->recorded, w, n * 8);
		rp->mods[w[0]]->nrecorded = n;
		return 0;
	case RAW_THREAD: {
		struct thread *t;

		if (n < 2 || memchr(w + 1, 0, (n - 1) * 8) == NULL)
			break;
		if (!(t = thread_of(rp, (int)w[0])))
			goto oom;
		snprintf(t->name, sizeof(t->name), "%s", (const char *)(w + 1));
		return 0;
	}
	case RAW_PROCESS:
		if (!n || memchr(w, 0, n * 8) == NULL)
			break;
		free(rp->process_name);
		if (!(rp->process_name = strdup((const char *)w)))
			goto oom;
		return 0;
	case RAW_CLOCK:
		if (n < 4)
			break;
		rp->ts0 = w[0];
		rp->ns_per_tick = w[2] > w[0] ? (double)(w[3] - w[1]) / (double)(w[2] - w[0]) : 1.0;
		rp->end = w[2];
		return 0;
	case RAW_EVENTS:
		if (add_events(rp, (int)w[0], off, w + 1, n - 1) < 0)
			goto oom;
		return 0;
	case RAW_COUNTS:
		/* The recorder's totals, written by its last flush once it had threads. */
		if (n >= 4 && rp->nthreads)
			rp->counts = (struct trace_counts){ w[0], w[1], w[2] };
		return 0;
	default:
		return 0;	/* a later version's record */
	}
	fprintf(stderr, "objpatch report: %s: corrupt record of type %u\n", rp->path, rec->type);
	return -1;
oom:
	fprintf(stderr, "objpatch report: %s: out of memory\n", rp->path);
	return -1;
}

static int read_recording(struct report *rp)
{
	FILE *f = fopen(rp->path, "rb");
	struct raw_record rec;
	off_t off = 0;
	int rc;

	if (!f) {
		fprintf(stderr, "objpatch report: %s: %s\n", rp->path, strerror(errno));
		return -1;
	}
	rp->f = f;	/* the events are read again, a record at a time, as they are written */
	rc = raw_read_header(&rp->r, f);
	while (rc == 0 && (off = ftello(f)) >= 0 && (rc = raw_read_record(&rp->r, &rec)) == 1)
		rc = apply_record(rp, &rec, off);
	if (rc < 0 && rp->r.err[0])
		fprintf(stderr, "objpatch report: %s: %s\n", rp->path, rp->r.err);
	if (rc == 0)
		resolve_modules(rp);
	if (rp->last_event > rp->end)
		rp->end = rp->last_event;
	return rc;
}

/* ---- the trace ---- */

static int write_trace(struct report *rp)
{
	struct trace_settings s = { .format = rp->format, .depth = rp->r.h.depth, .hex = rp->hex, .errno_names = rp->errno_names,
				    .strlen_max = 64,
				    .pid = rp->r.h.pid, .fd = 1, .machine = &rp->r.machine,
				    .process_name = rp->process_name,
				    .symbolize = symbolize, .symbolize_ctx = rp };
	struct trace_thread **tt = calloc(rp->nthreads ? rp->nthreads : 1, sizeof(*tt));
	struct trace_writer *w = NULL;
	int rc = -1;

	if (rp->output && (s.fd = open(rp->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, "objpatch report: %s: %s\n", rp->output, strerror(errno));
		free(tt);
		return -1;
	}
	if (!tt || !(w = trace_writer_new(&s)))
		goto out;
	trace_writer_clock(w, rp->ts0, rp->ns_per_tick);
	/* Newest first, as the runtime lists its threads: it decides between events of the same time. */
	for (size_t i = 0; i < rp->nthreads; i++) {
		struct thread *t = &rp->threads[rp->nthreads - 1 - i];
		struct trace_events src = { thread_peek, thread_consume, t };

		if (!(tt[i] = trace_thread_new(w, t->tid, &src)))
			goto out;
		trace_thread_name(tt[i], t->name);
	}
	trace_write(w, tt, rp->nthreads, rp->output != NULL);
	trace_write_end(w, tt, rp->nthreads, rp->end, &rp->counts);
	rc = 0;
	if (trace_writer_failed(w)) {
		fprintf(stderr, "objpatch report: %s: the trace could not be written whole: give --output a file "
				"on a file system with room\n", rp->output ? rp->output : "standard output");
		rc = -2;
	}
out:
	if (rc == -1)
		fprintf(stderr, "objpatch report: out of memory\n");
	trace_writer_free(w);
	free(tt);
	if (rp->output)
		close(s.fd);
	return rc < 0 ? -1 : 0;
}

static void free_report(struct report *rp)
{
	for (size_t i = 0; i < rp->nmods; i++)
		free_module(rp->mods[i]);
	for (size_t i = 0; i < rp->nthreads; i++) {
		free(rp->threads[i].w);
		free(rp->threads[i].records);
	}
	if (rp->f)
		fclose(rp->f);
	free(rp->mods);
	free(rp->threads);
	free(rp->process_name);
	raw_reader_free(&rp->r);
}

enum { REPORT_FORMAT = 1, REPORT_HEX, REPORT_OUTPUT, REPORT_ERRNO_NAMES };

static int report_option(void *ctx, int id, const char *v)
{
	struct report *rp = ctx;

	switch (id) {
	case REPORT_FORMAT:
		if (!strcmp(v, "text"))
			rp->format = TRACE_TEXT;
		else if (!strcmp(v, "json"))
			rp->format = TRACE_JSON;
		else if (!strcmp(v, "folded"))
			rp->format = TRACE_FOLDED;
		else
			return fprintf(stderr, "objpatch report: --format %s: not a format: give text, json or folded\n",
				       v), -1;
		return 0;
	case REPORT_HEX:
		rp->hex = true;
		return 0;
	case REPORT_ERRNO_NAMES:
		rp->errno_names = true;
		return 0;
	case REPORT_OUTPUT:
		if (!*v)
			return fprintf(stderr, "objpatch report: --output is empty: give a file name\n"), -1;
		rp->output = v;
		return 0;
	}
	if (rp->path)
		return fprintf(stderr, "objpatch report: %s: one recording at a time: report each alone\n", v), -1;
	rp->path = v;
	return 0;
}

/* 0, CLI_HELP or CLI_ERROR (after one line) */
static int parse(int argc, char **argv, struct report *rp)
{
	static const struct cli_opt opts[] = {
		{ "format", 0, "text|json|folded", REPORT_FORMAT },
		{ "hex", 0, NULL, REPORT_HEX },
		{ "errno-names", 0, NULL, REPORT_ERRNO_NAMES },
		{ "output", 'o', "FILE", REPORT_OUTPUT },
		{ NULL, 0, NULL, 0 },
	};
	const struct cli_cmd cmd = { .name = "objpatch report", .opts = opts, .usage = report_usage,
				     .set = report_option, .ctx = rp };
	int rc = cli_parse(&cmd, argc, argv, 2);

	return rc < 0 ? rc : 0;
}

int report_main(int argc, char **argv)
{
	struct report rp = { .format = TRACE_TEXT, .ns_per_tick = 1.0 };
	int rc;

	rc = parse(argc, argv, &rp);
	if (rc < 0)
		return rc == CLI_HELP ? 0 : 2;
	if (!rp.path)
		rp.path = "objpatch.data";
	rc = read_recording(&rp);
	/* Asked for at record time (objpatch record --errno-names). */
	if (rp.r.version >= 2 && (rp.r.h.flags & RAW_FLAG_ERRNO_NAMES))
		rp.errno_names = true;
	if (rc == 0)
		rc = write_trace(&rp);
	free_report(&rp);
	return rc < 0 ? 1 : 0;
}
