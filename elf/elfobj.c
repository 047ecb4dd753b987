// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading an object (elfobj.h): the whole file mapped once,
 * sections, symbols, groups and relocations as arrays, words in the file's
 * byte order.  Editing and writing it out are in elfobj_write.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/elfobj.h"
#include "elf/lto.h"

bool elfobj_error(struct elfobj *obj, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(obj->err, sizeof(obj->err), fmt, ap);
	va_end(ap);
	/* Names come from the file: a control character must not break the one-line message. */
	for (char *p = obj->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return false;
}

uint64_t elfobj_read_word(const struct elfobj *obj, const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	/* The usual case, a file of the host's byte order: one load, not a byte loop. */
	if (obj->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		uint32_t w32;

		switch (size) {
		case 8:
			memcpy(&v, p, 8);
			return v;
		case 4:
			memcpy(&w32, p, 4);
			return w32;
		default:
			break;
		}
	}
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[obj->big_endian ? i : size - 1 - i] << (8 * (size - 1 - i));
	return v;
}

void elfobj_write_word(const struct elfobj *obj, uint8_t *p, unsigned size, uint64_t v)
{
	/*
	 * Relocations, table entries and symbols go through here, a field at
	 * a time: one store per field, swapped when the file's byte order is
	 * not the host's, not a loop of byte stores.
	 */
	bool swap = obj->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);

	switch (size) {
	case 8: {
		uint64_t w = swap ? __builtin_bswap64(v) : v;

		memcpy(p, &w, 8);
		return;
	}
	case 4: {
		uint32_t w = swap ? __builtin_bswap32((uint32_t)v) : (uint32_t)v;

		memcpy(p, &w, 4);
		return;
	}
	case 2: {
		uint16_t w = swap ? __builtin_bswap16((uint16_t)v) : (uint16_t)v;

		memcpy(p, &w, 2);
		return;
	}
	default:
		break;
	}
	for (unsigned i = 0; i < size; i++)
		p[obj->big_endian ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/*
 * The live mappings, for a SIGBUS handler to recognize its address among
 * them; a handful are live at once (an object and the program it is
 * checked against).  Only the main thread loads and frees objects.
 */
static struct {
	const uint8_t *start;
	size_t size;
} live_maps[16];

static void remember_mapping(const uint8_t *start, size_t size)
{
	for (size_t i = 0; i < ARRAY_SIZE(live_maps); i++)
		if (!live_maps[i].start) {
			live_maps[i].size = size;
			live_maps[i].start = start;
			return;
		}
}

static void forget_mapping(const uint8_t *start)
{
	for (size_t i = 0; i < ARRAY_SIZE(live_maps); i++)
		if (live_maps[i].start == start)
			live_maps[i].start = NULL;
}

bool elfobj_mapping_shrank(const void *addr)
{
	const uint8_t *a = addr;

	for (size_t i = 0; i < ARRAY_SIZE(live_maps); i++)
		if (live_maps[i].start && a >= live_maps[i].start && a < live_maps[i].start + live_maps[i].size)
			return true;
	return false;
}

/* Rewritten in place since it was first looked at: what we have may be a mix of both. */
static bool changed_since_stat(const struct elfobj *obj, int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 || st.st_size != obj->src.st_size || st.st_mtim.tv_sec != obj->src.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != obj->src.st_mtim.tv_nsec;
}

static int read_into_memory(struct elfobj *obj, int fd)
{
	size_t done = 0;

	obj->image = malloc(obj->image_size);
	if (!obj->image)
		return elfobj_error(obj, "out of memory reading %zu bytes", obj->image_size), -1;
	while (done < obj->image_size) {
		ssize_t n = pread(fd, obj->image + done, obj->image_size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return elfobj_error(obj, "read error: %s", strerror(errno)), -1;
		if (n == 0)
			return elfobj_error(obj, "file shrank while being read"), -1;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Mapped, as the kernel's recordmcount maps it: only the pages of the
 * sections used are ever touched, and nothing is copied.  Private and
 * writable, so libelf may convert in place; pages copy only if it does.
 * A file system that cannot map gets a copy in memory.  The file shrinking
 * under the mapping raises SIGBUS, which elfobj_mapping_shrank() names.
 */
static int map_whole_file(struct elfobj *obj, int fd)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) < 0)
		return elfobj_error(obj, "cannot stat: %s", strerror(errno)), -1;
	if (!S_ISREG(st.st_mode))
		return elfobj_error(obj, "not a regular file"), -1;
	obj->src = st;
	if ((uint64_t)st.st_size < EI_NIDENT)
		return elfobj_error(obj, "not an ELF file (%lld bytes)", (long long)st.st_size), -1;
	obj->image_size = (size_t)st.st_size;
	p = mmap(NULL, obj->image_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		if (read_into_memory(obj, fd) < 0)
			return -1;
	} else {
		obj->image = p;
		obj->mapped = true;
		remember_mapping(obj->image, obj->image_size);
	}
	if (changed_since_stat(obj, fd))
		return elfobj_error(obj, "changed by another process while being read"), -1;
	return 0;
}


static int load_sections(struct elfobj *obj)
{
	size_t shnum;

	if (elf_getshdrnum(obj->elf, &shnum) < 0 || elf_getshdrstrndx(obj->elf, &obj->shstrndx) < 0)
		return elfobj_error(obj, "bad section header table: %s", elf_errmsg(-1)), -1;
	if (shnum == 0)
		return elfobj_error(obj, "no sections"), -1;
	if (obj->shstrndx == 0 || obj->shstrndx >= shnum)
		return elfobj_error(obj, "section name table index %zu out of range", obj->shstrndx), -1;
	obj->sec = calloc(shnum, sizeof(*obj->sec));
	if (!obj->sec)
		return elfobj_error(obj, "out of memory for %zu sections", shnum), -1;
	obj->nsec = obj->cap_sec = shnum;

	for (size_t i = 1; i < shnum; i++) {
		struct section *s = &obj->sec[i];

		s->scn = elf_getscn(obj->elf, i);
		if (!s->scn || !gelf_getshdr(s->scn, &s->sh))
			return elfobj_error(obj, "section %zu: %s", i, elf_errmsg(-1)), -1;
		if (s->sh.sh_type != SHT_NOBITS) {
			Elf_Data *d = elf_rawdata(s->scn, NULL);

			if (!d && s->sh.sh_size)
				return elfobj_error(obj, "section %zu: %s", i, elf_errmsg(-1)), -1;
			s->bytes = d ? d->d_buf : NULL;
			s->size = d ? d->d_size : 0;
		} else {
			s->size = s->sh.sh_size;
		}
	}
	/* Names once every section is known, so the name table is checked first. */
	if (obj->sec[obj->shstrndx].sh.sh_type != SHT_STRTAB)
		return elfobj_error(obj, "section name table is not a string table"), -1;
	for (size_t i = 1; i < shnum; i++) {
		struct section *s = &obj->sec[i];

		s->name = elf_strptr(obj->elf, obj->shstrndx, s->sh.sh_name);
		if (!s->name)
			return elfobj_error(obj, "section %zu: bad name offset %u", i, s->sh.sh_name), -1;
		if (s->sh.sh_type == SHT_SYMTAB) {
			if (obj->symtab)
				return elfobj_error(obj, "more than one symbol table"), -1;
			obj->symtab = i;
		}
	}
	return 0;
}

static int load_symbols(struct elfobj *obj)
{
	struct section *st = &obj->sec[obj->symtab];
	Elf_Data *data, *xdata = NULL;
	size_t n;

	if (st->sh.sh_link == 0 || st->sh.sh_link >= obj->nsec ||
	    obj->sec[st->sh.sh_link].sh.sh_type != SHT_STRTAB)
		return elfobj_error(obj, "symbol table has no string table"), -1;
	if (st->sh.sh_entsize != gelf_fsize(obj->elf, ELF_T_SYM, 1, EV_CURRENT))
		return elfobj_error(obj, "symbol table entry size %llu is wrong",
				    (unsigned long long)st->sh.sh_entsize), -1;
	data = elf_getdata(st->scn, NULL);
	if (!data)
		return elfobj_error(obj, "symbol table: %s", elf_errmsg(-1)), -1;
	n = data->d_size / st->sh.sh_entsize;
	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *s = &obj->sec[i];

		if (s->sh.sh_type == SHT_SYMTAB_SHNDX && s->sh.sh_link == obj->symtab) {
			obj->symtab_shndx = i;
			xdata = elf_getdata(s->scn, NULL);
			if (!xdata || xdata->d_size < n * sizeof(Elf32_Word))
				return elfobj_error(obj, "extended section index table is too short"), -1;
		}
	}
	obj->sym = malloc((n ? n : 1) * sizeof(*obj->sym));	/* each filled below */
	if (!obj->sym)
		return elfobj_error(obj, "out of memory for %zu symbols", n), -1;
	obj->nsym = obj->cap_sym = n;
	obj->first_global = st->sh.sh_info;
	if (obj->first_global > n)
		return elfobj_error(obj, "symbol table sh_info %zu beyond its %zu symbols",
				    obj->first_global, n), -1;
	/* Symbol 0 is local: 0 here would make inserted locals land on the null symbol. */
	if (n && obj->first_global == 0)
		return elfobj_error(obj, "symbol table sh_info 0: no local symbols, not even the null one"), -1;

	for (size_t i = 0; i < n; i++) {
		struct symbol *sym = &obj->sym[i];
		Elf32_Word xndx = 0;

		if (!gelf_getsymshndx(data, xdata, (int)i, &sym->s, &xndx))
			return elfobj_error(obj, "symbol %zu: %s", i, elf_errmsg(-1)), -1;
		sym->shndx = sym->s.st_shndx == SHN_XINDEX ? xndx : sym->s.st_shndx;
		if (sym->shndx >= obj->nsec && (sym->shndx < SHN_LORESERVE || sym->s.st_shndx == SHN_XINDEX))
			return elfobj_error(obj, "symbol %zu: section index %u out of range", i, sym->shndx), -1;
		sym->name = elf_strptr(obj->elf, st->sh.sh_link, sym->s.st_name);
		if (!sym->name)
			return elfobj_error(obj, "symbol %zu: bad name offset %u", i, sym->s.st_name), -1;
		if (GELF_ST_TYPE(sym->s.st_info) == STT_SECTION && i < obj->first_global &&
		    sym->shndx && sym->shndx < obj->nsec && !obj->sec[sym->shndx].secsym)
			obj->sec[sym->shndx].secsym = (uint32_t)i;
	}
	return 0;
}

static int load_groups_and_relocs(struct elfobj *obj)
{
	bool rel = false, rela = false;

	for (size_t i = 1; i < obj->nsec; i++) {
		struct section *s = &obj->sec[i];

		if (s->sh.sh_type == SHT_GROUP) {
			if (s->size % 4)
				return elfobj_error(obj, "group section %s has a bad size", s->name), -1;
			for (size_t w = 1; w < s->size / 4; w++) {
				uint64_t m = elfobj_read_word(obj, s->bytes + 4 * w, 4);

				if (m == 0 || m >= obj->nsec)
					return elfobj_error(obj, "group %s names section %llu, out of range",
							    s->name, (unsigned long long)m), -1;
				obj->sec[m].group = (uint32_t)i;
			}
		}
		if (s->sh.sh_type != SHT_REL && s->sh.sh_type != SHT_RELA)
			continue;
		/* Linked files have dynamic relocations against .dynsym: not ours to edit. */
		if (obj->ehdr.e_type != ET_REL)
			continue;
		if (s->sh.sh_link != obj->symtab || !obj->symtab)
			return elfobj_error(obj, "relocation section %s is not linked to the symbol table",
					    s->name), -1;
		if (s->sh.sh_info == 0 || s->sh.sh_info >= obj->nsec)
			return elfobj_error(obj, "relocation section %s applies to section %u, out of range",
					    s->name, s->sh.sh_info), -1;
		s->rela_for = s->sh.sh_info;
		if (s->sh.sh_type == SHT_RELA)
			rela = true;
		else
			rel = true;
	}
	obj->uses_rela = rela || !rel;
	return 0;
}

/*
 * libelf ignores e_shentsize and silently drops a section header table that
 * does not fit in the file ("no sections"): say what is wrong instead, and
 * never rewrite such a file as if it were sound.
 */
static int check_shdr_table(struct elfobj *obj)
{
	const GElf_Ehdr *eh = &obj->ehdr;
	size_t entsize = gelf_fsize(obj->elf, ELF_T_SHDR, 1, EV_CURRENT);

	if (!eh->e_shoff)
		return 0;
	if (eh->e_shentsize != entsize)
		return elfobj_error(obj, "section header entry size %u, expected %zu", eh->e_shentsize,
				    entsize), -1;
	if (eh->e_shoff >= obj->image_size ||
	    (uint64_t)eh->e_shnum * entsize > obj->image_size - eh->e_shoff)
		return elfobj_error(obj, "section header table (offset %llu, %u entries) extends beyond "
				    "the end of the file (%zu bytes)", (unsigned long long)eh->e_shoff,
				    eh->e_shnum, obj->image_size), -1;
	return 0;
}

static int load(struct elfobj *obj, const char *path, int fd, bool defer_symbols)
{
	memset(obj, 0, sizeof(*obj));
	obj->path = path;
	obj->src_fd = -1;
	if (map_whole_file(obj, fd) < 0)
		return -1;
	obj->elf = elf_memory((char *)obj->image, obj->image_size);
	if (lto_is_llvm_bitcode(obj->image, obj->image_size))
		return elfobj_error(obj, "LLVM bitcode (clang -flto), not ELF: its code is not compiled yet, so "
				    "there are no call sites; compile without -flto"), -1;
	if (!obj->elf || elf_kind(obj->elf) != ELF_K_ELF)
		return elfobj_error(obj, "not an ELF file"), -1;
	if (!gelf_getehdr(obj->elf, &obj->ehdr))
		return elfobj_error(obj, "bad ELF header: %s", elf_errmsg(-1)), -1;
	if (check_shdr_table(obj) < 0)
		return -1;
	obj->arch = arch_for_ehdr(&obj->ehdr);
	if (!obj->arch)
		return elfobj_error(obj, "unsupported machine %u for ELF class %u",
				    obj->ehdr.e_machine, obj->ehdr.e_ident[EI_CLASS]), -1;
	obj->is64 = obj->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	obj->big_endian = obj->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	obj->code_big_endian = obj->big_endian && !obj->arch->code_always_le;
	if (load_sections(obj) < 0)
		return -1;
	/* A reader of a linked file may never need its symbols (elfobj_load_symbols). */
	obj->symbols_deferred = defer_symbols && obj->ehdr.e_type != ET_REL;
	if (obj->symtab && !obj->symbols_deferred && load_symbols(obj) < 0)
		return -1;
	return load_groups_and_relocs(obj);
}

int elfobj_load_symbols(struct elfobj *obj)
{
	if (!obj->symbols_deferred)
		return 0;
	obj->symbols_deferred = false;
	return obj->symtab ? load_symbols(obj) : 0;
}

int elfobj_load(struct elfobj *obj, const char *path, int fd)
{
	return load(obj, path, fd, false);
}

int elfobj_load_mapped(struct elfobj *obj, const char *path, int fd)
{
	return load(obj, path, fd, true);
}

void elfobj_free(struct elfobj *obj)
{
	for (size_t i = 0; i < obj->nsec; i++) {
		if (obj->sec[i].owned)
			free(obj->sec[i].bytes);
		free(obj->sec[i].relocs);
	}
	free(obj->sec);
	free(obj->sym);
	free(obj->sym_map);
	if (obj->elf)
		elf_end(obj->elf);
	if (obj->mapped) {
		forget_mapping(obj->image);
		munmap(obj->image, obj->image_size);
	} else
		free(obj->image);
	memset(obj, 0, sizeof(*obj));
	obj->src_fd = -1;
}

void elfobj_decode_rinfo(const struct elfobj *obj, uint64_t info, uint32_t *sym, uint32_t *type)
{
	/* gelf widens ELF32 r_info to the ELF64 layout. */
	if (obj->arch->rinfo_decode) {
		obj->arch->rinfo_decode(info, obj->big_endian, sym, type);
	} else {
		*sym = (uint32_t)GELF_R_SYM(info);
		*type = (uint32_t)GELF_R_TYPE(info);
	}
}

/*
 * Relocation `i` of a section's data through gelf, widened to the ELF64
 * layout, for data whose type is not the one of its entries.
 */
static bool reloc_read_gelf(Elf_Data *data, bool rela, size_t i, struct reloc *r, uint64_t *info)
{
	GElf_Rela ra;
	GElf_Rel rl;

	if (rela ? !gelf_getrela(data, (int)i, &ra) : !gelf_getrel(data, (int)i, &rl))
		return false;
	*r = (struct reloc){ .offset = rela ? ra.r_offset : rl.r_offset, .addend = rela ? ra.r_addend : 0 };
	*info = rela ? ra.r_info : rl.r_info;
	return true;
}

/* Symbol and type of a widened r_info, as elfobj_decode_rinfo; inline without a machine's own decoder. */
static inline void rinfo_split(const struct elfobj *obj, uint64_t info, struct reloc *r)
{
	if (obj->arch->rinfo_decode) {
		elfobj_decode_rinfo(obj, info, &r->sym, &r->type);
	} else {
		r->sym = (uint32_t)GELF_R_SYM(info);
		r->type = (uint32_t)GELF_R_TYPE(info);
	}
}

/*
 * The entries of data libelf has translated to the host's layout (d_type
 * ELF_T_REL or ELF_T_RELA), read from that array as gelf_getrel and
 * gelf_getrela would widen them: one loop per layout, no per-entry gelf
 * call (an object's .rel.debug_info holds thousands).  Fields an entry
 * does not set are zero: the array is not zeroed.  Returns the index of
 * the first entry naming a symbol out of range, else n.
 */
static size_t relocs_from_array(const struct elfobj *obj, const void *array, bool rela, size_t n,
				struct reloc *out)
{
	size_t i;

	if (obj->is64 && rela) {
		for (i = 0; i < n; i++) {
			Elf64_Rela e;

			memcpy(&e, (const Elf64_Rela *)array + i, sizeof(e));
			out[i] = (struct reloc){ .offset = e.r_offset, .addend = e.r_addend };
			rinfo_split(obj, e.r_info, &out[i]);
			if (out[i].sym >= obj->nsym)
				break;
		}
	} else if (obj->is64) {
		for (i = 0; i < n; i++) {
			Elf64_Rel e;

			memcpy(&e, (const Elf64_Rel *)array + i, sizeof(e));
			out[i] = (struct reloc){ .offset = e.r_offset };
			rinfo_split(obj, e.r_info, &out[i]);
			if (out[i].sym >= obj->nsym)
				break;
		}
	} else if (rela) {
		for (i = 0; i < n; i++) {
			Elf32_Rela e;

			memcpy(&e, (const Elf32_Rela *)array + i, sizeof(e));
			out[i] = (struct reloc){ .offset = e.r_offset, .addend = e.r_addend };
			rinfo_split(obj, GELF_R_INFO(ELF32_R_SYM(e.r_info), ELF32_R_TYPE(e.r_info)), &out[i]);
			if (out[i].sym >= obj->nsym)
				break;
		}
	} else {
		for (i = 0; i < n; i++) {
			Elf32_Rel e;

			memcpy(&e, (const Elf32_Rel *)array + i, sizeof(e));
			out[i] = (struct reloc){ .offset = e.r_offset };
			rinfo_split(obj, GELF_R_INFO(ELF32_R_SYM(e.r_info), ELF32_R_TYPE(e.r_info)), &out[i]);
			if (out[i].sym >= obj->nsym)
				break;
		}
	}
	return i;
}

/* The size of one entry in the host's layout libelf translates to. */
static size_t memory_entry_size(const struct elfobj *obj, bool rela)
{
	if (obj->is64)
		return rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
	return rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel);
}

/*
 * Decode entries [first, first + n) of the section's data into out; -1 with
 * obj->err set as gelf or a symbol fails.
 */
static int relocs_decode(struct elfobj *obj, const struct section *s, Elf_Data *data, bool rela, size_t first,
			 size_t n, struct reloc *out)
{
	size_t bad = n;

	if (!n)
		return 0;	/* an empty section's data may have no buffer at all */
	if (data->d_type == (rela ? ELF_T_RELA : ELF_T_REL)) {
		bad = relocs_from_array(obj, (const uint8_t *)data->d_buf + first * memory_entry_size(obj, rela), rela,
					n, out);
	} else {
		for (size_t i = 0; i < n && bad == n; i++) {
			uint64_t info;

			if (!reloc_read_gelf(data, rela, first + i, &out[i], &info))
				return elfobj_error(obj, "%s: %s", s->name, elf_errmsg(-1)), -1;
			elfobj_decode_rinfo(obj, info, &out[i].sym, &out[i].type);
			if (out[i].sym >= obj->nsym)
				bad = i;
		}
	}
	if (bad < n)
		return elfobj_error(obj, "%s: relocation %zu names symbol %u, out of range", s->name, first + bad,
				    out[bad].sym), -1;
	return 0;
}

/* The section's data and its number of entries, checked. */
static Elf_Data *reloc_data(struct elfobj *obj, const struct section *s, size_t *n)
{
	bool rela = s->sh.sh_type == SHT_RELA;
	size_t entsize = gelf_fsize(obj->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	Elf_Data *data;

	if (s->sh.sh_entsize != entsize)
		return elfobj_error(obj, "%s: relocation entry size %llu, expected %zu", s->name,
				    (unsigned long long)s->sh.sh_entsize, entsize), NULL;
	data = elf_getdata(s->scn, NULL);
	if (!data)
		return elfobj_error(obj, "%s: %s", s->name, elf_errmsg(-1)), NULL;
	*n = data->d_size / entsize;
	return data;
}

ssize_t elfobj_read_relocs(struct elfobj *obj, size_t secidx, size_t first, struct reloc *out, size_t max)
{
	struct section *s = &obj->sec[secidx];
	Elf_Data *data;
	size_t n;

	if (s->relocs_parsed) {
		n = first < s->nrelocs ? s->nrelocs - first : 0;
		n = n < max ? n : max;
		if (n)
			memcpy(out, s->relocs + first, n * sizeof(*out));
		return (ssize_t)n;
	}
	if (!(data = reloc_data(obj, s, &n)))
		return -1;
	n = first < n ? n - first : 0;
	n = n < max ? n : max;
	if (n && relocs_decode(obj, s, data, s->sh.sh_type == SHT_RELA, first, n, out) < 0)
		return -1;
	return (ssize_t)n;
}

int elfobj_parse_relocs(struct elfobj *obj, size_t secidx)
{
	struct section *s = &obj->sec[secidx];
	Elf_Data *data;
	size_t n;

	if (s->relocs_parsed)
		return 0;
	if (!(data = reloc_data(obj, s, &n)))
		return -1;
	/* Every field is written below: no zeroing (.rel.debug_info holds thousands). */
	s->relocs = malloc((n ? n : 1) * sizeof(*s->relocs));
	if (!s->relocs)
		return elfobj_error(obj, "out of memory for %zu relocations", n), -1;
	if (relocs_decode(obj, s, data, s->sh.sh_type == SHT_RELA, 0, n, s->relocs) < 0) {
		/* A caller that goes on may ask again: nothing kept from this attempt. */
		free(s->relocs);
		s->relocs = NULL;
		return -1;
	}
	s->nrelocs = n;
	s->relocs_parsed = true;
	return 0;
}
