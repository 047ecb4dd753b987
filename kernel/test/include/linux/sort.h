/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/sort.h>, enough for the series' files. */
#ifndef MOCK_LINUX_SORT_H
#define MOCK_LINUX_SORT_H
#include <stdlib.h>
#define sort(base, n, size, cmp, swap) qsort(base, n, size, cmp)
#endif
