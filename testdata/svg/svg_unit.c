// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace/svg.c on graphs no C program's trace makes, for t/77-svg.t:
 *   svg_unit names FILE   names and values with markup, bytes that are not
 *                         UTF-8, control characters and code points XML
 *                         forbids (each must leave the file well-formed);
 *   svg_unit deep FILE    a chain 20,000 frames deep (no recursion may overflow);
 *   svg_unit wide FILE    10,000 callees too narrow to draw beside one wide one;
 *   svg_unit skew FILE    a callee longer than its caller (clocks of two CPUs);
 *   svg_unit empty FILE   nothing called.
 */
#include <stdio.h>
#include <string.h>
#include "trace/svg.h"

/* svg_frame() with its module set when made. */
static uint32_t frame(struct svg_graph *g, uint32_t parent, const char *name, const char *module)
{
	bool made = false;
	uint32_t f = svg_frame(g, parent, name, &made);

	if (made)
		svg_frame_module(g, f, module);
	return f;
}

static void to_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

static const char *const odd_names[] = {
	"plain", "a<b>&\"c'", "bad\xff\xfe bytes", "ctl\x01\x1f\ttab\nnl", "nonchar\xef\xbf\xbe",
	"surrogate\xed\xa0\x80", "caf\xc3\xa9 \xe2\x82\xac", "cut\xe2\x82",
};

static void names(struct svg_graph *g)
{
	static char longname[5000];
	uint32_t top = frame(g, 0, "main", "/bin/prog");

	memset(longname, 'x', sizeof(longname) - 1);
	for (size_t i = 0; i < sizeof(odd_names) / sizeof(odd_names[0]); i++) {
		uint32_t f = frame(g, top, odd_names[i], i % 2 ? "/lib/a&b.so" : "/lib/<c>.so");

		for (size_t v = 0; v < sizeof(odd_names) / sizeof(odd_names[0]); v++)
			svg_call(g, f, 1000, 0, odd_names[v]);
	}
	svg_call(g, frame(g, top, longname, NULL), 1000, 0, longname);
	svg_call(g, top, 100000, 9000, "0");
}

static void deep(struct svg_graph *g)
{
	uint32_t f = 0;

	for (int i = 0; i < 20000; i++)
		f = frame(g, f, "recurse", "/bin/prog");
	for (int i = 0; i < 20000; i++)
		svg_call(g, f--, 1000 + 10 * (uint64_t)i, 1000 + 10 * (uint64_t)i - 10, "1");
}

static void wide(struct svg_graph *g)
{
	static char tiny[10000][16];
	uint32_t top = frame(g, 0, "main", "/bin/prog");

	for (int i = 0; i < 10000; i++) {
		snprintf(tiny[i], sizeof(tiny[i]), "tiny%d", i);
		svg_call(g, frame(g, top, tiny[i], "/bin/prog"), 1, 0, "");
	}
	svg_call(g, frame(g, top, "big", "/lib/libbig.so"), 10000000, 0, "");
	svg_call(g, top, 10010000, 10010000, "");
}

static void skew(struct svg_graph *g)
{
	uint32_t top = frame(g, 0, "main", "/bin/prog"), a = frame(g, top, "a", "/bin/prog");

	svg_call(g, frame(g, a, "b", "/bin/prog"), 1200, 0, "");
	svg_call(g, a, 1000, 1200, "");
	svg_call(g, frame(g, top, "c", "/bin/prog"), 500, 0, "");
	svg_call(g, top, 1400, 1500, "");
}

static void empty(struct svg_graph *g)
{
	(void)g;
}

static const struct {
	const char *name;
	void (*make)(struct svg_graph *g);
} cases[] = { { "names", names }, { "deep", deep }, { "wide", wide }, { "skew", skew }, { "empty", empty } };

int main(int argc, char **argv)
{
	struct svg_head h = { .process = "unit<&>", .pid = 1, .ns_per_tick = 1.0, .note = "a note & \x01 more" };

	for (size_t i = 0; argc == 3 && i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct svg_graph *g;
		FILE *f;

		if (strcmp(argv[1], cases[i].name))
			continue;
		if (!(g = svg_new()) || !(f = fopen(argv[2], "w")))
			return perror(argv[2]), 1;
		cases[i].make(g);
		svg_write(g, &h, to_file, f);
		svg_free(g);
		return fclose(f) ? 1 : 0;
	}
	fprintf(stderr, "usage: svg_unit names|deep|wide|skew|empty FILE\n");
	return 2;
}
