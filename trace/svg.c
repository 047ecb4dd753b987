// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Flame graphs (trace/svg.h): calls aggregated into a trie of (caller's
 * frame, function) frames, then drawn as one SVG, the root at the bottom
 * and each frame as wide as its total time.  The file holds everything it
 * shows: the tooltips (<title>), the colours (one family of hues per
 * module), and a short script for zoom and search; it names no other file
 * and fetches nothing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/calltree.h"
#include "trace/format.h"
#include "trace/svg.h"
#include "util/array.h"
#include "util/hash.h"

/* ---- the frames ---- */

/*
 * A frame's most frequent return values, counted with the Space-Saving
 * algorithm: exact while a frame returns at most VALUE_SLOTS distinct
 * values; past that, a slot taken over from the least counted one says by
 * how much its count may be too high (`over`).
 */
#define VALUE_SLOTS 4
#define VALUES_SHOWN 3
#define VALUE_TEXT 40

struct value_slot {
	uint64_t count, over;
	char text[VALUE_TEXT];
};

/*
 * Keyed by its name's pointer (the root's key: "all", which no lookup
 * reads); parent 0: called from no traced function (frame 0 is the root).
 */
struct frame {
	struct calltree_link at;
	uint32_t module;	/* index in the graph's modules */
	uint64_t total, self, calls;	/* ticks, ticks, calls */
	struct value_slot values[VALUE_SLOTS];
};

struct svg_graph {
	struct calltree frames;	/* of struct frame */
	const char **modules;	/* distinct, in the order first seen; [0] is NULL (unknown) */
	size_t nmodules, cap_modules;
};

static struct frame *frame_at(const struct svg_graph *g, uint32_t i)
{
	return calltree_node(&g->frames, i);
}

static const char *frame_name(const struct frame *f)
{
	return (const char *)f->at.key;
}

struct svg_graph *svg_new(void)
{
	struct svg_graph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	/* Frame 0 is the root; module 0 is "unknown". */
	calltree_init(&g->frames, sizeof(struct frame));
	if (!calltree_root(&g->frames) ||
	    !grow_array(&g->modules, 0, &g->cap_modules, sizeof(*g->modules))) {
		svg_free(g);
		return NULL;
	}
	frame_at(g, 0)->at.key = (uintptr_t)"all";
	g->modules[0] = NULL;
	g->nmodules = 1;
	return g;
}

void svg_free(struct svg_graph *g)
{
	if (!g)
		return;
	calltree_free(&g->frames);
	free(g->modules);
	free(g);
}

/* The module's index, added on first sight; 0 (unknown) when out of memory. */
static uint32_t module_index(struct svg_graph *g, const char *module)
{
	for (size_t i = 0; i < g->nmodules; i++)
		if (g->modules[i] == module)
			return (uint32_t)i;
	if (!grow_array(&g->modules, g->nmodules, &g->cap_modules, sizeof(*g->modules)))
		return 0;
	g->modules[g->nmodules] = module;
	return (uint32_t)g->nmodules++;
}

uint32_t svg_frame(struct svg_graph *g, uint32_t parent, const char *name, bool *made)
{
	return calltree_child(&g->frames, parent, (uintptr_t)name, made);
}

void svg_frame_module(struct svg_graph *g, uint32_t frame, const char *module)
{
	if (frame)
		frame_at(g, frame)->module = module_index(g, module);
}

/* `s` cut to fit a slot, whole UTF-8 sequences only, "..." marking the cut. */
static void value_text(char *out, const char *s)
{
	size_t n = strlen(s), keep = VALUE_TEXT - 4;

	if (n < VALUE_TEXT) {
		memcpy(out, s, n + 1);
		return;
	}
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	memcpy(out, s, keep);
	memcpy(out + keep, "...", 4);
}

static void count_value(struct frame *f, const char *value)
{
	struct value_slot *least = &f->values[0];
	char text[VALUE_TEXT];

	value_text(text, value);
	for (int i = 0; i < VALUE_SLOTS; i++) {
		struct value_slot *v = &f->values[i];

		if (!v->count) {	/* slots fill in order: the value is new */
			*v = (struct value_slot){ .count = 1 };
			memcpy(v->text, text, sizeof(text));
			return;
		}
		if (!strcmp(v->text, text)) {
			v->count++;
			return;
		}
		if (v->count < least->count)
			least = v;
	}
	/* Space-Saving: the new value inherits the least one's count, as an upper bound. */
	least->over = least->count;
	least->count++;
	memcpy(least->text, text, sizeof(text));
}

void svg_call(struct svg_graph *g, uint32_t frame, uint64_t ticks, uint64_t callee_ticks, const char *value)
{
	struct frame *f = frame_at(g, frame);

	if (!frame)
		return;		/* out of memory when it was entered */
	f->calls++;
	f->total += ticks;
	f->self += ticks > callee_ticks ? ticks - callee_ticks : 0;
	if (*value)
		count_value(f, value);
	if (!f->at.parent)
		frame_at(g, 0)->calls++;
}

/* ---- the output ---- */

struct sout {
	svg_sink sink;
	void *ctx;
	size_t n;
	char buf[8192];
};

static void flush(struct sout *o)
{
	if (o->n)
		o->sink(o->ctx, o->buf, o->n);
	o->n = 0;
}

static void put(struct sout *o, const char *s, size_t n)
{
	while (n) {
		size_t k = sizeof(o->buf) - o->n < n ? sizeof(o->buf) - o->n : n;

		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		n -= k;
		if (o->n == sizeof(o->buf))
			flush(o);
	}
}

/* Only for short, bounded texts (numbers, markup): names go through put_xml(). */
static void putf(struct sout *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct sout *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(o, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Whether XML 1.0 allows the code point (its Char production). */
static bool xml_char(uint32_t cp)
{
	return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
}

static uint32_t decode_utf8(const unsigned char *s, int k)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[k];

	for (int i = 1; i < k; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/*
 * At most `max` bytes of `s` as XML character data or attribute value:
 * markup characters as entities, control characters, bytes that are not
 * UTF-8 and code points XML forbids as U+FFFD, so that any name or value
 * leaves the file well-formed.
 */
static void put_xml(struct sout *o, const char *s, size_t max)
{
	static const char *const entity[128] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
						 ['"'] = "&quot;", ['\''] = "&#39;" };
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strnlen(s, max);

	for (size_t i = 0; i < len;) {
		int k = utf8_len(p + i, len - i);

		if (k == 1 && entity[p[i]])
			put(o, entity[p[i]], strlen(entity[p[i]]));
		else if (k > 0 && p[i] >= 0x20 && xml_char(decode_utf8(p + i, k)))
			put(o, s + i, (size_t)k);
		else
			put(o, "\xef\xbf\xbd", 3);
		i += k > 0 ? (size_t)k : 1;
	}
}

/* A duration as people read it: 812 ns, 3.25 us, 41.07 ms, 2.50 s. */
static void time_text(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

/* ---- colours: a family of hues per module ---- */

/* Warm first, as flame graphs are; then families far apart on the colour wheel. */
static const struct family {
	double hue, spread;	/* degrees */
} families[] = {
	{ 0, 45 }, { 205, 30 }, { 95, 40 }, { 265, 30 }, { 170, 20 }, { 48, 12 }, { 315, 25 },
};

static double hsl_part(double p, double q, double t)
{
	t += t < 0 ? 1 : t > 1 ? -1 : 0;
	return t < 1.0 / 6 ? p + (q - p) * 6 * t : t < 0.5 ? q : t < 2.0 / 3 ? p + (q - p) * (2.0 / 3 - t) * 6 : p;
}

/* "rgb(R,G,B)": understood by every SVG renderer, not only browsers.  No libm: the runtime links this. */
static void rgb_text(char *buf, size_t len, double hue, double sat, double light)
{
	double q = light < 0.5 ? light * (1 + sat) : light + sat - light * sat, p = 2 * light - q, h = hue / 360;

	snprintf(buf, len, "rgb(%d,%d,%d)", (int)(255 * hsl_part(p, q, h + 1.0 / 3) + 0.5),
		 (int)(255 * hsl_part(p, q, h) + 0.5), (int)(255 * hsl_part(p, q, h - 1.0 / 3) + 0.5));
}

/*
 * A function's colour: its module's family (unknown code grey), varied
 * within it by the name, so that a function has the same colour wherever
 * it appears.
 */
static void frame_colour(char *buf, size_t len, uint32_t module, const char *name)
{
	uint32_t h = hash_fnv1a32(name, NULL);
	double vary = (double)(h & 0xff) / 255, light = 0.52 + 0.12 * (double)(h >> 8 & 0xff) / 255;
	const struct family *f;

	if (!module) {
		rgb_text(buf, len, 0, 0, 0.62 + 0.12 * vary);
		return;
	}
	f = &families[(module - 1) % (sizeof(families) / sizeof(families[0]))];
	rgb_text(buf, len, f->hue + f->spread * vary, 0.65 + 0.2 * vary, light);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- the layout ---- */

#define IMAGE_WIDTH 1200
#define MARGIN 10
#define FRAME_HEIGHT 16
#define TOP 62			/* title, subtitle, legend */
#define BOTTOM 28		/* the details line */
#define CHAR_WIDTH 7.0		/* 12 px Verdana, on average, as the script assumes too */
#define MIN_WIDTH 0.1		/* px: narrower frames are left out (their time stays in the parent's) */

struct layout {
	double *x, *w;		/* px, from the left of the frames' area */
	uint32_t *depth;
	uint32_t max_depth;
	bool *drawn;
};

static int by_parent_then_name(const void *a, const void *b, void *ctx)
{
	const struct svg_graph *g = ctx;
	const struct frame *x = frame_at(g, *(const uint32_t *)a);
	const struct frame *y = frame_at(g, *(const uint32_t *)b);
	int c = x->at.parent != y->at.parent ? (x->at.parent < y->at.parent ? -1 : 1) :
		strcmp(frame_name(x), frame_name(y));

	return c ? c : *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * Widths in ticks: a frame's total, or its children's sum if more (clocks
 * of different CPUs may disagree by a few ticks), so that no frame is
 * narrower than its children; the root holds every root call.  A child
 * comes after its parent (trace/calltree.h), so one pass from the end suffices.
 */
static void width_ticks(const struct svg_graph *g, double *wt)
{
	double *sum = calloc(g->frames.n, sizeof(*sum));

	for (size_t i = g->frames.n; i-- > 0;) {
		const struct frame *f = frame_at(g, (uint32_t)i);

		wt[i] = i && (double)f->total > (sum ? sum[i] : 0) ? (double)f->total : sum ? sum[i] : 0;
		if (i && sum)
			sum[f->at.parent] += wt[i];
	}
	free(sum);
}

/* Children side by side from their parent's left edge, by name, as flame graphs order them. */
static int lay_out(const struct svg_graph *g, struct layout *l)
{
	size_t n = g->frames.n;
	uint32_t *order = malloc(n * sizeof(*order));
	/* Zeroed, and never empty: the root's weight is read even for a graph of no frames. */
	double *wt = calloc(n ? n : 1, sizeof(*wt)), *cursor = calloc(n, sizeof(*cursor)), scale;

	l->x = calloc(n, sizeof(*l->x));
	l->w = calloc(n, sizeof(*l->w));
	l->depth = calloc(n, sizeof(*l->depth));
	l->drawn = calloc(n, sizeof(*l->drawn));
	if (!order || !wt || !cursor || !l->x || !l->w || !l->depth || !l->drawn) {
		free(order);
		free(wt);
		free(cursor);
		return -1;
	}
	width_ticks(g, wt);
	scale = wt[0] > 0 ? (IMAGE_WIDTH - 2 * MARGIN) / wt[0] : 0;
	for (size_t i = 1; i < n; i++)
		order[i - 1] = (uint32_t)i;
	qsort_r(order, n - 1, sizeof(*order), by_parent_then_name, (void *)g);
	l->w[0] = IMAGE_WIDTH - 2 * MARGIN;
	l->drawn[0] = true;
	for (size_t k = 0; k + 1 < n; k++) {
		uint32_t i = order[k], p = frame_at(g, i)->at.parent;

		l->x[i] = l->x[p] + cursor[p];
		l->w[i] = wt[i] * scale;
		cursor[p] += l->w[i];
		l->depth[i] = l->depth[p] + 1;
	}
	/* Parents precede their children: whether the parent is drawn is known. */
	for (size_t i = 1; i < n; i++) {
		l->drawn[i] = l->drawn[frame_at(g, (uint32_t)i)->at.parent] && l->w[i] >= MIN_WIDTH;
		if (l->drawn[i] && l->depth[i] > l->max_depth)
			l->max_depth = l->depth[i];
	}
	free(order);
	free(wt);
	free(cursor);
	return 0;
}

static void free_layout(struct layout *l)
{
	free(l->x);
	free(l->w);
	free(l->depth);
	free(l->drawn);
}

/* ---- the picture ---- */

static int by_count(const void *a, const void *b)
{
	const struct value_slot *x = a, *y = b;

	return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp(x->text, y->text);
}

/* "returned: 0 (12), -1 (about 3), 2 other calls": the tooltip's last line. */
static void put_values(struct sout *o, const struct frame *f)
{
	struct value_slot v[VALUE_SLOTS];
	uint64_t shown = 0;
	int n = 0;

	while (n < VALUE_SLOTS && f->values[n].count)
		n++;
	if (!n)
		return;
	memcpy(v, f->values, sizeof(v));
	qsort(v, (size_t)n, sizeof(v[0]), by_count);
	putf(o, "\nreturned: ");
	for (int i = 0; i < n && i < VALUES_SHOWN; i++) {
		put_xml(o, v[i].text, sizeof(v[i].text));
		putf(o, " (%s%llu)%s", v[i].over ? "about " : "", (unsigned long long)v[i].count,
		     i + 1 < n && i + 1 < VALUES_SHOWN ? ", " : "");
		shown += v[i].count;
	}
	if (f->calls > shown)
		putf(o, ", other values (%llu)", (unsigned long long)(f->calls - shown));
}

static void put_tooltip(struct sout *o, const struct svg_graph *g, uint32_t i, double ns_per_tick)
{
	const struct frame *f = frame_at(g, i);
	const char *module = g->modules[f->module];
	uint64_t total = i ? f->total : 0;
	char t[32], s[32];

	for (uint32_t c = 1; !i && c < g->frames.n; c++)
		total += frame_at(g, c)->at.parent ? 0 : frame_at(g, c)->total;
	time_text(t, sizeof(t), (double)total * ns_per_tick);
	time_text(s, sizeof(s), (double)(i ? f->self : 0) * ns_per_tick);
	putf(o, "<title>");
	put_xml(o, frame_name(f), SIZE_MAX);
	if (module) {
		putf(o, "\nmodule: ");
		put_xml(o, base_name(module), SIZE_MAX);
	}
	putf(o, "\ncalls: %llu\ntotal: %s", (unsigned long long)f->calls, t);
	if (i)
		putf(o, "\nself: %s", s);
	put_values(o, f);
	putf(o, "</title>");
}

/* The name as much as fits the frame, cut as the script cuts it: "name.." or nothing. */
static void put_label(struct sout *o, const char *name, double w)
{
	double room = (w - 6) / CHAR_WIDTH;
	size_t len = strlen(name), fit = room > 0 ? (size_t)room : 0, keep;

	if (fit >= len) {
		put_xml(o, name, len);
		return;
	}
	if (fit < 3)
		return;
	keep = fit - 2;
	while (keep && ((unsigned char)name[keep] & 0xc0) == 0x80)
		keep--;
	put_xml(o, name, keep);
	putf(o, "..");
}

static void put_frame(struct sout *o, const struct svg_graph *g, const struct layout *l, uint32_t i,
		      double ns_per_tick)
{
	const struct frame *f = frame_at(g, i);
	int y = TOP + (int)(l->max_depth - l->depth[i]) * FRAME_HEIGHT;
	char fill[32];

	if (i)
		frame_colour(fill, sizeof(fill), f->module, frame_name(f));
	else
		snprintf(fill, sizeof(fill), "rgb(200,200,200)");
	putf(o, "<g class=\"f\" id=\"f%u\"", i);
	if (i)
		putf(o, " data-p=\"f%u\"", f->at.parent);
	putf(o, ">");
	put_tooltip(o, g, i, ns_per_tick);
	putf(o, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>"
		"<text x=\"%.2f\" y=\"%d\">", l->x[i], y, l->w[i], FRAME_HEIGHT - 1, fill, l->x[i] + 3,
	     y + FRAME_HEIGHT - 5);
	put_label(o, frame_name(f), l->w[i]);
	putf(o, "</text></g>\n");
}

/* One swatch per module, in the order first seen: which colours are whose. */
static void put_legend(struct sout *o, const struct svg_graph *g)
{
	double x = MARGIN;
	char fill[32];

	for (size_t m = 0; m < g->nmodules && x < IMAGE_WIDTH - 100; m++) {
		const char *name = g->modules[m] ? base_name(g->modules[m]) : "(unknown)";
		bool used = false;

		for (uint32_t i = 1; i < g->frames.n && !used; i++)
			used = frame_at(g, i)->module == m;
		if (!used)
			continue;
		frame_colour(fill, sizeof(fill), (uint32_t)m, "");
		putf(o, "<rect x=\"%.0f\" y=\"40\" width=\"10\" height=\"10\" fill=\"%s\"/><text class=\"s\" x=\"%.0f\" y=\"49\">",
		     x, fill, x + 14);
		put_xml(o, name, 60);
		putf(o, "</text>\n");
		x += 14 + CHAR_WIDTH * (double)strnlen(name, 60) + 16;
	}
}

static void put_head(struct sout *o, const struct svg_head *h, int height)
{
	putf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" data-w=\"%d\">\n"
		"<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
		"text.s{font-size:11px;fill:#444}#title{font-size:17px}#search{cursor:pointer}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">objpatch flame graph: ",
	     IMAGE_WIDTH, height, IMAGE_WIDTH, height, IMAGE_WIDTH - 2 * MARGIN, IMAGE_WIDTH / 2);
	put_xml(o, h->process && *h->process ? h->process : "process", 256);
	putf(o, " (pid %d)</text>\n<text class=\"s\" x=\"%d\" y=\"24\">click a frame to zoom, the bottom one to "
		"reset</text>\n<text id=\"search\" class=\"s\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search "
		"(Ctrl-F)</text>\n", h->pid, MARGIN, IMAGE_WIDTH - MARGIN);
}

/* What the trace lacks, where the details line is until the mouse is over a frame. */
static void put_foot(struct sout *o, const struct svg_head *h, int height)
{
	putf(o, "<text id=\"details\" class=\"s\" x=\"%d\" y=\"%d\">", MARGIN, height - 10);
	if (h->note)
		put_xml(o, h->note, 512);
	if (h->missed_depth || h->missed_busy || h->lost)
		putf(o, "%s%llu calls not traced (shadow stack full), %llu in signal handlers inside the tracer, "
			"%llu events lost (buffers full)", h->note ? "; " : "", (unsigned long long)h->missed_depth,
		     (unsigned long long)h->missed_busy, (unsigned long long)h->lost);
	putf(o, "</text>\n<text id=\"matched\" class=\"s\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
	     IMAGE_WIDTH - MARGIN, height - 10);
}

/*
 * Zoom: the clicked frame and its ancestors span the width, its
 * descendants are scaled with it, the rest hidden.  Search: the frames
 * whose name matches turn magenta, and the share of the root's time they
 * cover (nested matches counted once) is shown.  data-ready="1" on the
 * root element says the script ran to its end (t/77-svg.t reads it).
 */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"var svg = document.documentElement, W = +svg.getAttribute('data-w'), fr = [], byId = {}, last = '';\n"
	"var details = document.getElementById('details'), matched = document.getElementById('matched');\n"
	"var foot = details.textContent;\n"
	"[].forEach.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text'), p = byId[g.getAttribute('data-p')];\n"
	"  var tip = g.querySelector('title').textContent;\n"
	"  var o = { g: g, r: r, t: t, x: +r.getAttribute('x'), w: +r.getAttribute('width'), fill: r.getAttribute('fill'),\n"
	"            n: tip.split('\\n')[0], p: p, d: p ? p.d + 1 : 0 };\n"
	"  byId[g.id] = o; fr.push(o);\n"
	"  g.addEventListener('click', function () { zoom(o); });\n"
	"  g.addEventListener('mouseover', function () { details.textContent = tip.replace(/\\n/g, '   '); });\n"
	"  g.addEventListener('mouseout', function () { details.textContent = foot; });\n"
	"});\n"
	"function place(o, x, w, dim) {\n"
	"  var n = Math.floor((w - 6) / 7);\n"
	"  o.g.style.display = w < 0.1 ? 'none' : '';\n"
	"  o.g.style.opacity = dim ? 0.6 : 1;\n"
	"  o.r.setAttribute('x', x.toFixed(2)); o.r.setAttribute('width', w.toFixed(2));\n"
	"  o.t.setAttribute('x', (x + 3).toFixed(2));\n"
	"  o.t.textContent = n >= o.n.length ? o.n : n < 3 ? '' : o.n.slice(0, n - 2) + '..';\n"
	"}\n"
	"function zoom(z) {\n"
	"  var k = W / z.w, a;\n"
	"  for (a = z; a; a = a.p) a.up = z;\n"
	"  fr.forEach(function (o) {\n"
	"    if (o.up === z) place(o, 0, W, o !== z);\n"
	"    else if (o.d > z.d && o.x >= z.x - 0.02 && o.x + o.w <= z.x + z.w + 0.02) place(o, (o.x - z.x) * k, o.w * k);\n"
	"    else place(o, 0, 0);\n"
	"  });\n"
	"}\n"
	"function search(s) {\n"
	"  var re = null, iv = [], sum = 0, end = -1;\n"
	"  try { re = s ? new RegExp(s) : null; } catch (e) { matched.textContent = 'not a regular expression: ' + s; return; }\n"
	"  fr.forEach(function (o) {\n"
	"    var hit = re && o.d > 0 && re.test(o.n);\n"
	"    o.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : o.fill);\n"
	"    if (hit) iv.push([o.x, o.x + o.w]);\n"
	"  });\n"
	"  iv.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  iv.forEach(function (i) { if (i[1] > end) { sum += i[1] - Math.max(i[0], end); end = i[1]; } });\n"
	"  matched.textContent = re ? 'Matched: ' + (100 * sum / W).toFixed(1) + '% of the time' : '';\n"
	"}\n"
	"function ask() {\n"
	"  var s = window.prompt('Highlight the functions matching (a regular expression; empty: none)', last);\n"
	"  if (s !== null) search(last = s);\n"
	"}\n"
	"document.getElementById('search').addEventListener('click', ask);\n"
	"document.addEventListener('keydown', function (e) {\n"
	"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
	"  else if (e.key === 'Escape') search(last = '');\n"
	"});\n"
	"svg.setAttribute('data-ready', '1');\n"
	"})();\n"
	"]]></script>\n";

void svg_write(struct svg_graph *g, const struct svg_head *h, svg_sink sink, void *ctx)
{
	struct sout *o = malloc(sizeof(*o));
	struct layout l = { 0 };
	bool laid = lay_out(g, &l) == 0;
	int height = TOP + (int)(l.max_depth + 1) * FRAME_HEIGHT + BOTTOM;

	if (!o) {
		free_layout(&l);
		return;
	}
	o->sink = sink;
	o->ctx = ctx;
	o->n = 0;
	put_head(o, h, height);
	put_legend(o, g);
	putf(o, "<g transform=\"translate(%d,0)\">\n", MARGIN);
	for (uint32_t i = 0; laid && i < g->frames.n; i++)
		if (l.drawn[i])
			put_frame(o, g, &l, i, h->ns_per_tick);
	putf(o, "</g>\n");
	put_foot(o, h, height);
	put(o, script, sizeof(script) - 1);
	putf(o, "</svg>\n");
	flush(o);
	free(o);
	free_layout(&l);
}
