// SPDX-License-Identifier: GPL-2.0-only
/*
 * One file's recorded functions, each with its place, its sites and its
 * prototype: what `objpatch list` prints for each file and
 * `objpatch attach --list` for each module of a running process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objpatch/engine/listing.h"
#include "tables/calls.h"
#include "tables/sig.h"
#include "trace/format.h"
#include "elf/functions.h"

struct func_out {
	struct table_entry where;
	const struct proto_entry *proto;	/* NULL: no record, unknown */
	const char *symbol;			/* name from the symbol table, if any */
	struct table_entry *sites;
	size_t nsites;
};

static int cmp_where(const struct table_entry *a, const struct table_entry *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int cmp_proto(const void *a, const void *b)
{
	return cmp_where(&((const struct proto_entry *)a)->where, &((const struct proto_entry *)b)->where);
}

static int cmp_entry(const void *a, const void *b)
{
	return cmp_where(a, b);
}

/* The record of the function holding `site`: the last one starting at or before it. */
static const struct proto_entry *proto_for(const struct proto_entry *p, size_t n,
					   const struct table_entry *site)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_where(&p[mid].where, site) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || p[lo - 1].where.sec != site->sec)
		return NULL;
	const struct proto_entry *c = &p[lo - 1];

	return !c->size || site->off < c->where.off + c->size ? c : NULL;
}

void listing_json_string(const char *s)
{
	putchar('"');
	while (s && *s) {
		const unsigned char *u = (const unsigned char *)s;
		int k = utf8_len(u, strnlen(s, 4));
		size_t n = k > 0 ? (size_t)k : 0;

		if (*u == '"' || *u == '\\')
			printf("\\%c", *u);
		else if (*u < 0x20)
			printf("\\u%04x", *u);
		else if (!n)
			fputs("\\ufffd", stdout);
		else
			fwrite(s, 1, n, stdout);
		s += n ? n : 1;
	}
	putchar('"');
}

/* The type's C text with no declared name: "void (*)(int)", "unsigned int". */
static char *abstract_decl(const char *ctext)
{
	const char *at = strchr(ctext, '@');
	size_t keep = at ? (size_t)(at - ctext) : strlen(ctext);
	char *out = malloc(strlen(ctext) + 1);

	if (!out)
		return NULL;
	if (keep && ctext[keep - 1] == ' ')
		keep--;
	memcpy(out, ctext, keep);
	strcpy(out + keep, at ? at + 1 : "");
	return out;
}

/* The fields of a type object, without its braces. */
static void json_type_fields(const struct sig_type *t)
{
	char *text = abstract_decl(t->ctext ? t->ctext : "");

	printf("\"class\": \"%s\", \"size\": %llu, \"type\": ", type_class_name(t->cls),
	       (unsigned long long)t->size);
	listing_json_string(text ? text : "");
	free(text);
	if (t->nmembers) {
		printf(", \"members\": [");
		for (size_t i = 0; i < t->nmembers; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			listing_json_string(t->members[i].name);
			printf(", \"offset\": %llu, \"class\": \"%s\", \"size\": %llu}",
			       (unsigned long long)t->members[i].offset, type_class_name(t->members[i].cls),
			       (unsigned long long)t->members[i].size);
		}
		putchar(']');
	}
	if (t->cls != TC_ENUM)
		return;
	printf(", \"enum\": ");
	listing_json_string(t->enum_name);
	printf(", \"enumerators\": {");
	for (size_t i = 0; i < t->nenumerators; i++) {
		printf("%s", i ? ", " : "");
		listing_json_string(t->enumerators[i].name);
		if (t->enumerators[i].negative)
			printf(": %lld", (long long)(int64_t)t->enumerators[i].value);
		else
			printf(": %llu", (unsigned long long)t->enumerators[i].value);
	}
	putchar('}');
}

static void print_where(const struct elfobj *obj, const struct table_entry *w, bool json)
{
	const char *sec = w->sec ? obj->sec[w->sec].name : "?";

	if (json && obj->ehdr.e_type == ET_REL) {
		printf("\"section\": ");
		listing_json_string(sec);
		printf(", \"offset\": %llu, \"address\": null", (unsigned long long)w->off);
	} else if (json) {
		printf("\"section\": null, \"offset\": null, \"address\": %llu", (unsigned long long)w->addr);
	} else if (obj->ehdr.e_type == ET_REL) {
		printf("%s+0x%llx", sec, (unsigned long long)w->off);
	} else {
		printf("0x%llx", (unsigned long long)w->addr);
	}
}

static void print_function(const struct elfobj *obj, const struct func_out *f, bool json, bool first,
			   const char *indent)
{
	struct signature sig = { 0 };
	bool known = f->proto && sig_parse(f->proto->sig, &sig) == 0 && sig.known;
	const char *name = f->proto ? f->proto->name : f->symbol ? f->symbol : "?";
	char *proto = known ? sig_prototype(&sig, name) : NULL;

	if (!json) {
		print_where(obj, &f->where, false);
		if (proto)
			printf(" %s%s\n", proto, sig.flags & PROTO_RELIABLE ? "" : " [unreliable]");
		else
			printf(" ? %s(?)\n", name);
		goto out;
	}
	printf("%s\n%s  {\"function\": ", first ? "" : ",", indent);
	listing_json_string(name);
	printf(", ");
	print_where(obj, &f->where, true);
	printf(", \"sites\": [");
	for (size_t i = 0; i < f->nsites; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)(obj->ehdr.e_type == ET_REL ?
								    f->sites[i].off : f->sites[i].addr));
	printf("], \"prototype\": ");
	if (proto)
		listing_json_string(proto);
	else
		printf("null");
	printf(", \"return\": {");
	if (known)
		json_type_fields(&sig.ret);
	if (known && (sig.flags & PROTO_RET_MEM))
		printf(", \"in_memory\": true");	/* a C++ class that is not trivially copyable */
	if (!known)
		printf("\"class\": \"unknown\"");
	printf("}, \"params\": [");
	for (size_t i = 0; known && i < sig.nparams; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		listing_json_string(sig.params[i].name);
		printf(", ");
		json_type_fields(&sig.params[i].type);
		putchar('}');
	}
	printf("], \"varargs\": %s, \"reliable\": %s}", known && (sig.flags & PROTO_VARARGS) ? "true" : "false",
	       known && (sig.flags & PROTO_RELIABLE) ? "true" : "false");
out:
	free(proto);
	sig_free(&sig);
}

static int cmp_func_out(const void *a, const void *b)
{
	return cmp_where(&((const struct func_out *)a)->where, &((const struct func_out *)b)->where);
}

/*
 * Where to look a site's function up: the site itself, but for a patchable
 * entry whose NOPs start before its function, that function's start.
 */
static struct table_entry patchable_function(const struct elfobj *obj, const struct func_sym *syms, size_t n,
					     struct table_entry site)
{
	const struct func_sym *f = site.patchable ? function_from(obj, syms, n, site.sec, site.off) : NULL;

	if (f) {
		if (site.addr)	/* linked files */
			site.addr += f->off - site.off;
		site.off = f->off;
	}
	return site;
}

/* Every function with a recorded site, its record, and its sites. */
static struct func_out *recorded_functions(struct elfobj *obj, struct table_entry *sites, size_t ns,
					   struct proto_entry *protos, size_t np, size_t *nf)
{
	struct func_out *f = calloc(ns ? ns : 1, sizeof(*f));
	size_t k = 0, nsyms = 0;
	/* for functions without a record: the symbol table's function holding the site */
	struct func_sym *syms = function_index(obj, &nsyms);

	if (!f || !syms) {
		free(f);
		free(syms);
		return NULL;
	}
	/* Either is NULL when the file has no such table. */
	if (ns)
		qsort(sites, ns, sizeof(*sites), cmp_entry);
	if (np)
		qsort(protos, np, sizeof(*protos), cmp_proto);
	for (size_t i = 0; i < ns; i++) {
		struct table_entry probe = patchable_function(obj, syms, nsyms, sites[i]);
		const struct proto_entry *p = proto_for(protos, np, &probe);
		const struct func_sym *sym = p ? NULL : function_at(syms, nsyms, probe.sec, probe.off);
		struct table_entry where = sites[i];

		if (p) {
			where = p->where;
		} else if (sym) {
			where.off = sym->off;
			where.addr = obj->ehdr.e_type == ET_REL ? 0 : obj->sec[where.sec].sh.sh_addr + sym->off;
		}
		if (k && !cmp_where(&f[k - 1].where, &where)) {
			f[k - 1].nsites++;
			continue;
		}
		f[k++] = (struct func_out){ where, p, sym ? sym->name : NULL, &sites[i], 1 };
	}
	free(syms);
	qsort(f, k, sizeof(*f), cmp_func_out);
	*nf = k;
	return f;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Functions that call the hook where no entry says: an object compiled with
 * -pg that nobody recorded.  Their calls stay calls to the real hook, and
 * the tracer never sees them: say so, since the listing cannot show what is
 * not in it.  Linked files with a symbol table only (functions are told
 * apart by their symbols).
 */
static void warn_unrecorded(struct elfobj *obj, const char *path, const struct table_entry *sites, size_t ns)
{
	struct linked l;
	uint64_t *addrs = malloc((ns ? ns : 1) * sizeof(*addrs));
	const char *first;
	size_t n = 0;

	if (!addrs || obj->ehdr.e_type == ET_REL || !obj->symtab || linked_open(&l, obj) < 0) {
		free(addrs);
		return;
	}
	for (size_t i = 0; i < ns; i++)
		addrs[i] = sites[i].addr;
	qsort(addrs, ns, sizeof(*addrs), cmp_u64);
	n = unrecorded_functions(&l, addrs, ns, &first);
	if (n)
		fprintf(stderr,
			"objpatch: %s: warning: %zu function%s call%s the hook with no table entry and cannot be traced "
			"(first: %s): run recordmcount --mode=user on %s object%s before the link; "
			"recordmcount --check %s lists them\n",
			path, n, n == 1 ? "" : "s", n == 1 ? "s" : "", first, n == 1 ? "its" : "their",
			n == 1 ? "" : "s", path);
	linked_close(&l);
	free(addrs);
}

int listing_read(struct listing *l, const char *name, int fd, bool mapped)
{
	memset(l, 0, sizeof(*l));
	if ((mapped ? elfobj_load_mapped : elfobj_load)(&l->obj, name, fd) < 0)
		return -1;
	if (tables_read(&l->obj, &l->sites, &l->nsites) < 0 || protos_read(&l->obj, &l->protos, &l->nprotos) < 0)
		return -1;
	return 0;
}

int listing_functions(struct listing *l)
{
	/* Names for the functions that have no record: the symbol table's. */
	if (elfobj_load_symbols(&l->obj) < 0)
		return -1;
	l->funcs = recorded_functions(&l->obj, l->sites, l->nsites, l->protos, l->nprotos, &l->nfuncs);
	if (!l->funcs)
		return elfobj_error(&l->obj, "out of memory"), -1;
	return 0;
}

void listing_print(const struct listing *l, bool json, const char *indent)
{
	if (json)
		putchar('[');
	for (size_t i = 0; i < l->nfuncs; i++)
		print_function(&l->obj, &l->funcs[i], json, i == 0, indent);
	if (json)
		printf("%s%s]", l->nfuncs ? "\n" : "", l->nfuncs ? indent : "");
}

void listing_warn_unrecorded(struct listing *l, const char *path)
{
	warn_unrecorded(&l->obj, path, l->sites, l->nsites);
}

void listing_free(struct listing *l)
{
	free(l->funcs);
	free(l->sites);
	free(l->protos);
	elfobj_free(&l->obj);
	memset(l, 0, sizeof(*l));
}
