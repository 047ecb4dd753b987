/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/preempt.h>: one thread, nothing to hold off. */
#ifndef MOCK_LINUX_PREEMPT_H
#define MOCK_LINUX_PREEMPT_H
#define preempt_disable_notrace() do { } while (0)
#define preempt_enable_notrace() do { } while (0)
#endif
