/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel/test: a user-space stand-in for <linux/kallsyms.h>: the harness
 * answers from the functions of System.map (harness.c).
 */
#ifndef MOCK_LINUX_KALLSYMS_H
#define MOCK_LINUX_KALLSYMS_H
int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *symbolsize,
				unsigned long *offset);
#endif
