/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tables recordmcount writes (man/mcount-tables.5), and one reader for
 * them: objects through their relocations, linked files through their
 * contents.  Shared by recordmcount --list, objpatch and the runtime.
 */
#ifndef TABLES_TABLES_H
#define TABLES_TABLES_H

#include "elf/elfobj.h"

#define KERNEL_TABLE	"__mcount_loc"	/* pointer-sized absolute call addresses */
#define USER_TABLE	"__mcount_rel"	/* 32-bit self-relative call addresses */
/* The same for calls to an entry hook (__fentry__), made before the prologue. */
#define ENTRY_TABLE	"__fentry_rel"
/*
 * The compiler's own, from -fpatchable-function-entry=N[,M]: pointer-sized
 * absolute addresses of N NOP bytes (or instructions), M of them before the
 * function's entry.
 */
#define PATCHABLE_TABLE	"__patchable_function_entries"
#define PROTO_TABLE	"__mcount_proto"	/* a record per function */
/*
 * The compact form, for kernels (--protos=compact): a record per function of
 * its address, self-relative, and its return type, no name: 8 bytes.
 */
#define PROTO_RET_TABLE	"__mcount_ret"
#define PROTO_RET_RECORD	8
#define PROTO_STRINGS	"__mcount_str"	/* names and signatures, mergeable */

/* 2: structs and unions may list their members; readers take 1 too. */
#define PROTO_VERSION	"2"
#define PROTO_VERSION_OLD	"1"
#define PROTO_US	"\x1f"	/* between the fields of a type or parameter */
#define PROTO_RS	"\x1e"	/* between the items of a signature */
#define PROTO_RELIABLE	0x01	/* the signature is the one the code has */
#define PROTO_VARARGS	0x02
#define PROTO_RET_FP	0x04	/* returns a struct or union holding a float */
/* Returns a C++ class that is not trivially copyable: always in memory, through a hidden address. */
#define PROTO_RET_MEM	0x08
/* Only the return type is recorded (PROTO_RET_TABLE): no parameters. */
#define PROTO_RET_ONLY	0x10

/* A place in the file: (section, offset), and the address in linked files. */
struct table_entry {
	uint32_t sec;		/* section the entry points into, 0 if none */
	uint64_t off;		/* offset in that section */
	uint64_t addr;		/* linked files: the address; objects: 0 */
	bool user;		/* from a user-mode (self-relative) table */
	bool entry;		/* from ENTRY_TABLE: the hook is called before the prologue */
	bool patchable;		/* from PATCHABLE_TABLE: a pad of NOPs, not a call */
	/*
	 * Linked files: the entry is 0, which a tool (the kernel's sorttable,
	 * recordmcount --check --fix) wrote over a stale entry; it names no
	 * place (sec, off and addr are 0).
	 */
	bool zeroed;
};

/*
 * Where a linked file keeps a table: bytes [from, to) of section `sec`.
 * A section of the table's name, or, for kernel tables, the range between
 * the symbols __start_mcount_loc and __stop_mcount_loc, where the kernel's
 * linker script puts every object's __mcount_loc (inside .init.data).
 */
struct table_span {
	uint32_t sec;
	uint64_t from, to;
	bool user;
	bool entry;
	bool patchable;
};

#define KERNEL_TABLE_START	"__start_mcount_loc"
#define KERNEL_TABLE_STOP	"__stop_mcount_loc"

struct proto_entry {
	struct table_entry where;	/* the function's entry */
	uint32_t size;			/* 0: unknown */
	const char *name;		/* in the file's image */
	const char *sig;
};

int tables_read(struct elfobj *obj, struct table_entry **out, size_t *n);
/*
 * The spans of a linked file's tables, in section order (the symbol range
 * only when the file's symbols are loaded); an object has none.
 */
int tables_spans(struct elfobj *obj, struct table_span **out, size_t *n);
int protos_read(struct elfobj *obj, struct proto_entry **out, size_t *n);

#endif
