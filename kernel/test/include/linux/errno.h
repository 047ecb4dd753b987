/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/errno.h>, enough for the series' files. */
#ifndef MOCK_LINUX_ERRNO_H
#define MOCK_LINUX_ERRNO_H
#include <errno.h>
#endif
