/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One file's recorded functions with their prototypes (objpatch/engine/listing.c):
 * `objpatch list` prints them per file, `objpatch attach --list` per module
 * of a running process.
 */
#ifndef OBJPATCH_ENGINE_LISTING_H
#define OBJPATCH_ENGINE_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include "elf/elfobj.h"
#include "tables/tables.h"

/* What is said of a file with no call-site table, after its name. */
#define LISTING_UNRECORDED "no recorded call sites: compile with -pg and run recordmcount --mode=user on its objects"

struct func_out;

struct listing {
	struct elfobj obj;
	struct table_entry *sites;	/* NULL when the file has no table */
	size_t nsites;
	struct proto_entry *protos;
	size_t nprotos;
	struct func_out *funcs;		/* by listing_functions() */
	size_t nfuncs;
};

/*
 * Reads the tables of the file open on `fd` (`name` in messages): 0, or -1
 * with l->obj.err set.  `mapped`: through a mapping, its symbols only when
 * listing_functions() needs them, for a reader that may find no table in a
 * big file.  listing_free() in either case.
 */
int listing_read(struct listing *l, const char *name, int fd, bool mapped);

/* The functions that hold the sites, with their records: 0, or -1 with l->obj.err set. */
int listing_functions(struct listing *l);

/*
 * Prints the functions to stdout: one line each, or (json) one array of
 * objects, its lines after the first beginning with `indent`, and no
 * newline after its closing bracket.
 */
void listing_print(const struct listing *l, bool json, const char *indent);

/* One line on stderr when functions call the hook with no table entry (they cannot be traced). */
void listing_warn_unrecorded(struct listing *l, const char *path);

void listing_free(struct listing *l);

/* `s` as a JSON string on stdout, quoted; invalid UTF-8 as U+FFFD. */
void listing_json_string(const char *s);

#endif
