/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/test: a user-space stand-in for <linux/trace_seq.h>, enough for the series' files. */
#ifndef MOCK_LINUX_TRACE_SEQ_H
#define MOCK_LINUX_TRACE_SEQ_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
struct trace_seq {
	char buf[8192];
	size_t len;
};
/* What %ps prints: the harness sets the traced function's name. */
extern const char *mock_symbol;
static inline void trace_seq_printf(struct trace_seq *s, const char *fmt, ...)
{
	char f[512], *o = f;
	va_list ap;

	for (const char *p = fmt; *p && o < f + sizeof(f) - 300; p++) {
		if (p[0] == '%' && p[1] == 'p' && p[2] == 's') {
			o += snprintf(o, 256, "%%.0s%s", mock_symbol);	/* the pointer is consumed, not printed */
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
	va_start(ap, fmt);
	s->len += vsnprintf(s->buf + s->len, sizeof(s->buf) - s->len, f, ap);
	va_end(ap);
}
static inline void trace_seq_puts(struct trace_seq *s, const char *t)
{
	trace_seq_printf(s, "%s", t);
}
static inline void trace_seq_putc(struct trace_seq *s, char c)
{
	trace_seq_printf(s, "%c", c);
}
#endif
