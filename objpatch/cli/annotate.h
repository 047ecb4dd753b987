/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch annotate (objpatch/cli/annotate.c). */
#ifndef OBJPATCH_CLI_ANNOTATE_H
#define OBJPATCH_CLI_ANNOTATE_H

int annotate_main(int argc, char **argv);

#endif
