/* SPDX-License-Identifier: GPL-2.0-only */
/* Finding the calls to the profiling hook, and emitting the tables. */
#ifndef RECORDMCOUNT_RECORD_H
#define RECORDMCOUNT_RECORD_H

#include <stdio.h>
#include "elf/elfobj.h"
#include "elf/functions.h"
#include "recordmcount/emit.h"
#include "tables/tables.h"

/*
 * A relocation against the hook in code that is neither a call the arch's
 * forms know nor another relocation of such a call's sequence: a function
 * that may call the hook in a way the recorder cannot see.
 */
struct stray_ref {
	uint32_t sec;
	uint64_t off;
	uint32_t type;		/* the relocation's type */
	const char *sym;	/* the hook it names (the object's string) */
};

struct recording {
	struct site *sites;	/* in traceable sections, sorted by (sec, off) */
	size_t nsites, cap;
	struct stray_ref *strays;	/* in section order, then offset */
	size_t nstrays, cap_strays;
	/*
	 * Calls in traced sections that no function symbol holds (a symbol
	 * table whose sizes do not cover them): not traced, so NOP'd like the
	 * calls of untraced sections; the caller warns (--strict: fails).
	 */
	struct site *outside;
	size_t noutside, cap_outside;
	bool outside_kept;	/* kernel mode leaves the compiler's table: their entries stay */
	size_t nopped;		/* calls replaced by NOPs outside traceable sections */
	size_t ignored;		/* calls outside traceable sections left as they are */
	size_t pic_calls;	/* calls of a form only position-independent code has */
	bool nop_traced;	/* --nop: recorded calls become NOPs too */
};

bool section_is_traceable(const char *name);
/*
 * The one rule the recorder and --check share: a call to the hook is
 * traced (recorded, and its entry valid) when its section is traceable and
 * a function symbol holds it (function_at).  Its function, or NULL.
 */
const struct func_sym *traced_function(const struct elfobj *obj, const struct func_sym *fs, size_t nf,
				       uint32_t sec, uint64_t off);
bool elfobj_has_tables(const struct elfobj *obj);
/*
 * gcc -flto without -ffat-lto-objects: no machine code, so no call to
 * record or check.  -1 with obj->err saying what to do, else 0.
 */
int refuse_slim_lto(struct elfobj *obj);
/* The object has DWARF to take prototypes from (compiled with -g). */
bool object_has_dwarf(const struct elfobj *obj);

/*
 * Find every call; NOP those outside traceable sections, and with
 * `nop_traced` the recorded ones too.  `warn` gets -w lines.
 */
int record_sites(struct elfobj *obj, struct recording *rec, bool nop_traced, FILE *warn);
/*
 * The sites the compiler recorded itself (-mrecord-mcount, or
 * -fpatchable-function-entry), and whether the object has a prototype
 * table already.
 */
int recorded_sites(struct elfobj *obj, struct recording *rec, bool *has_protos);
/*
 * User mode on an object whose sites the compiler recorded, where gcc's
 * tables break links whose COMDAT copies are discarded (g++, t/31, t/36):
 * a kernel-style __mcount_loc (-mrecord-mcount; its absolute entries refer
 * to discarded copies) becomes user-mode tables, and gcc 12's single
 * __patchable_function_entries (SHF_LINK_ORDER to one COMDAT section, so
 * discarded with it) one table per text section.  The old tables are
 * marked SHF_EXCLUDE: linkers drop them with their relocations.  `rec`
 * holds the sites (recorded_sites).  1 when it changed the object, 0 when
 * there was nothing to do, -1 on error.
 */
int recorded_to_user(struct elfobj *obj, struct recording *rec);

enum proto_form {
	PROTOS_NONE,
	PROTOS_FULL,	/* __mcount_proto: name, size, whole signature */
	PROTOS_COMPACT,	/* __mcount_ret: the return type only, for kernels */
};

struct record_options {
	enum table_mode mode;
	bool nop;	/* --nop */
	enum proto_form protos;	/* which prototype table to add */
	FILE *warn;	/* -w lines, or NULL */
};

/*
 * recordmcount's work on a loaded object, in memory: the sites in `rec`
 * (the compiler's own when it recorded them), obj->modified when the
 * object must be written.
 */
int record_object(struct elfobj *obj, struct recording *rec, const struct record_options *o);
void recording_free(struct recording *rec);
/* "R_MIPS_GOT16", or "relocation type 9" when <elf.h> has no name for it. */
const char *stray_type(const struct elfobj *obj, const struct stray_ref *s, char *buf, size_t size);

#endif
