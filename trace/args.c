// SPDX-License-Identifier: LGPL-2.1-or-later
#include <string.h>
#include "tables/tables.h"
#include "trace/args.h"

/* Room for the members of the aggregates of one signature; beyond it, an aggregate's are not given. */
#define MAX_FIELDS 64

static enum arg_kind kind_of(enum type_class c)
{
	switch (c) {
	case TC_BOOL:
	case TC_INT:
	case TC_UINT:
	case TC_CHAR:
	case TC_ENUM:
	case TC_POINTER:
	case TC_STRING:
		return ARG_INT;
	case TC_FLOAT:
		return ARG_FLOAT;
	case TC_STRUCT:
	case TC_UNION:
		return ARG_AGGREGATE;
	default:
		return ARG_UNKNOWN;
	}
}

size_t trace_arg_places(const struct arch *a, const struct signature *sig, struct arg_place *out)
{
	struct arg_type types[TRACE_MAX_ARGS];
	struct arg_field fields[MAX_FIELDS];
	size_t n = sig->nparams < TRACE_MAX_ARGS ? sig->nparams : TRACE_MAX_ARGS, used = 0;

	memset(out, 0, n * sizeof(*out));
	if (!a || !a->place_args || !(sig->flags & PROTO_RELIABLE) || !sig->known)
		return n;
	for (size_t i = 0; i < n; i++) {
		const struct sig_type *t = &sig->params[i].type;

		types[i] = (struct arg_type){ kind_of(t->cls), (uint32_t)t->size, NULL, 0 };
		if (t->size > UINT32_MAX)
			types[i].kind = ARG_UNKNOWN;
		if (types[i].kind != ARG_AGGREGATE || !t->nmembers || t->nmembers > MAX_FIELDS - used)
			continue;
		types[i].fields = &fields[used];
		types[i].nfields = t->nmembers;
		for (size_t m = 0; m < t->nmembers; m++)
			fields[used++] = (struct arg_field){ (uint32_t)t->members[m].offset,
							     (uint8_t)t->members[m].size,
							     t->members[m].cls == TC_FLOAT };
	}
	a->place_args(types, n, out);
	return n;
}

size_t trace_arg_words(const struct arg_place *p, size_t n)
{
	size_t words = 0;

	for (size_t i = 0; i < n; i++)
		words += p[i].npieces;
	return words;
}
