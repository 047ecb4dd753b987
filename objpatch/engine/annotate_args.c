// SPDX-License-Identifier: GPL-2.0-only
//
// The argument lists of Linux's funcgraph-args option (6.15 and later,
// print_function_args()): "f(a=1, b=0xffff8d5384ab47f8) {" and "f(a=1);".
// For each parameter BTF describes the kernel prints "name=value" (the
// value alone when BTF has no name), integers and enums as %ld of the whole
// register, pointers as 0x%lx, a type BTF cannot resolve as '?' and the
// hex, other kinds (struct, union, float) as the register with the kind in
// capitals, and after FTRACE_REGS_MAX_ARGS of them "...".  Each value is
// retyped here by its parameter in the prototype table, with the rules of
// return values (trace/format.c), missing names come from the table, and
// every other byte stays.
//
// The kernel takes the n-th argument register for the n-th parameter.  That
// holds while every parameter before it took one integer register: a float,
// a value wider than a register or a struct that may not fit one breaks it,
// and so does a struct returned through a hidden pointer.  Values past such
// a point are left as printed.
//
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/engine/annotate_args.h"
#include "tables/tables.h"

/* The kernel prints 6 and "..." by default; an architecture may allow a few more. */
#define MAX_ITEMS 64

struct item {
	size_t start, end;	/* in the line */
	size_t val;		/* the value: after "name=", else at start */
	bool named;		/* "name=" or "=" before the value */
	bool empty_name;	/* "=value": BTF's empty name */
};

bool annotate_number(const char *s, size_t i, size_t end, uint64_t *out)
{
	uint64_t v = 0;
	bool neg = false;
	size_t digits = 0;

	if (end - i >= 2 && s[i] == '0' && s[i + 1] == 'x') {
		for (i += 2; i < end && isxdigit((unsigned char)s[i]); i++, digits++)
			v = v << 4 | (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
		*out = v;
		return i == end && digits && digits <= 16;
	}
	if (i < end && s[i] == '-') {
		neg = true;
		i++;
	}
	for (; i < end && isdigit((unsigned char)s[i]); i++, digits++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	*out = neg ? -v : v;
	return i == end && digits && digits <= 19;
}

static bool add_item(const char *s, size_t start, size_t end, struct item *it)
{
	size_t j = start;

	while (j < end && (isalnum((unsigned char)s[j]) || s[j] == '_'))
		j++;
	*it = (struct item){ .start = start, .end = end, .val = start };
	if (j < end && s[j] == '=') {
		it->named = true;
		it->empty_name = j == start;
		it->val = j + 1;
	}
	return it->val < end;
}

/*
 * The items of s[from, to), split at ", " outside parentheses and brackets
 * (a struct's value may hold both); "..." may end them.  False: malformed.
 */
static bool split_items(const char *s, size_t from, size_t to, struct item *it, size_t *n, bool *truncated)
{
	size_t depth = 0, start = from;

	*n = 0;
	*truncated = false;
	if (from == to)
		return true;
	for (size_t i = from;; i++) {
		bool last = i == to;

		if (!last && (s[i] == '(' || s[i] == '[')) {
			depth++;
		} else if (!last && (s[i] == ')' || s[i] == ']')) {
			if (!depth--)
				return false;
		} else if (last || (!depth && s[i] == ',' && i + 1 < to && s[i + 1] == ' ')) {
			if (depth || *truncated || i == start)
				return false;
			if (i - start == 3 && memcmp(s + start, "...", 3) == 0)
				*truncated = true;
			else if (*n == MAX_ITEMS || !add_item(s, start, i, &it[(*n)++]))
				return false;
			if (last)
				return true;
			start = ++i + 1;
		}
	}
}

/* A value the formatter types whole from one register: a scalar of at most its width. */
bool annotate_one_register(const struct sig_type *t, const struct format_target *tg)
{
	return sig_class_is_integer(t->cls) && t->size && t->size <= tg->reg_bytes;
}

/*
 * Does the parameter take one integer register on every ABI, as the kernel
 * assumes?  Scalars of at most a register, and structs and unions that fit
 * one and whose members the table lists, none a float (a float goes to its
 * own registers on hard-float ABIs; s390x passes odd sizes by reference,
 * one register all the same).
 */
static bool one_register(const struct sig_type *t, const struct format_target *tg)
{
	if (annotate_one_register(t, tg))
		return true;
	if ((t->cls != TC_STRUCT && t->cls != TC_UNION) || !t->size || t->size > tg->reg_bytes || !t->nmembers)
		return false;
	for (size_t i = 0; i < t->nmembers; i++)
		if (t->members[i].cls == TC_FLOAT)
			return false;
	return true;
}

/* A struct returned in memory: its address goes first, in the first argument register on most ABIs. */
static bool hidden_first_argument(const struct signature *sig, const struct format_target *tg)
{
	return (sig->ret.cls == TC_STRUCT || sig->ret.cls == TC_UNION) && sig->ret.size > tg->struct_regs;
}

/* The value as a return value of the parameter's type shows, without "ret="; NULL: keep the kernel's. */
static char *typed_value(const struct sig_type *t, uint64_t raw, const struct format_opts *o)
{
	struct signature one = { .flags = PROTO_RELIABLE, .known = true, .ret = *t };
	struct raw_value v = { .gpr = { raw } };
	struct format_opts po = *o;
	size_t n;
	char *text;

	po.errno_names = false;
	/* The characters are not in the trace: the address is what there is. */
	if (one.ret.cls == TC_STRING)
		one.ret.cls = TC_POINTER;
	n = format_return(NULL, 0, &one, &v, &po);
	if (!(text = malloc(n + 1)))
		return NULL;
	format_return(text, n + 1, &one, &v, &po);
	if (n <= 4 || strncmp(text, "ret=", 4) != 0 || text[n - 1] == '?') {
		free(text);
		return NULL;
	}
	memmove(text, text + 4, n - 4 + 1);
	return text;
}

/* The register the kernel printed: "%ld", "0x%lx", or '?' and the hex for a type BTF did not resolve. */
static bool register_of(const char *s, const struct item *it, const struct format_target *tg, uint64_t *raw)
{
	size_t v = it->val + (s[it->val] == '?');

	if (!annotate_number(s, v, it->end, raw))
		return false;
	if (tg->reg_bytes < 8)
		*raw &= UINT64_C(0xffffffff);
	return true;
}

/* Do the kernel's items match the prototype's parameters, one for one? */
static bool counts_match(const struct signature *sig, size_t n, bool truncated)
{
	bool varargs = sig->flags & PROTO_VARARGS;

	/* BTF ends a variadic prototype with a nameless, typeless parameter. */
	if (truncated)
		return n < sig->nparams || varargs;
	return n == sig->nparams || (varargs && n == sig->nparams + 1);
}

char *annotate_args(const char *s, size_t from, size_t to, const struct signature *sig,
		    const struct format_opts *o, bool *malformed)
{
	const struct format_target *tg = o->target;
	struct item it[MAX_ITEMS];
	size_t n, at = from, len = 0;
	bool truncated, aligned;
	char *out = NULL;
	FILE *f;

	*malformed = !split_items(s, from, to, it, &n, &truncated);
	if (*malformed || !sig || !tg || !n || !(sig->flags & PROTO_RELIABLE) || !counts_match(sig, n, truncated))
		return NULL;
	if (!(f = open_memstream(&out, &len)))
		return NULL;
	aligned = !hidden_first_argument(sig, tg);
	for (size_t i = 0; i < n && i < sig->nparams; i++) {
		const struct sig_param *p = &sig->params[i];
		char *text = NULL;
		uint64_t raw;

		fwrite(s + at, 1, it[i].start - at, f);
		at = it[i].start;
		if (*p->name && (!it[i].named || it[i].empty_name))
			fprintf(f, "%s%s", p->name, it[i].named ? "" : "=");
		if (aligned && annotate_one_register(&p->type, tg) && register_of(s, &it[i], tg, &raw))
			text = typed_value(&p->type, raw, o);
		if (text) {
			fwrite(s + at, 1, it[i].val - at, f);
			fputs(text, f);
			at = it[i].end;
			free(text);
		}
		aligned = aligned && one_register(&p->type, tg);
	}
	fwrite(s + at, 1, to - at, f);
	if (fclose(f) != 0 || (len == to - from && memcmp(out, s + from, len) == 0)) {
		free(out);
		return NULL;
	}
	return out;
}
