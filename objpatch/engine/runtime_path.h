/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef OBJPATCH_ENGINE_RUNTIME_PATH_H
#define OBJPATCH_ENGINE_RUNTIME_PATH_H

#include <stddef.h>

/*
 * The runtime's path into out: sub "" for this machine's, "NAME/" for the
 * one qemu-NAME runs programs with.  -1 when it is in none of its places.
 */
int find_runtime(char *out, size_t len, const char *sub);
/* LIBDIR as make install was told it: where messages say the runtime belongs. */
const char *runtime_install_dir(void);

#endif
