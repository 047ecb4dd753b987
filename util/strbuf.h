/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A growable string: appended to piece by piece, NUL-terminated all along,
 * taken whole at the end.  Running out of memory is remembered rather than
 * checked at every append: the taker gets NULL.
 */
#ifndef UTIL_STRBUF_H
#define UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void strbuf_put(struct strbuf *b, const char *s, size_t n);
/* Formatted text, cut at 63 bytes: for numbers and short names. */
void strbuf_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (malloc'd; "" if nothing was put), or NULL when memory ran out; the buffer is empty again. */
char *strbuf_take(struct strbuf *b);

#endif
