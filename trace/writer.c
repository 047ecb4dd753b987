// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace writer: turns the threads' event chunks into text, JSON or
 * folded stacks.  Runs under rt.lock, never on the recording path: at exit,
 * on objpatch_flush(), from any thread.  Threads are merged by time.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>
#include "elf/elfobj.h"
#include "objpatch/lib/rt.h"

/* ---- time ---- */

static uint64_t ts0, ns0;		/* the first sample */
static double ns_per_tick = 1.0;

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void calibrate(void)
{
	uint64_t ts = rt_timestamp(), ns = mono_ns();

	if (ts > ts0 && ns > ns0)
		ns_per_tick = (double)(ns - ns0) / (double)(ts - ts0);
}

void rt_output_init(void)
{
	ts0 = rt_timestamp();
	ns0 = mono_ns();
}

static uint64_t replay_end;

void rt_output_set_clock(uint64_t t0, uint64_t n0, double rate, uint64_t end)
{
	ts0 = t0;
	ns0 = n0;
	ns_per_tick = rate;
	replay_end = end;
}

/*
 * The rate from the longest interval there is, start-up to now; a trace
 * written within a millisecond of start-up waits for one, so that its
 * durations are right too.
 */
static void calibrate_now(void)
{
	if (rt.replay)
		return;
	while (mono_ns() < ns0 + 1000000)
		;
	calibrate();
}

static double ticks_us(uint64_t d)
{
	return (double)d * ns_per_tick / 1000.0;
}

/* ---- the output file ---- */

static int out_fd = -1;
static pid_t out_pid;
static bool headed;		/* header written */
static bool started;		/* JSON: an event written (the next needs a comma) */
static char obuf[1 << 16];
static size_t olen;

static void out_flush(void)
{
	size_t done = 0;

	while (done < olen) {
		ssize_t n = write(out_fd, obuf + done, olen - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	olen = 0;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(obuf + olen, sizeof(obuf) - olen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= sizeof(obuf) - olen) {
		out_flush();
		va_start(ap, fmt);
		n = vsnprintf(obuf, sizeof(obuf), fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		olen += (size_t)n < sizeof(obuf) - olen ? (size_t)n : sizeof(obuf) - olen - 1;
	if (olen > sizeof(obuf) / 2)
		out_flush();
}

static int open_output(void)
{
	char path[4096];

	if (out_fd >= 0 && out_pid == getpid())
		return 0;
	out_pid = getpid();
	headed = started = false;
	olen = 0;
	if (!rt.output) {
		out_fd = rt.output_fd ? rt.output_fd : 2;
		return 0;
	}
	/* A forked child writes a file of its own next to its parent's. */
	if (rt.output_pid != out_pid)
		snprintf(path, sizeof(path), "%s.%d", rt.output, (int)out_pid);
	else
		snprintf(path, sizeof(path), "%s", rt.output);
	out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

void rt_output_fork_child(void)
{
	out_fd = -1;
	headed = started = false;
	olen = 0;
}

/* ---- per-thread writer state ---- */

struct othread {
	struct chunk *c;	/* where reading resumes */
	uint32_t pos;
	uint32_t open;		/* frames whose entry was written, innermost last */
	uint64_t *entry_ts;
	struct rt_func **func;
	uintptr_t *ra;
	uint64_t *child;	/* folded: time spent in callees */
	uint32_t *node;		/* folded: the stack's node */
};

static struct othread *othread_of(struct tstate *t)
{
	struct othread *o = t->out_state;
	size_t d = rt.depth + 1;

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->entry_ts = calloc(d, sizeof(*o->entry_ts));
	o->func = calloc(d, sizeof(*o->func));
	o->ra = calloc(d, sizeof(*o->ra));
	o->child = calloc(d, sizeof(*o->child));
	o->node = calloc(d, sizeof(*o->node));
	if (!o->entry_ts || !o->func || !o->ra || !o->child || !o->node) {
		free(o->entry_ts);
		free(o->func);
		free(o->ra);
		free(o->child);
		free(o->node);
		free(o);
		return NULL;
	}
	o->c = atomic_load(&t->head);
	o->pos = o->c ? o->c->consumed : 0;
	t->out_state = o;
	return o;
}

/* The next event of a thread, or NULL; frees chunks the thread has left behind. */
static const uint64_t *peek(struct tstate *t, struct othread *o)
{
	for (;;) {
		struct chunk *next;
		uint32_t count;

		if (!o->c)
			return NULL;
		next = atomic_load_explicit(&o->c->next, memory_order_acquire);
		count = atomic_load_explicit(&o->c->count, memory_order_acquire);
		if (o->pos < count)
			return &o->c->w[o->pos];
		if (!next)
			return NULL;
		/* The owner moved on and never writes this chunk again. */
		atomic_store(&t->head, next);
		rt_free_chunk(o->c);
		o->c = next;
		o->pos = next->consumed;
	}
}

static void advance(struct othread *o, const uint64_t *ev)
{
	o->pos += ev_words(ev[1]);
	o->c->consumed = o->pos;
}

/* ---- names and values ---- */

static const char *name_of(const struct rt_func *f, uintptr_t ra, char *buf, size_t len)
{
	if (f)
		return f->name;
	snprintf(buf, len, "0x%lx", (unsigned long)ra);
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
static void value_of(const uint64_t *ev, struct rt_func *f, char *buf, size_t len)
{
	enum capture c = ev_capture(ev[1]);
	const uint64_t *w = ev + EV_HEADER_WORDS;
	const struct signature *sig = f ? rt_func_sig(f) : NULL;
	struct sig_type unknown = { .cls = TC_UNKNOWN };
	struct raw_value v;
	struct captured cap = { 0 };
	struct format_opts opts = { .hex = rt.hex, .max_string = rt.strlen_max, .read_mem = read_captured,
				    .ctx = &cap };

	rt_raw_value(w, c, sig ? &sig->ret : &unknown, &v);
	if (c == CAPTURE_STRING) {
		/* Characters follow the registers: a length byte, then the bytes. */
		const uint8_t *s = (const uint8_t *)(w + rt_capture_count(c));

		cap = (struct captured){ v.gpr[0], s + 1, s[0] };
	}
	format_return(buf, len, sig, &v, &opts);
}

/* The traced process: this one, or the recording's in objpatch report. */
static pid_t traced_pid(void)
{
	return rt.replay_pid ? rt.replay_pid : getpid();
}

static void json_string(const char *s)
{
	char buf[512];
	size_t n = 0;

	for (; *s && n < sizeof(buf) - 8; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)ch;
		} else if (ch < 0x20) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\u%04x", ch);
		} else {
			buf[n++] = (char)ch;
		}
	}
	buf[n] = 0;
	out("\"%s\"", buf);
}

/* ---- folded stacks: a trie of (parent, function) nodes ---- */

struct node {
	uint32_t parent;	/* 0: a root (node 0 is unused) */
	const char *name;
	uint64_t self_ticks;
};

static struct node *nodes;
static size_t nnodes, cap_nodes;
static uint32_t *node_hash;
static size_t hash_size;

static size_t hash_of(uint32_t parent, const char *name)
{
	uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull ^ parent * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 17) & (hash_size - 1);
}

static bool rehash(void)
{
	size_t size = hash_size ? 2 * hash_size : 1024;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return false;
	free(node_hash);
	node_hash = h;
	hash_size = size;
	for (uint32_t i = 1; i < nnodes; i++) {
		size_t k = hash_of(nodes[i].parent, nodes[i].name);

		while (node_hash[k])
			k = (k + 1) & (hash_size - 1);
		node_hash[k] = i;
	}
	return true;
}

/* Node 0 stands for "no node" (out of memory): its time is dropped. */
static uint32_t node_for(uint32_t parent, const char *name)
{
	size_t k;

	if (!nnodes) {
		if (!grow_array(&nodes, 0, &cap_nodes, sizeof(*nodes)))
			return 0;
		nodes[0] = (struct node){ 0, "", 0 };
		nnodes = 1;
	}
	if (2 * nnodes >= hash_size && !rehash())
		return 0;
	for (k = hash_of(parent, name); node_hash[k]; k = (k + 1) & (hash_size - 1))
		if (nodes[node_hash[k]].parent == parent && nodes[node_hash[k]].name == name)
			return node_hash[k];
	if (!grow_array(&nodes, nnodes, &cap_nodes, sizeof(*nodes)))
		return 0;
	nodes[nnodes] = (struct node){ parent, name, 0 };
	node_hash[k] = (uint32_t)nnodes;
	return (uint32_t)nnodes++;
}

static void print_path(uint32_t n)
{
	if (nodes[n].parent)	/* depth is bounded by the shadow stack */
		print_path(nodes[n].parent);
	out("%s%s", nodes[n].parent ? ";" : "", nodes[n].name);
}

static void write_folded(void)
{
	for (uint32_t i = 1; i < nnodes; i++) {
		uint64_t ns = (uint64_t)((double)nodes[i].self_ticks * ns_per_tick + 0.5);

		if (!ns)
			continue;
		print_path(i);
		out(" %" PRIu64 "\n", ns);
	}
}

/* ---- one event ---- */

static char duration_mark(double us)
{
	return us > 1e6 ? '$' : us > 1e5 ? '@' : us > 1e4 ? '*' : us > 1e3 ? '#' : us > 100 ? '!' :
	       us > 10 ? '+' : ' ';
}

static void text_line(pid_t tid, unsigned depth, const double *us, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void text_line(pid_t tid, unsigned depth, const double *us, const char *fmt, ...)
{
	char body[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (us)
		out("%8d) %c%9.3f us  |  %*s%s\n", (int)tid, duration_mark(*us), *us, 2 * (int)depth, "", body);
	else
		out("%8d)               |  %*s%s\n", (int)tid, 2 * (int)depth, "", body);
}

static void json_event(char ph, const char *name, uint64_t ts, pid_t tid, const char *args_key,
		       const char *args_val, bool raw)
{
	out("%s{\"name\":", started ? ",\n" : "");
	json_string(name);
	out(",\"ph\":\"%c\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d", ph, ticks_us(ts - ts0), (int)traced_pid(),
	    (int)tid);
	if (args_key) {
		out(",\"args\":{\"%s\":", args_key);
		if (raw)
			out("%s", args_val);
		else
			json_string(args_val);
		out("}");
	}
	out("}");
	started = true;
}

static void on_close(struct tstate *t, struct othread *o, unsigned d, const uint64_t *ev, uint64_t now,
		     bool leaf, const char *reason);

/*
 * Frames at depth >= d whose exit never came: the buffers were full when
 * it happened.  Closed here so the trace stays well-formed.
 */
static void close_lost(struct tstate *t, struct othread *o, unsigned d, uint64_t ts)
{
	while (o->open > d)
		on_close(t, o, o->open - 1, NULL, ts, false, "lost");
}

/* An entry: remembered, and written unless it is a leaf (written at its exit). */
static void on_entry(struct tstate *t, struct othread *o, const uint64_t *ev, bool leaf)
{
	unsigned d = ev_depth(ev[1]);
	uintptr_t ra = ev_ra(ev[1]);
	struct rt_func *f = rt_func_for_ra(ra);
	char nb[32];

	if (d > rt.depth)
		return;
	close_lost(t, o, d, ev[0]);
	o->entry_ts[d] = ev[0];
	o->func[d] = f;
	o->ra[d] = ra;
	o->child[d] = 0;
	o->open = d + 1;
	if (rt.format == FMT_FOLDED)
		o->node[d] = node_for(d ? o->node[d - 1] : 0, name_of(f, ra, nb, sizeof(nb)));
	else if (rt.format == FMT_JSON)
		json_event('B', name_of(f, ra, nb, sizeof(nb)), ev[0], t->tid, NULL, NULL, false);
	else if (!leaf)
		text_line(t->tid, d, NULL, "%s() {", name_of(f, ra, nb, sizeof(nb)));
}

/* An exit or unwound frame, or (ev NULL) one closed at `now` for `reason`. */
static void on_close(struct tstate *t, struct othread *o, unsigned d, const uint64_t *ev, uint64_t now,
		     bool leaf, const char *reason)
{
	/* Not known: its entry was lost (buffers full) or the parent's before a fork. */
	bool known = d < o->open && d <= rt.depth;
	struct rt_func *f = known ? o->func[d] : NULL;
	uint64_t ts = ev ? ev[0] : now;
	double us = known ? ticks_us(ts - o->entry_ts[d]) : 0;
	char nb[32], val[FORMAT_RET_SIZE(128) + 64] = "";
	const char *name = known ? name_of(f, o->ra[d], nb, sizeof(nb)) : "?";
	const char *why = !ev ? reason : ev_type(ev[1]) == EV_UNWOUND ? "unwound" : NULL;

	if (ev)
		close_lost(t, o, d + 1, ts);
	if (ev && !why && rt.format != FMT_FOLDED)
		value_of(ev, f, val, sizeof(val));
	if (rt.format == FMT_TEXT) {
		const double *dur = known ? &us : NULL;

		if (why && leaf)
			text_line(t->tid, d, dur, "%s(); /* %s */", name, why);
		else if (why)
			text_line(t->tid, d, dur, "} /* %s %s */", name, why);
		else if (leaf)
			text_line(t->tid, d, dur, val[0] ? "%s(); /* %s */" : "%s();%s", name, val);
		else
			text_line(t->tid, d, dur, val[0] ? "} /* %s %s */" : "} /* %s%s */", name, val);
	} else if (rt.format == FMT_JSON && known) {
		if (why)
			json_event('E', name, ts, t->tid, why, "true", true);
		else
			json_event('E', name, ts, t->tid, val[0] ? "ret" : NULL, val + 4, false);
	} else if (rt.format == FMT_FOLDED && known) {
		uint64_t dur = ts - o->entry_ts[d];

		nodes[o->node[d]].self_ticks += dur > o->child[d] ? dur - o->child[d] : 0;
		if (d)
			o->child[d - 1] += dur;
	}
	if (d < o->open)
		o->open = d;
}

static void process(struct tstate *t, struct othread *o, const uint64_t *at)
{
	uint64_t ev[EV_MAX_WORDS];
	unsigned type = ev_type(at[1]);

	/* Peeking at the next event may free the chunk this one is in. */
	memcpy(ev, at, ev_words(at[1]) * 8);
	advance(o, at);
	if (type == EV_ENTRY) {
		const uint64_t *next = peek(t, o);
		bool leaf = next && ev_type(next[1]) != EV_ENTRY && ev_depth(next[1]) == ev_depth(ev[1]);

		on_entry(t, o, ev, leaf);
		if (leaf) {
			advance(o, next);
			on_close(t, o, ev_depth(next[1]), next, 0, true, NULL);
		}
	} else {
		on_close(t, o, ev_depth(ev[1]), ev, 0, false, NULL);
	}
}

static void header(void)
{
	if (headed)
		return;
	headed = true;
	if (rt.format == FMT_TEXT)
		out("# objpatch function graph, pid %d\n"
		    "#      TID   DURATION      FUNCTION CALLS\n"
		    "#       |    |   |         |   |   |   |\n", (int)traced_pid());
	else if (rt.format == FMT_JSON)
		out("{\"traceEvents\":[\n");
}

static void trailer(void)
{
	uint64_t depth = 0, busy = 0, lost = 0;

	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		depth += t->missed_depth;
		busy += t->missed_busy;
		lost += t->lost;
	}
	if (depth)
		fprintf(stderr, "objpatch: %" PRIu64 " calls not traced (shadow stack full at depth %u)\n",
			depth, rt.depth);
	if (busy)
		fprintf(stderr, "objpatch: %" PRIu64 " calls not traced (signal handler inside the tracer)\n",
			busy);
	if (lost)
		fprintf(stderr, "objpatch: %" PRIu64 " events lost (trace buffers full)\n", lost);
	if (rt.format == FMT_FOLDED) {
		write_folded();
	} else if (rt.format == FMT_JSON) {
		out("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"missed_depth\":%" PRIu64
		    ",\"missed_reentry\":%" PRIu64 ",\"lost\":%" PRIu64 "}}\n", depth, busy, lost);
	}
	if (rt.format == FMT_TEXT && (depth || busy || lost))
		out("# objpatch: %" PRIu64 " calls not traced (shadow stack full at depth %u), %" PRIu64
		    " in signal handlers inside the tracer, %" PRIu64 " events lost (buffers full)\n",
		    depth, rt.depth, busy, lost);
}

/* The thread whose next event is the oldest, or NULL when all are drained. */
static struct tstate *oldest(const uint64_t **ev)
{
	struct tstate *best = NULL;

	*ev = NULL;
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		struct othread *o = othread_of(t);
		const uint64_t *e = o ? peek(t, o) : NULL;

		if (e && (!*ev || e[0] < (*ev)[0])) {
			*ev = e;
			best = t;
		}
	}
	return best;
}

/* ---- raw recordings ---- */

/*
 * Raw recordings are written straight to their file (O_APPEND, one
 * write per record, so records of different threads never interleave): a
 * thread whose chunk fills writes it and reuses it, so a long recording
 * costs a write per 64 KiB of events instead of ever more fresh memory.
 */
static int raw_fd = -1;
static pid_t raw_pid;
static size_t raw_modules_written;

static void raw_writev(struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(raw_fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		/* A short write (a full disk): finish it, the file stays parseable up to there. */
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

static void raw_record(uint32_t type, const void *head, size_t head_len, const void *body, size_t body_len)
{
	static const uint8_t zeros[8];
	size_t pad = (8 - (head_len + body_len) % 8) % 8;
	struct raw_record r = { type, (uint32_t)(head_len + body_len + pad) };
	struct iovec iov[4] = { { &r, sizeof(r) }, { (void *)head, head_len }, { (void *)body, body_len },
				{ (void *)zeros, pad } };

	raw_writev(iov, 4);
}

/* Opens this process's recording (a forked child's is FILE.pid); async-signal-safe. */
static int raw_open(void)
{
	struct raw_header h = { .machine = rt_arch_host.machine, .elfclass = rt_arch_host.elfclass,
				.depth = rt.depth, .pid = (int32_t)getpid() };
	char path[4096];
	size_t len;

	if (raw_fd >= 0 && raw_pid == h.pid)
		return 0;
	if (raw_fd >= 0)
		close(raw_fd);
	raw_pid = h.pid;
	raw_modules_written = 0;
	len = strlen(rt.output);
	if (len + 16 > sizeof(path))
		return raw_fd = -1;
	memcpy(path, rt.output, len + 1);
	if (rt.output_pid != raw_pid) {
		char digits[16];
		int k = 0;

		for (pid_t p = raw_pid; p && k < 15; p /= 10)
			digits[k++] = (char)('0' + p % 10);
		path[len++] = '.';
		while (k)
			path[len++] = digits[--k];
		path[len] = 0;
	}
	raw_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (raw_fd < 0)
		return -1;
	memcpy(h.magic, RAW_MAGIC, sizeof(h.magic));
	if (write(raw_fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		close(raw_fd);
		return raw_fd = -1;
	}
	return 0;
}

/* A thread's events, written as they are; called by the thread itself when its chunk is full. */
void rt_raw_events(pid_t tid, const uint64_t *w, size_t n)
{
	uint64_t t = (uint64_t)tid;

	if (n && raw_open() == 0)
		raw_record(RAW_EVENTS, &t, sizeof(t), w, n * 8);
}

static void raw_modules(void)
{
	for (; raw_modules_written < rt.nmods; raw_modules_written++) {
		const struct rt_module *m = rt.mods[raw_modules_written];
		uint64_t bias = m->bias;
		char exe[4096];
		ssize_t n;
		const char *path = m->path;

		/* The report runs in another process: name the executable by its path. */
		if (!strcmp(path, "/proc/self/exe") && (n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
			exe[n] = 0;
			path = exe;
		}
		raw_record(RAW_MODULE, &bias, sizeof(bias), path, strlen(path) + 1);
	}
}

/* Everything the threads recorded since they last wrote, and the clock. */
static int raw_flush(bool final)
{
	uint64_t clock[4] = { ts0, ns0, rt_timestamp(), mono_ns() };
	uint64_t counts[4] = { 0, 0, 0, clock[2] };

	if (raw_open() < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", rt.output, strerror(errno));
		return -1;
	}
	raw_modules();
	raw_record(RAW_CLOCK, clock, sizeof(clock), NULL, 0);
	for (struct tstate *t = atomic_load(&rt_threads); t; t = t->next) {
		rt_raw_drain(t);
		counts[0] += t->missed_depth;
		counts[1] += t->missed_busy;
		counts[2] += t->lost;
	}
	if (final)
		raw_record(RAW_COUNTS, counts, sizeof(counts), NULL, 0);
	return 0;
}

int rt_flush(bool final)
{
	const uint64_t *ev;
	struct tstate *t;
	uint64_t now = rt.replay ? replay_end : rt_timestamp();

	if (rt.format == FMT_RAW)
		return raw_flush(final);
	if (open_output() < 0)
		return -1;
	calibrate_now();
	/* Nothing traced, nothing written on standard error; a file always gets a whole trace. */
	if (rt.output || oldest(&ev))
		header();
	while ((t = oldest(&ev)))
		process(t, t->out_state, ev);
	if (final && headed) {
		for (t = atomic_load(&rt_threads); t; t = t->next) {
			struct othread *o = t->out_state;

			while (o && o->open)
				on_close(t, o, o->open - 1, NULL, now, false, "unfinished");
		}
		trailer();
	}
	out_flush();
	return 0;
}
