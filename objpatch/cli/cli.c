// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch: the command line of the tracing runtime.  `objpatch list` reads
 * the call-site and prototype tables of an object, executable or shared
 * library and prints every recorded function with its prototype.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "objpatch/cli/annotate.h"
#include "objpatch/cli/report.h"
#include "objpatch/cli/run.h"
#include "tables/sig.h"
#include "tables/tables.h"
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

/* The length of the valid UTF-8 sequence at `s`, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* stops at the NUL too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void json_string(const char *s)
{
	putchar('"');
	while (s && *s) {
		const unsigned char *u = (const unsigned char *)s;
		size_t n = utf8_len(u);

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
	json_string(text ? text : "");
	free(text);
	if (t->nmembers) {
		printf(", \"members\": [");
		for (size_t i = 0; i < t->nmembers; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			json_string(t->members[i].name);
			printf(", \"offset\": %llu, \"class\": \"%s\", \"size\": %llu}",
			       (unsigned long long)t->members[i].offset, type_class_name(t->members[i].cls),
			       (unsigned long long)t->members[i].size);
		}
		putchar(']');
	}
	if (t->cls != TC_ENUM)
		return;
	printf(", \"enum\": ");
	json_string(t->enum_name);
	printf(", \"enumerators\": {");
	for (size_t i = 0; i < t->nenumerators; i++) {
		printf("%s", i ? ", " : "");
		json_string(t->enumerators[i].name);
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
		json_string(sec);
		printf(", \"offset\": %llu, \"address\": null", (unsigned long long)w->off);
	} else if (json) {
		printf("\"section\": null, \"offset\": null, \"address\": %llu", (unsigned long long)w->addr);
	} else if (obj->ehdr.e_type == ET_REL) {
		printf("%s+0x%llx", sec, (unsigned long long)w->off);
	} else {
		printf("0x%llx", (unsigned long long)w->addr);
	}
}

static void print_function(const struct elfobj *obj, const struct func_out *f, bool json, bool first)
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
	printf("%s\n  {\"function\": ", first ? "" : ",");
	json_string(name);
	printf(", ");
	print_where(obj, &f->where, true);
	printf(", \"sites\": [");
	for (size_t i = 0; i < f->nsites; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)(obj->ehdr.e_type == ET_REL ?
								    f->sites[i].off : f->sites[i].addr));
	printf("], \"prototype\": ");
	if (proto)
		json_string(proto);
	else
		printf("null");
	printf(", \"return\": {");
	if (known)
		json_type_fields(&sig.ret);
	else
		printf("\"class\": \"unknown\"");
	printf("}, \"params\": [");
	for (size_t i = 0; known && i < sig.nparams; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		json_string(sig.params[i].name);
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

static int list_file(const char *path, bool json)
{
	struct elfobj obj;
	struct table_entry *sites = NULL;
	struct proto_entry *protos = NULL;
	struct func_out *funcs = NULL;
	size_t ns = 0, np = 0, nf = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = elfobj_load(&obj, path, fd);
	close(fd);
	if (rc == 0 && (tables_read(&obj, &sites, &ns) < 0 || protos_read(&obj, &protos, &np) < 0))
		rc = -1;
	if (rc == 0 && !(funcs = recorded_functions(&obj, sites, ns, protos, np, &nf))) {
		elfobj_error(&obj, "out of memory");
		rc = -1;
	}
	if (rc < 0) {
		fprintf(stderr, "objpatch: %s: %s\n", path, obj.err);
	} else {
		if (json)
			putchar('[');
		for (size_t i = 0; i < nf; i++)
			print_function(&obj, &funcs[i], json, i == 0);
		if (json)
			printf("%s]\n", nf ? "\n" : "");
	}
	free(funcs);
	free(sites);
	free(protos);
	elfobj_free(&obj);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: objpatch list [--json] FILE...\n"
		   "       objpatch run [OPTIONS] -- PROGRAM [ARGS...]\n"
		   "       objpatch record [OPTIONS] -- PROGRAM [ARGS...]\n"
		   "       objpatch report [OPTIONS] [RECORDING]\n"
		   "       objpatch annotate --image FILE [--image FILE]... [--hex] [--strict] [TRACE]\n"
		   "list: prints every function with a recorded call site, where it is and its prototype.\n"
		   "run: traces PROGRAM as a function graph (objpatch run --help).\n"
		   "record, report: the same in two steps, through a raw recording.\n"
		   "annotate: types the return values of a kernel function_graph trace.\n");
}

int main(int argc, char **argv)
{
	bool json = false;
	int failed = 0, first = 2;

	if (argc >= 2 && (strcmp(argv[1], "run") == 0 || strcmp(argv[1], "record") == 0))
		return run_main(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "report") == 0)
		return report_main(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "annotate") == 0)
		return annotate_main(argc, argv);
	if (argc < 2 || strcmp(argv[1], "list") != 0) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "--json") == 0) {
		json = true;
		first = 3;
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	elf_version(EV_CURRENT);
	for (int i = first; i < argc; i++)
		if (list_file(argv[i], json) < 0)
			failed = 1;
	return failed;
}
