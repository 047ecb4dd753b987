// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table reader (tables/tables.c) on objects and linked files, the
 * ways it is used: loaded as a copy, as recordmcount --list and objpatch
 * list do (sites, prototypes, signatures parsed and printed, functions by
 * place); mapped with the symbols loaded afterwards, as the runtime and
 * objpatch annotate do; and by recordmcount --check (recordmcount/check.c)
 * on a file, with --json (bit 0 of the options byte, e_ident[15]) and --fix
 * (bit 1), after which the file must still load and check.  Every place
 * read must name a section of the file, every string must end inside it
 * (ASan sees the copy's end).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz/fuzz.h"
#include "recordmcount/check.h"
#include "elf/functions.h"
#include "tables/tables.h"
#include "tables/sig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void check_place(const struct elfobj *obj, const struct table_entry *e, const char *what)
{
	if (e->sec >= obj->nsec)
		fuzz_fail("%s names section %u of %zu", what, e->sec, obj->nsec);
	if (e->sec)	/* 0: none */
		sink += strlen(obj->sec[e->sec].name);
}

static int read_sites(struct elfobj *obj, const struct func_sym *f, size_t nf)
{
	struct table_entry *e;
	size_t n;

	if (tables_read(obj, &e, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct func_sym *fn;

		check_place(obj, &e[i], "a site");
		fn = nf ? function_at(f, nf, e[i].sec, e[i].off) : NULL;
		if (fn && fn->name)
			sink += strlen(fn->name);
	}
	free(e);
	return 0;
}

static int read_protos(struct elfobj *obj)
{
	struct proto_entry *p;
	size_t n;

	if (protos_read(obj, &p, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct signature sig;

		check_place(obj, &p[i].where, "a prototype");
		if (sig_parse(p[i].sig, &sig) == 0) {
			char *text = sig_prototype(&sig, p[i].name);

			if (text)
				sink += strlen(text);
			free(text);
			for (size_t k = 0; k < sig.nparams; k++)
				sink += strlen(type_class_name(sig.params[k].type.cls));
			sig_free(&sig);
		}
	}
	free(p);
	return 0;
}

static int read_spans(struct elfobj *obj)
{
	struct table_span *s;
	size_t n;

	if (tables_spans(obj, &s, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (s[i].sec >= obj->nsec || s[i].from > s[i].to || s[i].to > obj->sec[s[i].sec].size)
			fuzz_fail("span %zu: section %u [0x%llx, 0x%llx)", i, s[i].sec,
				  (unsigned long long)s[i].from, (unsigned long long)s[i].to);
	free(s);
	return 0;
}

/* Everything a reader asks of one loaded file. */
static int read_all(struct elfobj *obj, bool mapped)
{
	size_t nf = 0;
	struct func_sym *f;
	int rc;

	/* The runtime reads a linked file's sites before it loads its symbols. */
	if (mapped && (read_sites(obj, NULL, 0) < 0 || read_spans(obj) < 0))
		return -1;
	if (elfobj_load_symbols(obj) < 0)
		return -1;
	f = function_index(obj, &nf);
	if (!f)
		return elfobj_error(obj, "out of memory"), -1;
	rc = read_sites(obj, f, nf) < 0 || read_protos(obj) < 0 || read_spans(obj) < 0 ? -1 : 0;
	free(f);
	return rc;
}

static void run(const uint8_t *data, size_t size, bool mapped)
{
	struct elfobj obj;

	if (fuzz_load(&obj, data, size, mapped) < 0 || read_all(&obj, mapped) < 0)
		fuzz_check_error(&obj);
	elfobj_free(&obj);
}

enum { OPT_JSON = 1, OPT_FIX = 2 };

/* recordmcount --check [--json] [--fix] FILE, its output muted. */
static void check(const uint8_t *data, size_t size, unsigned opt)
{
	const char *path = fuzz_scratch_path("check.o");
	struct check_run run = { .json = opt & OPT_JSON, .fix = opt & OPT_FIX }, again = { 0 };
	int status;

	fuzz_write_file(path, data, size);
	fuzz_mute(true);
	check_start(&run);
	status = check_file(&run, path, path);
	check_finish(&run);
	/* What --fix wrote is ours: it must load and check again. */
	if (run.fix && status != CHECK_FAILED && check_file(&again, path, path) == CHECK_FAILED)
		fuzz_fail("the file --fix wrote does not check");
	fuzz_mute(false);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = fuzz_begin(data, size);

	run(data, size, false);
	run(data, size, true);
	check(data, size, opt);
	fuzz_check_leftovers();
	return 0;
}
