// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An exit event's words, in one place: what the runtime keeps of the
 * return registers (struct ret_regs, filled by each port's return
 * trampoline) and the value every reader gets back from them, on any
 * machine.  The same on every ABI the runtime supports: the first integer
 * register or two, the first FP register or two, and a wide FP value
 * (x87's st(0), saved apart; AArch64's binary128, which is all of q0).
 */
#include <string.h>
#include "trace/event.h"
#include "trace/exit_words.h"

size_t exit_words_from_regs(const struct ret_regs *r, enum capture c, bool wide_in_fpr0, uint64_t *w)
{
	switch (c) {
	case CAPTURE_GPR:
	case CAPTURE_STRING:
	case CAPTURE_MEMORY:
		w[0] = r->gpr[0];
		break;
	case CAPTURE_FP:
		memcpy(&w[0], r->fpr[0], 8);
		break;
	case CAPTURE_WIDE_FP:
		memcpy(&w[0], wide_in_fpr0 ? r->fpr[0] : r->wide, 16);
		break;
	case CAPTURE_ALL:
		w[0] = r->gpr[0];
		w[1] = r->gpr[1];
		memcpy(&w[2], r->fpr[0], 8);
		memcpy(&w[3], r->fpr[1], 8);
		break;
	default:
		break;
	}
	return ev_capture_words(c);
}

/* The low `n` bytes of `x` as they lay in the recording machine's memory. */
static void put_bytes(uint8_t *p, uint64_t x, unsigned n, bool big_endian)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(x >> 8 * (big_endian ? n - 1 - i : i));
}

/*
 * The words are numbers in the reader's byte order; an FP register's bytes
 * go back to the recording machine's order, which format_return() reads.
 * On the recording machine itself this is the memcpy it was.
 */
void trace_value(const struct trace_machine *m, const uint64_t *w, enum capture c, const struct sig_type *ret,
		 struct raw_value *v)
{
	bool be = m->values.big_endian;

	memset(v, 0, sizeof(*v));
	switch (c) {
	case CAPTURE_GPR:
	case CAPTURE_STRING:
		v->gpr[0] = w[0];
		break;
	case CAPTURE_MEMORY:
		v->gpr[0] = w[0];
		v->in_memory = true;
		break;
	case CAPTURE_FP:
		put_bytes(v->fpr, w[0], 8, be);
		v->have_fpr = true;
		if (m->arch->values.float_as_double && ret && ret->size == 4) {
			double d;
			float f;
			uint32_t bits;

			memcpy(&d, &w[0], sizeof(d));
			f = (float)d;	/* exact: the register held a float's value */
			memcpy(&bits, &f, sizeof(bits));
			memset(v->fpr, 0, sizeof(v->fpr));
			put_bytes(v->fpr, bits, 4, be);
		} else if (m->arch->values.float_high_half && ret && ret->size == 4) {
			memset(v->fpr, 0, sizeof(v->fpr));
			put_bytes(v->fpr, (uint32_t)(w[0] >> 32), 4, be);
		} else if (m->arch->values.float_low_half && ret && ret->size == 4) {
			/* Its 4 bytes first, where format.c reads a float; the same bytes on little-endian. */
			memset(v->fpr, 0, sizeof(v->fpr));
			put_bytes(v->fpr, (uint32_t)w[0], 4, be);
		}
		break;
	case CAPTURE_WIDE_FP:
		put_bytes(v->fpr, w[0], 8, be);
		put_bytes(v->fpr + 8, w[1], 8, be);
		v->have_fpr = true;
		break;
	case CAPTURE_ALL:
		v->gpr[0] = w[0];
		v->gpr[1] = w[1];
		/* Structs holding floats are flagged and printed raw (format.c): fpr is for FP types. */
		put_bytes(v->fpr, w[2], 8, be);
		put_bytes(v->fpr1, w[3], 8, be);
		v->have_fpr = ret->cls == TC_FLOAT;
		break;
	default:
		break;
	}
}

size_t trace_read_captured(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct trace_captured *c = ctx;
	uint64_t off = addr - c->addr;

	if (addr < c->addr || off >= c->n)
		return 0;
	if (n > c->n - off)
		n = c->n - off;
	memcpy(buf, c->bytes + off, n);
	return n;
}

void trace_exit_value(const struct trace_machine *m, const uint64_t *ev, const struct sig_type *ret,
		      struct raw_value *v, struct trace_captured *cap)
{
	static const struct sig_type unknown = { .cls = TC_UNKNOWN };
	enum capture c = ev_capture(ev[1]);
	const uint64_t *words = ev + EV_HEADER_WORDS;

	trace_value(m, words, c, ret ? ret : &unknown, v);
	*cap = (struct trace_captured){ 0 };
	if (ev_capture_has_bytes(c)) {
		/* Characters or a struct's bytes follow the registers: a length byte, then the bytes. */
		const uint8_t *s = (const uint8_t *)(words + ev_capture_words(c));

		*cap = (struct trace_captured){ v->gpr[0], s + 1, s[0] };
	}
}
