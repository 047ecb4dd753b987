// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event filters (trace/filter.h).  Every option is one stage of the same
 * engine: a stack of the input's open frames, each kept, dropped or (for
 * the options that need the future) pending.  A pending frame becomes kept
 * when one of its descendants is kept (then its entry is written, with
 * those of the pending frames around it), and is dropped when it closes
 * undecided, unless its own close keeps it (--min-duration).  The stages
 * differ only in two decisions: at a frame's entry, and at a pending
 * frame's close (the table `stage_rules`).
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/event.h"
#include "trace/filter.h"
#include "util/u64map.h"

enum fstate { F_DROP, F_KEEP, F_PENDING };

struct trace_filter_set {
	struct trace_filter_opts o;
	unsigned depth;
	double ns_per_tick;
	trace_symbolizer symbolize;
	void *symbolize_ctx;
	struct u64map cache;	/* what an address's function matches (bits of 1 << TF_*) */
	bool matched[TF_KINDS];
};

struct fframe {
	uint64_t ts, word;	/* the input's entry; word 0: a frame whose entry was lost */
	uint8_t state;
	uint32_t kept;		/* kept frames at and below this one */
};

struct stage {
	enum trace_filter_kind kind;
	struct trace_filter_set *set;
	struct trace_events in, out;
	struct fframe *stack;
	unsigned open, cap;
	uint64_t *q;		/* events ready for the next stage */
	size_t qhead, qlen;
	/* Each open frame's EV_ARGS event (EV_ARGS_MAX_WORDS words; header 0: none); NULL until one comes. */
	uint64_t *args;
	bool ended, end_done;
	uint64_t end_ts;
};

struct trace_filter {
	struct stage *stages;
	size_t n;
	struct trace_events src;	/* the thread's own, when no stage is asked for */
};

/* ---- names, matched once per address ---- */

static bool glob_matches(const char *glob, const char *name)
{
	return fnmatch(glob, name, 0) == 0;
}

static bool any_matches(const char **globs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (glob_matches(globs[i], name))
			return true;
	return false;
}

bool trace_filter_keeps(const struct trace_filter_opts *o, const char *name)
{
	bool on = o->nglobs && !o->glob_on[0];

	for (size_t i = 0; i < o->nglobs; i++)
		if (glob_matches(o->globs[i], name))
			on = o->glob_on[i];
	return on;
}

static uint8_t match_bits(const struct trace_filter_set *s, uint64_t ra)
{
	struct sym_func *f = s->symbolize(s->symbolize_ctx, ra);
	char buf[32];
	const char *name = f ? f->name : buf;

	if (!f)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, ra);
	return (uint8_t)(trace_filter_keeps(&s->o, name) << TF_MATCH |
			 any_matches(s->o.below, s->o.nbelow, name) << TF_BELOW |
			 any_matches(s->o.callers, s->o.ncallers, name) << TF_CALLERS);
}

/* Out of memory: decided again every time, which is only slower. */
static uint8_t matches(struct trace_filter_set *s, uint64_t ra)
{
	struct u64map_entry *e = ra ? u64map_find(&s->cache, ra) : NULL;

	if (!e)
		return match_bits(s, ra);
	if (!e->key)
		u64map_add(&s->cache, e, ra, match_bits(s, ra));
	return (uint8_t)e->value;
}

/* ---- the stages' decisions ---- */

/* A call's duration as the writer prints it (writer.c's on_close), so both agree at the boundary. */
static uint64_t duration_ns(const struct trace_filter_set *s, uint64_t ticks)
{
	return (uint64_t)((double)ticks * s->ns_per_tick / 1000.0 * 1000.0 + 0.5);
}

struct stage_rule {
	/* The state of a frame entering at depth d (parent: the frame below, or NULL). */
	enum fstate (*enter)(struct stage *st, const struct fframe *parent, unsigned d, uint64_t ra);
	/* A pending frame that closes at ts: kept? */
	bool (*close)(struct stage *st, const struct fframe *f, uint64_t ts);
};

static enum fstate enter_match(struct stage *st, const struct fframe *parent, unsigned d, uint64_t ra)
{
	(void)parent, (void)d;
	return matches(st->set, ra) & 1 << TF_MATCH ? F_KEEP : F_DROP;
}

/* Below FUNCTION: it, or a frame whose parent is kept (an ancestor is FUNCTION). */
static enum fstate enter_below(struct stage *st, const struct fframe *parent, unsigned d, uint64_t ra)
{
	(void)d;
	return (parent && parent->state == F_KEEP) || matches(st->set, ra) & 1 << TF_BELOW ? F_KEEP : F_DROP;
}

/* FUNCTION is kept, and with it the pending frames around it; the others wait for one. */
static enum fstate enter_callers(struct stage *st, const struct fframe *parent, unsigned d, uint64_t ra)
{
	(void)parent, (void)d;
	return matches(st->set, ra) & 1 << TF_CALLERS ? F_KEEP : F_PENDING;
}

static enum fstate enter_pending(struct stage *st, const struct fframe *parent, unsigned d, uint64_t ra)
{
	(void)st, (void)parent, (void)d, (void)ra;
	return F_PENDING;
}

/* The input's depth is the shown tree's: what comes before keeps whole stacks or rewrites depths. */
static enum fstate enter_max_depth(struct stage *st, const struct fframe *parent, unsigned d, uint64_t ra)
{
	(void)parent, (void)ra;
	return d < st->set->o.max_depth ? F_KEEP : F_DROP;
}

static bool close_never(struct stage *st, const struct fframe *f, uint64_t ts)
{
	(void)st, (void)f, (void)ts;
	return false;
}

static bool close_long(struct stage *st, const struct fframe *f, uint64_t ts)
{
	return ts >= f->ts && duration_ns(st->set, ts - f->ts) >= st->set->o.min_ns;
}

static const struct stage_rule stage_rules[TF_KINDS] = {
	[TF_MATCH] = { enter_match, close_never },
	[TF_BELOW] = { enter_below, close_never },
	[TF_CALLERS] = { enter_callers, close_never },
	[TF_MIN_DURATION] = { enter_pending, close_long },
	[TF_MAX_DEPTH] = { enter_max_depth, close_never },
};

/* ---- the engine ---- */

static void emit(struct stage *st, const uint64_t *ev, size_t words)
{
	memcpy(st->q + st->qhead + st->qlen, ev, words * 8);
	st->qlen += words;
}

static uint32_t kept_below(const struct stage *st, unsigned d)
{
	return d ? st->stack[d - 1].kept : 0;
}

static uint64_t with_depth(uint64_t header, uint32_t depth)
{
	return (header & ~(0xffffffull << 8)) | (uint64_t)depth << 8;
}

/* Frame d's arguments, if its entry came with them, after its entry (emitted at depth `kept`). */
static void emit_args(struct stage *st, unsigned d, uint32_t kept)
{
	uint64_t *a = st->args ? st->args + (size_t)d * EV_ARGS_MAX_WORDS : NULL;

	if (!a || ev_type(a[1]) != EV_ARGS)
		return;
	a[1] = with_depth(a[1], kept);
	emit(st, a, ev_words(a[1]));
}

/*
 * An entry's EV_ARGS event, which follows it: kept with its frame.  The
 * queue grows to hold every frame's entry and arguments at once.
 */
static void take_args(struct stage *st, unsigned d)
{
	const uint64_t *e = st->in.peek(st->in.ctx);
	size_t words;
	uint64_t *q;

	if (st->args)
		st->args[(size_t)d * EV_ARGS_MAX_WORDS + 1] = 0;
	if (!e || ev_type(e[1]) != EV_ARGS)
		return;
	words = ev_words(e[1]);
	if (!st->args && words <= EV_ARGS_MAX_WORDS) {
		st->args = calloc((size_t)st->cap * EV_ARGS_MAX_WORDS, sizeof(*st->args));
		q = st->args ? realloc(st->q, ((2 + EV_ARGS_MAX_WORDS) * (size_t)st->cap + EV_MAX_WORDS) *
						      sizeof(*st->q)) : NULL;
		if (!q) {
			free(st->args);
			st->args = NULL;
		} else {
			st->q = q;
		}
	}
	if (st->args && words <= EV_ARGS_MAX_WORDS)
		memcpy(st->args + (size_t)d * EV_ARGS_MAX_WORDS, e, words * 8);
	st->in.consume(st->in.ctx, words);
}

/* The pending frames up to depth `top` are kept: their entries go out, outermost first. */
static void keep_pending(struct stage *st, unsigned top)
{
	unsigned d = top + 1;

	while (d && st->stack[d - 1].state == F_PENDING)
		d--;
	for (; d <= top; d++) {
		struct fframe *f = &st->stack[d];
		uint64_t ev[2] = { f->ts, EV_ENTRY_WORD(ev_ra(f->word), kept_below(st, d)) };

		f->state = F_KEEP;
		f->kept = kept_below(st, d) + 1;
		emit(st, ev, 2);
		emit_args(st, d, kept_below(st, d));
	}
	st->set->matched[st->kind] = true;
}

/*
 * Frames at depth >= d close at ts without their exits (the buffers were
 * full when they came), as the writer closes them: a pending one is
 * decided as if it closed then, and the kept ones are closed by an
 * EV_LOST, since the event that closes them may not be shown.
 */
static void close_lost(struct stage *st, unsigned d, uint64_t ts)
{
	if (st->open <= d)
		return;
	for (unsigned i = st->open; i-- > d && st->stack[i].state == F_PENDING;) {
		if (st->stack[i].word && stage_rules[st->kind].close(st, &st->stack[i], ts)) {
			keep_pending(st, i);
			break;
		}
	}
	for (unsigned i = d; i < st->open; i++) {
		if (st->stack[i].state == F_KEEP) {
			uint64_t ev[2] = { ts, EV_HEADER(EV_LOST, kept_below(st, d), 0, EV_HEADER_WORDS) };

			emit(st, ev, 2);
			break;
		}
	}
	st->open = d;
}

static void on_entry(struct stage *st, const uint64_t *ev)
{
	unsigned d = ev_depth(ev[1]);
	struct fframe *f;

	if (d >= st->cap)
		return;		/* deeper than the recording's stack: not recorded */
	close_lost(st, d, ev[0]);
	for (unsigned g = st->open; g < d; g++)	/* entries lost with the buffers full */
		st->stack[g] = (struct fframe){ 0, 0, F_DROP, kept_below(st, g) };
	f = &st->stack[d];
	*f = (struct fframe){ ev[0], ev[1], F_DROP, 0 };
	f->state = stage_rules[st->kind].enter(st, d ? &st->stack[d - 1] : NULL, d, ev_ra(ev[1]));
	st->open = d + 1;
	f->kept = kept_below(st, d);
	if (f->state == F_KEEP) {
		f->state = F_PENDING;	/* kept with the pending frames around it */
		keep_pending(st, d);
	}
}

static void on_close(struct stage *st, const uint64_t *ev)
{
	unsigned d = ev_depth(ev[1]);
	uint64_t out[EV_MAX_WORDS];
	struct fframe *f;

	close_lost(st, d + 1, ev[0]);
	if (d >= st->open || !st->stack[d].word) {
		close_lost(st, d, ev[0]);
		return;		/* its entry is not known: nothing says what it is */
	}
	f = &st->stack[d];
	if (f->state == F_PENDING && stage_rules[st->kind].close(st, f, ev[0]))
		keep_pending(st, d);
	if (f->state == F_KEEP) {
		memcpy(out, ev, ev_words(ev[1]) * 8);
		out[1] = with_depth(out[1], kept_below(st, d));
		emit(st, out, ev_words(ev[1]));
	}
	st->open = d;
}

/* The input ended: the deepest pending frame whose close at the end keeps it is kept, with those around it. */
static void on_end(struct stage *st)
{
	for (unsigned d = st->open; d-- > 0 && st->stack[d].state == F_PENDING;) {
		if (st->stack[d].word && stage_rules[st->kind].close(st, &st->stack[d], st->end_ts)) {
			keep_pending(st, d);
			break;
		}
	}
	/* Frames still pending are dropped: the stack keeps only kept ones open. */
	while (st->open && st->stack[st->open - 1].state == F_PENDING)
		st->open--;
}

static const uint64_t *stage_peek(void *ctx)
{
	struct stage *st = ctx;
	uint64_t ev[EV_MAX_WORDS];

	while (!st->qlen) {
		const uint64_t *e = st->in.peek(st->in.ctx);
		size_t words;

		if (!e) {
			if (!st->ended || st->end_done)
				return NULL;
			on_end(st);
			st->end_done = true;
			continue;
		}
		words = ev_words(e[1]);
		if (words > EV_MAX_WORDS || words < EV_HEADER_WORDS)
			words = EV_HEADER_WORDS;	/* the readers check events: never */
		memcpy(ev, e, words * 8);
		st->in.consume(st->in.ctx, words);
		if (ev_type(ev[1]) == EV_ENTRY) {
			if (ev_depth(ev[1]) < st->cap)
				take_args(st, ev_depth(ev[1]));
			on_entry(st, ev);
		} else if (ev_type(ev[1]) == EV_ARGS) {
			/* not after an entry: belongs to nothing */
		} else if (ev_type(ev[1]) == EV_LOST)
			close_lost(st, ev_depth(ev[1]), ev[0]);
		else
			on_close(st, ev);
	}
	return st->q + st->qhead;
}

static void stage_consume(void *ctx, size_t words)
{
	struct stage *st = ctx;

	st->qhead += words;
	st->qlen -= words;
	if (!st->qlen)
		st->qhead = 0;
}

/* ---- set-up ---- */

struct trace_filter_set *trace_filter_set_new(const struct trace_filter_opts *o, unsigned depth, double ns_per_tick,
					      trace_symbolizer symbolize, void *symbolize_ctx)
{
	struct trace_filter_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	*s = (struct trace_filter_set){ .o = *o, .depth = depth, .ns_per_tick = ns_per_tick, .symbolize = symbolize,
					.symbolize_ctx = symbolize_ctx };
	return s;
}

void trace_filter_set_free(struct trace_filter_set *s)
{
	if (!s)
		return;
	u64map_free(&s->cache);
	free(s);
}

/* Which stages the options ask for, in the order they run (structure first, then names, time, depth). */
static size_t stages_asked(const struct trace_filter_opts *o, enum trace_filter_kind *kinds)
{
	static const enum trace_filter_kind order[] = { TF_BELOW, TF_CALLERS, TF_MATCH, TF_MIN_DURATION, TF_MAX_DEPTH };
	bool asked[TF_KINDS] = {
		[TF_MATCH] = o->nglobs > 0, [TF_BELOW] = o->nbelow > 0, [TF_CALLERS] = o->ncallers > 0,
		[TF_MIN_DURATION] = o->min_ns > 0, [TF_MAX_DEPTH] = o->max_depth > 0,
	};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (asked[order[i]])
			kinds[n++] = order[i];
	return n;
}

bool trace_filter_active(const struct trace_filter_set *s)
{
	enum trace_filter_kind kinds[TF_KINDS];

	return stages_asked(&s->o, kinds) > 0;
}

bool trace_filter_tid(const struct trace_filter_opts *o, int tid)
{
	for (size_t i = 0; i < o->ntids; i++)
		if (o->tids[i] == tid)
			return true;
	return !o->ntids;
}

bool trace_filter_matched(const struct trace_filter_set *s, enum trace_filter_kind k)
{
	return s->matched[k];
}

struct trace_filter *trace_filter_new(struct trace_filter_set *s, const struct trace_events *src)
{
	struct trace_filter *f = calloc(1, sizeof(*f));
	enum trace_filter_kind kinds[TF_KINDS];
	unsigned cap = s->depth + 1;

	if (!f)
		return NULL;
	f->src = *src;
	f->n = stages_asked(&s->o, kinds);
	if (f->n && !(f->stages = calloc(f->n, sizeof(*f->stages))))
		goto oom;
	for (size_t i = 0; i < f->n; i++) {
		struct stage *st = &f->stages[i];

		*st = (struct stage){ .kind = kinds[i], .set = s, .cap = cap,
				      .in = i ? f->stages[i - 1].out : *src,
				      .out = { stage_peek, stage_consume, st } };
		/* At most every frame's entry and one event at a time. */
		st->stack = calloc(cap, sizeof(*st->stack));
		st->q = calloc(2 * (size_t)cap + EV_MAX_WORDS, sizeof(*st->q));
		if (!st->stack || !st->q)
			goto oom;
	}
	return f;
oom:
	trace_filter_free(f);
	return NULL;
}

void trace_filter_free(struct trace_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->stages[i].stack);
		free(f->stages[i].q);
		free(f->stages[i].args);
	}
	free(f->stages);
	free(f);
}

const struct trace_events *trace_filter_events(struct trace_filter *f)
{
	return f->n ? &f->stages[f->n - 1].out : &f->src;
}

void trace_filter_end(struct trace_filter *f, uint64_t now)
{
	for (size_t i = 0; i < f->n; i++) {
		f->stages[i].ended = true;
		f->stages[i].end_ts = now;
	}
}

/* ---- values ---- */

const char *trace_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;

	if (!*s || !strchr("0123456789.", *s))
		return "not a duration: give a number and a unit, such as 10us, 1.5ms, 2s or 100ns";
	v = strtod(s, &end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (!isfinite(v) || v * units[i].ns > 1e18)
			return "too long: give at most 1000000000s";
		if (v * units[i].ns < 0.5)
			return "shorter than a nanosecond: give at least 1ns";
		*ns = (uint64_t)(v * units[i].ns + 0.5);
		return NULL;
	}
	return end == s ? "not a duration: give a number and a unit, such as 10us, 1.5ms, 2s or 100ns"
			: "no unit (or an unknown one): give ns, us, ms or s after the number, such as 10us";
}

const char *trace_glob_error(const char *glob)
{
	if (!*glob)
		return "an empty pattern: give a name or a glob such as 'fib*'";
	for (const char *p = glob; *p; p++) {
		if (*p == '\\' && !*++p)
			return "a '\\' that quotes nothing at its end: remove it, or write \\\\ for the character";
		if (*p != '[')
			continue;
		const char *q = p + 1;

		q += *q == '!' || *q == '^';
		q += *q == ']';		/* first in the set: the character itself */
		if (!(q = strchr(q, ']')))
			return "an unclosed '[': close it, or write \\[ for the character itself";
		p = q;
	}
	return NULL;
}
