/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/printk.h>, enough for the series' files. */
#ifndef MOCK_LINUX_PRINTK_H
#define MOCK_LINUX_PRINTK_H
#include <stdio.h>
#define pr_info(fmt, ...) fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#endif
