// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables/sig.h"
#include "tables/tables.h"

static const char *const class_names[] = {
	[TC_UNKNOWN] = "unknown", [TC_VOID] = "void", [TC_BOOL] = "bool", [TC_INT] = "int",
	[TC_UINT] = "uint", [TC_CHAR] = "char", [TC_ENUM] = "enum", [TC_POINTER] = "pointer",
	[TC_STRING] = "string", [TC_FLOAT] = "float", [TC_STRUCT] = "struct", [TC_UNION] = "union",
};

const char *type_class_name(enum type_class c)
{
	return (unsigned)c < sizeof(class_names) / sizeof(class_names[0]) ? class_names[c] : "unknown";
}

/* Split `s` (modified) at `sep` into at most `max` fields; returns the count. */
static size_t split(char *s, char sep, char **fields, size_t max)
{
	size_t n = 0;

	while (n < max) {
		fields[n++] = s;
		s = strchr(s, sep);
		if (!s)
			break;
		*s++ = 0;
	}
	return s ? max + 1 : n;	/* more than max: malformed */
}

static int parse_enumerators(char *list, struct sig_type *t)
{
	size_t n = *list ? 1 : 0;

	for (char *c = list; *c; c++)
		n += *c == ',';
	t->enumerators = calloc(n ? n : 1, sizeof(*t->enumerators));
	if (!t->enumerators)
		return -1;
	for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
		char *eq = strrchr(item, '='), *end;

		if (!eq)
			return -1;
		struct enumerator *e = &t->enumerators[t->nenumerators];

		*eq = 0;
		e->negative = eq[1] == '-';
		errno = 0;
		e->value = e->negative ? (uint64_t)strtoll(eq + 1, &end, 10) : strtoull(eq + 1, &end, 10);
		if (*end || end == eq + 1 || errno || (!e->negative && !isdigit((unsigned char)eq[1])) ||
		    !(e->name = strdup(item)))
			return -1;
		t->nenumerators++;
	}
	return 0;
}

static enum type_class class_named(const char *s)
{
	for (size_t c = 0; c < sizeof(class_names) / sizeof(class_names[0]); c++)
		if (strcmp(s, class_names[c]) == 0)
			return (enum type_class)c;
	return TC_UNKNOWN;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return end != s && !*end && !errno && isdigit((unsigned char)*s);
}

/* NAME:OFFSET:CLASS:SIZE, comma-separated: scalars of 1 to 8 bytes within 16. */
static int parse_members(char *list, struct sig_type *t)
{
	size_t n = 1;
	char *save = NULL;

	for (char *c = list; *c; c++)
		n += *c == ',';
	t->members = calloc(n, sizeof(*t->members));
	if (!t->members)
		return -1;
	for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *f[4];
		struct sig_member *m = &t->members[t->nmembers];

		if (split(item, ':', f, 4) != 4 || !*f[0] || !parse_u64(f[1], &m->offset) ||
		    !parse_u64(f[3], &m->size) || m->size < 1 || m->size > 8 || m->offset > t->size ||
		    m->size > t->size - m->offset)
			return -1;
		m->cls = class_named(f[2]);
		if (m->cls == TC_UNKNOWN || m->cls == TC_VOID || m->cls == TC_STRUCT || m->cls == TC_UNION ||
		    !(m->name = strdup(f[0])))
			return -1;
		t->nmembers++;
	}
	return t->nmembers ? 0 : -1;
}

/* CLASS US SIZE US CTEXT [US ENUM-NAME US ENUMERATORS | US MEMBERS] */
static int parse_type(char **f, size_t n, struct sig_type *t, bool v2)
{
	char *end;

	if (n != 3 && n != 5 && !(n == 4 && v2))
		return -1;
	t->cls = class_named(f[0]);
	t->size = strtoull(f[1], &end, 10);
	if (*end || end == f[1] || !(t->ctext = strdup(f[2])))
		return -1;
	if (n == 4)
		return t->cls == TC_STRUCT || t->cls == TC_UNION ? parse_members(f[3], t) : -1;
	if (n == 5)
		return (t->enum_name = strdup(f[3])) ? parse_enumerators(f[4], t) : -1;
	return 0;
}

static void type_free(struct sig_type *t)
{
	free(t->ctext);
	free(t->enum_name);
	for (size_t i = 0; i < t->nenumerators; i++)
		free(t->enumerators[i].name);
	free(t->enumerators);
	for (size_t i = 0; i < t->nmembers; i++)
		free(t->members[i].name);
	free(t->members);
}

static int parse_items(char *s, struct signature *out)
{
	char *items[1024], *f[6], *end;
	size_t n = split(s, PROTO_RS[0], items, 1024);
	bool v2;

	if (n < 2 || n > 1024 || split(items[0], PROTO_US[0], f, 2) != 2 ||
	    (strcmp(f[0], PROTO_VERSION) != 0 && strcmp(f[0], PROTO_VERSION_OLD) != 0))
		return -1;
	v2 = strcmp(f[0], PROTO_VERSION) == 0;
	out->flags = (unsigned)strtoul(f[1], &end, 10);
	if (*end || end == f[1])
		return -1;
	if (parse_type(f, split(items[1], PROTO_US[0], f, 5), &out->ret, v2) < 0)
		return -1;
	out->known = out->ret.cls != TC_UNKNOWN || out->flags != 0;
	out->params = calloc(n, sizeof(*out->params));
	if (!out->params)
		return -1;
	for (size_t i = 2; i < n; i++) {
		struct sig_param *p = &out->params[out->nparams++];
		size_t k = split(items[i], PROTO_US[0], f, 6);

		if (k < 4 || k > 6 || !(p->name = strdup(f[0])) || parse_type(f + 1, k - 1, &p->type, v2) < 0)
			return -1;
	}
	return 0;
}

int sig_parse(const char *s, struct signature *out)
{
	char *copy = strdup(s);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return -1;
	rc = parse_items(copy, out);
	free(copy);
	if (rc < 0)
		sig_free(out);
	return rc;
}

void sig_free(struct signature *sig)
{
	type_free(&sig->ret);
	for (size_t i = 0; i < sig->nparams; i++) {
		free(sig->params[i].name);
		type_free(&sig->params[i].type);
	}
	free(sig->params);
	memset(sig, 0, sizeof(*sig));
}

/* CTEXT with '@' replaced by `name` (or removed with its space when empty). */
static void put_decl(FILE *f, const char *ctext, const char *name)
{
	const char *at = strchr(ctext, '@');

	if (!at) {
		fputs(ctext, f);
		return;
	}
	size_t keep = (size_t)(at - ctext);

	if (!*name && keep && ctext[keep - 1] == ' ')
		keep--;
	fwrite(ctext, 1, keep, f);
	fputs(name, f);
	fputs(at + 1, f);
}

char *sig_prototype(const struct signature *sig, const char *name)
{
	char *params = NULL, *head = NULL, *out = NULL;
	size_t plen = 0, hlen = 0, olen = 0;
	FILE *f = open_memstream(&params, &plen);

	if (!f)
		return NULL;
	fputc('(', f);
	if (sig->flags & PROTO_RET_ONLY)
		fputc('?', f);	/* a compact table records no parameters */
	for (size_t i = 0; i < sig->nparams; i++) {
		if (i)
			fputs(", ", f);
		put_decl(f, sig->params[i].type.ctext, sig->params[i].name);
	}
	if (sig->flags & PROTO_VARARGS)
		fputs(sig->nparams ? ", ..." : "...", f);
	else if (!sig->nparams && !(sig->flags & PROTO_RET_ONLY))
		fputs("void", f);
	fputc(')', f);
	fclose(f);
	f = open_memstream(&head, &hlen);
	if (f) {
		fprintf(f, "%s%s", name, params);
		fclose(f);
		f = open_memstream(&out, &olen);
		if (f) {
			put_decl(f, sig->ret.ctext, head);
			fclose(f);
		}
	}
	free(params);
	free(head);
	return out;
}
