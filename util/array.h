/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef UTIL_ARRAY_H
#define UTIL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Room for one more element in the growable array *vp of *n used and *cap
 * allocated elements of `size` bytes: false when memory is out (the array
 * is as it was).
 */
bool grow_array(void *vp, size_t n, size_t *cap, size_t size);

#endif
