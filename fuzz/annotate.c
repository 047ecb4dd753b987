// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel trace annotator (objpatch annotate) on a trace: the input is
 * the trace text, the image a fixed vmlinux with prototype tables that
 * `make fuzz-build` links next to the harness (fuzz/annotate-image.sh;
 * $FUZZ_ANNOTATE_IMAGE overrides it).  Each input runs twice, as
 * `objpatch annotate --image IMAGE TRACE` and with --hex --strict.
 *
 * annotate.h offers only annotate_main(), which reads the image and the
 * trace from files and writes to standard output and standard error: the
 * trace goes through a file in the scratch directory, and the output to
 * /dev/null (fuzz_mute).
 */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "fuzz/fuzz.h"
#include "objpatch/engine/annotate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char image[PATH_MAX];

static void find_image(void)
{
	const char *env = getenv("FUZZ_ANNOTATE_IMAGE");
	char self[PATH_MAX];
	ssize_t n;

	if (env) {
		snprintf(image, sizeof(image), "%s", env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0)
			fuzz_fail("cannot find the harness's directory");
		self[n] = 0;
		snprintf(image, sizeof(image), "%s/annotate.image", dirname(self));
	}
	if (access(image, R_OK) < 0)
		fuzz_fail("no image %s (make fuzz-build makes it)", image);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	find_image();
	return 0;
}

static void annotate(const char *trace, bool hex)
{
	char *argv[] = { "objpatch", "annotate", "--image", image, (char *)trace, NULL, NULL, NULL };
	int argc = 5, rc;

	if (hex) {
		argv[argc++] = "--hex";
		argv[argc++] = "--strict";
	}
	optind = 0;	/* glibc: a full restart of getopt */
	fuzz_mute(true);
	rc = annotate_main(argc, argv);
	fuzz_mute(false);
	if (rc != 0 && rc != 1)
		fuzz_fail("objpatch annotate exited %d", rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char trace[PATH_MAX];

	fuzz_begin(data, size);
	snprintf(trace, sizeof(trace), "%s", fuzz_scratch_path("trace"));
	fuzz_write_file(trace, data, size);
	annotate(trace, false);
	annotate(trace, true);
	unlink(trace);
	fuzz_check_leftovers();
	return 0;
}
