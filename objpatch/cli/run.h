/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch run and objpatch record (objpatch/cli/run.c). */
#ifndef OBJPATCH_CLI_RUN_H
#define OBJPATCH_CLI_RUN_H

int run_main(int argc, char **argv);

#endif
