/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A compiler command line as objpatch-cc reads it: what kind of
 * invocation it is, and each input with its language (gcc's and clang's
 * rules: -x, else the file name's extension).
 */
#ifndef OBJPATCH_CC_CMDLINE_H
#define OBJPATCH_CC_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

enum lang {
	LANG_LINK,	/* objects, archives, libraries, anything unknown: the linker's */
	LANG_TRACED,	/* C, C++, Objective-C (and their preprocessed forms) */
	LANG_ASM,	/* .s, .S, -x assembler*: never instrumented */
	LANG_HEADER,	/* precompiled headers: no object */
	LANG_OTHER,	/* Fortran, Ada, Go, D...: compiled as they are */
};

/* One argument, after response files were expanded. */
struct arg {
	const char *text;
	enum lang lang;		/* inputs only */
	bool input;
	bool link_only;		/* an option only a link reads (-l, -Wl,): left out of a compile */
	bool is_x;		/* -x LANG (or -xLANG); its argument follows when separate */
	bool opt_arg;		/* the separate argument of the option before */
	bool is_output;		/* -o FILE (or -oFILE); FILE follows when separate */
};

struct cmdline {
	struct arg *v;
	size_t n;
	bool passthrough;	/* -E, -S, -M, version and help probes */
	bool compile_only;	/* -c */
	bool lto;		/* -flto or -flto=N not undone by a later -fno-lto */
	bool has_g;		/* the user chose the debug info (-g, -g0, -ggdb3...) */
	bool verbose;		/* -v */
	bool md, mf, mt;	/* -MD or -MMD; -MF FILE; -MT or -MQ */
	const char *output;	/* -o's FILE, NULL without */
	size_t ntraced, ninputs;
	/* Flags that change the target (-m32, --target=): -dumpmachine needs them. */
	const char **target_flags;
	size_t ntarget_flags;
};

/*
 * Read argv (the compiler's arguments, without the compiler); @FILE
 * response files are expanded.  -1 with one line on stderr when a
 * response file cannot be read.
 */
int cmdline_parse(struct cmdline *c, char **argv, int argc);
void cmdline_free(struct cmdline *c);
/* The language of FILE by its name alone (LANG_LINK when unknown). */
enum lang lang_of_name(const char *file);

#endif
