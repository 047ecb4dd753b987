/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/ftrace.h>, enough for the series' files. */
#ifndef MOCK_LINUX_FTRACE_H
#define MOCK_LINUX_FTRACE_H
#include <linux/types.h>
struct ftrace_graph_ret {
	unsigned long retval;
};
#endif
