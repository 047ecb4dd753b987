/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/errname.h>, enough for the series' files. */
#ifndef MOCK_LINUX_ERRNAME_H
#define MOCK_LINUX_ERRNAME_H
#include <stdio.h>
#include <string.h>
/* The C library's names (glibc 2.32 and later): "-EINVAL" for -22. */
static inline const char *errname(int err)
{
	static char buf[64];
	const char *name = strerrorname_np(err < 0 ? -err : err);

	if (!name)
		return NULL;
	snprintf(buf, sizeof(buf), "%s%s", err < 0 ? "-" : "", name);
	return buf;
}
#endif
