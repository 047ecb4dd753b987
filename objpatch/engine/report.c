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
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/files.h"
#include "objpatch/engine/analyses.h"
#include "objpatch/engine/opts.h"
#include "objpatch/engine/report.h"
#include "trace/event.h"
#include "trace/raw.h"
#include "trace/writer.h"
#include "util/array.h"

static void report_usage(FILE *f)
{
	fprintf(f, "usage: objpatch report [OPTIONS] [RECORDING]\n"
		   "Formats RECORDING (default objpatch.data), written by objpatch record.\n"
		   "      --format=FMT    text, json, folded, svg (a flame graph) or perfetto\n"
		   "                      (default text; perfetto, a binary trace, goes to a file or a pipe)\n"
		   "      --hex           integers in hex\n"
		   "      --errno-names   negative integers that are errno values with their names\n"
		   "                      (the recording's choice when it was made with them)\n"
		   "  -o, --output=FILE   the trace (default standard output)\n"
		   "  -h, --help          this text\n");
	analyses_usage(f);
	fprintf(f, "Exit status: 0; 1 when the recording could not be read or the trace written, or a\n"
		   "--tid or a function named matched nothing; 2 for a usage error.\n");
}

/* ---- the recording's modules: what names its return addresses ---- */

struct site {
	uint64_t addr;
	uint32_t func;		/* index in the module's functions, once they are loaded */
};

struct module {
	char *path;
	char *shown;		/* the path in messages: control characters as '?' (it comes from the file) */
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

/* A run of a thread's events: one RAW_EVENTS record's, where it lies. */
struct segment {
	const uint64_t *w;
	size_t n;		/* words */
	bool owned;		/* a copy (freed), not the mapped recording */
	/* Its events are known whole: a copy the reader checked, or one checked_whole() checked. */
	bool checked;
	uint64_t rec_off;	/* its record's offset, for the message when an event is corrupt */
};

/* A recorded thread: its events, in the records that hold them. */
struct thread {
	int tid;
	char name[64];
	struct segment *segs;
	size_t nsegs, cap_segs;
	/*
	 * Where the writer reads: segs[seg - 1] is the segment being read,
	 * `cur` its next event; from `checked` on its events are not checked
	 * yet (raw_check_events), up to its `end`.
	 */
	size_t seg;
	const uint64_t *cur, *checked, *end;
	uint64_t limit;		/* events later than this are not read */
	struct report *rp;	/* whose mapping the events may lie in */
};

/*
 * The functions return addresses were last found in: a trace names the
 * same few sites over and over, and a binary search through every
 * module's sites per event cost more than formatting the event.
 */
#define RA_CACHE 1024	/* a power of 2 */
struct ra_cache {
	uint64_t ra;	/* UINT64_MAX: empty (return addresses have 48 bits) */
	struct sym_func *func;
};

struct report {
	const char *path;
	struct ra_cache ra_cache[RA_CACHE];
	struct raw_reader r;
	struct module **mods;
	size_t nmods, cap_mods;
	struct thread *threads;	/* in the order they first appear */
	/*
	 * The recording mapped, so that events are read where they lie: a
	 * copy of them all would fault in as many fresh pages as the file
	 * has, which cost more than formatting them.  NULL: not mappable
	 * (a pipe), or numbers in the other byte order: events are copied.
	 */
	const uint8_t *map;
	size_t map_len;
	size_t map_read;	/* bytes of it read since its pages were last given back */
	size_t nthreads, cap_threads;
	uint64_t ts0;
	double ns_per_tick;
	/*
	 * When unfinished frames close: the exit instant (RAW_COUNTS), after
	 * which no thread's events are read; without one (the program died),
	 * the last flush's time or the latest event, whichever is later.
	 */
	uint64_t end;
	bool ended;		/* a RAW_COUNTS gave the exit instant */
	/* A corrupt event, found as the events are read: "offset N: corrupt record ..." ("": none) */
	char corrupt[sizeof(((struct raw_reader *)0)->err)];
	struct trace_counts counts;
	char *process_name;
	/* RAW_FILTER's patterns (minor 2): what was traced; none in a recording of before */
	char *filter;
	const char **filter_globs;
	size_t nfilter;
	/* options */
	int fd;			/* where the trace goes without --output */
	enum trace_format format;
	bool hex;
	bool errno_names;
	const char *output;	/* NULL: standard output */
	bool format_given;
	struct analyses an;
	const struct cli_cmd *cmd;	/* while parsing */
};

static void free_module(struct module *m)
{
	sym_free(&m->syms);
	free(m->sites);
	elfobj_free(&m->file);
	free(m->recorded);
	free(m->strings);
	free(m->path);
	free(m->shown);
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

	if (!m || !(m->path = strdup(path)) || !(m->shown = strdup(path)) ||
	    !grow_array(&rp->mods, rp->nmods, &rp->cap_mods, sizeof(*rp->mods))) {
		if (m) {
			free(m->path);
			free(m->shown);
		}
		free(m);
		return -1;
	}
	for (char *c = m->shown; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
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
	struct stat st;
	/*
	 * Only a regular file (elfobj reads no other): a corrupt recording may
	 * name a FIFO, whose open would block, or a device, whose open acts.
	 */
	bool other = stat(m->path, &st) == 0 && !S_ISREG(st.st_mode);
	int fd = other ? -1 : open(m->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(why, sizeof(why), "%s: %s", m->shown, other ? "not a regular file" : strerror(errno));
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
				"address: report before rebuilding, or record again\n", m->shown, diff);
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
				"(they are read from the file)\n", rp->path, m->shown);
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
		fprintf(stderr, "objpatch report: %s: %s (its functions are shown by address)\n", m->shown,
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

static struct sym_func *lookup(struct report *rp, uint64_t ra)
{
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

/* The module whose functions hold `f`: the flame graph's colour family. */
static const char *module_of(void *ctx, const struct sym_func *f)
{
	struct report *rp = ctx;

	for (size_t i = 0; i < rp->nmods; i++) {
		const struct sym_table *s = &rp->mods[i]->syms;

		if (s->nfuncs && (uintptr_t)f >= (uintptr_t)s->funcs && (uintptr_t)f < (uintptr_t)(s->funcs + s->nfuncs))
			return rp->mods[i]->path;
	}
	return NULL;
}

/* A function's name and signature stay where they are (sym_load): its address can be kept. */
static struct sym_func *symbolize(void *ctx, uint64_t ra)
{
	struct report *rp = ctx;
	struct ra_cache *c = &rp->ra_cache[(ra ^ ra >> 10) & (RA_CACHE - 1)];

	if (c->ra != ra)
		*c = (struct ra_cache){ ra, lookup(rp, ra) };
	/* An event of it, entry or exit, whatever the analysis shows: it ran. */
	if (c->func)
		c->func->called = true;
	return c->func;
}

/* ---- functions the session's filter matched that never ran (report_name_uncalled) ---- */

static const char *uncalled_cmd;
static const char *uncalled_why;
static const char *const *uncalled_globs;
static size_t uncalled_nglobs;

void report_name_uncalled(const char *cmd, const char *why, const char *const *globs, size_t nglobs)
{
	uncalled_cmd = cmd;
	uncalled_why = why;
	uncalled_globs = globs;
	uncalled_nglobs = nglobs;
}

/* The session's filter and how the line begins. */
struct uncalled_filter {
	const char *cmd, *why;
	const char *const *globs;
	size_t nglobs;
};

/* As the runtime applies OBJPATCH_FILTER: in order, the last pattern naming the function decides. */
static bool filter_traces(const struct uncalled_filter *uf, const char *name)
{
	bool on = false;

	for (size_t i = 0; i < uf->nglobs; i++) {
		const char *g = uf->globs[i];
		bool not = g[0] == '!';

		if (fnmatch(g + not, name, 0) == 0)
			on = !not;
	}
	return on;
}

/*
 * The filter the session traced with: the caller's (objpatch run and
 * attach, which gave it), else the one the recording carries (RAW_FILTER).
 * A recording of before has none: nothing can be said then.
 */
static struct uncalled_filter session_filter(const struct report *rp)
{
	if (uncalled_cmd)
		return (struct uncalled_filter){ uncalled_cmd, uncalled_why, uncalled_globs, uncalled_nglobs };
	return (struct uncalled_filter){ "objpatch report", "", rp->filter_globs, rp->nfilter };
}

/* Whether the function of m's site j is one the line names. */
static bool uncalled(const struct report *rp, const struct uncalled_filter *uf, const struct module *m, size_t j)
{
	const struct sym_func *f = &m->syms.funcs[m->sites[j].func];

	/* Each function once: its sites are next to each other (sorted by address). */
	if ((j && m->sites[j - 1].func == m->sites[j].func) || f->called || !filter_traces(uf, f->name))
		return false;
	/* report's own --filter/--exclude: only the functions the user is looking at. */
	return !rp->an.fo.nglobs || trace_filter_keeps(&rp->an.fo, f->name);
}

static bool checked_whole(struct report *rp, struct segment *sg);

/*
 * Every function an entry names, marked as having run: the view (--tid,
 * --min-duration, --max-depth...) may have kept the writer from them.
 */
static void mark_called(struct report *rp)
{
	for (size_t i = 0; i < rp->nthreads; i++) {
		struct thread *t = &rp->threads[i];

		for (size_t s = 0; s < t->nsegs && checked_whole(rp, &t->segs[s]); s++)
			for (size_t k = 0; k < t->segs[s].n; k += ev_words(t->segs[s].w[k + 1]))
				if (t->segs[s].w[k + 1] & EV_ENTRY_BIT)
					symbolize(rp, ev_ra(t->segs[s].w[k + 1]));
	}
}

/* The functions the line names, the first few in `list`: how many. */
static size_t list_uncalled(struct report *rp, const struct uncalled_filter *uf, char *list, size_t size)
{
	size_t n = 0, len;

	list[0] = 0;
	for (size_t i = 0; i < rp->nmods; i++) {
		struct module *m = rp->mods[i];

		if (!m->nsites || !module_functions(m))
			continue;
		for (size_t j = 0; j < m->nsites; j++) {
			const char *name = m->syms.funcs[m->sites[j].func].name;

			if (!uncalled(rp, uf, m, j))
				continue;
			len = strlen(list);
			if (n < 8)
				snprintf(list + len, size - len, "%s%s", n ? ", " : "", name);
			else if (n == 8)
				snprintf(list + len, size - len, ", ...");
			n++;
		}
	}
	return n;
}

/*
 * One line naming them, most likely inlined at every call site (their
 * out-of-line copy has the site); nothing when events were lost, since a
 * function may then have run unseen.  Only functions with a site: the
 * filter traced nothing else.
 */
static void name_uncalled(struct report *rp)
{
	const struct uncalled_filter uf = session_filter(rp);
	char list[512];
	size_t n;
	bool names = false;

	for (size_t i = 0; i < uf.nglobs; i++)
		names |= uf.globs[i][0] != '!' && strcmp(uf.globs[i], "*");
	if (!names || rp->counts.lost || rp->counts.missed_depth || rp->counts.missed_busy)
		return;
	/* The trace's own events first; the whole recording only for the few it did not show. */
	if ((n = list_uncalled(rp, &uf, list, sizeof(list)))) {
		mark_called(rp);
		n = list_uncalled(rp, &uf, list, sizeof(list));
	}
	if (n)
		fprintf(stderr, "%s: %zu function%s matched by the filter %s never called%s: %s (%s)\n", uf.cmd, n,
			n == 1 ? "" : "s", n == 1 ? "was" : "were", uf.why, list, UNCALLED_INLINED);
}

/* ---- the recorded threads, read by the writer ---- */

static struct thread *thread_of(struct report *rp, int tid)
{
	for (size_t i = 0; i < rp->nthreads; i++)
		if (rp->threads[i].tid == tid)
			return &rp->threads[i];
	if (!grow_array(&rp->threads, rp->nthreads, &rp->cap_threads, sizeof(*rp->threads)))
		return NULL;
	rp->threads[rp->nthreads] = (struct thread){ .tid = tid, .rp = rp };
	return &rp->threads[rp->nthreads++];
}

/*
 * A record's whole events, after those the thread recorded before: where
 * they lie in the mapped recording, whose bytes are the numbers the reader
 * checked when they need no turning; else the reader's buffer, taken over.
 */
static int add_events(struct report *rp, int tid, size_t n)
{
	struct thread *t = thread_of(rp, tid);
	struct segment sg = { .n = n - 1, .rec_off = rp->r.rec_off };

	if (!t || !grow_array(&t->segs, t->nsegs, &t->cap_segs, sizeof(*t->segs)))
		return -1;
	if (sg.n == 0)
		return 0;
	sg.w = rp->r.payload + 1;
	if (rp->r.payload == rp->r.buf) {
		sg.owned = sg.checked = true;
		rp->r.buf = NULL;	/* the reader allocates the next record's anew */
		rp->r.cap = 0;
	}
	t->segs[t->nsegs++] = sg;
	return 0;
}

/*
 * The mapping's pages stay resident once read: a recording of gigabytes
 * (a second of a hot loop) would be as much RSS.  Every MAP_GIVE_BACK
 * bytes read they are given back: the mapping is private, read-only and
 * never written, so a page read again comes back from the page cache as it
 * was, and objpatch's RSS stays bounded whatever the recording's size.
 */
#define MAP_GIVE_BACK (32u << 20)

static void map_was_read(struct report *rp, size_t bytes)
{
	if (!rp->map || (rp->map_read += bytes) < MAP_GIVE_BACK)
		return;
	madvise((void *)rp->map, rp->map_len, MADV_DONTNEED);
	rp->map_read = 0;
}

/*
 * A corrupt event ends every thread's events where the writer is: the
 * trace written so far stays, and the report fails with the reader's line.
 */
static void found_corrupt(struct report *rp, const struct segment *sg, const char *why)
{
	snprintf(rp->corrupt, sizeof(rp->corrupt), "offset %llu: corrupt record of type %u: %s",
		 (unsigned long long)sg->rec_off, RAW_EVENTS, why);
	for (size_t i = 0; i < rp->nthreads; i++) {
		struct thread *t = &rp->threads[i];

		t->checked = t->end = t->cur;
		t->seg = t->nsegs;
	}
}

/* A segment's events, all checked before a pass that walks them whole (not the writer's): false if corrupt. */
static bool checked_whole(struct report *rp, struct segment *sg)
{
	const char *why;
	size_t done;

	if (!sg->checked && !rp->corrupt[0]) {
		why = raw_check_events(sg->w, sg->n, rp->r.version >= 4, SIZE_MAX, &done);
		if (why)
			found_corrupt(rp, sg, why);
		sg->checked = !why;
	}
	return sg->checked;
}

/* The next segment with events, or false; the one read before counts as read (MAP_GIVE_BACK). */
static bool next_segment(struct thread *t)
{
	const struct segment *sg;

	if (t->seg < t->nsegs && t->seg)
		map_was_read(t->rp, t->segs[t->seg - 1].n * 8);
	if (t->seg >= t->nsegs || t->rp->corrupt[0])
		return false;
	sg = &t->segs[t->seg++];
	t->cur = t->checked = sg->w;
	t->end = sg->w + sg->n;
	return true;
}

/*
 * Events checked ahead of the writer a few pages at a time, just before it
 * reads them: checked and formatted in one pass over memory no cache
 * holds, instead of a whole pass of its own over the recording first.
 */
#define CHECK_AHEAD 2048	/* words: 16 KiB, still in the first-level cache when the writer reads them */

/* More of the thread's events to read (t->cur < t->checked), or false: none left, or a corrupt one. */
static bool check_more(struct thread *t)
{
	const struct segment *sg;
	const char *why;
	size_t done;

	if (t->cur == t->end && !next_segment(t))
		return false;
	sg = &t->segs[t->seg - 1];
	if (sg->checked) {
		t->checked = t->end;
		return true;
	}
	why = raw_check_events(t->cur, (size_t)(t->end - t->cur), t->rp->r.version >= 4, CHECK_AHEAD, &done);
	t->checked = t->cur + done;
	if (why) {
		const uint64_t *good = t->checked;

		found_corrupt(t->rp, sg, why);
		/* The whole events before it are read still: the trace stops at the corrupt one. */
		t->checked = t->end = good;
	}
	return t->cur < t->checked;
}

static const uint64_t *thread_peek(void *ctx)
{
	struct thread *t = ctx;

	if (__builtin_expect(t->cur == t->checked, 0) && !check_more(t))
		return NULL;
	return t->cur[0] <= t->limit ? t->cur : NULL;
}

static void thread_consume(void *ctx, size_t words)
{
	struct thread *t = ctx;

	/* No prefetch here: check_more() read these words a moment ago. */
	t->cur += words;
}

static void free_thread_events(struct thread *t)
{
	for (size_t i = 0; i < t->nsegs; i++)
		if (t->segs[i].owned)
			free((uint64_t *)t->segs[i].w - 1);
	free(t->segs);
}

/*
 * When the trace ends (see struct report's end): the exit instant, or for
 * a program that died, the last flush or the latest event, whichever is
 * later.
 */
static uint64_t end_instant(struct report *rp)
{
	uint64_t end = rp->end;

	for (size_t i = 0; i < rp->nthreads && !rp->ended; i++) {
		struct thread *t = &rp->threads[i];

		for (size_t s = 0; s < t->nsegs && checked_whole(rp, &t->segs[s]); s++)
			for (size_t k = 0; k < t->segs[s].n; k += ev_words(t->segs[s].w[k + 1]))
				end = t->segs[s].w[k] > end ? t->segs[s].w[k] : end;
	}
	return end;
}

/* ---- reading the recording ---- */

static void note(const char *msg)
{
	fputs("objpatch: ", stderr);
	for (const char *c = msg; *c; c++)
		fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, stderr);
	fputc('\n', stderr);
}

/* RAW_FILTER's patterns, NUL-terminated, then the padding's NULs (no pattern is empty). */
static int recorded_filter(struct report *rp, const char *bytes, size_t len)
{
	size_t n = 0;

	free(rp->filter);
	free(rp->filter_globs);
	rp->filter_globs = NULL;
	rp->nfilter = 0;
	if (!(rp->filter = malloc(len)))
		return -1;
	memcpy(rp->filter, bytes, len);
	for (size_t i = 0; i < len; i++)
		n += rp->filter[i] && (!i || !rp->filter[i - 1]);
	if (!(rp->filter_globs = calloc(n ? n : 1, sizeof(*rp->filter_globs))))
		return -1;
	for (size_t i = 0; i < len; i++)
		if (rp->filter[i] && (!i || !rp->filter[i - 1]))
			rp->filter_globs[rp->nfilter++] = rp->filter + i;
	return 0;
}

static int apply_record(struct report *rp, const struct raw_record *rec)
{
	const uint64_t *w = rp->r.payload;
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
	case RAW_NOTE:
		/* The runtime's words, as it would have printed them (its control characters shown as '?'). */
		if (!n || memchr(w, 0, n * 8) == NULL)
			break;
		note((const char *)w);
		return 0;
	case RAW_FILTER:
		if (!n || ((const char *)w)[n * 8 - 1])
			break;
		if (recorded_filter(rp, (const char *)w, n * 8) < 0)
			goto oom;
		return 0;
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
		if (!rp->ended)
			rp->end = w[2];
		return 0;
	case RAW_EVENTS:
		if (add_events(rp, (int)w[0], n) < 0)
			goto oom;
		return 0;
	case RAW_COUNTS:
		/* The recorder's totals, written by its last flush once it had threads. */
		if (n >= 4 && rp->nthreads)
			rp->counts = (struct trace_counts){ w[0], w[1], w[2] };
		/* The exit instant: what threads still running recorded after it is not the trace's. */
		if (n >= 4) {
			rp->end = w[3];
			rp->ended = true;
		}
		return 0;
	default:
		return 0;	/* a later version's record */
	}
	/* read_recording() prints it. */
	raw_record_error(&rp->r, "corrupt record of type %u: it names no module or string before its end", rec->type);
	return -1;
oom:
	fprintf(stderr, "objpatch report: %s: out of memory\n", rp->path);
	return -1;
}

/*
 * Read-only and private: the events stay there (raw_reader.map), checked as
 * the writer reads them (thread_peek); the reader reads the rest through `fd`.  Not populated: its pages come as they
 * are read and go back every MAP_GIVE_BACK bytes.
 */
static void map_recording(struct report *rp, int fd)
{
	struct stat st;
	void *m;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return;
	rp->map = m;
	rp->map_len = (size_t)st.st_size;
}

/*
 * A recording without the exit record was not finished: its process died
 * before its final flush (and objpatch could not add what it left), or it
 * is still running.  Its trace is whole up to where it ends, so it is
 * shown, but not as if the program had ended there; a recording with
 * nothing after its header has no trace at all.
 */
static int check_ending(const struct report *rp, size_t records)
{
	if (rp->ended)
		return 0;
	if (!records) {
		fprintf(stderr, "objpatch report: %s: offset %llu: nothing after the header: the process died (or "
			"was killed) before its first flush, so no trace was written\n", rp->path,
			(unsigned long long)rp->r.off);
		return -1;
	}
	fprintf(stderr, "objpatch report: %s: offset %llu: no exit record: the process died before its "
		"final flush, or is still running; the trace ends at its last event\n", rp->path,
		(unsigned long long)rp->r.off);
	return 0;
}

static int read_recording(struct report *rp)
{
	struct raw_record rec;
	size_t records = 0;
	struct stat st;
	FILE *f = NULL;
	const char *why;
	int fd, rc;

	/* a FIFO (objpatch record -o FIFO) is read as it comes; a device is refused */
	if (!(why = file_open_input(rp->path, true, &fd, &st)) && !(f = fdopen(fd, "rb"))) {
		why = strerror(errno);
		close(fd);
	}
	if (why) {
		fprintf(stderr, "objpatch report: %s: %s\n", rp->path, why);
		return -1;
	}
	map_recording(rp, fileno(f));
	rc = raw_read_header(&rp->r, f);
	rp->r.map = rp->map;
	rp->r.map_len = rp->map_len;
	/*
	 * The events are left in the mapping, unread until the writer reads
	 * them (thread_peek), but for each record's thread ID: a page mapped
	 * with its neighbours (fault-around) per record, which stays counted
	 * as read so that those pages too go back every MAP_GIVE_BACK bytes.
	 */
	for (uint64_t read_to = rp->r.off; rc == 0 && (rc = raw_read_record(&rp->r, &rec)) == 1; read_to = rp->r.off) {
		records++;
		rc = apply_record(rp, &rec);
		map_was_read(rp, (size_t)(rp->r.off - read_to));
	}
	if (rc < 0 && rp->r.err[0])
		fprintf(stderr, "objpatch report: %s: %s\n", rp->path, rp->r.err);
	if (rc == 0)
		rc = check_ending(rp, records);
	fclose(f);
	if (rc == 0)
		resolve_modules(rp);
	return rc;
}

/* ---- the trace ---- */

/*
 * The writer's output buffer: objpatch report is no traced process to keep
 * small.  Measured on ext4 (calls.c's recording, medians of 15 and 9 runs,
 * bench/RESULTS-runtime.md section 4): text to a file 147 ms of CPU with
 * 64 KiB writes, 131 ms with 256 KiB or 1 MiB ones; JSON (2.4 times the
 * bytes) 0.15 s of system time with 64 KiB, 0.12 s with 256 KiB, 0.34 s
 * with 1 MiB (why was not measured: perhaps a buffer the kernel copies
 * from outside the core's 1 MiB L2).
 */
#define REPORT_OUT_BUFFER (256u << 10)

static int write_trace(struct report *rp)
{
	struct analysis_input in = {
		.source = rp->path, .output = rp->output, .ts0 = rp->ts0, .end = end_instant(rp), .ns_per_tick = rp->ns_per_tick,
		.counts = &rp->counts, .always_header = rp->output != NULL, .nthreads = rp->nthreads,
		.s = { .format = rp->format, .depth = rp->r.h.depth, .hex = rp->hex, .errno_names = rp->errno_names,
		       .strlen_max = 64, .pid = rp->r.h.pid, .fd = rp->fd, .machine = &rp->r.machine,
		       .process_name = rp->process_name, .symbolize = symbolize, .symbolize_ctx = rp,
		       .module_of = module_of, .out_buffer = REPORT_OUT_BUFFER },
	};
	struct analysis_thread *at = calloc(rp->nthreads ? rp->nthreads : 1, sizeof(*at));
	int rc;

	/* A corrupt event end_instant() found: nothing is written, as before any other trace. */
	if (rp->corrupt[0]) {
		free(at);
		return -1;
	}
	if (!at) {
		fprintf(stderr, "objpatch report: out of memory\n");
		return -1;
	}
	if (rp->output && (in.s.fd = open(rp->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, "objpatch report: %s: %s\n", rp->output, strerror(errno));
		free(at);
		return -1;
	}
	for (size_t i = 0; i < RA_CACHE; i++)
		rp->ra_cache[i].ra = UINT64_MAX;
	/* Newest first, as the runtime lists its threads: it decides between events of the same time. */
	for (size_t i = 0; i < rp->nthreads; i++) {
		struct thread *t = &rp->threads[rp->nthreads - 1 - i];

		t->limit = rp->ended ? rp->end : UINT64_MAX;
		at[i] = (struct analysis_thread){ t->tid, t->name, { thread_peek, thread_consume, t } };
	}
	in.threads = at;
	rc = analyses_write(&rp->an, &in);
	if (rp->output)
		close(in.s.fd);
	free(at);
	return rc;
}

static void free_report(struct report *rp)
{
	for (size_t i = 0; i < rp->nmods; i++)
		free_module(rp->mods[i]);
	for (size_t i = 0; i < rp->nthreads; i++)
		free_thread_events(&rp->threads[i]);
	if (rp->map)
		munmap((void *)rp->map, rp->map_len);
	free(rp->mods);
	free(rp->threads);
	free(rp->process_name);
	free(rp->filter);
	free(rp->filter_globs);
	analyses_free(&rp->an);
	raw_reader_free(&rp->r);
}

enum { REPORT_FORMAT = 1, REPORT_HEX, REPORT_OUTPUT, REPORT_ERRNO_NAMES };

static const struct {
	const char *name;
	enum trace_format format;
} formats[] = {
	{ "text", TRACE_TEXT }, { "json", TRACE_JSON }, { "folded", TRACE_FOLDED }, { "svg", TRACE_SVG },
	{ "perfetto", TRACE_PERFETTO },
};

static int report_option(void *ctx, int id, const char *v)
{
	struct report *rp = ctx;
	int rc = analyses_option(&rp->an, rp->cmd, id, v);

	if (rc <= 0)
		return rc;
	switch (id) {
	case REPORT_FORMAT:
		rp->format_given = true;
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (strcmp(v, formats[i].name) == 0) {
				rp->format = formats[i].format;
				return 0;
			}
		return fprintf(stderr, "objpatch report: --format %s: not a format: give text, json, folded, svg or "
				       "perfetto\n", v), -1;
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
		{ "format", 0, "text|json|folded|svg|perfetto", REPORT_FORMAT },
		{ "hex", 0, NULL, REPORT_HEX },
		{ "errno-names", 0, NULL, REPORT_ERRNO_NAMES },
		{ "output", 'o', "FILE", REPORT_OUTPUT },
		ANALYSIS_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const struct cli_cmd cmd = { .name = "objpatch report", .opts = opts, .usage = report_usage,
				     .set = report_option, .ctx = rp };
	int rc;

	rp->cmd = &cmd;
	rc = cli_parse(&cmd, argc, argv, 2);
	rp->cmd = NULL;
	return rc < 0 ? rc : analyses_check(&rp->an, rp->format, rp->format_given);
}

/* Binary on a terminal is noise, and can set its modes. */
static int check_terminal(const struct report *rp, int fd)
{
	if (rp->format == TRACE_PERFETTO && !rp->output && isatty(fd)) {
		fprintf(stderr, "objpatch report: --format perfetto: a binary trace, and %s is a terminal: "
			"give --output FILE, or redirect it\n", fd == 1 ? "standard output" : "standard error");
		return -1;
	}
	return 0;
}

int report_check(int argc, char **argv, int fd)
{
	struct report rp = { .format = TRACE_TEXT, .ns_per_tick = 1.0, .an.cmd = "objpatch report", .fd = fd };
	int rc = parse(argc, argv, &rp);

	if (rc == 0)
		rc = check_terminal(&rp, fd);
	analyses_free(&rp.an);
	return rc < 0 ? -1 : 0;
}

int report_run(int argc, char **argv, int fd)
{
	struct report rp = { .format = TRACE_TEXT, .ns_per_tick = 1.0, .an.cmd = "objpatch report", .fd = fd };
	bool created = false;
	int rc;

	rc = parse(argc, argv, &rp);
	if (rc < 0)
		return rc == CLI_HELP ? 0 : 2;
	/* A mistake in the command line is said before the recording is read, as run says it. */
	if (check_terminal(&rp, fd) < 0 || (rp.output && cli_check_output("objpatch report", rp.output, &created) < 0)) {
		analyses_free(&rp.an);
		return 2;
	}
	if (!rp.path)
		rp.path = "objpatch.data";
	rc = read_recording(&rp);
	/* Asked for at record time (objpatch record --errno-names). */
	if (rp.r.version >= 2 && (rp.r.h.flags & RAW_FLAG_ERRNO_NAMES))
		rp.errno_names = true;
	if (rc == 0) {
		rc = write_trace(&rp);
		/*
		 * Also when report's --filter left no call: the line may say why.
		 * After another failure its line stays the last, naming the file.
		 * A corrupt event ends the trace where it is: the trace before it
		 * is written, and the reader's line says where.
		 */
		if (rp.corrupt[0]) {
			fprintf(stderr, "objpatch report: %s: %s\n", rp.path, rp.corrupt);
			rc = -1;
		} else if (rc == 0 || rp.an.fo.nglobs) {
			name_uncalled(&rp);
		}
	}
	free_report(&rp);
	if (rc < 0 && created)
		cli_remove_empty_output(rp.output);
	return rc < 0 ? 1 : 0;
}

int report_main(int argc, char **argv)
{
	return report_run(argc, argv, 1);
}
