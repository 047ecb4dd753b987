// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch: the command line of the tracing runtime.  `objpatch list` reads
 * the call-site and prototype tables of an object, executable or shared
 * library and prints every recorded function with its prototype.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/files.h"
#include "objpatch/engine/annotate.h"
#include "objpatch/attach/attach.h"
#include "objpatch/engine/listing.h"
#include "objpatch/engine/opts.h"
#include "objpatch/engine/report.h"
#include "objpatch/cli/run.h"

static int list_file(const char *path, bool json)
{
	struct listing l;
	struct stat st;
	const char *why;
	int fd, rc;

	if ((why = file_open_input(path, false, &fd, &st))) {
		fprintf(stderr, "objpatch: %s: %s\n", path, why);
		return -1;
	}
	rc = listing_read(&l, path, fd, false);
	close(fd);
	if (rc == 0 && l.nsites)
		rc = listing_functions(&l);
	if (rc < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", path, l.obj.err);
	} else if (!l.nsites) {
		/* Said, not an empty list: the usual cause is a build step left out. */
		if (json)
			printf("[]\n");
		fprintf(stderr, "objpatch: %s: " LISTING_UNRECORDED "\n", path);
		rc = -1;
	} else {
		listing_print(&l, json, "");
		if (json)
			putchar('\n');
		listing_warn_unrecorded(&l, path);
	}
	listing_free(&l);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: objpatch list [--json] FILE...\n"
		   "       objpatch run [OPTIONS] [--] PROGRAM [ARGS...]\n"
		   "       objpatch record [OPTIONS] [--] PROGRAM [ARGS...]\n"
		   "       objpatch report [OPTIONS] [RECORDING]\n"
		   "       objpatch annotate --image FILE [--image FILE]... [--hex] [--strict] [TRACE]\n"
		   "       objpatch attach [OPTIONS] PID\n"
		   "       objpatch --version\n"
		   "list: prints every function with a recorded call site, where it is and its prototype.\n"
		   "run: traces PROGRAM as a function graph.\n"
		   "record, report: the same in two steps, through a raw recording.\n"
		   "annotate: types the return values of a kernel function_graph trace.\n"
		   "attach: traces a running process, then leaves it running untraced.\n"
		   "objpatch COMMAND --help: that command's options.\n");
}

static void list_usage(FILE *f)
{
	fprintf(f, "usage: objpatch list [--json] FILE...\n"
		   "Prints every function of each object, executable or shared library that has a\n"
		   "recorded call site: where it is and its prototype.\n"
		   "  -j, --json   one JSON array of objects per file\n"
		   "  -h, --help   this text\n"
		   "Exit status: 0; 1 when a file could not be read or has no recorded call sites;\n"
		   "2 for a usage error.\n");
}

struct list_opts {
	bool json;
	const char **files;
	size_t nfiles;
};

enum { LIST_JSON = 1 };

static int list_option(void *ctx, int id, const char *value)
{
	struct list_opts *o = ctx;

	if (id == LIST_JSON)
		o->json = true;
	else
		o->files[o->nfiles++] = value;
	return 0;
}

static int list_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "json", 'j', NULL, LIST_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { .files = calloc((size_t)argc, sizeof(char *)) };
	const struct cli_cmd cmd = { .name = "objpatch list", .opts = opts, .usage = list_usage,
				     .set = list_option, .ctx = &o };
	int failed = 0, rc;

	if (!o.files)
		return 2;
	rc = cli_parse(&cmd, argc, argv, 2);
	if (rc >= 0 && !o.nfiles) {
		fprintf(stderr, "objpatch list: no file: objpatch list [--json] FILE...\n");
		rc = CLI_ERROR;
	}
	if (rc < 0) {
		free(o.files);
		return rc == CLI_HELP ? 0 : 2;
	}
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < o.nfiles; i++)
		if (list_file(o.files[i], o.json) < 0)
			failed = 1;
	free(o.files);
	return failed;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*main)(int argc, char **argv);
	} commands[] = {
		{ "list", list_main },
		{ "run", run_main },
		{ "record", run_main },
		{ "report", report_main },
		{ "annotate", annotate_main },
		{ "attach", attach_main },
	};

	if (argc < 2) {
		fprintf(stderr, "objpatch: no command: give list, run, record, report, annotate or attach "
				"(objpatch --help)\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("objpatch %s\n", VERSION);
		return 0;
	}
	fprintf(stderr, "objpatch: unknown command %s: give list, run, record, report, annotate or attach "
			"(objpatch --help)\n", argv[1]);
	return 2;
}
