// SPDX-License-Identifier: GPL-2.0-only
/*
 * The subcommands' option parser (opts.h).  Not getopt_long(): its
 * messages are its own (and usage follows them), and `objpatch run` must
 * stop at the program's name, which getopt does only with a '+' that not
 * every libc reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/files.h"
#include "objpatch/engine/opts.h"
#include "trace/filter.h"

static const struct cli_opt *by_name(const struct cli_opt *o, const char *name, size_t len)
{
	for (; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct cli_opt *by_letter(const struct cli_opt *o, char letter)
{
	for (; o->name; o++)
		if (o->letter && o->letter == letter)
			return o;
	return NULL;
}

static int unknown(const struct cli_cmd *c, const char *arg)
{
	fprintf(stderr, "%s: unknown option %s: %s --help lists them\n", c->name, arg, c->name);
	return CLI_ERROR;
}

/*
 * One option at argv[*i]: its value attached (--name=V, -LV) or the next
 * argument; *i moves past what it used.
 */
static int one_option(const struct cli_cmd *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *attached = NULL, *value;
	const struct cli_opt *o;

	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');

		o = by_name(c->opts, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
		attached = eq ? eq + 1 : NULL;
	} else {
		o = by_letter(c->opts, arg[1]);
		attached = arg[2] ? arg + 2 : NULL;
	}
	if (!o)
		return unknown(c, arg);
	if (!o->value) {
		if (attached && arg[1] != '-')	/* -xy: flags do not bundle */
			return unknown(c, arg);
		if (attached) {
			fprintf(stderr, "%s: --%s takes no value: give it alone\n", c->name, o->name);
			return CLI_ERROR;
		}
		return c->set(c->ctx, o->id, NULL) < 0 ? CLI_ERROR : 0;
	}
	value = attached;
	if (!value && *i + 1 < argc)
		value = argv[++*i];
	if (!value) {
		fprintf(stderr, "%s: --%s needs a value: --%s %s\n", c->name, o->name, o->name, o->value);
		return CLI_ERROR;
	}
	return c->set(c->ctx, o->id, value) < 0 ? CLI_ERROR : 0;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, int first)
{
	bool options = true;

	for (int i = first; i < argc; i++) {
		const char *arg = argv[i];

		if (options && !strcmp(arg, "--")) {
			options = false;
			if (c->first_operand_ends)
				return i + 1;
			continue;
		}
		if (options && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
			c->usage(stdout);
			return CLI_HELP;
		}
		if (options && arg[0] == '-' && arg[1]) {
			if (one_option(c, argc, argv, &i) < 0)
				return CLI_ERROR;
			continue;
		}
		if (c->first_operand_ends)
			return i;
		if (c->set(c->ctx, CLI_OPERAND, arg) < 0)
			return CLI_ERROR;
	}
	return argc;
}

int cli_number(const struct cli_cmd *c, const char *opt, const char *s, unsigned long lo, unsigned long hi,
	       unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	/* strtoul takes "-1" and " 1": a number here is digits only */
	if (!*s || strspn(s, "0123456789") != strlen(s) || *end || errno || v < lo || v > hi) {
		fprintf(stderr, "%s: --%s %s: not a whole number from %lu to %lu: give one in that range\n",
			c->name, opt, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * The output, opened for writing before the program starts (or the
 * recording is read): a program that runs for an hour must not lose its
 * trace to a typing mistake.  The writer truncates it when it writes.
 * *created: the file was not there.
 */
int cli_check_output(const char *cmd, const char *output, bool *created)
{
	struct stat st;
	bool exists = stat(output, &st) == 0;
	/* A FIFO or a device: opening it could wait for a reader, or have effects */
	bool special = exists && !S_ISREG(st.st_mode);
	int fd = -1;

	*created = !exists;

	if (special ? access(output, W_OK) < 0 : (fd = open(output, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, "%s: --output %s: %s: give a file in a directory you can write\n", cmd, output,
			strerror(errno));
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The file a symlink named as the output led to, not the user's link. */
void cli_remove_empty_output(const char *output)
{
	char *target = file_follow_links(output);
	struct stat st;

	if (target && lstat(target, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(target);
	free(target);
}

/* Why --filter GLOB cannot be taken, or NULL. */
const char *cli_bad_filter_glob(const char *glob)
{
	if (strchr(glob, ','))
		return "a pattern cannot hold ',': give one --filter per pattern";
	return trace_glob_error(glob[0] == '!' ? glob + 1 : glob);
}
