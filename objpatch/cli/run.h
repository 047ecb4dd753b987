/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch run (objpatch/run.c). */
#ifndef OBJPATCH_CLI_RUN_H
#define OBJPATCH_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>

int run_main(int argc, char **argv);
/*
 * The runtime objpatch loads into programs: "" this machine's, "NAME/"
 * another's (arch/machines.h's qemu name).  0, or -1 when none is there.
 */
int run_find_runtime(char *out, size_t len, const char *sub);

/* Why the runtime cannot use --filter's GLOB ('!' first: an exclusion), or NULL. */
const char *run_bad_glob(const char *glob);

#endif
