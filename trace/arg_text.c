// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdlib.h>
#include <string.h>
#include "tables/tables.h"
#include "trace/arg_text.h"
#include "trace/event.h"

/* Room for the members of the aggregates of one signature; beyond it, an aggregate's are not given. */
#define MAX_FIELDS TRACE_ARG_FIELDS

static enum arg_kind kind_of(enum type_class c)
{
	if (sig_class_is_integer(c))
		return ARG_INT;
	switch (c) {
	case TC_FLOAT:
		return ARG_FLOAT;
	case TC_STRUCT:
	case TC_UNION:
		return ARG_AGGREGATE;
	default:
		return ARG_UNKNOWN;
	}
}

/*
 * What a placer needs of a type; an aggregate's members go to fields[*used]
 * on, while MAX_FIELDS last (else the placer gets none, and says "?").
 */
struct arg_type trace_arg_type(const struct sig_type *t, struct arg_field *fields, size_t *used)
{
	struct arg_type at = { kind_of(t->cls), (uint32_t)t->size, NULL, 0, t->cls == TC_UNION };

	if (t->size > UINT32_MAX)
		at.kind = ARG_UNKNOWN;
	if (at.kind != ARG_AGGREGATE || !t->nmembers || t->nmembers > MAX_FIELDS - *used)
		return at;
	at.fields = &fields[*used];
	at.nfields = t->nmembers;
	for (size_t m = 0; m < t->nmembers; m++)
		fields[(*used)++] = (struct arg_field){ (uint32_t)t->members[m].offset, (uint8_t)t->members[m].size,
							t->members[m].cls == TC_FLOAT };
	return at;
}

/* Variadic functions may place even their named parameters differently (ARM's floats). */
static void place(const struct arch *a, const struct signature *sig, const struct arg_type *types, size_t n,
		  bool big_endian, struct arg_place *out)
{
	if ((sig->flags & PROTO_VARARGS) && a->place_args_variadic)
		a->place_args_variadic(types, n, big_endian, out);
	else
		a->place_args(types, n, big_endian, out);
}

size_t trace_arg_places(const struct arch *a, bool big_endian, const struct signature *sig, struct arg_place *out)
{
	/* One more: the hidden parameter a value returned in memory may need, first. */
	struct arg_type all[TRACE_MAX_ARGS + 1], *types = all + 1;
	struct arg_place placed[TRACE_MAX_ARGS + 1];
	struct arg_field fields[MAX_FIELDS];
	size_t n = sig->nparams < TRACE_MAX_ARGS ? sig->nparams : TRACE_MAX_ARGS, used = 0;
	struct arg_type ret;
	int hidden = 0;

	memset(out, 0, n * sizeof(*out));
	if (!a || !a->place_args || !(sig->flags & PROTO_RELIABLE) || !sig->known)
		return n;
	/* Whether the value comes back in memory whose address goes first (-1: not known, nothing placed). */
	ret = trace_arg_type(&sig->ret, fields, &used);
	if (a->ret_by_address && sig->ret.cls != TC_VOID && (hidden = a->ret_by_address(&ret)) < 0)
		return n;
	/* A C++ class that is not trivially copyable comes back in memory whatever its size. */
	if (sig->flags & PROTO_RET_MEM)
		hidden = 1;
	for (size_t i = 0; i < n; i++)
		types[i] = trace_arg_type(&sig->params[i].type, fields, &used);
	if (!hidden || a->values.ret_address_apart) {
		place(a, sig, types, n, big_endian, out);
		return n;
	}
	all[0] = (struct arg_type){ .kind = ARG_INT, .size = a->elfclass == ELFCLASS64 ? 8 : 4 };	/* a pointer */
	place(a, sig, all, n + 1, big_endian, placed);
	memcpy(out, placed + 1, n * sizeof(*out));
	return n;
}

size_t trace_arg_pack(const struct arg_place *p, size_t n, struct arg_word_pos *pos)
{
	size_t words = 0, k = 0, half_word = 0;
	bool half_free = false;	/* word half_word's high half is still free */

	for (size_t i = 0; i < n; i++)
		for (unsigned j = 0; j < p[i].npieces; j++, k++) {
			struct arg_word_pos at = { (uint8_t)words, 0 };

			if (p[i].piece[j].size <= 4 && half_free) {
				at = (struct arg_word_pos){ (uint8_t)half_word, 32 };
				half_free = false;
			} else {
				if (p[i].piece[j].size <= 4) {
					half_word = words;
					half_free = true;
				}
				words++;
			}
			if (pos)
				pos[k] = at;
		}
	return words;
}

struct text {
	char *buf;
	size_t len, n;
	size_t count;		/* parameters written */
};

static void put(struct text *t, const char *s, size_t k)
{
	for (size_t i = 0; i < k; i++, t->n++)
		if (t->n + 1 < t->len)
			t->buf[t->n] = s[i];
}

static void put_str(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static void put_bytes(uint8_t *p, uint64_t x, unsigned n, bool big_endian)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(x >> 8 * (big_endian ? n - 1 - i : i));
}

/* A parameter's value as format_value() reads it, from its pieces' words. */
static void value_of(const struct format_target *tg, const struct sig_type *type, const struct arg_place *p,
		     const uint64_t *w, const struct arg_word_pos *pos, struct raw_value *v)
{
	bool be = tg->big_endian;
	unsigned reg = tg->reg_bytes, shift = 0;
	uint64_t x = 0;

	for (unsigned i = 0; i < p->npieces; i++) {
		uint64_t word = w[pos[i].word] >> pos[i].shift;
		uint64_t part = p->piece[i].size < 8 ? word & ((1ull << 8 * p->piece[i].size) - 1) : word;

		x |= shift < 64 ? part << shift : 0;
		shift += 8 * p->piece[i].size;
	}
	memset(v, 0, sizeof(*v));
	if (type->cls == TC_FLOAT) {
		unsigned bytes = shift / 8;

		if (type->size == 4 && bytes == 8) {
			/* A float the machine keeps as a double (ppc64's FP registers). */
			double d;
			float f;
			uint32_t bits;

			memcpy(&d, &x, sizeof(d));
			f = (float)d;
			memcpy(&bits, &f, sizeof(bits));
			x = bits;
			bytes = 4;
		}
		put_bytes(v->fpr, x, bytes, be);
		v->have_fpr = true;
	} else if (type->size > reg) {
		/* Twice the register width: both halves, in the machine's memory order (format.h). */
		v->gpr[be ? 1 : 0] = x & 0xffffffffu;
		v->gpr[be ? 0 : 1] = x >> 32;
	} else {
		v->gpr[0] = x;
	}
}

/* The parameter's value as format_value() writes it: into `small`, or malloc'd when longer (*big). */
static const char *value_text(const struct sig_type *type, const struct raw_value *v, const struct format_opts *o,
			      char *small, size_t len, char **big)
{
	struct format_opts po = *o;
	size_t k;

	*big = NULL;
	po.errno_names = false;	/* an argument is not an error code */
	k = format_value(small, len, type, v, &po);
	if (k < len || !(*big = malloc(k + 1)))
		return small;
	format_value(*big, k + 1, type, v, &po);
	return *big;
}

/* Whether every piece of the place lies where the hook saw it as the call left it. */
static bool seen(const struct arg_place *p, unsigned flags)
{
	for (unsigned i = 0; i < p->npieces; i++)
		if (flags & (p->piece[i].area == ARG_AREA_STACK ? ARGS_NO_STACK : ARGS_NO_REGS))
			return false;
	return true;
}

int trace_args_each(const struct arch *a, const struct signature *sig, const uint64_t *ev,
		    const struct format_opts *o, trace_arg_fn *fn, void *ctx)
{
	struct arg_place places[TRACE_MAX_ARGS];
	struct arg_word_pos pos[TRACE_MAX_ARGS * ARG_MAX_PIECES];
	unsigned flags = ev ? ev_capture(ev[1]) : ARGS_UNPLACED;
	size_t n, words = ev ? ev_words(ev[1]) - EV_HEADER_WORDS : 0;
	const uint64_t *w = ev ? ev + EV_HEADER_WORDS : NULL;
	const struct format_target *tg = o->target ? o->target : format_target_native();

	if (!sig || !sig->known || !(sig->flags & PROTO_RELIABLE) || !tg)
		return -1;
	n = trace_arg_places(a, tg->big_endian, sig, places);
	/*
	 * Not the words these places need: recorded for another signature.
	 * Not packed: the word per piece of a runtime before ARGS_PACKED,
	 * whose event is not read (it prints "?", never a wrong value).
	 */
	if (!(flags & ARGS_PACKED) || words != trace_arg_pack(places, n, pos))
		flags |= ARGS_UNPLACED;
	for (size_t i = 0, k = 0; i < n; k += places[i].npieces, i++) {
		const struct sig_param *prm = &sig->params[i];
		char small[256], *big = NULL;
		const char *value = "?";
		struct sig_type shown = prm->type;
		struct raw_value v;
		bool captured = places[i].npieces && !(flags & ARGS_UNPLACED) && seen(&places[i], flags);

		/* A string's characters are read only where o->read_mem can: else its address. */
		if (shown.cls == TC_STRING && !o->read_mem)
			shown.cls = TC_POINTER;
		if (captured) {
			value_of(tg, &shown, &places[i], w, &pos[k], &v);
			value = value_text(&shown, &v, o, small, sizeof(small), &big);
		}
		fn(ctx, prm->name ? prm->name : "", value, &shown, captured ? &v : NULL);
		free(big);
	}
	return sig->nparams > n || (sig->flags & PROTO_VARARGS);
}

static void join(void *ctx, const char *name, const char *value, const struct sig_type *type,
		 const struct raw_value *v)
{
	struct text *t = ctx;

	(void)type, (void)v;
	if (t->count++)
		put_str(t, ", ");
	if (*name) {
		put_str(t, name);
		put_str(t, "=");
	}
	put_str(t, value);
}

size_t trace_args_text(char *buf, size_t len, const struct arch *a, const struct signature *sig,
		       const uint64_t *ev, const struct format_opts *o)
{
	struct text t = { buf, len, 0, 0 };
	int more = trace_args_each(a, sig, ev, o, join, &t);

	if (more < 0)
		put_str(&t, "?");
	else if (more)
		put_str(&t, t.count ? ", ..." : "...");
	if (len)
		buf[t.n < len ? t.n : len - 1] = 0;
	return t.n;
}
