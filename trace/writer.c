// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace writer (trace/writer.h): turns the threads' events into text,
 * JSON, folded stacks or a flame graph (trace/svg.c).  In the runtime it
 * runs under its lock, never on the recording path: at exit, on
 * objpatch_flush(), from any thread.
 * Threads are merged by time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace/arg_text.h"
#include "trace/calltree.h"
#include "trace/digits.h"
#include "trace/event.h"
#include "trace/exit_words.h"
#include "trace/svg.h"
#include "trace/perfetto.h"
#include "trace/writer.h"
#include "util/array.h"

/* Folded stacks: a trie of (parent, function) nodes, keyed by the name's pointer; node 0 is unused. */
struct node {
	struct calltree_link at;
	uint64_t self_ticks;
};

/* Folded stacks: the name of code no function describes, made once per address. */
struct address_name {
	uint64_t ra;
	char *name;
};

/* From `tick` on, time is `ns` + ticks since `tick` at `rate` ns per tick. */
struct clock_span {
	uint64_t tick;
	double ns, rate;
};

struct trace_writer {
	struct trace_settings s;
	uint64_t ts0;
	double ns_per_tick;	/* the latest rate, for durations */
	struct clock_span *spans;	/* since ts0, in tick order */
	size_t nspans, cap_spans;
	bool headed;		/* header written */
	bool started;		/* JSON: an event written (the next needs a comma) */
	char *note;		/* a line for the trace's head (text) or its otherData (JSON) */
	struct trace_thread **threads;	/* all it made, to free them */
	size_t nthreads, cap_threads;
	struct calltree folded;	/* of struct node */
	struct address_name *addr_names;
	size_t naddr_names, cap_addr_names;
	size_t olen;
	uint64_t opos;		/* the file offset the buffer's first byte goes to */
	bool opos_known;	/* opos asked of the file, at the first write */
	bool write_failed;	/* a write() failed: the trace is not whole */
	struct svg_graph *svg;	/* TRACE_SVG's calls, drawn at the trace's end */
	struct perfetto *pf;	/* --format perfetto's encoder */
	struct format_opts word_opts;	/* format_return_word()'s, made once */
	char *obuf;		/* the output, written out when full */
	/*
	 * Where the buffer counts as full: obuf_cap, its allocation, or after
	 * out_flush_blocks() OUT_SLACK past the file's next OUT_ALIGN boundary.
	 */
	size_t obuf_size;
	size_t obuf_cap;
};

/*
 * The output buffer's least size: room for a line's common part and a
 * value formatted in place, and twice OUT_ALIGN, so that what a full
 * buffer keeps back (out_flush_blocks) leaves most of it free.
 */
#define OBUF_MIN (128u << 10)

struct trace_thread {
	struct trace_events src;
	int tid;
	uint32_t open;		/* frames whose entry was written, innermost last */
	/*
	 * Text: the innermost open frame's entry is not printed yet; its next
	 * event, not read yet (a trace still being written), says whether it
	 * is a leaf's one line or an opening one.
	 */
	bool pending;
	int32_t running;	/* frames the thread still had at the end; -1: not known */
	uint64_t *entry_ts;
	struct sym_func **func;
	uint64_t *ra;
	uint64_t *child;	/* folded, SVG: time spent in callees */
	uint32_t *node;		/* folded, SVG: the stack's node (SVG's frame) */
	char name[64];		/* "": none known */
	struct perfetto_track *pf;	/* perfetto: its track, from its first event */
	char head[16];		/* text: its lines' start, "%8d)" */
	size_t head_len;
	char ids[48];		/* JSON: its events' end, ,"pid":%d,"tid":%d */
	size_t ids_len;
	/* The innermost entry's EV_ARGS event (objpatch --args), while its line waits; args[1] 0: none. */
	uint64_t args[EV_ARGS_MAX_WORDS];
};

/* ---- set-up ---- */

static void out_bytes(void *ctx, const void *bytes, size_t n);

struct trace_writer *trace_writer_new(const struct trace_settings *s)
{
	struct trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->s = *s;
	w->ns_per_tick = 1.0;
	w->obuf_cap = w->obuf_size = s->out_buffer > OBUF_MIN ? s->out_buffer : OBUF_MIN;
	if (!(w->obuf = malloc(w->obuf_cap))) {
		free(w);
		return NULL;
	}
	w->word_opts = (struct format_opts){ .hex = s->hex, .target = s->machine ? &s->machine->values : NULL,
					     .errno_names = s->errno_names };
	calltree_init(&w->folded, sizeof(struct node));
	if ((s->format == TRACE_SVG && !(w->svg = svg_new())) ||
	    (s->format == TRACE_PERFETTO && !(w->pf = perfetto_new(&w->s, out_bytes, w)))) {
		free(w->obuf);
		free(w);
		return NULL;
	}
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
	calltree_free(&w->folded);
	free(w->note);
	free(w->spans);
	svg_free(w->svg);
	perfetto_free(w->pf);
	free(w->obuf);
	free(w);
}

/* Nanoseconds from the trace's start to tick `ts`, by the span it falls in. */
static double since_start_ns(const struct trace_writer *w, uint64_t ts)
{
	size_t i = w->nspans;

	if (!i)
		return ts > w->ts0 ? (double)(ts - w->ts0) * w->ns_per_tick : 0;
	while (i > 1 && w->spans[i - 1].tick > ts)
		i--;
	if (ts <= w->spans[i - 1].tick)
		return w->spans[i - 1].ns;
	return w->spans[i - 1].ns + (double)(ts - w->spans[i - 1].tick) * w->spans[i - 1].rate;
}

/*
 * A rate for the ticks from `from` on, joined to the time the earlier ticks
 * had: a rate measured later (over a longer time) differs in the sixth
 * digit, and applied to events a pass already wrote it would move the later
 * ones seconds into a run microseconds before them.
 */
void trace_writer_clock(struct trace_writer *w, uint64_t ts0, double ns_per_tick, uint64_t from)
{
	struct clock_span span = { from, 0, ns_per_tick }, *grown;

	if (!w->nspans) {
		w->ts0 = ts0;
		span.tick = ts0;
	} else if (from <= w->spans[w->nspans - 1].tick) {
		return;
	} else {
		span.ns = since_start_ns(w, from);
	}
	if (w->nspans == w->cap_spans) {
		grown = realloc(w->spans, (w->cap_spans * 2 + 4) * sizeof(*grown));
		if (!grown)
			return;	/* the rate before goes on: a little less exact */
		w->spans = grown;
		w->cap_spans = w->cap_spans * 2 + 4;
	}
	w->spans[w->nspans++] = span;
	w->ns_per_tick = ns_per_tick;
}

/* "%8d)" of the thread's id, once: every text line starts with it. */
static size_t thread_head(char *head, int tid)
{
	char tmp[DIGITS_MAX + 1], *end = tmp + sizeof(tmp);
	char *p = digits_dec(end, tid < 0 ? -(uint64_t)tid : (uint64_t)tid);
	size_t n;

	if (tid < 0)
		*--p = '-';
	n = (size_t)(end - p);
	memset(head, ' ', n < 8 ? 8 - n : 0);
	memcpy(head + (n < 8 ? 8 - n : 0), p, n);
	head[n < 8 ? 8 : n] = ')';
	return (n < 8 ? 8 : n) + 1;
}

/* Appends x in decimal at p, as %d; returns the end. */
static char *put_int_at(char *p, int x)
{
	char tmp[DIGITS_MAX + 1], *end = tmp + sizeof(tmp), *d = digits_dec(end, x < 0 ? -(uint64_t)x : (uint64_t)x);

	if (x < 0)
		*--d = '-';
	memcpy(p, d, (size_t)(end - d));
	return p + (end - d);
}

/* ,"pid":%d,"tid":%d once: every JSON event of the thread ends with it. */
static size_t thread_ids(char *ids, int pid, int tid)
{
	char *p = ids;

	memcpy(p, ",\"pid\":", 7);
	p = put_int_at(p + 7, pid);
	memcpy(p, ",\"tid\":", 7);
	p = put_int_at(p + 7, tid);
	return (size_t)(p - ids);
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
	t->head_len = thread_head(t->head, tid);
	t->ids_len = thread_ids(t->ids, w->s.pid, tid);
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

/*
 * Nanoseconds, saturated: a recording's timestamps and clock are read from
 * a file, and a duration past 2^64 ns must not be converted (undefined).
 */
static uint64_t ns_saturated(double ns)
{
	/* Every real duration is below 2^62: a signed conversion is one instruction, an unsigned one branches. */
	if (__builtin_expect(ns < 4611686018427387904.0, 1))
		return (uint64_t)(int64_t)(ns + 0.5);
	return ns < 18446744073709549568.0 ? (uint64_t)(ns + 0.5) : UINT64_MAX;
}

/*
 * A duration in nanoseconds, once per event: a signed conversion is one
 * instruction where an unsigned one branches, and no division.
 */
static uint64_t ticks_ns(const struct trace_writer *w, uint64_t d)
{
	double ticks = d >> 63 ? (double)d : (double)(int64_t)d;

	return ns_saturated(ticks * w->ns_per_tick);
}

/* ---- the output ---- */

/* Writes the buffer's first n bytes. */
static void out_write(struct trace_writer *w, size_t n)
{
	size_t done = 0;

	if (!w->opos_known) {
		off_t at = lseek(w->s.fd, 0, SEEK_CUR);	/* a pipe: -1, where alignment means nothing */

		w->opos = at > 0 ? (uint64_t)at : 0;
		w->opos_known = true;
	}
	while (done < n) {
		ssize_t k = write(w->s.fd, w->obuf + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->write_failed = true;
			break;
		}
		done += (size_t)k;
	}
	w->opos += n;
}

static void out_flush(struct trace_writer *w)
{
	out_write(w, w->olen);
	w->olen = 0;
	w->obuf_size = w->obuf_cap;
}

/*
 * The piece of the file a full buffer writes whole: a multiple of the
 * block and page size.  64 KiB pieces at 64 KiB offsets let the page
 * cache take them in large folios (ext4 on Linux 6.16 and later: a folio
 * is aligned to its size in the file) instead of a page at a time, each
 * with its own lookup and allocation: on calls.c write() took 191 ms of
 * perf's samples against 255 with 4 KiB alignment (folio allocation 5
 * against 30), on Lua 15% less system time; 128 KiB did no better.
 */
#define OUT_ALIGN 65536u
/*
 * How far past that boundary the buffer counts as full: more than the
 * room a line asks for (out_reserve), so that the buffer is full past the
 * boundary and what it keeps back to move to its start is this much at
 * most, not up to OUT_ALIGN (which copied the whole text once more: 9% of
 * the writer's instructions on calls.c).
 */
#define OUT_SLACK 4096u

/*
 * Room made in a full buffer: what ends on an OUT_ALIGN boundary of the
 * file is written, the rest moved to the buffer's start.  A write that
 * starts or ends inside a block makes the file system zero the rest of a
 * new block before copying (ext4: zero_user_segments), and a buffer
 * ending at a line's end would do that at both ends of every write.
 */
static void out_flush_blocks(struct trace_writer *w)
{
	size_t keep;

	if (!w->opos_known)
		out_write(w, 0);
	keep = (size_t)((w->opos + w->olen) % OUT_ALIGN);
	if (keep >= w->olen) {
		out_flush(w);
		return;
	}
	out_write(w, w->olen - keep);
	memmove(w->obuf, w->obuf + w->olen - keep, keep);
	w->olen = keep;
	/* The file is at a boundary now: the next is OUT_ALIGN on. */
	w->obuf_size = OUT_ALIGN + OUT_SLACK < w->obuf_cap ? OUT_ALIGN + OUT_SLACK : w->obuf_cap;
}

bool trace_writer_failed(const struct trace_writer *w)
{
	return w->write_failed;
}

/*
 * Appenders straight into the output buffer: an event's line is built in
 * place, without stdio's format parsing or a copy through a line buffer.
 * What does not fit is written out first; a piece larger than the buffer
 * goes in several.
 */
static void out_mem_slow(struct trace_writer *w, const char *s, size_t n)
{
	while (n) {
		size_t room = w->obuf_size - w->olen, k = n < room ? n : room;

		memcpy(w->obuf + w->olen, s, k);
		w->olen += k;
		s += k;
		n -= k;
		if (n)
			out_flush_blocks(w);
	}
}

/* Room for `n` more bytes, n at most the buffer's size: where they go. */
static inline char *out_reserve(struct trace_writer *w, size_t n)
{
	if (__builtin_expect(w->obuf_size - w->olen < n, 0)) {
		out_flush_blocks(w);
		if (w->obuf_size - w->olen < n)
			out_flush(w);
	}
	return w->obuf + w->olen;
}

static inline void out_mem(struct trace_writer *w, const char *s, size_t n)
{
	if (__builtin_expect(n <= w->obuf_size - w->olen, 1)) {
		memcpy(w->obuf + w->olen, s, n);
		w->olen += n;
	} else {
		out_mem_slow(w, s, n);
	}
}

/* A string literal: its length is known at compile time, so the copy is inlined. */
#define out_lit(w, s) out_mem((w), "" s, sizeof(s) - 1)

/* Bytes as they are: perfetto's packets. */
static void out_bytes(void *ctx, const void *bytes, size_t n)
{
	out_mem(ctx, bytes, n);
}

static void out_str(struct trace_writer *w, const char *s)
{
	out_mem(w, s, strlen(s));
}

static inline void out_ch(struct trace_writer *w, char c)
{
	out_mem(w, &c, 1);
}

static void out_fill(struct trace_writer *w, char c, size_t n)
{
	while (n) {
		size_t room = w->obuf_size - w->olen, k = n < room ? n : room;

		memset(w->obuf + w->olen, c, k);
		w->olen += k;
		n -= k;
		if (n)
			out_flush_blocks(w);
	}
}

/* A decimal number, `neg` its sign, right-aligned in `width` columns: printf's %*d and %*llu. */
static void out_dec(struct trace_writer *w, uint64_t x, bool neg, unsigned width)
{
	char tmp[DIGITS_MAX + 1], *end = tmp + sizeof(tmp), *p = digits_dec(end, x);
	size_t n;

	if (neg)
		*--p = '-';
	n = (size_t)(end - p);
	if (n < width)
		out_fill(w, ' ', width - n);
	out_mem(w, p, n);
}

static void out_int(struct trace_writer *w, int x, unsigned width)
{
	out_dec(w, x < 0 ? -(uint64_t)x : (uint64_t)x, x < 0, width);
}

static void out_u64(struct trace_writer *w, uint64_t x)
{
	out_dec(w, x, false, 0);
}

/* Three digits, with zeros in front: printf's %03u for 0..999. */
static void out_dec3(struct trace_writer *w, unsigned x)
{
	char d[3] = { (char)('0' + x / 100), (char)('0' + x / 10 % 10), (char)('0' + x % 10) };

	out_mem(w, d, 3);
}

/* printf's %.3f, without printf where the value fits digits_thousandths(). */
static void out_fixed3(struct trace_writer *w, double x)
{
	char tmp[400];
	uint64_t q;
	int n;

	if (digits_thousandths(x, &q)) {
		out_u64(w, q / 1000);
		out_ch(w, '.');
		out_dec3(w, (unsigned)(q % 1000));
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.3f", x);
	out_mem(w, tmp, n > 0 ? (size_t)n : 0);
}

/* ---- names and values ---- */

/* `buf` holds NAME_BUF bytes. */
#define NAME_BUF (DIGITS_MAX + 3)
static const char *name_of(const struct sym_func *f, uint64_t ra, char *buf)
{
	char *p;

	if (f)
		return f->name;
	buf[NAME_BUF - 1] = 0;
	p = digits_hex(buf + NAME_BUF - 1, ra, 1);
	*--p = 'x';
	*--p = '0';
	return p;
}

/*
 * A function's name (or its address) into the output: a name's length is
 * measured once, at its first line, and kept with it.
 */
static void out_name(struct trace_writer *w, struct sym_func *f, uint64_t ra, char *buf)
{
	if (!f) {
		out_str(w, name_of(NULL, ra, buf));
		return;
	}
	if (__builtin_expect(!f->name_len, 0))
		f->name_len = strlen(f->name);
	out_mem(w, f->name, f->name_len);
}

/* "ret=VALUE" or "" (void) for an exit event, as format_return() writes and counts it. */
static size_t value_of(const struct trace_writer *w, const uint64_t *ev, struct sym_func *f, char *buf, size_t len)
{
	const struct signature *sig = f ? sym_func_sig(f) : NULL;
	struct raw_value v;
	struct trace_captured cap;
	struct format_opts opts = { .hex = w->s.hex, .max_string = w->s.strlen_max, .read_mem = trace_read_captured,
				    .ctx = &cap, .target = &w->s.machine->values,
				    .errno_names = w->s.errno_names };

	trace_exit_value(w->s.machine, ev, sig ? &sig->ret : NULL, &v, &cap);
	return format_return(buf, len, sig, &v, &opts);
}

/*
 * "(x=3, s=0x...)": the arguments of the innermost entry, from its EV_ARGS
 * event; "()" when none was recorded.  A string's characters are not in
 * the trace: its address is shown.
 */
static void out_args_text(struct trace_writer *w, const struct trace_thread *t, struct sym_func *f)
{
	struct format_opts opts = { .hex = w->s.hex, .max_string = w->s.strlen_max, .read_mem = w->s.read_args,
				    .target = &w->s.machine->values };
	char small[512], *big = NULL, *s = small;
	size_t n;

	out_ch(w, '(');
	if (ev_type(t->args[1]) == EV_ARGS) {
		const struct signature *sig = f ? sym_func_sig(f) : NULL;

		n = trace_args_text(small, sizeof(small), w->s.machine->arch, sig, t->args, &opts);
		if (n >= sizeof(small) && (big = malloc(n + 1)))
			trace_args_text(big, n + 1, w->s.machine->arch, sig, t->args, &opts);
		out_str(w, big ? big : s);
		free(big);
	}
	out_ch(w, ')');
}

/* Most entries have no EV_ARGS event (no --args): their "()" needs no options built. */
static inline void out_args(struct trace_writer *w, const struct trace_thread *t, struct sym_func *f)
{
	if (__builtin_expect(ev_type(t->args[1]) != EV_ARGS, 1))
		out_lit(w, "()");
	else
		out_args_text(w, t, f);
}

/*
 * The value formatted in place, at the output's end: no copy.  A value in
 * one integer register (most) goes by format_return_word(), without the
 * general path's raw_value; `sig` is f's.
 */
static void out_value(struct trace_writer *w, const uint64_t *ev, struct sym_func *f, const struct signature *sig)
{
	size_t room = w->obuf_size - w->olen, n;

	if (ev_capture(ev[1]) == CAPTURE_GPR &&
	    (n = format_return_word(out_reserve(w, 64), 64, sig, ev[EV_HEADER_WORDS], &w->word_opts))) {
		w->olen += n;
		return;
	}

	/* Room for the common values, so that they are formatted once. */
	if (room < 1024) {
		out_flush_blocks(w);
		room = w->obuf_size - w->olen;
	}
	n = value_of(w, ev, f, w->obuf + w->olen, room);
	if (n >= room && w->olen) {
		out_flush(w);
		room = w->obuf_size;
		n = value_of(w, ev, f, w->obuf, room);
	}
	w->olen += n < room ? n : room - 1;
}

/* What a JSON string shows of a text: 512 bytes at most, quotes and an escape of 6 included. */
#define JSON_STRING_MAX (512 - 8)

/* Bytes a JSON string holds as they are: printable ASCII but '"' and '\\'. */
static bool json_plain(unsigned char ch)
{
	static const uint64_t plain[4] = { 0xfffffffb00000000ull, 0xffffffffefffffffull, 0, 0 };

	return plain[ch >> 6] >> (ch & 63) & 1;
}

/*
 * A JSON string: valid UTF-8 as it is, other bytes as U+FFFD, cut whole
 * after JSON_STRING_MAX bytes.  Plain ASCII, what names and most values
 * are, goes out in one copy.
 */
static void json_string(struct trace_writer *w, const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len && i < JSON_STRING_MAX && json_plain((unsigned char)s[i]))
		i++;
	out_ch(w, '"');
	out_mem(w, s, i);
	for (n = i; i < len && n < JSON_STRING_MAX;) {
		unsigned char ch = (unsigned char)s[i];
		int k = utf8_len((const unsigned char *)s + i, len - i);

		if (ch == '"' || ch == '\\') {
			out_mem(w, (const char[]){ '\\', (char)ch }, 2);
			n += 2;
		} else if (ch < 0x20) {
			out_mem(w, (const char[]){ '\\', 'u', '0', '0', (char)('0' + (ch >> 4)),
						   "0123456789abcdef"[ch & 15] }, 6);
			n += 6;
		} else if (k > 0) {
			out_mem(w, s + i, (size_t)k);
			n += (size_t)k;
		} else {
			out_lit(w, "\\ufffd");
			n += 6;
		}
		i += k > 0 ? (size_t)k : 1;
	}
	out_ch(w, '"');
}

/* ---- folded stacks ---- */

static struct node *node_at(const struct trace_writer *w, uint32_t n)
{
	return calltree_node(&w->folded, n);
}

static const char *node_name(const struct node *n)
{
	return (const char *)n->at.key;
}

/* Node 0 stands for "no node" (out of memory): its time is dropped.  Names are compared as pointers. */
static uint32_t node_for(struct trace_writer *w, uint32_t parent, const char *name)
{
	bool made;

	return calltree_child(&w->folded, parent, (uintptr_t)name, &made);
}

/*
 * A node keeps its name for good: code no function describes gets one name
 * per address, made once.  NULL: out of memory.
 */
static const char *folded_name(struct trace_writer *w, const struct sym_func *f, uint64_t ra)
{
	char buf[NAME_BUF], *name;

	if (f)
		return f->name;
	for (size_t i = 0; i < w->naddr_names; i++)
		if (w->addr_names[i].ra == ra)
			return w->addr_names[i].name;
	name = strdup(name_of(NULL, ra, buf));
	if (!name || !grow_array(&w->addr_names, w->naddr_names, &w->cap_addr_names, sizeof(*w->addr_names))) {
		free(name);
		return NULL;
	}
	w->addr_names[w->naddr_names++] = (struct address_name){ ra, name };
	return name;
}

static void print_path(struct trace_writer *w, uint32_t n)
{
	const struct node *node = node_at(w, n);

	if (node->at.parent)	/* depth is bounded by the shadow stack */
		print_path(w, node->at.parent);
	if (node->at.parent)
		out_ch(w, ';');
	out_str(w, node_name(node));
}

static void write_folded(struct trace_writer *w)
{
	for (uint32_t i = 1; i < w->folded.n; i++) {
		uint64_t ns = ns_saturated((double)node_at(w, i)->self_ticks * w->ns_per_tick);

		if (!ns)
			continue;
		print_path(w, i);
		out_ch(w, ' ');
		out_u64(w, ns);
		out_ch(w, '\n');
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
	if (ns <= 10000)	/* most calls: one test */
		return ' ';
	return ns > 1000000000 ? '$' : ns > 100000000 ? '@' : ns > 10000000 ? '*' : ns > 1000000 ? '#' :
	       ns > 100000 ? '!' : '+';
}

/*
 * A text line up to its function: "%8d) %c%5llu.%03u us  |  " (or no
 * duration) and the indentation, written with a pointer into the buffer
 * after one check for room: the part every line has.
 */
#define TEXT_HEAD_MAX 64
#define TEXT_INDENT_MAX 64	/* indentation written inline; deeper lines fill it */

/*
 * The line's start at `p`, which has room for TEXT_HEAD_MAX +
 * TEXT_INDENT_MAX bytes: its end.  Indentation past TEXT_INDENT_MAX is
 * left to the caller (`*rest` columns).
 */
static char *text_head_at(char *p, const struct trace_thread *t, unsigned depth, const uint64_t *ns, size_t *rest)
{
	static const char spaces[TEXT_INDENT_MAX] = "                                                                ";
	size_t indent = 2 * (size_t)depth;

	memcpy(p, t->head, sizeof(t->head));	/* whole: a copy of known size is a few moves */
	p += t->head_len;
	if (ns) {
		uint64_t us = *ns / 1000;
		unsigned frac = (unsigned)(*ns % 1000), n = digits_dec_len(us), width = n < 5 ? 5 : n;

		*p++ = ' ';
		*p++ = duration_mark(*ns);
		/* Right-aligned in 5 columns or more: spaces, then the digits written in place (digits_dec_len). */
		memset(p, ' ', 4);
		p += width;
		digits_dec(p, us);
		p[0] = '.';
		p[1] = (char)('0' + frac / 100);
		memcpy(p + 2, digits_pairs + 2 * (frac % 100), 2);
		memcpy(p + 4, " us  |  ", 8);
		p += 12;
	} else {
		memcpy(p, "               |  ", 18);
		p += 18;
	}
	*rest = 0;
	if (indent > TEXT_INDENT_MAX) {
		*rest = indent - TEXT_INDENT_MAX;
		indent = TEXT_INDENT_MAX;
	}
	memcpy(p, spaces, TEXT_INDENT_MAX);
	return p + indent;
}

/*
 * A text line up to its function: "%8d) %c%5llu.%03u us  |  " (or no
 * duration) and the indentation, written with a pointer into the buffer
 * after one check for room: the part every line has.
 */
static void text_head(struct trace_writer *w, const struct trace_thread *t, unsigned depth, const uint64_t *ns)
{
	char *start = out_reserve(w, TEXT_HEAD_MAX + TEXT_INDENT_MAX);
	size_t rest;

	w->olen += (size_t)(text_head_at(start, t, depth, ns, &rest) - start);
	out_fill(w, ' ', rest);
}

/* A JSON event up to its arguments: {"name":...,"ph":...,"ts":...,"pid":...,"tid":... */
static void json_event(struct trace_writer *w, char ph, const char *name, uint64_t ts, const struct trace_thread *t)
{
	if (w->started)
		out_lit(w, ",\n");
	out_lit(w, "{\"name\":");
	json_string(w, name, strlen(name));
	out_lit(w, ",\"ph\":\"");
	out_ch(w, ph);
	out_lit(w, "\",\"ts\":");
	out_fixed3(w, since_start_ns(w, ts) / 1000.0);
	out_mem(w, t->ids, t->ids_len);
	w->started = true;
}

struct json_args {
	struct trace_writer *w;
	unsigned n;
};

static void json_arg(void *ctx, const char *name, const char *value, const struct sig_type *type,
		     const struct raw_value *v)
{
	struct json_args *j = ctx;
	char made[16];

	(void)type, (void)v;
	out_str(j->w, j->n++ ? "," : ",\"args\":{");
	if (!*name) {
		snprintf(made, sizeof(made), "arg%u", j->n);
		name = made;
	}
	json_string(j->w, name, strlen(name));
	out_ch(j->w, ':');
	json_string(j->w, value, strlen(value));
}

/* JSON: the entry's arguments as its "B" event's args, one string each as the text shows them. */
static void json_args(struct trace_writer *w, const struct trace_thread *t, struct sym_func *f)
{
	struct format_opts opts = { .hex = w->s.hex, .max_string = w->s.strlen_max, .read_mem = w->s.read_args,
				    .target = &w->s.machine->values };
	struct json_args j = { w, 0 };
	int more;

	if (ev_type(t->args[1]) != EV_ARGS)
		return;
	more = trace_args_each(w->s.machine->arch, f ? sym_func_sig(f) : NULL, t->args, &opts, json_arg, &j);
	if (more < 0)
		json_arg(&j, "args", "?", NULL, NULL);
	else if (more)
		json_arg(&j, "more", "...", NULL, NULL);
	if (j.n)
		out_ch(w, '}');
}

static void on_close(struct trace_writer *w, struct trace_thread *t, unsigned d, const uint64_t *ev, uint64_t now,
		     bool leaf, const char *reason);

static void svg_out(void *ctx, const char *s, size_t n)
{
	out_mem(ctx, s, n);
}

/* A call's end for the flame graph: its time, and what it returned or why it has no value. */
static void svg_close(struct trace_writer *w, struct trace_thread *t, unsigned d, uint64_t ts, const char *why,
		      const char *val)
{
	uint64_t dur = ts - t->entry_ts[d];
	char reason[32];

	snprintf(reason, sizeof(reason), "(%s)", why ? why : "");
	svg_call(w->svg, t->node[d], dur, t->child[d], why ? reason : val[0] ? val + 4 : "");
	if (d)
		t->child[d - 1] += dur;
}

static void write_svg(struct trace_writer *w, const struct trace_counts *c)
{
	struct svg_head h = { .process = w->s.process_name, .pid = w->s.pid, .note = w->note,
			      .ns_per_tick = w->ns_per_tick, .missed_depth = c->missed_depth,
			      .missed_busy = c->missed_busy, .lost = c->lost };

	svg_write(w->svg, &h, svg_out, w);
}

/* Perfetto: nanoseconds from the trace's start, and the thread's track. */
static uint64_t ns_of(const struct trace_writer *w, uint64_t ts)
{
	return ns_saturated(since_start_ns(w, ts));
}

static struct perfetto_track *track_of(struct trace_writer *w, struct trace_thread *t)
{
	return t->pf ? t->pf : (t->pf = perfetto_thread(w->pf, t->tid, t->name));
}

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
	char nb[NAME_BUF];

	if (f)
		f->called = true;
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
	} else if (w->s.format == TRACE_SVG) {
		const char *name = folded_name(w, f, ra);
		bool made = false;

		t->node[d] = name ? svg_frame(w->svg, d ? t->node[d - 1] : 0, name, &made) : 0;
		/* Once per frame, not per call: the module is a search of the modules. */
		if (made && f && w->s.module_of)
			svg_frame_module(w->svg, t->node[d], w->s.module_of(w->s.symbolize_ctx, f));
	} else if (w->s.format == TRACE_JSON) {
		json_event(w, 'B', name_of(f, ra, nb), ev[0], t);
		json_args(w, t, f);
		out_ch(w, '}');
	} else if (w->s.format == TRACE_PERFETTO) {
		perfetto_begin(w->pf, track_of(w, t), ns_of(w, ev[0]), name_of(f, ra, nb),
			       ev_type(t->args[1]) == EV_ARGS ? t->args : NULL, f ? sym_func_sig(f) : NULL);
	} else if (!leaf) {
		text_head(w, t, d, NULL);
		out_name(w, f, ra, nb);
		out_args(w, t, f);
		out_lit(w, " {\n");
	}
}

/* The text line of a frame's end; `ev` is its exit when it has a value to show. */
static void text_close(struct trace_writer *w, struct trace_thread *t, unsigned d, const uint64_t *dur,
		       struct sym_func *f, const struct signature *sig, const char *name, const char *why, bool leaf,
		       const uint64_t *ev)
{
	text_head(w, t, d, dur);
	if (leaf) {
		out_str(w, name);
		out_args(w, t, f);
		out_ch(w, ';');
	} else {
		out_lit(w, "} /* ");
		out_str(w, name);
	}
	if ((why || ev) && leaf)
		out_lit(w, " /* ");
	else if (why || ev)
		out_ch(w, ' ');
	if (why)
		out_str(w, why);
	else if (ev)
		out_value(w, ev, f, sig);
	if (!leaf || why || ev)
		out_lit(w, " */");
	out_ch(w, '\n');
}

/* The JSON "E" event of a frame's end, with its value or why it ended. */
static void json_close(struct trace_writer *w, struct trace_thread *t, struct sym_func *f, const char *name,
		       uint64_t ts, const char *why, const uint64_t *ev)
{
	json_event(w, 'E', name, ts, t);
	if (why) {
		out_lit(w, ",\"args\":{\"");
		out_str(w, why);
		out_lit(w, "\":true}");
	} else if (ev) {
		char val[FORMAT_RET_SIZE(128) + 64];
		size_t n = value_of(w, ev, f, val, sizeof(val));

		/* A JSON string shows fewer bytes than this buffer holds: cutting the value here changes nothing. */
		if (n >= sizeof(val))
			n = sizeof(val) - 1;
		out_lit(w, ",\"args\":{\"ret\":");
		json_string(w, val + 4, n - 4);
		out_ch(w, '}');
	}
	out_ch(w, '}');
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
	uint64_t ns = known ? ticks_ns(w, ts - t->entry_ts[d]) : 0;
	char nb[NAME_BUF];
	const char *name = known ? name_of(f, t->ra[d], nb) : "?";
	const char *why = !ev ? reason : ev_type(ev[1]) == EV_UNWOUND ? "unwound" : NULL;
	bool shows_value = ev && !why && w->s.format != TRACE_FOLDED;
	const struct signature *sig = !shows_value || !f ? NULL : f->parsed ? f->sig : sym_func_sig(f);
	/* The exit, when it has a value to show: every type's but void's. */
	const uint64_t *val = shows_value && !(sig && sig->ret.cls == TC_VOID) ? ev : NULL;

	if (ev)
		close_lost(w, t, d + 1, ts);
	if (w->s.format == TRACE_TEXT) {
		text_close(w, t, d, known ? &ns : NULL, f, sig, name, why, leaf, val);
	} else if (w->s.format == TRACE_JSON && known) {
		json_close(w, t, f, name, ts, why, val);
	} else if (w->s.format == TRACE_PERFETTO && known) {
		perfetto_end(w->pf, track_of(w, t), ns_of(w, ts), why ? NULL : ev, f ? sym_func_sig(f) : NULL, why);
	} else if (w->s.format == TRACE_FOLDED && known) {
		uint64_t dur = ts - t->entry_ts[d];

		if (t->node[d])	/* node 0: out of memory, perhaps before the tree had any node */
			node_at(w, t->node[d])->self_ticks += dur > t->child[d] ? dur - t->child[d] : 0;
		if (d)
			t->child[d - 1] += dur;
	} else if (w->s.format == TRACE_SVG && known) {
		char text[FORMAT_RET_SIZE(128) + 64] = "";

		if (val)
			value_of(w, ev, f, text, sizeof(text));
		svg_close(w, t, d, ts, why, text);
	}
	if (d < t->open)
		t->open = d;
}

/* The text line that opens frame d: "f() {". */
static void text_open_line(struct trace_writer *w, struct trace_thread *t, unsigned d)
{
	char nb[NAME_BUF];

	text_head(w, t, d, NULL);
	out_name(w, t->func[d], t->ra[d], nb);
	out_args(w, t, t->func[d]);
	out_lit(w, " {\n");
}

/*
 * A leaf's text line, its entry and exit next to each other (most lines),
 * with what on_entry() then on_close() would do for it and nothing they
 * would test in vain: false, nothing done, when it is not the plain case
 * (deeper than shown, frames to close as lost, arguments to show, not an
 * exit), which they handle.
 */
static bool text_leaf(struct trace_writer *w, struct trace_thread *t, const uint64_t *ev, const uint64_t *ret)
{
	unsigned d = ev_depth(ev[1]);
	uint64_t ra = ev_ra(ev[1]), ns;
	struct sym_func *f;
	const struct signature *sig = NULL;
	const char *name;
	char nb[NAME_BUF], *start, *p;
	size_t len, rest, n = 0;

	if (d > w->s.depth || t->open > d || ev_type(ret[1]) != EV_EXIT || ev_type(t->args[1]) == EV_ARGS ||
	    2 * d > TEXT_INDENT_MAX)
		return false;
	f = w->s.symbolize(w->s.symbolize_ctx, ra);
	if (f) {
		f->called = true;
		sig = f->parsed ? f->sig : sym_func_sig(f);
		if (__builtin_expect(!f->name_len, 0))
			f->name_len = strlen(f->name);
		name = f->name;
		len = f->name_len;
	} else {
		name = name_of(NULL, ra, nb);
		len = strlen(name);
	}
	/* The frame's state as on_entry() leaves it, then closed. */
	t->entry_ts[d] = ev[0];
	t->func[d] = f;
	t->ra[d] = ra;
	t->child[d] = 0;
	t->open = d;
	ns = ticks_ns(w, not_before(ret[0], ev[0]) - ev[0]);
	/*
	 * The whole line after one check for room (unless its name is half the
	 * buffer): its head, its name, then the value's comment.
	 */
	if (len > w->obuf_size / 2) {
		text_head(w, t, d, &ns);
		out_mem(w, name, len);
		p = start = out_reserve(w, 64);
	} else {
		p = start = out_reserve(w, TEXT_HEAD_MAX + TEXT_INDENT_MAX + len + 64);
		p = text_head_at(p, t, d, &ns, &rest);
		memcpy(p, name, len);
		p += len;
	}
	if (sig && sig->ret.cls == TC_VOID) {
		memcpy(p, "();\n", 4);
		w->olen += (size_t)(p + 4 - start);
		return true;
	}
	memcpy(p, "(); /* ", 7);
	p += 7;
	if (ev_capture(ret[1]) == CAPTURE_GPR)
		n = format_return_word(p, 33, sig, ret[EV_HEADER_WORDS], &w->word_opts);
	if (n) {
		memcpy(p + n, " */\n", 4);
		w->olen += (size_t)(p + n + 4 - start);
		return true;
	}
	/* Another value: the general path, at the line's end. */
	w->olen += (size_t)(p - start);
	out_value(w, ret, f, sig);
	out_lit(w, " */\n");
	return true;
}

/*
 * A leaf's call in the folded stacks, as on_entry() then on_close() count
 * it: its stack's node, its time as its own and its caller's callees'.
 * False, nothing done: deeper than shown, or frames to close as lost.
 */
static bool folded_leaf(struct trace_writer *w, struct trace_thread *t, const uint64_t *ev, const uint64_t *ret)
{
	unsigned d = ev_depth(ev[1]);
	uint64_t ra = ev_ra(ev[1]), dur;
	struct sym_func *f;
	const char *name;
	uint32_t node;

	if (d > w->s.depth || t->open > d)
		return false;
	f = w->s.symbolize(w->s.symbolize_ctx, ra);
	if (f)
		f->called = true;
	name = folded_name(w, f, ra);
	node = name ? node_for(w, d ? t->node[d - 1] : 0, name) : 0;
	t->entry_ts[d] = ev[0];
	t->func[d] = f;
	t->ra[d] = ra;
	t->child[d] = 0;
	t->node[d] = node;
	t->open = d;
	dur = not_before(ret[0], ev[0]) - ev[0];
	if (node)	/* node 0: out of memory */
		node_at(w, node)->self_ticks += dur;
	if (d)
		t->child[d - 1] += dur;
	return true;
}

/* A leaf's entry and exit by the shortcut of its format, if it has one: false, nothing done. */
static bool leaf_call(struct trace_writer *w, struct trace_thread *t, const uint64_t *ev, const uint64_t *ret)
{
	switch (w->s.format) {
	case TRACE_TEXT:
		return text_leaf(w, t, ev, ret);
	case TRACE_FOLDED:
		return folded_leaf(w, t, ev, ret);
	default:
		return false;
	}
}

static void process(struct trace_writer *w, struct trace_thread *t, const uint64_t *at)
{
	uint64_t ev[EV_MAX_WORDS];
	unsigned type = ev_type(at[1]);

	/*
	 * Peeking at the next event may free the buffer this one is in.  An
	 * entry, most events, is copied at its known size: a few moves, not
	 * a call.
	 */
	if (type == EV_ENTRY)
		memcpy(ev, at, EV_ENTRY_WORDS * 8);
	else
		memcpy(ev, at, ev_words(at[1]) * 8);
	t->src.consume(t->src.ctx, ev_words(ev[1]));
	if (t->pending) {
		unsigned d = t->open - 1;

		t->pending = false;
		if (type != EV_ENTRY && type != EV_LOST && type != EV_ARGS && ev_depth(ev[1]) == d) {
			on_close(w, t, d, ev, 0, true, NULL);
			return;
		}
		text_open_line(w, t, d);
	}
	if (type == EV_ENTRY) {
		const uint64_t *next = t->src.peek(t->src.ctx);
		bool leaf;

		/* Its arguments come with it (one commit): kept for its line. */
		t->args[1] = 0;
		if (next && ev_type(next[1]) == EV_ARGS) {
			if (ev_words(next[1]) <= EV_ARGS_MAX_WORDS)
				memcpy(t->args, next, ev_words(next[1]) * 8);
			t->src.consume(t->src.ctx, ev_words(next[1]));
			next = t->src.peek(t->src.ctx);
		}
		leaf = next && ev_type(next[1]) != EV_ENTRY && ev_type(next[1]) != EV_LOST &&
		       ev_depth(next[1]) == ev_depth(ev[1]);

		/* Its next event is not there yet (a live trace): the entry waits for it. */
		if (!next && w->s.format == TRACE_TEXT && ev_depth(ev[1]) <= w->s.depth) {
			on_entry(w, t, ev, true);
			t->pending = true;
			return;
		}
		if (leaf && leaf_call(w, t, ev, next)) {
			t->src.consume(t->src.ctx, ev_words(next[1]));
			return;
		}
		on_entry(w, t, ev, leaf);
		if (leaf) {
			t->src.consume(t->src.ctx, ev_words(next[1]));
			on_close(w, t, ev_depth(next[1]), next, 0, true, NULL);
		}
	} else if (type == EV_LOST) {
		close_lost(w, t, ev_depth(ev[1]), ev[0]);
	} else if (type == EV_ARGS) {
		/* Not after its entry (which was filtered out): nothing to show. */
	} else {
		on_close(w, t, ev_depth(ev[1]), ev, 0, false, NULL);
	}
}

static void header(struct trace_writer *w)
{
	if (w->headed)
		return;
	w->headed = true;
	if (w->s.format == TRACE_TEXT) {
		out_lit(w, "# objpatch function graph, pid ");
		out_int(w, w->s.pid, 0);
		out_lit(w, "\n#      TID   DURATION      FUNCTION CALLS\n"
			   "#       |    |   |         |   |   |   |\n");
	}
	if (w->s.format == TRACE_TEXT && w->note) {
		out_lit(w, "# objpatch: ");
		out_str(w, w->note);
		out_ch(w, '\n');
	} else if (w->s.format == TRACE_JSON) {
		out_lit(w, "{\"traceEvents\":[\n");
	} else if (w->s.format == TRACE_PERFETTO) {
		perfetto_start(w->pf, w->note);
	}
}

/* One "M" event: a name Chrome's viewer and Perfetto show for the process or a thread (tid > 0). */
static void json_metadata(struct trace_writer *w, const char *what, int tid, const char *name)
{
	if (w->started)
		out_lit(w, ",\n");
	out_lit(w, "{\"name\":\"");
	out_str(w, what);
	out_lit(w, "\",\"ph\":\"M\",\"ts\":0,\"pid\":");
	out_int(w, w->s.pid, 0);
	if (tid > 0) {
		out_lit(w, ",\"tid\":");
		out_int(w, tid, 0);
	}
	out_lit(w, ",\"args\":{\"name\":");
	json_string(w, name, strlen(name));
	out_lit(w, "}}");
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
	if (w->s.format == TRACE_PERFETTO) {
		perfetto_end_trace(w->pf, c);
	} else if (w->s.format == TRACE_FOLDED) {
		write_folded(w);
	} else if (w->s.format == TRACE_SVG) {
		write_svg(w, c);
	} else if (w->s.format == TRACE_JSON) {
		json_names(w);
		out_lit(w, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"missed_depth\":");
		out_u64(w, c->missed_depth);
		out_lit(w, ",\"missed_reentry\":");
		out_u64(w, c->missed_busy);
		out_lit(w, ",\"lost\":");
		out_u64(w, c->lost);
		if (w->note) {
			out_lit(w, ",\"note\":");
			json_string(w, w->note, strlen(w->note));
		}
		out_lit(w, "}}\n");
	}
	if (w->s.format == TRACE_TEXT && (c->missed_depth || c->missed_busy || c->lost)) {
		out_lit(w, "# objpatch: ");
		out_u64(w, c->missed_depth);
		out_lit(w, " calls not traced (shadow stack full at depth ");
		out_u64(w, w->s.depth);
		out_lit(w, "), ");
		out_u64(w, c->missed_busy);
		out_lit(w, " in signal handlers inside the tracer, ");
		out_u64(w, c->lost);
		out_lit(w, " events lost (buffers full)\n");
	}
}

/*
 * The thread whose next event is the oldest (the first listed of those of
 * the same time), or NULL when all are drained; `skip`'s is not looked at.
 * `at`: its index.
 */
static struct trace_thread *oldest_but(struct trace_thread *const *threads, size_t n, size_t skip,
				       const uint64_t **ev, size_t *at)
{
	struct trace_thread *best = NULL;

	*ev = NULL;
	*at = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *e = i == skip ? NULL : threads[i]->src.peek(threads[i]->src.ctx);

		if (e && (!*ev || e[0] < (*ev)[0])) {
			*ev = e;
			best = threads[i];
			*at = i;
		}
	}
	return best;
}

static struct trace_thread *oldest(struct trace_thread *const *threads, size_t n, const uint64_t **ev)
{
	size_t at;

	return oldest_but(threads, n, SIZE_MAX, ev, &at);
}

/*
 * The oldest thread's events, one after the other, as long as each is
 * older than every other thread's next one (or as old, from a thread
 * listed before it): the merge oldest() makes event by event, with the
 * other threads looked at once per run instead of once per event.  A run
 * is most of a trace (one thread, or threads that take turns by the
 * millisecond).
 */
static void write_run(struct trace_writer *w, struct trace_thread *const *threads, size_t n, size_t i,
		      const uint64_t *ev)
{
	struct trace_thread *t = threads[i];
	const uint64_t *next;
	size_t other;
	uint64_t bound;

	oldest_but(threads, n, i, &next, &other);
	bound = next ? next[0] : UINT64_MAX;
	do
		process(w, t, ev);
	while ((ev = t->src.peek(t->src.ctx)) && (ev[0] < bound || (ev[0] == bound && i < other)));
}

void trace_write(struct trace_writer *w, struct trace_thread *const *threads, size_t n, bool always_header)
{
	const uint64_t *ev;

	/* Nothing traced, nothing written on standard error. */
	if (always_header || w->note || oldest(threads, n, &ev))
		header(w);
	for (size_t i; oldest_but(threads, n, SIZE_MAX, &ev, &i);)
		write_run(w, threads, n, i, ev);
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

		if (t->pending && t->open)
			text_open_line(w, t, t->open - 1);
		t->pending = false;
		while (t->open)
			on_close(w, t, t->open - 1, NULL, now, false,
				 t->running >= 0 && t->open > (uint32_t)t->running ? "lost" : "unfinished");
	}
	trailer(w, c);
	out_flush(w);
}
