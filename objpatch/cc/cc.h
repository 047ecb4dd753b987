/* SPDX-License-Identifier: GPL-2.0-only */
/* objpatch-cc's steps, shared by its files. */
#ifndef OBJPATCH_CC_CC_H
#define OBJPATCH_CC_CC_H

/* Record the object at `path` in place (user mode, --nop); -1 with one line on stderr. */
int cc_record(const char *path);

#endif
