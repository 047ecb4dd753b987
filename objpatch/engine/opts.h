/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The options of every objpatch subcommand, read by one parser from a
 * table: --name VALUE, --name=VALUE, -L VALUE and -LVALUE alike, -h and
 * --help, and one line on standard error for every mistake.
 */
#ifndef OBJPATCH_ENGINE_OPTS_H
#define OBJPATCH_ENGINE_OPTS_H

#include <stdbool.h>
#include <stdio.h>

/* One option of a subcommand. */
struct cli_opt {
	const char *name;	/* the long name, without "--" */
	char letter;		/* the short name, 0 for none */
	const char *value;	/* what its value is, in messages ("N"); NULL: it takes none */
	int id;			/* handed to the command's set(); never CLI_OPERAND */
};

#define CLI_OPERAND	0	/* set()'s id for an operand (a file...) */

struct cli_cmd {
	const char *name;		/* "objpatch run": how messages begin */
	const struct cli_opt *opts;	/* ended by an entry without a name */
	void (*usage)(FILE *f);
	/*
	 * The option's (or operand's) value checked and kept; -1 after one
	 * line on standard error naming the option.  `value` is NULL for a flag.
	 */
	int (*set)(void *ctx, int id, const char *value);
	void *ctx;
	bool first_operand_ends;	/* run: the program and its arguments follow */
};

enum { CLI_HELP = -1, CLI_ERROR = -2 };

/*
 * Reads argv[first...].  Returns the index of the first argument left (the
 * program, for first_operand_ends; else argc, every operand given to
 * set()), CLI_HELP after printing the usage on standard output, or
 * CLI_ERROR after one line on standard error.
 */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, int first);

/* `s` a decimal number in lo..hi: 0, else -1 after one line naming the option. */
int cli_number(const struct cli_cmd *c, const char *opt, const char *s, unsigned long lo, unsigned long hi,
	       unsigned long *out);

/*
 * The trace's --output, opened for writing before anything starts: an
 * hour's trace must not be lost to a typing mistake.  *created: it was not
 * there.  0, or -1 after one line beginning with `cmd`.
 */
int cli_check_output(const char *cmd, const char *output, bool *created);
/* Removes the output cli_check_output() created if it is still empty (through its symlink). */
void cli_remove_empty_output(const char *output);

const char *cli_bad_filter_glob(const char *glob);

#endif
