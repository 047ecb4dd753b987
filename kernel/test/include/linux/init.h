/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/init.h>, enough for the series' files. */
#ifndef MOCK_LINUX_INIT_H
#define MOCK_LINUX_INIT_H
#include <linux/kernel.h>
/* The harness calls the initcall itself. */
#define early_initcall(fn) int (*mock_initcall)(void) = fn;
#endif
