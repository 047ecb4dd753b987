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
#include "objpatch/cli/attach.h"
#include "objpatch/cli/opts.h"
#include "objpatch/cli/report.h"
#include "objpatch/cli/run.h"
#include "tables/calls.h"
#include "tables/sig.h"
#include "tables/tables.h"
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

static void json_string(const char *s)
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
	} else if (!ns) {
		/* Said, not an empty list: the usual cause is a build step left out. */
		if (json)
			printf("[]\n");
		fprintf(stderr, "objpatch: %s: no recorded call sites: compile with -pg and run "
				"recordmcount --mode=user on its objects\n", path);
		rc = -1;
	} else {
		if (json)
			putchar('[');
		for (size_t i = 0; i < nf; i++)
			print_function(&obj, &funcs[i], json, i == 0);
		if (json)
			printf("%s]\n", nf ? "\n" : "");
		warn_unrecorded(&obj, path, sites, ns);
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
		   "       objpatch run [OPTIONS] [--] PROGRAM [ARGS...]\n"
		   "       objpatch record [OPTIONS] [--] PROGRAM [ARGS...]\n"
		   "       objpatch report [OPTIONS] [RECORDING]\n"
		   "       objpatch annotate --image FILE [--image FILE]... [--hex] [--strict] [TRACE]\n"
		   "       objpatch --version\n"
		   "list: prints every function with a recorded call site, where it is and its prototype.\n"
		   "run: traces PROGRAM as a function graph.\n"
		   "record, report: the same in two steps, through a raw recording.\n"
		   "annotate: types the return values of a kernel function_graph trace.\n"
		   "objpatch COMMAND --help: that command's options.\n");
}

static void list_usage(FILE *f)
{
	fprintf(f, "usage: objpatch list [--json] FILE...\n"
		   "Prints every function of each object, executable or shared library that has a\n"
		   "recorded call site: where it is and its prototype.\n"
		   "  -j, --json   one JSON array of objects per file\n"
		   "  -h, --help   this text\n"
		   "Exit status: 0; 1 when a file could not be read or has no recorded call sites;\n"
		   "2 for a usage error.\n");
}

struct list_opts {
	bool json;
	const char **files;
	size_t nfiles;
};

enum { LIST_JSON = 1 };

static int list_option(void *ctx, int id, const char *value)
{
	struct list_opts *o = ctx;

	if (id == LIST_JSON)
		o->json = true;
	else
		o->files[o->nfiles++] = value;
	return 0;
}

static int list_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "json", 'j', NULL, LIST_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { .files = calloc((size_t)argc, sizeof(char *)) };
	const struct cli_cmd cmd = { .name = "objpatch list", .opts = opts, .usage = list_usage,
				     .set = list_option, .ctx = &o };
	int failed = 0, rc;

	if (!o.files)
		return 2;
	rc = cli_parse(&cmd, argc, argv, 2);
	if (rc >= 0 && !o.nfiles) {
		fprintf(stderr, "objpatch list: no file: objpatch list [--json] FILE...\n");
		rc = CLI_ERROR;
	}
	if (rc < 0) {
		free(o.files);
		return rc == CLI_HELP ? 0 : 2;
	}
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < o.nfiles; i++)
		if (list_file(o.files[i], o.json) < 0)
			failed = 1;
	free(o.files);
	return failed;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*main)(int argc, char **argv);
	} commands[] = {
		{ "list", list_main },
		{ "run", run_main },
		{ "record", run_main },
		{ "report", report_main },
		{ "annotate", annotate_main },
		/* Not in the usage yet: only its first step, --inject-only, is there (issue 21). */
		{ "attach", attach_main },
	};

	if (argc < 2) {
		fprintf(stderr, "objpatch: no command: give list, run, record, report or annotate "
				"(objpatch --help)\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc, argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("objpatch %s\n", VERSION);
		return 0;
	}
	fprintf(stderr, "objpatch: unknown command %s: give list, run, record, report or annotate "
			"(objpatch --help)\n", argv[1]);
	return 2;
}
