// SPDX-License-Identifier: GPL-2.0-only
/*
 * A library list_target.c loads with dlopen (t/98-attach-list.t): a few
 * prototypes of different kinds for objpatch attach --list to show.
 */
#include <stddef.h>
#include <stdint.h>

enum colour { RED, GREEN = 4, BLUE };

struct span {
	const char *s;
	size_t len;
};

enum colour lib_colour(unsigned i)
{
	return i % 3 == 0 ? RED : i % 3 == 1 ? GREEN : BLUE;
}

size_t lib_span_len(struct span *sp)
{
	return sp ? sp->len : 0;
}

static uint64_t mix(uint64_t h, unsigned char c)
{
	return (h ^ c) * 1099511628211u;
}

long lib_checksum(long seed)
{
	static const char text[] = "attach --list";
	struct span sp = { text, sizeof(text) - 1 };
	uint64_t h = 14695981039346656037u ^ (uint64_t)seed;

	for (size_t i = 0; i < lib_span_len(&sp); i++)
		h = mix(h, (unsigned char)sp.s[i]);
	return (long)(h % 1000003) + lib_colour((unsigned)seed);
}
