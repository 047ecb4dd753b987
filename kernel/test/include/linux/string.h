/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/string.h>, enough for the series' files. */
#ifndef MOCK_LINUX_STRING_H
#define MOCK_LINUX_STRING_H
#include <string.h>
#endif
