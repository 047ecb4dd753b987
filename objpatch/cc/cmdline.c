// SPDX-License-Identifier: GPL-2.0-only
/*
 * Classifying a compiler command line.  The option table is the one place
 * that knows gcc's and clang's options: which take a separate argument
 * (so that argument is never taken for an input), which only a link
 * reads, and which make the invocation one to pass through untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/cc/cmdline.h"
#include "util/array.h"

enum {
	SEP = 1,	/* exactly NAME: the next argument is its value */
	PREFIX = 2,	/* NAME followed by anything is this option too */
	LINK = 4,	/* only a link reads it */
	PASS = 8,	/* no object is made: pass the command through */
	TARGET = 16,	/* changes the target machine */
};

struct opt_rule {
	const char *name;
	unsigned flags;
};

static const struct opt_rule rules[] = {
	{ "-E", PASS }, { "-S", PASS }, { "-M", PASS }, { "-MM", PASS }, { "-fsyntax-only", PASS },
	{ "--version", PASS }, { "-dumpversion", PASS }, { "-dumpfullversion", PASS },
	{ "-dumpmachine", PASS }, { "-dumpspecs", PASS }, { "-###", PASS },
	{ "-print-", PASS | PREFIX }, { "--print-", PASS | PREFIX }, { "--help", PASS | PREFIX },
	{ "-MF", SEP | PREFIX }, { "-MT", SEP | PREFIX }, { "-MQ", SEP | PREFIX },
	{ "-dumpbase", SEP }, { "-dumpbase-ext", SEP }, { "-dumpdir", SEP }, { "-auxbase", SEP },
	{ "-I", SEP | PREFIX }, { "-D", SEP | PREFIX }, { "-U", SEP | PREFIX }, { "-B", SEP | PREFIX },
	{ "-include", SEP | PREFIX }, { "-imacros", SEP | PREFIX }, { "-isystem", SEP | PREFIX },
	{ "-iquote", SEP | PREFIX }, { "-idirafter", SEP | PREFIX }, { "-iprefix", SEP | PREFIX },
	{ "-iwithprefix", SEP | PREFIX }, { "-iwithprefixbefore", SEP | PREFIX },
	{ "-isysroot", SEP | PREFIX }, { "-imultilib", SEP | PREFIX }, { "--sysroot", SEP },
	{ "-Xassembler", SEP }, { "-Xpreprocessor", SEP }, { "-Xclang", SEP }, { "-mllvm", SEP },
	{ "--param", SEP }, { "-aux-info", SEP }, { "-arch", SEP }, { "-G", SEP | PREFIX },
	{ "-target", SEP | TARGET }, { "--target=", PREFIX | TARGET }, { "-m32", TARGET },
	{ "-m64", TARGET }, { "-mx32", TARGET }, { "-mabi=", PREFIX | TARGET },
	{ "-L", SEP | PREFIX | LINK }, { "-l", SEP | PREFIX | LINK }, { "-T", SEP | PREFIX | LINK },
	{ "-u", SEP | PREFIX | LINK }, { "-z", SEP | LINK }, { "-e", SEP | LINK },
	{ "-Xlinker", SEP | LINK }, { "-Wl,", PREFIX | LINK }, { "-static", LINK },
	{ "-static-", PREFIX | LINK }, { "-shared", LINK }, { "-shared-", PREFIX | LINK },
	{ "-rdynamic", LINK }, { "-pie", LINK }, { "-no-pie", LINK }, { "-static-pie", LINK },
	{ "-nostdlib", LINK }, { "-nostartfiles", LINK }, { "-nodefaultlibs", LINK },
	{ "-fuse-ld=", PREFIX | LINK }, { "--ld-path=", PREFIX | LINK }, { "-s", LINK },
};

static const struct opt_rule *rule_of(const char *a)
{
	const struct opt_rule *best = NULL;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct opt_rule *r = &rules[i];
		size_t len = strlen(r->name);

		if (strcmp(a, r->name) == 0)
			return r;
		/* the longest prefix: -include is not -I nclude */
		if ((r->flags & PREFIX) && strncmp(a, r->name, len) == 0 && (!best || len > strlen(best->name)))
			best = r;
	}
	return best;
}

struct lang_name {
	const char *name;
	enum lang lang;
};

/* File name extensions, as gcc's driver reads them (case matters: .C is C++, .S preprocessed assembly). */
static const struct lang_name extensions[] = {
	{ "c", LANG_TRACED }, { "i", LANG_TRACED }, { "cc", LANG_TRACED }, { "cp", LANG_TRACED },
	{ "cxx", LANG_TRACED }, { "cpp", LANG_TRACED }, { "CPP", LANG_TRACED }, { "c++", LANG_TRACED },
	{ "C", LANG_TRACED }, { "ii", LANG_TRACED }, { "m", LANG_TRACED }, { "mi", LANG_TRACED },
	{ "mm", LANG_TRACED }, { "M", LANG_TRACED }, { "mii", LANG_TRACED },
	{ "s", LANG_ASM }, { "S", LANG_ASM }, { "sx", LANG_ASM },
	{ "h", LANG_HEADER }, { "hh", LANG_HEADER }, { "hpp", LANG_HEADER }, { "hxx", LANG_HEADER },
	{ "H", LANG_HEADER }, { "h++", LANG_HEADER }, { "tcc", LANG_HEADER },
	{ "f", LANG_OTHER }, { "for", LANG_OTHER }, { "f90", LANG_OTHER }, { "f95", LANG_OTHER },
	{ "F", LANG_OTHER }, { "F90", LANG_OTHER }, { "go", LANG_OTHER }, { "d", LANG_OTHER },
	{ "adb", LANG_OTHER }, { "ads", LANG_OTHER },
};

/* -x's names; a name ending in -header is a header whatever its language. */
static const struct lang_name x_names[] = {
	{ "c", LANG_TRACED }, { "c++", LANG_TRACED }, { "objective-c", LANG_TRACED },
	{ "objective-c++", LANG_TRACED }, { "cpp-output", LANG_TRACED }, { "c++-cpp-output", LANG_TRACED },
	{ "objective-c-cpp-output", LANG_TRACED }, { "objc-cpp-output", LANG_TRACED },
	{ "objective-c++-cpp-output", LANG_TRACED }, { "objc++-cpp-output", LANG_TRACED },
	{ "assembler", LANG_ASM }, { "assembler-with-cpp", LANG_ASM },
};

enum lang lang_of_name(const char *file)
{
	const char *dot = strrchr(file, '.');

	if (!dot || strchr(dot, '/'))
		return LANG_LINK;
	for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
		if (strcmp(dot + 1, extensions[i].name) == 0)
			return extensions[i].lang;
	return LANG_LINK;
}

/* -x LANG: -1 for `none` (by the file name again). */
static int lang_of_x(const char *name)
{
	size_t n = strlen(name);

	if (strcmp(name, "none") == 0)
		return -1;
	if (n > 7 && strcmp(name + n - 7, "-header") == 0)
		return LANG_HEADER;
	for (size_t i = 0; i < sizeof(x_names) / sizeof(x_names[0]); i++)
		if (strcmp(name, x_names[i].name) == 0)
			return x_names[i].lang;
	return LANG_OTHER;
}

struct strvec {
	char **v;
	size_t n, cap;
};

static void push(struct strvec *s, char *str)
{
	if (!grow_array(&s->v, s->n, &s->cap, sizeof(*s->v)))
		abort();
	s->v[s->n++] = str;
}

static int expand(struct strvec *out, const char *arg, int depth);

/* A response file's words, split as gcc's buildargv does: blanks, quotes, backslashes. */
static int expand_file(struct strvec *out, const char *path, int depth)
{
	FILE *f = fopen(path, "r");
	char *word = NULL;
	size_t len = 0;
	int c, quote = 0, rc = 0;
	bool in_word = false;
	FILE *w = NULL;

	if (!f) {
		fprintf(stderr, "objpatch-cc: @%s: %s: give the response file's path as the compiler would read it\n",
			path, strerror(errno));
		return -1;
	}
	while (rc == 0 && (c = getc(f)) != EOF) {
		if (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) {
			if (in_word) {
				fclose(w);
				rc = expand(out, word, depth + 1);
				free(word);
				in_word = false;
			}
			continue;
		}
		if (!in_word) {
			w = open_memstream(&word, &len);
			in_word = true;
		}
		if (c == '\\') {
			c = getc(f);
			if (c == EOF)
				break;
		} else if (quote ? c == quote : (c == '\'' || c == '"')) {
			quote = quote ? 0 : c;
			continue;
		}
		putc(c, w);
	}
	if (in_word) {
		fclose(w);
		if (rc == 0)
			rc = expand(out, word, depth + 1);
		free(word);
	}
	fclose(f);
	return rc;
}

static int expand(struct strvec *out, const char *arg, int depth)
{
	/* gcc stops at 2000 nested files; a loop of files is a mistake either way */
	if (arg[0] == '@' && arg[1] && depth < 64)
		return expand_file(out, arg + 1, depth);
	push(out, strdup(arg));
	return 0;
}

static void add_target_flag(struct cmdline *c, const char *a, const char *value)
{
	c->target_flags = realloc(c->target_flags, (c->ntarget_flags + 2) * sizeof(*c->target_flags));
	if (!c->target_flags)
		abort();
	c->target_flags[c->ntarget_flags++] = a;
	if (value)
		c->target_flags[c->ntarget_flags++] = value;
}

/* One option (not an input) at v[i]; returns how many arguments it took. */
static size_t classify_option(struct cmdline *c, size_t i)
{
	struct arg *a = &c->v[i];
	const struct opt_rule *r = rule_of(a->text);
	bool sep = r && (r->flags & SEP) && strcmp(a->text, r->name) == 0 && i + 1 < c->n;

	if (strcmp(a->text, "-c") == 0)
		c->compile_only = true;
	else if (strcmp(a->text, "-v") == 0)
		c->verbose = true;
	else if (strcmp(a->text, "-MD") == 0 || strcmp(a->text, "-MMD") == 0)
		c->md = true;
	else if (strncmp(a->text, "-MF", 3) == 0)
		c->mf = true;
	else if (strncmp(a->text, "-MT", 3) == 0 || strncmp(a->text, "-MQ", 3) == 0)
		c->mt = true;
	else if (strcmp(a->text, "-flto") == 0 || strncmp(a->text, "-flto=", 6) == 0)
		c->lto = true;
	else if (strcmp(a->text, "-fno-lto") == 0)
		c->lto = false;
	else if (strncmp(a->text, "-g", 2) == 0 && strncmp(a->text, "-gz", 3) != 0 &&
		 strncmp(a->text, "-gno-", 5) != 0 && strcmp(a->text, "-gsplit-dwarf") != 0)
		c->has_g = true;
	if (r) {
		c->passthrough |= (r->flags & PASS) != 0;
		a->link_only = (r->flags & LINK) != 0;
		if (r->flags & TARGET)
			add_target_flag(c, a->text, sep ? c->v[i + 1].text : NULL);
	}
	if (sep) {
		c->v[i + 1].opt_arg = true;
		c->v[i + 1].link_only = a->link_only;
		return 2;
	}
	return 1;
}

int cmdline_parse(struct cmdline *c, char **argv, int argc)
{
	struct strvec words = { 0 };
	int cur = -1;	/* the -x in force, -1 for by name */

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < argc; i++)
		if (expand(&words, argv[i], 0) < 0)
			return -1;
	c->n = words.n;
	c->v = calloc(words.n + 1, sizeof(*c->v));
	if (!c->v)
		abort();
	for (size_t i = 0; i < words.n; i++)
		c->v[i].text = words.v[i];
	free(words.v);
	for (size_t i = 0; i < c->n;) {
		struct arg *a = &c->v[i];
		const char *t = a->text;

		if (strcmp(t, "-o") == 0 || (strncmp(t, "-o", 2) == 0 && t[2])) {
			a->is_output = true;
			c->output = t[2] ? t + 2 : (i + 1 < c->n ? c->v[i + 1].text : NULL);
			if (!t[2] && i + 1 < c->n)
				c->v[++i].opt_arg = true;
			i++;
		} else if (strcmp(t, "-x") == 0 || (strncmp(t, "-x", 2) == 0 && t[2])) {
			const char *name = t[2] ? t + 2 : (i + 1 < c->n ? c->v[i + 1].text : "none");

			a->is_x = true;
			cur = lang_of_x(name);
			if (!t[2] && i + 1 < c->n)
				c->v[++i].opt_arg = true;
			i++;
		} else if (t[0] == '-' && t[1]) {
			i += classify_option(c, i);
		} else {
			a->input = true;
			a->lang = cur >= 0 ? (enum lang)cur : lang_of_name(t);
			c->ninputs++;
			c->ntraced += a->lang == LANG_TRACED;
			i++;
		}
	}
	/* `cc -v` alone prints the driver's configuration */
	if (c->verbose && !c->ninputs)
		c->passthrough = true;
	return 0;
}

void cmdline_free(struct cmdline *c)
{
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->v[i].text);
	free(c->v);
	free(c->target_flags);
}
