/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch attach (objpatch/cli/attach.c). */
#ifndef OBJPATCH_CLI_ATTACH_H
#define OBJPATCH_CLI_ATTACH_H

int attach_main(int argc, char **argv);

#endif
