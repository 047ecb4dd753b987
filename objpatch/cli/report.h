/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch report (objpatch/cli/report.c). */
#ifndef OBJPATCH_CLI_REPORT_H
#define OBJPATCH_CLI_REPORT_H

int report_main(int argc, char **argv);

#endif
