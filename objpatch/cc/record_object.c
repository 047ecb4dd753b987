// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recording an object the compiler wrote, in this process (no recordmcount
 * exec per object): user-mode tables, the sites NOP'd (--nop) so the
 * program links without a hook and runs untraced until objpatch traces
 * it, and the prototype table from its DWARF.  Recording an object again
 * (ccache behind the wrapper hands back one it recorded) changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libelf.h>
#include "elf/files.h"
#include "objpatch/cc/cc.h"
#include "recordmcount/record.h"

int cc_record(const char *path)
{
	struct record_options o = { .mode = MODE_USER, .nop = true, .protos = PROTOS_FULL };
	struct recording rec = { 0 };
	struct elfobj obj;
	struct stat st;
	const char *why;
	int fd, rc;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "objpatch-cc: libelf is too old for this program: %s\n", elf_errmsg(-1));
		return -1;
	}
	if ((why = file_open_input(path, false, &fd, &st))) {
		fprintf(stderr, "objpatch-cc: %s: %s: the compiler did not write the object where gcc's rules put it; "
			"name it with -o\n", path, why);
		return -1;
	}
	rc = elfobj_load(&obj, path, fd);
	close(fd);
	if (rc == 0 && obj.ehdr.e_type != ET_REL)
		rc = (elfobj_error(&obj, "not a relocatable object (ELF type %u)", obj.ehdr.e_type), -1);
	if (rc == 0)
		rc = refuse_slim_lto(&obj);
	if (rc == 0) {
		/*
		 * sh4's site is a literal word with no NOP form: its calls stay,
		 * to libc's mcount (which does nothing unless the program was
		 * linked with -pg), until the runtime points the words at its own.
		 */
		bool nop_form = false;

		for (size_t i = 0; i < obj.arch->ncalls; i++)
			nop_form |= obj.arch->calls[i].nop.n != 0;
		o.nop = nop_form;
		rc = record_object(&obj, &rec, &o);
	}
	if (rc == 0 && obj.modified)
		rc = elfobj_write(&obj, path, st.st_mode);
	if (rc < 0)
		fprintf(stderr, "objpatch-cc: %s: %s (not traced: object removed)\n", path, obj.err);
	recording_free(&rec);
	elfobj_free(&obj);
	return rc;
}
