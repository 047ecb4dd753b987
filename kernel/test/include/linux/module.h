/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/module.h>: the harness has no modules. */
#ifndef MOCK_LINUX_MODULE_H
#define MOCK_LINUX_MODULE_H
struct module;
#endif
