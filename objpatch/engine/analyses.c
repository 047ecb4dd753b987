// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analyses' options and their output (analyses.h): the threads'
 * events through their filters (trace/filter.c), into the trace writer or
 * the summary and graphs (trace/summary.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/engine/analyses.h"
#include "trace/event.h"

void analyses_usage(FILE *f)
{
	fprintf(f, "Analyses (uftrace's report and graph):\n"
		   "      --summary       one line per function: calls, total, self, average, min, max\n"
		   "      --sort=KEY      --summary's order: total (default), self, calls, avg, min, max, name\n"
		   "      --graph=FUNC    the call tree below FUNC, its activations merged\n"
		   "Filters (of any format, --summary and --graph); FUNC and GLOB are fnmatch(3) globs:\n"
		   "      --tid=TID       only thread TID (repeatable)\n"
		   "  -F, --filter=GLOB   only the functions matching GLOB ('!GLOB' excludes; in order)\n"
		   "  -N, --exclude=GLOB  not the functions matching GLOB\n"
		   "      --below=FUNC    FUNC and everything it calls, nothing outside it\n"
		   "      --callers=FUNC  FUNC and the frames that lead to it, not what it calls\n"
		   "      --min-duration=TIME  calls that took at least TIME (10us, 1.5ms, 2s), with their callers\n"
		   "  -D, --max-depth=N   frames less than N deep\n");
}

/* ---- options ---- */

static int oom(const struct analyses *a)
{
	fprintf(stderr, "%s: out of memory\n", a->cmd);
	return -1;
}

/* One more string in a growing list (each option's values, in order). */
static int push_str(const struct analyses *a, const char ***list, size_t *n, const char *v)
{
	const char **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l)
		return oom(a);
	l[(*n)++] = v;
	*list = l;
	return 0;
}

/* A glob option's value, checked as objpatch run checks --filter's. */
static int glob_option(const struct analyses *a, const char *opt, const char *v, const char ***list, size_t *n)
{
	const char *why = trace_glob_error(v);

	if (why)
		return fprintf(stderr, "%s: --%s %s: %s\n", a->cmd, opt, v, why), -1;
	return push_str(a, list, n, v);
}

/* --filter and --exclude share one ordered list; '!GLOB' in --filter excludes, as in objpatch run. */
static int match_option(struct analyses *a, const char *opt, const char *v, bool on)
{
	bool *o;

	if (on && v[0] == '!') {
		v++;
		on = false;
	}
	if (!(o = realloc(a->fo.glob_on, (a->fo.nglobs + 1) * sizeof(*o))))
		return oom(a);
	a->fo.glob_on = o;
	o[a->fo.nglobs] = on;
	return glob_option(a, opt, v, &a->fo.globs, &a->fo.nglobs);
}

static int tid_option(struct analyses *a, const struct cli_cmd *c, const char *v)
{
	unsigned long tid;
	int *t;

	if (cli_number(c, "tid", v, 1, 0x7fffffff, &tid) < 0)
		return -1;
	if (!(t = realloc((void *)a->fo.tids, (a->fo.ntids + 1) * sizeof(*t))))
		return oom(a);
	t[a->fo.ntids++] = (int)tid;
	a->fo.tids = t;
	return 0;
}

int analyses_option(struct analyses *a, const struct cli_cmd *c, int id, const char *v)
{
	const enum trace_sort *key;
	unsigned long n;
	const char *why;

	a->cmd = c->name;
	switch (id) {
	case ANALYSIS_SUMMARY:
		a->summary = true;
		return 0;
	case ANALYSIS_SORT:
		if (!(key = trace_sort_by_name(v)))
			return fprintf(stderr, "%s: --sort %s: not a key: give %s\n", a->cmd, v, trace_sort_keys), -1;
		a->sort = *key;
		a->sort_name = v;
		return 0;
	case ANALYSIS_GRAPH:
		return glob_option(a, "graph", v, &a->graph, &a->ngraph);
	case ANALYSIS_TID:
		return tid_option(a, c, v);
	case ANALYSIS_FILTER:
		return match_option(a, "filter", v, true);
	case ANALYSIS_EXCLUDE:
		return match_option(a, "exclude", v, false);
	case ANALYSIS_BELOW:
		return glob_option(a, "below", v, &a->fo.below, &a->fo.nbelow);
	case ANALYSIS_CALLERS:
		return glob_option(a, "callers", v, &a->fo.callers, &a->fo.ncallers);
	case ANALYSIS_MIN_DURATION:
		if ((why = trace_parse_duration(v, &a->fo.min_ns)))
			return fprintf(stderr, "%s: --min-duration %s: %s\n", a->cmd, v, why), -1;
		a->min_duration = v;
		return 0;
	case ANALYSIS_MAX_DEPTH:
		if (cli_number(c, "max-depth", v, 1, EV_DEPTH_MAX, &n) < 0)
			return -1;
		a->fo.max_depth = (unsigned)n;
		return 0;
	}
	return 1;
}

int analyses_check(const struct analyses *a, enum trace_format format, bool format_given)
{
	const char *why = NULL;

	if (a->summary && a->ngraph)
		why = "--summary and --graph are two reports: give one of them per run";
	else if (a->sort_name && !a->summary)
		why = "--sort orders --summary's lines: add --summary";
	else if (a->summary && format == TRACE_FOLDED)
		why = "--summary is text or json: give --format text or json";
	else if (a->ngraph && format_given && format != TRACE_TEXT)
		why = "--graph is text only: leave --format out";
	if (why)
		fprintf(stderr, "%s: %s\n", a->cmd, why);
	return why ? CLI_ERROR : 0;
}

void analyses_free(struct analyses *a)
{
	free(a->fo.globs);
	free(a->fo.glob_on);
	free(a->fo.below);
	free(a->fo.callers);
	free((void *)a->fo.tids);
	free(a->graph);
}

/* ---- output ---- */

/* The threads --tid shows, each with its filters and told that its events are all there; `shown` their indexes. */
static size_t filter_threads(const struct analyses *a, const struct analysis_input *in, struct trace_filter_set *fs,
			     struct trace_filter **filters, size_t *shown)
{
	size_t n = 0;

	for (size_t i = 0; i < in->nthreads; i++) {
		if (!trace_filter_tid(&a->fo, in->threads[i].tid))
			continue;
		if (!(filters[n] = trace_filter_new(fs, &in->threads[i].src))) {
			while (n)
				trace_filter_free(filters[--n]);
			return SIZE_MAX;
		}
		trace_filter_end(filters[n], in->end);
		shown[n++] = i;
	}
	return n;
}

/* --summary or --graph.  0, -1 out of memory, -2 said, -3 the output failed. */
static int write_stats(const struct analyses *a, const struct analysis_input *in, struct trace_filter_set *fs,
		       struct trace_filter **filters, size_t n)
{
	struct trace_stats *st = trace_stats_new(in->s.depth, in->ns_per_tick, in->s.symbolize, in->s.symbolize_ctx,
						 a->graph, a->ngraph);
	int rc = -1;

	if (!st)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct trace_stats_thread *t = trace_stats_thread(st);

		if (!t || trace_stats_read(st, t, trace_filter_events(filters[i])) < 0 ||
		    trace_stats_end(st, t, in->end) < 0)
			goto out;
	}
	if (a->ngraph && !trace_stats_graph_roots(st))
		fprintf(stderr, "%s: --graph %s: no call of it in %s%s: check the name in --summary\n", a->cmd,
			a->graph[0], in->source, trace_filter_active(fs) ? " (after the filters)" : "");
	rc = a->ngraph ? trace_graph_write(st, in->s.fd)
		       : trace_summary_write(st, in->s.fd, a->sort, in->s.format == TRACE_JSON);
	rc = rc < 0 ? -3 : a->ngraph && !trace_stats_graph_roots(st) ? -2 : 0;
out:
	trace_stats_free(st);
	return rc;
}

/* The formatted trace.  0, -1 out of memory, -3 the output failed. */
static int write_events(const struct analysis_input *in, struct trace_filter **filters, const size_t *shown, size_t n)
{
	struct trace_thread **tt = calloc(n ? n : 1, sizeof(*tt));
	struct trace_writer *w = NULL;
	int rc = -1;

	if (!tt || !(w = trace_writer_new(&in->s)))
		goto out;
	trace_writer_clock(w, in->ts0, in->ns_per_tick, in->ts0);
	for (size_t i = 0; i < n; i++) {
		if (!(tt[i] = trace_thread_new(w, in->threads[shown[i]].tid, trace_filter_events(filters[i]))))
			goto out;
		trace_thread_name(tt[i], in->threads[shown[i]].name);
	}
	trace_write(w, tt, n, in->always_header);
	trace_write_end(w, tt, n, in->end, in->counts);
	rc = trace_writer_failed(w) ? -3 : 0;
out:
	trace_writer_free(w);
	free(tt);
	return rc;
}

/*
 * A filter that kept nothing because what it names matched no call is a
 * mistake (a misspelt name); a duration no call reached is an answer.
 */
static int check_matched(const struct analyses *a, const struct analysis_input *in, const struct trace_filter_set *fs)
{
	static const char fix[] = "check the names in --summary";

	if (a->fo.nbelow && !trace_filter_matched(fs, TF_BELOW))
		return fprintf(stderr, "%s: --below %s: no call in %s matches it: %s\n", a->cmd, a->fo.below[0],
			       in->source, fix), -2;
	if (a->fo.ncallers && !trace_filter_matched(fs, TF_CALLERS))
		return fprintf(stderr, "%s: --callers %s: no call in %s matches it: %s\n", a->cmd, a->fo.callers[0],
			       in->source, fix), -2;
	if (a->fo.nglobs && !trace_filter_matched(fs, TF_MATCH))
		return fprintf(stderr, "%s: --%s %s: no call in %s is left: %s\n", a->cmd,
			       a->fo.glob_on[0] ? "filter" : "exclude", a->fo.globs[0], in->source, fix), -2;
	if (a->fo.min_ns && !trace_filter_matched(fs, TF_MIN_DURATION))
		fprintf(stderr, "%s: --min-duration %s: no call in %s took that long\n", a->cmd, a->min_duration,
			in->source);
	return 0;
}

/* Every --tid names a thread of the trace. */
static int check_tids(const struct analyses *a, const struct analysis_input *in)
{
	for (size_t i = 0; i < a->fo.ntids; i++) {
		bool found = false;

		for (size_t k = 0; k < in->nthreads && !found; k++)
			found = in->threads[k].tid == a->fo.tids[i];
		if (found)
			continue;
		fprintf(stderr, "%s: --tid %d: no such thread in %s: give one of", a->cmd, a->fo.tids[i], in->source);
		for (size_t k = 0; k < in->nthreads; k++)
			fprintf(stderr, " %d", in->threads[k].tid);
		fprintf(stderr, "%s\n", in->nthreads ? "" : " its threads (it has none)");
		return -2;
	}
	return 0;
}

int analyses_write(const struct analyses *a, const struct analysis_input *in)
{
	size_t cap = in->nthreads ? in->nthreads : 1, n = 0;
	struct trace_filter **filters = calloc(cap, sizeof(*filters));
	size_t *shown = calloc(cap, sizeof(*shown));
	struct trace_filter_set *fs = trace_filter_set_new(&a->fo, in->s.depth, in->ns_per_tick, in->s.symbolize,
							   in->s.symbolize_ctx);
	int rc = -1;

	if (!filters || !shown || !fs)
		goto out;
	if ((rc = check_tids(a, in)) < 0)
		goto out;
	rc = -1;
	if ((n = filter_threads(a, in, fs, filters, shown)) == SIZE_MAX) {
		n = 0;
		goto out;
	}
	rc = a->summary || a->ngraph ? write_stats(a, in, fs, filters, n) : write_events(in, filters, shown, n);
	if (rc == -3)
		fprintf(stderr, "%s: %s: the %s could not be written whole: give --output a file on a file system "
			"with room\n", a->cmd, in->output ? in->output : "standard output",
			a->summary ? "summary" : a->ngraph ? "graph" : "trace");
	if (rc == 0)
		rc = check_matched(a, in, fs);
out:
	if (rc == -1)
		fprintf(stderr, "%s: out of memory\n", a->cmd);
	for (size_t i = 0; i < n; i++)
		trace_filter_free(filters[i]);
	free(filters);
	free(shown);
	trace_filter_set_free(fs);
	return rc < 0 ? -1 : 0;
}
