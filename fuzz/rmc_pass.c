// SPDX-License-Identifier: GPL-2.0-only
/*
 * The whole recordmcount pass on one input, as recordmcount -o runs it on a
 * file: load, find the calls, NOP the untraced ones, append the site tables
 * and the prototype tables, and the atomic write.  The written object is
 * then read back: it must load; when the input had no tables, the ones
 * written must name exactly the sites that were recorded, and every
 * signature must parse.
 *
 * Options byte (e_ident[15], fuzz.h): bit 0 user mode, bit 1 no prototype
 * tables, bit 2 --nop, bit 3 -w.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz/fuzz.h"
#include "recordmcount/record.h"
#include "recordmcount/proto_tables.h"
#include "tables/sig.h"

enum { OPT_USER = 1, OPT_NO_PROTOS = 2, OPT_NOP = 4, OPT_WARN = 8, OPT_COMPACT = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	devnull = fopen("/dev/null", "we");
	if (!devnull)
		fuzz_fail("cannot open /dev/null");
	return 0;
}

/* main.c's record_file() with -o OUT. */
static int record(struct elfobj *obj, unsigned opt, const char *out, struct recording *rec)
{
	enum proto_form protos = opt & OPT_NO_PROTOS ? PROTOS_NONE :
				 (opt & (OPT_COMPACT | OPT_USER)) == OPT_COMPACT ? PROTOS_COMPACT : PROTOS_FULL;
	struct record_options o = { opt & OPT_USER ? MODE_USER : MODE_KERNEL, opt & OPT_NOP, protos,
				    opt & OPT_WARN ? devnull : NULL };

	if (obj->ehdr.e_type != ET_REL)
		return elfobj_error(obj, "not a relocatable object (ELF type %u)", obj->ehdr.e_type), -1;
	if (record_object(obj, rec, &o) < 0)
		return -1;
	return obj->modified ? elfobj_write(obj, out, 0644) : elfobj_copy(obj, out, 0644);
}

static int cmp_place(const void *a, const void *b)
{
	const struct table_entry *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The tables read back name the recorded sites, no more, no less. */
static void check_sites(struct elfobj *obj, const struct recording *rec)
{
	struct table_entry *e;
	size_t n;

	if (tables_read(obj, &e, &n) < 0)
		fuzz_fail("the written tables do not read back: %s", obj->err);
	if (n != rec->nsites)
		fuzz_fail("%zu sites recorded, %zu read back", rec->nsites, n);
	qsort(e, n, sizeof(*e), cmp_place);
	for (size_t i = 0; i < n; i++)
		if (e[i].sec != rec->sites[i].sec || e[i].off != rec->sites[i].off)
			fuzz_fail("site %zu recorded at [%u]+0x%llx, read back at [%u]+0x%llx", i,
				  rec->sites[i].sec, (unsigned long long)rec->sites[i].off, e[i].sec,
				  (unsigned long long)e[i].off);
	free(e);
}

static void check_protos(struct elfobj *obj)
{
	struct proto_entry *p;
	size_t n;

	if (protos_read(obj, &p, &n) < 0)
		fuzz_fail("the written prototype table does not read back: %s", obj->err);
	for (size_t i = 0; i < n; i++) {
		struct signature sig;

		if (sig_parse(p[i].sig, &sig) < 0)
			fuzz_fail("written signature of %s does not parse", p[i].name);
		sig_free(&sig);
	}
	free(p);
}

static void check_output(const char *path, const struct recording *rec, bool fresh)
{
	struct elfobj obj;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fuzz_fail("no output after a success");
	if (elfobj_load(&obj, path, fd) < 0)
		fuzz_fail("the output does not load: %s", obj.err);
	close(fd);
	if (fresh && rec->nsites) {
		if (!elfobj_has_tables(&obj))
			fuzz_fail("%zu sites recorded, no table written", rec->nsites);
		check_sites(&obj, rec);
	}
	if (fresh)
		check_protos(&obj);
	elfobj_free(&obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = fuzz_begin(data, size);
	const char *out = fuzz_scratch_path("out.o");
	struct recording rec = { 0 };
	struct elfobj obj;
	bool fresh = false;
	int rc;

	rc = fuzz_load(&obj, data, size, false);
	if (rc == 0) {
		fresh = obj.ehdr.e_type == ET_REL && !elfobj_has_tables(&obj) && !fuzz_has_proto_table(&obj);
		rc = record(&obj, opt, out, &rec);
	}
	if (rc < 0) {
		fuzz_check_error(&obj);
		if (access(out, F_OK) == 0)
			fuzz_fail("output written by a failed run");
	} else {
		check_output(out, &rec, fresh);
		unlink(out);
	}
	recording_free(&rec);
	elfobj_free(&obj);
	fuzz_check_leftovers();
	return 0;
}
