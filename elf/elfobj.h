/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An ELF relocatable object loaded once through libelf: sections, symbols and
 * relocations as arrays, edited in memory, then written to a temporary file
 * (the input copied, what changed appended) that replaces the original only
 * when everything succeeded.
 * The passes never see file offsets.  elfobj.c reads; elfobj_write.c edits
 * and writes.
 */
#ifndef ELF_ELFOBJ_H
#define ELF_ELFOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <gelf.h>
#include "arch/arch.h"

struct reloc {
	uint64_t offset;
	int64_t addend;		/* RELA: r_addend; REL: unused (the addend is in place) */
	uint32_t sym;
	uint32_t type;
};

struct section {
	GElf_Shdr sh;
	const char *name;
	/* Contents in file byte order; `owned` once copied for editing. */
	uint8_t *bytes;
	size_t size;
	bool owned;
	/* Relocation sections, once parsed; `relocs_dirty` makes them written back. */
	struct reloc *relocs;
	size_t nrelocs;
	bool relocs_parsed;
	bool relocs_dirty;
	bool relocs_renumbered;	/* by the last elfobj_insert_locals: it named a global */
	uint32_t secsym;	/* its STT_SECTION symbol, 0 if none */
	uint32_t group;		/* the SHT_GROUP section it belongs to, 0 if none */
	uint32_t rela_for;	/* for REL/RELA: the section it relocates, 0 if none */
	Elf_Scn *scn;		/* input section, NULL for added ones */
};

struct symbol {
	GElf_Sym s;
	uint32_t shndx;		/* real section index, SHN_XINDEX resolved */
	const char *name;
};

struct elfobj {
	const char *path;	/* for messages */
	char err[512];

	uint8_t *image;
	size_t image_size;
	bool mapped;		/* image is a mapping of the file, not a copy (which cannot map) */
	struct stat src;	/* the file as read: a replacement is seen before the rename */
	int src_fd;		/* the file, lent by the caller for the writer's copy; else -1 */
	bool symbols_deferred;	/* sym[] not read yet */
	Elf *elf;
	GElf_Ehdr ehdr;
	const struct arch *arch;
	bool big_endian;	/* data */
	bool code_big_endian;	/* instructions */
	bool is64;
	bool uses_rela;		/* the object's own relocations are RELA */

	struct section *sec;
	size_t nsec, cap_sec;
	size_t shstrndx;
	size_t symtab;		/* 0 if none */
	size_t symtab_shndx;	/* 0 if none */

	struct symbol *sym;
	size_t nsym, cap_sym;
	size_t first_global;	/* symtab sh_info */
	uint32_t *sym_map;	/* old index -> new, after the last elfobj_insert_locals */
	size_t nsym_inserted;

	/* Names of added sections, each added to .shstrtab once. */
	struct name_off {
		const char *name;
		uint32_t off;
	} names[4];
	size_t nnames;
	bool modified;
};

/*
 * Load `path` (already opened on `fd`).  Returns 0, or -1 with obj->err set.
 * The caller still owns `fd`; keeping it open and lending it (obj->src_fd =
 * fd) lets elfobj_write copy the file inside the kernel.
 */
int elfobj_load(struct elfobj *obj, const char *path, int fd);
/*
 * The same for a reader that needs a few sections of a big file: a linked
 * file's symbols are then read only by elfobj_load_symbols().
 */
int elfobj_load_mapped(struct elfobj *obj, const char *path, int fd);
/*
 * Whether a SIGBUS at `addr` is a loaded object's file shrinking under its
 * mapping (another process truncated it), not a bug: the handler's test.
 */
bool elfobj_mapping_shrank(const void *addr);
int elfobj_load_symbols(struct elfobj *obj);
void elfobj_free(struct elfobj *obj);

/* A relocation's symbol index and type word, in the file's r_info layout. */
void elfobj_decode_rinfo(const struct elfobj *obj, uint64_t info, uint32_t *sym, uint32_t *type);
int elfobj_parse_relocs(struct elfobj *obj, size_t secidx);
/*
 * Up to `max` relocations of section secidx from entry `first` into `out`,
 * without keeping them: for a reader that looks at each once.  Returns how
 * many (0 past the end), or -1 with obj->err set.
 */
ssize_t elfobj_read_relocs(struct elfobj *obj, size_t secidx, size_t first, struct reloc *out, size_t max);
/* Make a section's contents writable. */
uint8_t *elfobj_edit_bytes(struct elfobj *obj, size_t secidx);

/*
 * Insert `n` unnamed local symbols before the first global symbol,
 * renumbering every reference.  Their new indices are returned in `out_idx`.
 * Every call rewrites all relocations: insert all that a pass needs at once.
 */
int elfobj_insert_locals(struct elfobj *obj, const GElf_Sym *syms, const uint32_t *shndx,
			 size_t n, uint32_t *out_idx);

/* Append a new section; returns its index or 0 on error. */
size_t elfobj_add_section(struct elfobj *obj, const char *name, const GElf_Shdr *sh,
			  uint8_t *bytes, size_t size);
/* Append relocations to a new, empty relocation section. */
void elfobj_set_relocs(struct elfobj *obj, size_t secidx, struct reloc *r, size_t n);
int elfobj_add_to_group(struct elfobj *obj, size_t group, size_t secidx);

/* Write the object to `path` atomically (temporary file + rename). */
int elfobj_write(struct elfobj *obj, const char *path, mode_t mode);
/* Write the input as it was read, atomically. */
int elfobj_copy(struct elfobj *obj, const char *path, mode_t mode);

bool elfobj_error(struct elfobj *obj, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

uint64_t elfobj_read_word(const struct elfobj *obj, const uint8_t *p, unsigned size);
void elfobj_write_word(const struct elfobj *obj, uint8_t *p, unsigned size, uint64_t v);

#endif
