// SPDX-License-Identifier: GPL-2.0-only
/*
 * The prototype table builder (dwarf/debugimage.c, prototypes.c, table.c:
 * emit_protos) on an object.  The functions asked about are every function
 * of the object, so that DWARF is read for objects without a single hook
 * call too; or, with bit 0 of the options byte (e_ident[15], fuzz.h), the
 * ones holding the sites record_sites finds, after emit_tables, as
 * recordmcount does it.  A table written is read back: every record must
 * name strings inside __mcount_str and every signature must parse.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz/fuzz.h"
#include "elf/functions.h"
#include "recordmcount/record.h"
#include "recordmcount/proto_tables.h"
#include "tables/sig.h"

enum { OPT_RECORDED = 1, OPT_COMPACT = 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A site at the start of every function in executable code. */
static int all_functions(struct elfobj *obj, struct recording *rec)
{
	size_t nf = 0;
	struct func_sym *f = function_index(obj, &nf);

	if (!f)
		return elfobj_error(obj, "out of memory"), -1;
	rec->sites = calloc(nf ? nf : 1, sizeof(*rec->sites));
	if (!rec->sites) {
		free(f);
		return elfobj_error(obj, "out of memory"), -1;
	}
	for (size_t i = 0; i < nf; i++)
		if (f[i].sec < obj->nsec && (obj->sec[f[i].sec].sh.sh_flags & SHF_EXECINSTR))
			rec->sites[rec->nsites++] = (struct site){ .sec = f[i].sec, .off = f[i].off };
	free(f);
	return 0;
}

static void check_written(const char *path)
{
	struct elfobj obj;
	struct proto_entry *p;
	size_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || elfobj_load(&obj, path, fd) < 0)
		fuzz_fail("the output does not load: %s", fd < 0 ? "no file" : obj.err);
	close(fd);
	if (protos_read(&obj, &p, &n) < 0)
		fuzz_fail("the written prototype table does not read back: %s", obj.err);
	for (size_t i = 0; i < n; i++) {
		struct signature sig;
		char *text;

		if (sig_parse(p[i].sig, &sig) < 0)
			fuzz_fail("written signature of %s does not parse", p[i].name);
		text = sig_prototype(&sig, p[i].name);
		free(text);
		sig_free(&sig);
	}
	free(p);
	elfobj_free(&obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned opt = fuzz_begin(data, size);
	const char *out = fuzz_scratch_path("out.o");
	struct recording rec = { 0 };
	struct elfobj obj;
	int rc = fuzz_load(&obj, data, size, false);

	if (rc == 0 && (obj.ehdr.e_type != ET_REL || elfobj_has_tables(&obj) || fuzz_has_proto_table(&obj))) {
		elfobj_free(&obj);
		fuzz_check_leftovers();
		return 0;	/* recordmcount adds no prototype table to them */
	}
	if (rc == 0)
		rc = opt & OPT_RECORDED ? record_sites(&obj, &rec, false, NULL) : all_functions(&obj, &rec);
	if (rc == 0 && (opt & OPT_RECORDED))
		rc = emit_tables(&obj, rec.sites, rec.nsites, MODE_USER);
	if (rc == 0)
		rc = emit_protos(&obj, &rec, opt & OPT_COMPACT ? PROTOS_COMPACT : PROTOS_FULL);
	if (rc == 0 && obj.modified)
		rc = elfobj_write(&obj, out, 0644);
	if (rc < 0) {
		fuzz_check_error(&obj);
	} else if (obj.modified) {
		check_written(out);
		unlink(out);
	}
	recording_free(&rec);
	elfobj_free(&obj);
	fuzz_check_leftovers();
	return 0;
}
