// SPDX-License-Identifier: GPL-2.0-only
/* String helpers, traced. */
#include "example.h"

unsigned long str_hash(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

int str_count(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n + notrace_checksum(s);
}
