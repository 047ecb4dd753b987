// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The summary and the call graphs (trace/summary.h).  Functions are told
 * apart by name, as uftrace's report does (two static functions of one
 * name are one line).  A call's time is its duration; its self time that
 * less its callees'.  A recursive function's total counts each outermost
 * activation once (as uftrace's), so that the total is time spent in it,
 * never more than the trace lasted; its calls, self time, minimum and
 * maximum count every activation.  The average is total / calls.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/calltree.h"
#include "trace/event.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/u64map.h"
#include "trace/summary.h"
#include "util/array.h"

struct func {
	const char *name;
	char *owned;		/* a "0x..." name made here */
	bool graph_root;
	uint64_t calls, total, self, min, max;
};

/* A call tree's node, keyed by its function; node 0 is the root of every tree. */
struct gnode {
	struct calltree_link at;
	uint32_t first, last, next;	/* children in the order they were first called */
	uint64_t calls, total;
};

struct tframe {
	uint64_t ts, child;	/* entry time; callees' time (ns) */
	uint32_t func;		/* UINT32_MAX: its entry was lost */
	uint32_t node;		/* 0: in no graph */
	bool recursive;		/* an inner activation of its function */
};

struct trace_stats_thread {
	struct tframe *stack;
	unsigned open;
	struct trace_stats_thread *next;
};

struct trace_stats {
	unsigned depth;
	double ns_per_tick;
	trace_symbolizer symbolize;
	void *symbolize_ctx;
	const char **graph;
	size_t ngraph;
	struct func *funcs;
	size_t nfuncs, cap_funcs;
	struct hashtab by_name;	/* of funcs */
	struct u64map by_ra;	/* an address's func index */
	struct calltree tree;	/* the --graph trees, of struct gnode */
	uint64_t calls;
	struct trace_stats_thread *threads;
};

/* ---- tables ---- */

static size_t hash_str(const char *s)
{
	uint64_t h = hash_fnv1a64(s);

	return (size_t)(h ^ h >> 29);
}

static size_t func_hash(const void *ctx, uint32_t func)
{
	const struct trace_stats *s = ctx;

	return hash_str(s->funcs[func].name);
}

/* What a probe by name looks for. */
struct by_name {
	const struct trace_stats *s;
	const char *name;
};

static bool named(const void *ctx, uint32_t func)
{
	const struct by_name *p = ctx;

	return strcmp(p->s->funcs[func].name, p->name) == 0;
}

static bool is_graph_root(const struct trace_stats *s, const char *name)
{
	for (size_t i = 0; i < s->ngraph; i++)
		if (fnmatch(s->graph[i], name, 0) == 0)
			return true;
	return false;
}

/* The function of that name, made on first sight.  UINT32_MAX: out of memory. */
static uint32_t func_named(struct trace_stats *s, const char *name, bool copy)
{
	uint32_t *slot;
	struct func *f;

	if (!hashtab_room(&s->by_name, func_hash, s))
		return UINT32_MAX;
	slot = hashtab_slot(&s->by_name, hash_str(name), named, &(struct by_name){ s, name });
	if (*slot)
		return *slot - 1;
	if (!grow_array(&s->funcs, s->nfuncs, &s->cap_funcs, sizeof(*s->funcs)))
		return UINT32_MAX;
	f = &s->funcs[s->nfuncs];
	*f = (struct func){ .name = name, .min = UINT64_MAX };
	if (copy && !(f->name = f->owned = strdup(name)))
		return UINT32_MAX;
	f->graph_root = is_graph_root(s, f->name);
	hashtab_put(&s->by_name, slot, (uint32_t)s->nfuncs);
	return (uint32_t)s->nfuncs++;
}

static uint32_t func_of_ra(struct trace_stats *s, uint64_t ra)
{
	struct u64map_entry *e = NULL;
	struct sym_func *sf;
	char buf[32];
	uint32_t fi;

	if (ra && !(e = u64map_find(&s->by_ra, ra)))
		return UINT32_MAX;
	if (e && e->key)
		return e->value;
	sf = s->symbolize(s->symbolize_ctx, ra);
	if (!sf)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, ra);
	fi = sf ? func_named(s, sf->name, false) : func_named(s, buf, true);
	if (e && fi != UINT32_MAX)
		u64map_add(&s->by_ra, e, ra, fi);
	return fi;
}

static struct gnode *gnode_at(const struct trace_stats *s, uint32_t n)
{
	return calltree_node(&s->tree, n);
}

/* The child of `parent` for `func`, made on first call.  0: out of memory (the call is in no graph). */
static uint32_t child_node(struct trace_stats *s, uint32_t parent, uint32_t func)
{
	bool made = false;
	uint32_t n = calltree_child(&s->tree, parent, func, &made);
	struct gnode *p;

	if (!made)
		return n;
	p = gnode_at(s, parent);
	if (p->last)
		gnode_at(s, p->last)->next = n;
	else
		p->first = n;
	p->last = n;
	return n;
}

/* ---- set-up ---- */

struct trace_stats *trace_stats_new(unsigned depth, double ns_per_tick, trace_symbolizer symbolize,
				    void *symbolize_ctx, const char **graph, size_t ngraph)
{
	struct trace_stats *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	*s = (struct trace_stats){ .depth = depth, .ns_per_tick = ns_per_tick, .symbolize = symbolize,
				   .symbolize_ctx = symbolize_ctx, .graph = graph, .ngraph = ngraph };
	/* Node 0: the root of all trees, read even when no --graph is asked for. */
	calltree_init(&s->tree, sizeof(struct gnode));
	if (!calltree_root(&s->tree)) {
		free(s);
		return NULL;
	}
	return s;
}

void trace_stats_free(struct trace_stats *s)
{
	if (!s)
		return;
	for (struct trace_stats_thread *t = s->threads, *next; t; t = next) {
		next = t->next;
		free(t->stack);
		free(t);
	}
	for (size_t i = 0; i < s->nfuncs; i++)
		free(s->funcs[i].owned);
	free(s->funcs);
	hashtab_free(&s->by_name);
	u64map_free(&s->by_ra);
	calltree_free(&s->tree);
	free(s);
}

struct trace_stats_thread *trace_stats_thread(struct trace_stats *s)
{
	struct trace_stats_thread *t = calloc(1, sizeof(*t));

	if (!t || !(t->stack = calloc(s->depth + 1, sizeof(*t->stack)))) {
		free(t);
		return NULL;
	}
	t->next = s->threads;
	s->threads = t;
	return t;
}

/* ---- the events ---- */

/* As the writer prints it (writer.c's on_close). */
static uint64_t duration_ns(const struct trace_stats *s, uint64_t ticks)
{
	return (uint64_t)((double)ticks * s->ns_per_tick / 1000.0 * 1000.0 + 0.5);
}

static void close_frame(struct trace_stats *s, struct trace_stats_thread *t, unsigned d, uint64_t ts)
{
	struct tframe *fr = &t->stack[d];
	uint64_t ns = ts > fr->ts ? duration_ns(s, ts - fr->ts) : 0;
	struct func *f;

	t->open = d;
	if (fr->func == UINT32_MAX)
		return;
	f = &s->funcs[fr->func];
	f->calls++;
	f->self += ns > fr->child ? ns - fr->child : 0;
	f->total += fr->recursive ? 0 : ns;
	f->min = ns < f->min ? ns : f->min;
	f->max = ns > f->max ? ns : f->max;
	s->calls++;
	if (d)
		t->stack[d - 1].child += ns;
	if (fr->node) {
		struct gnode *g = gnode_at(s, fr->node);

		g->calls++;
		g->total += ns;
	}
}

/* Frames at depth >= d whose exits were lost close at ts, as the writer closes them. */
static void close_to(struct trace_stats *s, struct trace_stats_thread *t, unsigned d, uint64_t ts)
{
	while (t->open > d)
		close_frame(s, t, t->open - 1, ts);
}

static bool recursive(const struct trace_stats_thread *t, unsigned d, uint32_t func)
{
	for (unsigned i = 0; i < d; i++)
		if (t->stack[i].func == func)
			return true;
	return false;
}

static int on_entry(struct trace_stats *s, struct trace_stats_thread *t, const uint64_t *ev)
{
	unsigned d = ev_depth(ev[1]);
	uint32_t func, parent;
	struct tframe *fr;

	if (d > s->depth)
		return 0;	/* not recorded (the writer skips it too) */
	close_to(s, t, d, ev[0]);
	for (unsigned g = t->open; g < d; g++)	/* entries lost with the buffers full */
		t->stack[g] = (struct tframe){ .ts = ev[0], .func = UINT32_MAX };
	func = func_of_ra(s, ev_ra(ev[1]));
	fr = &t->stack[d];
	*fr = (struct tframe){ .ts = ev[0], .func = func };
	t->open = d + 1;
	if (func == UINT32_MAX)
		return -1;
	fr->recursive = recursive(t, d, func);
	parent = d ? t->stack[d - 1].node : 0;
	if (parent || (s->ngraph && s->funcs[func].graph_root))
		fr->node = child_node(s, parent, func);
	return 0;
}

int trace_stats_read(struct trace_stats *s, struct trace_stats_thread *t, const struct trace_events *src)
{
	const uint64_t *ev;
	int rc = 0;

	while ((ev = src->peek(src->ctx))) {
		uint64_t ts = ev[0], word = ev[1];
		unsigned d = ev_depth(word);

		if (ev_type(word) == EV_ENTRY) {
			rc |= on_entry(s, t, ev);
		} else if (ev_type(word) == EV_ARGS) {
			/* arguments: nothing to count */
		} else if (ev_type(word) == EV_LOST) {
			close_to(s, t, d, ts);
		} else {
			close_to(s, t, d + 1, ts);
			if (d < t->open)
				close_frame(s, t, d, ts);
		}
		src->consume(src->ctx, ev_words(word));
	}
	return rc;
}

int trace_stats_end(struct trace_stats *s, struct trace_stats_thread *t, uint64_t now)
{
	close_to(s, t, 0, now);
	return 0;
}

size_t trace_stats_graph_roots(const struct trace_stats *s)
{
	size_t n = 0;

	for (uint32_t c = gnode_at(s, 0)->first; c; c = gnode_at(s, c)->next)
		n++;
	return n;
}

/* ---- sorting ---- */

const char trace_sort_keys[] = "total, self, calls, avg, min, max or name";

static const char *const sort_names[SORTS] = {
	[SORT_TOTAL] = "total", [SORT_SELF] = "self", [SORT_CALLS] = "calls", [SORT_AVG] = "avg",
	[SORT_MIN] = "min", [SORT_MAX] = "max", [SORT_NAME] = "name",
};

const enum trace_sort *trace_sort_by_name(const char *name)
{
	static const enum trace_sort keys[SORTS] = { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_AVG, SORT_MIN,
						     SORT_MAX, SORT_NAME };

	for (int i = 0; i < SORTS; i++)
		if (!strcmp(name, sort_names[i]))
			return &keys[i];
	return NULL;
}

static uint64_t avg_of(const struct func *f)
{
	return f->calls ? f->total / f->calls : 0;
}

/* The key's value: biggest first (names sort on their own). */
static uint64_t key_of(const struct func *f, enum trace_sort by)
{
	switch (by) {
	case SORT_SELF:
		return f->self;
	case SORT_CALLS:
		return f->calls;
	case SORT_AVG:
		return avg_of(f);
	case SORT_MIN:
		return f->min;
	case SORT_MAX:
		return f->max;
	default:
		return f->total;
	}
}

static enum trace_sort sort_by;		/* qsort has no context argument in C11 */

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a, *y = *(const struct func *const *)b;
	uint64_t kx = key_of(x, sort_by), ky = key_of(y, sort_by);

	if (sort_by != SORT_NAME && kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->name, y->name);	/* ties: by name, so the order is the same every time */
}

/* ---- output ---- */

struct out {
	int fd;
	bool failed;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!o->failed && vdprintf(o->fd, fmt, ap) < 0)
		o->failed = true;
	va_end(ap);
}

/* A JSON string (names are C identifiers, or "0x..."; any other byte is escaped). */
static void put_json_name(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\u%04x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void put_us(struct out *o, uint64_t ns)
{
	put(o, "  %12" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

int trace_summary_write(struct trace_stats *s, int fd, enum trace_sort by, bool json)
{
	const struct func **order = calloc(s->nfuncs ? s->nfuncs : 1, sizeof(*order));
	struct out o = { fd, false };
	size_t n = 0;

	if (!order)
		return -1;
	for (size_t i = 0; i < s->nfuncs; i++)
		if (s->funcs[i].calls)
			order[n++] = &s->funcs[i];
	sort_by = by;
	qsort(order, n, sizeof(*order), cmp_func);
	if (json)
		put(&o, "{\"sort\":\"%s\",\"time_unit\":\"ns\",\"functions\":[", sort_names[by]);
	else
		put(&o, "#     CALLS     TOTAL TIME (us)      SELF TIME (us)        AVERAGE (us)        MINIMUM (us)"
			"        MAXIMUM (us)  FUNCTION\n");
	for (size_t i = 0; i < n; i++) {
		const struct func *f = order[i];

		if (json) {
			put(&o, "%s\n{\"function\":", i ? "," : "");
			put_json_name(&o, f->name);
			put(&o, ",\"calls\":%" PRIu64 ",\"total\":%" PRIu64 ",\"self\":%" PRIu64 ",\"avg\":%" PRIu64
				",\"min\":%" PRIu64 ",\"max\":%" PRIu64 "}", f->calls, f->total, f->self, avg_of(f),
			    f->min, f->max);
			continue;
		}
		put(&o, "%11" PRIu64, f->calls);
		put_us(&o, f->total);
		put_us(&o, f->self);
		put_us(&o, avg_of(f));
		put_us(&o, f->min);
		put_us(&o, f->max);
		put(&o, "  %s\n", f->name);
	}
	if (json)
		put(&o, "\n]}\n");
	free(order);
	return o.failed ? -1 : 0;
}

/* One node and its subtree; `prefix` holds the bars of the levels above (2 characters each). */
static void graph_node(const struct trace_stats *s, struct out *o, uint32_t n, char *prefix, size_t len)
{
	const struct gnode *g = gnode_at(s, n);

	put_us(o, g->total);
	put(o, " us : %.*s%s(%" PRIu64 ") %s\n", (int)len, prefix, g->at.parent ? "+-" : "", g->calls,
	    s->funcs[g->at.key].name);
	for (uint32_t c = g->first; c; c = gnode_at(s, c)->next) {
		size_t more = len;

		if (g->at.parent) {
			/* Below this node: a bar while this node has siblings still to come. */
			prefix[more++] = g->next ? '|' : ' ';
			prefix[more++] = ' ';
		}
		graph_node(s, o, c, prefix, more);
	}
}

int trace_graph_write(const struct trace_stats *s, int fd)
{
	struct out o = { fd, false };
	char *prefix = malloc(2 * (size_t)s->depth + 4);

	if (!prefix)
		return -1;
	put(&o, "# the calls below each activation of");
	for (size_t i = 0; i < s->ngraph; i++)
		put(&o, " %s", s->graph[i]);
	put(&o, ", merged: total time, (calls) function\n");
	for (uint32_t r = gnode_at(s, 0)->first; r; r = gnode_at(s, r)->next) {
		put(&o, "\n");
		graph_node(s, &o, r, prefix, 0);
	}
	free(prefix);
	return o.failed ? -1 : 0;
}
