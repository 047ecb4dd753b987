/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recordmcount --check: whether a file's table holds exactly the calls to
 * the profiling hook, for CI; --fix sorts a linked file's table and zeroes
 * its stale entries, as the kernel's sorttable does at link time.
 */
#ifndef RECORDMCOUNT_CHECK_H
#define RECORDMCOUNT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

enum check_kind {
	CHECK_MISSING,		/* a call to the hook without an entry */
	CHECK_STALE,		/* an entry inside no function */
	CHECK_DUPLICATE,	/* an entry listed again */
	CHECK_NOT_CALL,		/* an entry at something else than the call or its NOP */
	CHECK_UNTRACED,		/* objects: an entry in a section that is not traced */
	CHECK_WRONG_TABLE,	/* user mode: a __fentry__ call in __mcount_rel, or the reverse */
	CHECK_NO_PROTO,		/* objects: a function with an entry but no prototype record */
	CHECK_HOOK_REF,		/* a reference to the hook that is no call the recorder knows */
	CHECK_NO_TABLE,		/* functions but no table at all: nothing is traceable */
	CHECK_UNTYPED,		/* a note, not an error: a function with an entry but no prototype */
	/*
	 * A note: an object (a .o, a kernel module) with functions, no table and
	 * no call to the hook.  Kbuild builds some without -pg on purpose
	 * (lib/crc7.ko): only a linked program with nothing traceable is a mistake.
	 */
	CHECK_NOT_TRACEABLE,
	CHECK_NKINDS,
};

/* Notes are listed but never change the exit status. */
#define CHECK_IS_NOTE(kind)	((kind) == CHECK_UNTYPED || (kind) == CHECK_NOT_TRACEABLE)

/* Exit statuses, per file and for the run. */
#define CHECK_CLEAN	0
#define CHECK_FINDINGS	1
#define CHECK_FAILED	2

struct check_run {
	bool json;
	bool fix;
	size_t files, clean, with_findings, failed, untyped;
	size_t count[CHECK_NKINDS];
};

void check_start(struct check_run *run);
/*
 * Check `path`; `target` is the file --fix replaces (a symbolic link's
 * target).  Prints the findings (or, with json, one element of the
 * document).  Returns CHECK_CLEAN, CHECK_FINDINGS or CHECK_FAILED.
 */
int check_file(struct check_run *run, const char *path, const char *target);
/* Ends the JSON document; returns the run's exit status. */
int check_finish(struct check_run *run);

#endif
