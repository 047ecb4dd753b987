// SPDX-License-Identifier: LGPL-2.1-or-later
/* Growable strings (util/strbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/strbuf.h"

void strbuf_put(struct strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->s, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		strbuf_put(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

char *strbuf_take(struct strbuf *b)
{
	char *s = b->oom ? NULL : (b->s ? b->s : strdup(""));

	if (b->oom)
		free(b->s);
	memset(b, 0, sizeof(*b));
	return s;
}
