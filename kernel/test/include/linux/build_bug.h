/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/build_bug.h>, enough for the series' files. */
#ifndef MOCK_LINUX_BUILD_BUG_H
#define MOCK_LINUX_BUILD_BUG_H
#include <assert.h>
#endif
