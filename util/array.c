// SPDX-License-Identifier: LGPL-2.1-or-later
/* Growable arrays (util/array.h): doubled, so n appends cost O(n) moves. */
#include <stdint.h>
#include <stdlib.h>
#include "util/array.h"

bool grow_array(void *vp, size_t n, size_t *cap, size_t size)
{
	void **v = vp;
	size_t want = *cap * 2 + 64;
	void *p;

	if (n < *cap)
		return true;
	if (want > SIZE_MAX / size || !(p = realloc(*v, want * size)))
		return false;
	*v = p;
	*cap = want;
	return true;
}
