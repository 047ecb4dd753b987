/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/kernel.h>, enough for the series' files. */
#ifndef MOCK_LINUX_KERNEL_H
#define MOCK_LINUX_KERNEL_H
#include <linux/types.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* IS_ENABLED(CONFIG_X) reads CONFIG_X_MOCK: the host's answers. */
#define IS_ENABLED(x) (x##_MOCK)
#define CONFIG_64BIT_MOCK (__SIZEOF_LONG__ == 8)
#define CONFIG_CPU_BIG_ENDIAN_MOCK (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define CONFIG_X86_32_MOCK 0
#define CONFIG_HAVE_FUNCTION_GRAPH_RETVAL2_MOCK 0
#define BIT(n) (1UL << (n))
#define IS_ERR_VALUE(x) ((unsigned long)(x) >= (unsigned long)-4095)
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __ro_after_init
#define __init
#endif
