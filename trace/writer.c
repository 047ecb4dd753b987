// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace writer (trace/writer.h): turns the threads' events into text,
 * JSON or folded stacks.  In the runtime it runs under its lock, never on
 * the recording path: at exit, on objpatch_flush(), from any thread.
 * Threads are merged by time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/event.h"
#include "trace/writer.h"

/* Folded stacks: a trie of (parent, function) nodes. */
struct node {
	uint32_t parent;	/* 0: a root (node 0 is unused) */
	const char *name;
	uint64_t self_ticks;
};

/* Folded stacks: the name of code no function describes, made once per address. */
struct address_name {
	uint64_t ra;
	char *name;
};

struct trace_writer {
	struct trace_settings s;
	uint64_t ts0;
	double ns_per_tick;
	bool headed;		/* header written */
	bool started;		/* JSON: an event written (the next needs a comma) */
	char *note;		/* a line for the trace's head (text) or its otherData (JSON) */
	struct trace_thread **threads;	/* all it made, to free them */
	size_t nthreads, cap_threads;
	struct node *nodes;
	size_t nnodes, cap_nodes;
	uint32_t *node_hash;
	size_t hash_size;
	struct address_name *addr_names;
	size_t naddr_names, cap_addr_names;
	size_t olen;
	bool write_failed;	/* a write() failed: the trace is not whole */
	char obuf[1 << 16];
};

struct trace_thread {
	struct trace_events src;
	int tid;
	uint32_t open;		/* frames whose entry was written, innermost last */
	int32_t running;	/* frames the thread still had at the end; -1: not known */
	uint64_t *entry_ts;
	struct sym_func **func;
	uint64_t *ra;
	uint64_t *child;	/* folded: time spent in callees */
	uint32_t *node;		/* folded: the stack's node */
	char name[64];		/* "": none known */
};

/* ---- set-up ---- */

struct trace_writer *trace_writer_new(const struct trace_settings *s)
{
	struct trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->s = *s;
	w->ns_per_tick = 1.0;
	return w;
}

static void free_thread(struct trace_thread *t)
{
	free(t->entry_ts);
	free(t->func);
	free(t->ra);
	free(t->child);
	free(t->node);
	free(t);
}

void trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nthreads; i++)
		free_thread(w->threads[i]);
	for (size_t i = 0; i < w->naddr_names; i++)
		free(w->addr_names[i].name);
	free(w->addr_names);
	free(w->threads);
	free(w->nodes);
	free(w->node_hash);
	free(w->note);
	free(w);
}

void trace_writer_clock(struct trace_writer *w, uint64_t ts0, double ns_per_tick)
{
	w->ts0 = ts0;
	w->ns_per_tick = ns_per_tick;
}

struct trace_thread *trace_thread_new(struct trace_writer *w, int tid, const struct trace_events *src)
{
	struct trace_thread *t = calloc(1, sizeof(*t));
	size_t d = w->s.depth + 1;

	if (!t)
		return NULL;
	t->src = *src;
	t->tid = tid;
	t->running = -1;
	t->entry_ts = calloc(d, sizeof(*t->entry_ts));
	t->func = calloc(d, sizeof(*t->func));
	t->ra = calloc(d, sizeof(*t->ra));
	t->child = calloc(d, sizeof(*t->child));
	t->node = calloc(d, sizeof(*t->node));
	if (!t->entry_ts || !t->func || !t->ra || !t->child || !t->node ||
	    !grow_array(&w->threads, w->nthreads, &w->cap_threads, sizeof(*w->threads))) {
		free_thread(t);
		return NULL;
	}
	w->threads[w->nthreads++] = t;
	return t;
}

void trace_thread_name(struct trace_thread *t, const char *name)
{
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
}

void trace_writer_note(struct trace_writer *w, const char *note)
{
	free(w->note);
	w->note = note ? strdup(note) : NULL;
}

void trace_thread_running(struct trace_thread *t, unsigned depth)
{
	t->running = (int32_t)depth;
}

static double ticks_us(const struct trace_writer *w, uint64_t d)
{
	return (double)d * w->ns_per_tick / 1000.0;
}

/* ---- the output ---- */

static void out_flush(struct trace_writer *w)
{
	size_t done = 0;

	while (done < w->olen) {
		ssize_t n = write(w->s.fd, w->obuf + done, w->olen - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->write_failed = true;
			break;
		}
		done += (size_t)n;
	}
	w->olen = 0;
}

bool trace_writer_failed(const struct trace_writer *w)
{
	return w->write_failed;
}

static void out(struct trace_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct trace_writer *w, const char *fmt, ...)
{
	size_t room = sizeof(w->obuf) - w->olen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(w->obuf + w->olen, room, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= room) {
		out_flush(w);
		room = sizeof(w->obuf);
		va_start(ap, fmt);
		n = vsnprintf(w->obuf, room, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		w->olen += (size_t)n < room ? (size_t)n : room - 1;
	if (w->olen > sizeof(w->obuf) / 2)
		out_flush(w);
}

/* ---- names and values ---- */

static const char *name_of(const struct sym_func *f, uint64_t ra, char *buf, size_t len)
{
	if (f)
		return f->name;
	snprintf(buf, len, "0x%" PRIx64, ra);
	return buf;
}

struct captured {
	uint64_t addr;
	const uint8_t *bytes;
	size_t n;
};

static size_t read_captured(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct captured *c = ctx;
	uint64_t off = addr - c->addr;

	if (addr < c->addr || off >= c->n)
		return 0;
	if (n > c->n - off)
		n = c->n - off;
	memcpy(buf, c->bytes + off, n);
	return n;
}

/* "ret=VALUE" or "" (void) for an exit event. */
static void value_of(const struct trace_writer *w, const uint64_t *ev, struct sym_func *f, char *buf, size_t len)
{
	enum capture c = ev_capture(ev[1]);
	const uint64_t *words = ev + EV_HEADER_WORDS;
	const struct signature *sig = f ? sym_func_sig(f) : NULL;
	struct sig_type unknown = { .cls = TC_UNKNOWN };
	struct raw_value v;
	struct captured cap = { 0 };
	struct format_opts opts = { .hex = w->s.hex, .max_string = w->s.strlen_max, .read_mem = read_captured,
				    .ctx = &cap, .target = &w->s.machine->values,
				    .errno_names = w->s.errno_names };

	trace_value(w->s.machine, words, c, sig ? &sig->ret : &unknown, &v);
	if (c == CAPTURE_STRING) {
		/* Characters follow the registers: a length byte, then the bytes. */
		const uint8_t *s = (const uint8_t *)(words + ev_capture_words(c));

		cap = (struct captured){ v.gpr[0], s + 1, s[0] };
	}
	format_return(buf, len, sig, &v, &opts);
}

/* A JSON string: valid UTF-8 as it is, other bytes as U+FFFD, cut whole at 512 bytes. */
static void json_string(struct trace_writer *w, const char *s)
{
	char buf[512];
	size_t n = 0, len = strlen(s);

	for (size_t i = 0; i < len && n < sizeof(buf) - 8;) {
		unsigned char ch = (unsigned char)s[i];
		int k = utf8_len((const unsigned char *)s + i, len - i);

		if (ch == '"' || ch == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)ch;
		} else if (ch < 0x20) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\u%04x", ch);
		} else if (k > 0) {
			memcpy(buf + n, s + i, (size_t)k);
			n += (size_t)k;
		} else {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\ufffd");
		}
		i += k > 0 ? (size_t)k : 1;
	}
	buf[n] = 0;
	out(w, "\"%s\"", buf);
}

/* ---- folded stacks ---- */

static size_t hash_of(const struct trace_writer *w, uint32_t parent, const char *name)
{
	uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull ^ parent * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 17) & (w->hash_size - 1);
}

static bool rehash(struct trace_writer *w)
{
	size_t size = w->hash_size ? 2 * w->hash_size : 1024;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return false;
	free(w->node_hash);
	w->node_hash = h;
	w->hash_size = size;
	for (uint32_t i = 1; i < w->nnodes; i++) {
		size_t k = hash_of(w, w->nodes[i].parent, w->nodes[i].name);

		while (w->node_hash[k])
			k = (k + 1) & (w->hash_size - 1);
		w->node_hash[k] = i;
	}
	return true;
}

/* Node 0 stands for "no node" (out of memory): its time is dropped.  Names are compared as pointers. */
static uint32_t node_for(struct trace_writer *w, uint32_t parent, const char *name)
{
	size_t k;

	if (!w->nnodes) {
		if (!grow_array(&w->nodes, 0, &w->cap_nodes, sizeof(*w->nodes)))
			return 0;
		w->nodes[0] = (struct node){ 0, "", 0 };
		w->nnodes = 1;
	}
	if (2 * w->nnodes >= w->hash_size && !rehash(w))
		return 0;
	for (k = hash_of(w, parent, name); w->node_hash[k]; k = (k + 1) & (w->hash_size - 1))
		if (w->nodes[w->node_hash[k]].parent == parent && w->nodes[w->node_hash[k]].name == name)
			return w->node_hash[k];
	if (!grow_array(&w->nodes, w->nnodes, &w->cap_nodes, sizeof(*w->nodes)))
		return 0;
	w->nodes[w->nnodes] = (struct node){ parent, name, 0 };
	w->node_hash[k] = (uint32_t)w->nnodes;
	return (uint32_t)w->nnodes++;
}

/*
 * A node keeps its name for good: code no function describes gets one name
 * per address, made once.  NULL: out of memory.
 */
static const char *folded_name(struct trace_writer *w, const struct sym_func *f, uint64_t ra)
{
	char buf[32], *name;

	if (f)
		return f->name;
	for (size_t i = 0; i < w->naddr_names; i++)
		if (w->addr_names[i].ra == ra)
			return w->addr_names[i].name;
	name = strdup(name_of(NULL, ra, buf, sizeof(buf)));
	if (!name || !grow_array(&w->addr_names, w->naddr_names, &w->cap_addr_names, sizeof(*w->addr_names))) {
		free(name);
		return NULL;
	}
	w->addr_names[w->naddr_names++] = (struct address_name){ ra, name };
	return name;
}

static void print_path(struct trace_writer *w, uint32_t n)
{
	if (w->nodes[n].parent)	/* depth is bounded by the shadow stack */
		print_path(w, w->nodes[n].parent);
	out(w, "%s%s", w->nodes[n].parent ? ";" : "", w->nodes[n].name);
}

static void write_folded(struct trace_writer *w)
{
	for (uint32_t i = 1; i < w->nnodes; i++) {
		uint64_t ns = (uint64_t)((double)w->nodes[i].self_ticks * w->ns_per_tick + 0.5);

		if (!ns)
			continue;
		print_path(w, i);
		out(w, " %" PRIu64 "\n", ns);
	}
}

/* ---- one event ---- */

/*
 * The kernel's marks, decided as it decides them, on whole nanoseconds:
 * the same number the line prints (its three decimals), so a reader
 * applying the rule to the printed duration agrees at every boundary.
 */
static char duration_mark(uint64_t ns)
{
	return ns > 1000000000 ? '$' : ns > 100000000 ? '@' : ns > 10000000 ? '*' : ns > 1000000 ? '#' :
	       ns > 100000 ? '!' : ns > 10000 ? '+' : ' ';
}

static void text_line(struct trace_writer *w, int tid, unsigned depth, const uint64_t *ns, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void text_line(struct trace_writer *w, int tid, unsigned depth, const uint64_t *ns, const char *fmt, ...)
{
	char body[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (ns)
		out(w, "%8d) %c%5" PRIu64 ".%03u us  |  %*s%s\n", tid, duration_mark(*ns), *ns / 1000,
		    (unsigned)(*ns % 1000), 2 * (int)depth, "", body);
	else
		out(w, "%8d)               |  %*s%s\n", tid, 2 * (int)depth, "", body);
}

static void json_event(struct trace_writer *w, char ph, const char *name, uint64_t ts, int tid,
		       const char *args_key, const char *args_val, bool raw)
{
	out(w, "%s{\"name\":", w->started ? ",\n" : "");
	json_string(w, name);
	out(w, ",\"ph\":\"%c\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d", ph, ticks_us(w, ts - w->ts0), w->s.pid, tid);
	if (args_key) {
		out(w, ",\"args\":{\"%s\":", args_key);
		if (raw)
			out(w, "%s", args_val);
		else
			json_string(w, args_val);
		out(w, "}");
	}
	out(w, "}");
	w->started = true;
}

static void on_close(struct trace_writer *w, struct trace_thread *t, unsigned d, const uint64_t *ev, uint64_t now,
		     bool leaf, const char *reason);

/*
 * Frames at depth >= d whose exit never came: the buffers were full when
 * it happened.  Closed here so the trace stays well-formed.
 */
static void close_lost(struct trace_writer *w, struct trace_thread *t, unsigned d, uint64_t ts)
{
	while (t->open > d)
		on_close(w, t, t->open - 1, NULL, ts, false, "lost");
}

/* An entry: remembered, and written unless it is a leaf (written at its exit). */
static void on_entry(struct trace_writer *w, struct trace_thread *t, const uint64_t *ev, bool leaf)
{
	unsigned d = ev_depth(ev[1]);
	uint64_t ra = ev_ra(ev[1]);
	struct sym_func *f = w->s.symbolize(w->s.symbolize_ctx, ra);
	char nb[32];

	if (d > w->s.depth)
		return;
	close_lost(w, t, d, ev[0]);
	t->entry_ts[d] = ev[0];
	t->func[d] = f;
	t->ra[d] = ra;
	t->child[d] = 0;
	t->open = d + 1;
	if (w->s.format == TRACE_FOLDED) {
		const char *name = folded_name(w, f, ra);

		t->node[d] = name ? node_for(w, d ? t->node[d - 1] : 0, name) : 0;
	} else if (w->s.format == TRACE_JSON) {
		json_event(w, 'B', name_of(f, ra, nb, sizeof(nb)), ev[0], t->tid, NULL, NULL, false);
	} else if (!leaf) {
		text_line(w, t->tid, d, NULL, "%s() {", name_of(f, ra, nb, sizeof(nb)));
	}
}

static uint64_t not_before(uint64_t ts, uint64_t earliest)
{
	return ts < earliest ? earliest : ts;
}

/* An exit or unwound frame, or (ev NULL) one closed at `now` for `reason`. */
static void on_close(struct trace_writer *w, struct trace_thread *t, unsigned d, const uint64_t *ev, uint64_t now,
		     bool leaf, const char *reason)
{
	/* Not known: its entry was lost (buffers full) or the parent's before a fork. */
	bool known = d < t->open && d <= w->s.depth;
	struct sym_func *f = known ? t->func[d] : NULL;
	/* Never before its entry (an end taken before the thread's last events): no duration wraps. */
	uint64_t ts = not_before(ev ? ev[0] : now, known ? t->entry_ts[d] : 0);
	uint64_t ns = known ? (uint64_t)(ticks_us(w, ts - t->entry_ts[d]) * 1000.0 + 0.5) : 0;
	char nb[32], val[FORMAT_RET_SIZE(128) + 64] = "";
	const char *name = known ? name_of(f, t->ra[d], nb, sizeof(nb)) : "?";
	const char *why = !ev ? reason : ev_type(ev[1]) == EV_UNWOUND ? "unwound" : NULL;

	if (ev)
		close_lost(w, t, d + 1, ts);
	if (ev && !why && w->s.format != TRACE_FOLDED)
		value_of(w, ev, f, val, sizeof(val));
	if (w->s.format == TRACE_TEXT) {
		const uint64_t *dur = known ? &ns : NULL;

		if (why && leaf)
			text_line(w, t->tid, d, dur, "%s(); /* %s */", name, why);
		else if (why)
			text_line(w, t->tid, d, dur, "} /* %s %s */", name, why);
		else if (leaf)
			text_line(w, t->tid, d, dur, val[0] ? "%s(); /* %s */" : "%s();%s", name, val);
		else
			text_line(w, t->tid, d, dur, val[0] ? "} /* %s %s */" : "} /* %s%s */", name, val);
	} else if (w->s.format == TRACE_JSON && known) {
		if (why)
			json_event(w, 'E', name, ts, t->tid, why, "true", true);
		else
			json_event(w, 'E', name, ts, t->tid, val[0] ? "ret" : NULL, val + 4, false);
	} else if (w->s.format == TRACE_FOLDED && known) {
		uint64_t dur = ts - t->entry_ts[d];

		w->nodes[t->node[d]].self_ticks += dur > t->child[d] ? dur - t->child[d] : 0;
		if (d)
			t->child[d - 1] += dur;
	}
	if (d < t->open)
		t->open = d;
}

static void process(struct trace_writer *w, struct trace_thread *t, const uint64_t *at)
{
	uint64_t ev[EV_MAX_WORDS];
	unsigned type = ev_type(at[1]);

	/* Peeking at the next event may free the buffer this one is in. */
	memcpy(ev, at, ev_words(at[1]) * 8);
	t->src.consume(t->src.ctx, ev_words(ev[1]));
	if (type == EV_ENTRY) {
		const uint64_t *next = t->src.peek(t->src.ctx);
		bool leaf = next && ev_type(next[1]) != EV_ENTRY && ev_depth(next[1]) == ev_depth(ev[1]);

		on_entry(w, t, ev, leaf);
		if (leaf) {
			t->src.consume(t->src.ctx, ev_words(next[1]));
			on_close(w, t, ev_depth(next[1]), next, 0, true, NULL);
		}
	} else {
		on_close(w, t, ev_depth(ev[1]), ev, 0, false, NULL);
	}
}

static void header(struct trace_writer *w)
{
	if (w->headed)
		return;
	w->headed = true;
	if (w->s.format == TRACE_TEXT)
		out(w, "# objpatch function graph, pid %d\n"
		       "#      TID   DURATION      FUNCTION CALLS\n"
		       "#       |    |   |         |   |   |   |\n", w->s.pid);
	if (w->s.format == TRACE_TEXT && w->note)
		out(w, "# objpatch: %s\n", w->note);
	else if (w->s.format == TRACE_JSON)
		out(w, "{\"traceEvents\":[\n");
}

/* One "M" event: a name Chrome's viewer and Perfetto show for the process or a thread (tid > 0). */
static void json_metadata(struct trace_writer *w, const char *what, int tid, const char *name)
{
	out(w, "%s{\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%d", w->started ? ",\n" : "", what, w->s.pid);
	if (tid > 0)
		out(w, ",\"tid\":%d", tid);
	out(w, ",\"args\":{\"name\":");
	json_string(w, name);
	out(w, "}}");
	w->started = true;
}

/* JSON: the names of the process and of every thread that has one, as uftrace's chrome dump gives them. */
static void json_names(struct trace_writer *w)
{
	if (w->s.process_name && *w->s.process_name)
		json_metadata(w, "process_name", 0, w->s.process_name);
	for (size_t i = 0; i < w->nthreads; i++)
		if (w->threads[i]->name[0])
			json_metadata(w, "thread_name", w->threads[i]->tid, w->threads[i]->name);
}

static void trailer(struct trace_writer *w, const struct trace_counts *c)
{
	if (c->missed_depth)
		fprintf(stderr, "objpatch: %" PRIu64 " calls not traced (shadow stack full at depth %u)\n",
			c->missed_depth, w->s.depth);
	if (c->missed_busy)
		fprintf(stderr, "objpatch: %" PRIu64 " calls not traced (signal handler inside the tracer)\n",
			c->missed_busy);
	if (c->lost)
		fprintf(stderr, "objpatch: %" PRIu64 " events lost (trace buffers full)\n", c->lost);
	if (w->s.format == TRACE_FOLDED) {
		write_folded(w);
	} else if (w->s.format == TRACE_JSON) {
		json_names(w);
		out(w, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"missed_depth\":%" PRIu64
		    ",\"missed_reentry\":%" PRIu64 ",\"lost\":%" PRIu64, c->missed_depth, c->missed_busy, c->lost);
		if (w->note) {
			out(w, ",\"note\":");
			json_string(w, w->note);
		}
		out(w, "}}\n");
	}
	if (w->s.format == TRACE_TEXT && (c->missed_depth || c->missed_busy || c->lost))
		out(w, "# objpatch: %" PRIu64 " calls not traced (shadow stack full at depth %u), %" PRIu64
		    " in signal handlers inside the tracer, %" PRIu64 " events lost (buffers full)\n",
		    c->missed_depth, w->s.depth, c->missed_busy, c->lost);
}

/* The thread whose next event is the oldest, or NULL when all are drained. */
static struct trace_thread *oldest(struct trace_thread *const *threads, size_t n, const uint64_t **ev)
{
	struct trace_thread *best = NULL;

	*ev = NULL;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *e = threads[i]->src.peek(threads[i]->src.ctx);

		if (e && (!*ev || e[0] < (*ev)[0])) {
			*ev = e;
			best = threads[i];
		}
	}
	return best;
}

void trace_write(struct trace_writer *w, struct trace_thread *const *threads, size_t n, bool always_header)
{
	const uint64_t *ev;
	struct trace_thread *t;

	/* Nothing traced, nothing written on standard error. */
	if (always_header || w->note || oldest(threads, n, &ev))
		header(w);
	while ((t = oldest(threads, n, &ev)))
		process(w, t, ev);
	out_flush(w);
}

void trace_write_end(struct trace_writer *w, struct trace_thread *const *threads, size_t n, uint64_t now,
		     const struct trace_counts *c)
{
	if (!w->headed)
		return;
	/*
	 * A frame deeper than those its thread still had returned, but its
	 * exit found the buffers full: lost.  The others still run.
	 */
	for (size_t i = 0; i < n; i++) {
		struct trace_thread *t = threads[i];

		while (t->open)
			on_close(w, t, t->open - 1, NULL, now, false,
				 t->running >= 0 && t->open > (uint32_t)t->running ? "lost" : "unfinished");
	}
	trailer(w, c);
	out_flush(w);
}
