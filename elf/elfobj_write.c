// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Editing a loaded object in memory (section bytes, inserted local
 * symbols, added sections, relocations, groups) and writing it out whole
 * to a temporary file renamed over the target only when all succeeded (a
 * device named as the output is written through: files.h).
 * Reading is in elfobj.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>	/* memfd_create */
#include <sys/stat.h>
#include <unistd.h>
#include "elf/elfobj.h"
#include "elf/files.h"

#ifndef SHT_LLVM_ADDRSIG
#define SHT_LLVM_ADDRSIG 0x6fff4c03
#endif

static void *xrealloc_array(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(p, n && size ? n * size : 1);
}

static uint64_t encode_rinfo(const struct elfobj *obj, uint32_t sym, uint32_t type)
{
	if (obj->arch->rinfo_encode)
		return obj->arch->rinfo_encode(sym, type, obj->big_endian);
	return GELF_R_INFO(sym, type);
}

uint8_t *elfobj_edit_bytes(struct elfobj *obj, size_t secidx)
{
	struct section *s = &obj->sec[secidx];

	if (!s->owned) {
		uint8_t *copy = malloc(s->size ? s->size : 1);

		if (!copy)
			return elfobj_error(obj, "out of memory"), NULL;
		if (s->size)
			memcpy(copy, s->bytes, s->size);
		s->bytes = copy;
		s->owned = true;
	}
	obj->modified = true;
	return s->bytes;
}

/* Append a NUL-terminated string to a string table section; returns its offset. */
static int64_t append_string(struct elfobj *obj, size_t secidx, const char *str)
{
	struct section *s = &obj->sec[secidx];
	size_t len = strlen(str) + 1;
	size_t off = s->size;
	uint8_t *b;

	if (!elfobj_edit_bytes(obj, secidx))
		return -1;
	b = realloc(s->bytes, s->size + len);
	if (!b)
		return elfobj_error(obj, "out of memory"), -1;
	memcpy(b + off, str, len);
	s->bytes = b;
	s->size += len;
	s->sh.sh_size = s->size;
	return (int64_t)off;
}

static int uleb_remap(struct elfobj *obj, size_t secidx, size_t old_nsym)
{
	struct section *s = &obj->sec[secidx];
	uint8_t *out = malloc(s->size * 2 + 16), *o = out;
	size_t i = 0;

	if (!out)
		return elfobj_error(obj, "out of memory"), -1;
	while (i < s->size) {
		uint64_t v = 0;
		unsigned shift = 0;

		do {
			if (i >= s->size || shift > 63)
				return free(out), elfobj_error(obj, "%s: bad ULEB128", s->name), -1;
			v |= (uint64_t)(s->bytes[i] & 0x7f) << shift;
			shift += 7;
		} while (s->bytes[i++] & 0x80);
		if (v >= old_nsym)
			return free(out), elfobj_error(obj, "%s: symbol %llu out of range", s->name,
						       (unsigned long long)v), -1;
		v = obj->sym_map[v];
		do {
			uint8_t byte = v & 0x7f;

			v >>= 7;
			*o++ = byte | (v ? 0x80 : 0);
		} while (v);
	}
	if (s->owned)
		free(s->bytes);
	s->bytes = out;
	s->owned = true;
	s->size = (size_t)(o - out);
	s->sh.sh_size = s->size;
	return 0;
}

/*
 * Whether relocation section i names a symbol at index `from` or above (1),
 * read in chunks without keeping them: the debug sections' relocations,
 * the bulk of an object's, name only local symbols, which an insertion
 * does not move.
 */
static int names_symbol_from(struct elfobj *obj, size_t i, size_t from)
{
	struct reloc chunk[256];
	ssize_t n;

	if (!obj->sec[i].scn && !obj->sec[i].relocs_parsed)
		return 0;	/* added, its relocations not set yet */
	for (size_t first = 0; (n = elfobj_read_relocs(obj, i, first, chunk, ARRAY_SIZE(chunk))) > 0; first += (size_t)n)
		for (ssize_t k = 0; k < n; k++)
			if (chunk[k].sym >= from)
				return 1;
	return n < 0 ? -1 : 0;
}

int elfobj_insert_locals(struct elfobj *obj, const GElf_Sym *syms, const uint32_t *shndx,
			 size_t n, uint32_t *out_idx)
{
	size_t old = obj->nsym, at = obj->first_global;
	struct symbol *ns;

	if (!n)
		return 0;
	if (!obj->symtab)
		return elfobj_error(obj, "no symbol table"), -1;
	for (size_t i = 0; i < n; i++)
		if (shndx[i] >= SHN_LORESERVE && !obj->symtab_shndx)
			return elfobj_error(obj, "section %u needs an extended section index table, "
					    "which the object lacks", shndx[i]), -1;
	/* Only the relocation sections naming a global symbol change. */
	for (size_t i = 1; i < obj->nsec; i++) {
		int names = obj->sec[i].rela_for ? names_symbol_from(obj, i, at) : 0;

		if (names < 0 || (names && elfobj_parse_relocs(obj, i) < 0))
			return -1;
		obj->sec[i].relocs_renumbered = names;
	}

	ns = xrealloc_array(NULL, old + n, sizeof(*ns));
	free(obj->sym_map);
	obj->sym_map = xrealloc_array(NULL, old, sizeof(*obj->sym_map));
	if (!ns || !obj->sym_map)
		return free(ns), elfobj_error(obj, "out of memory"), -1;
	memcpy(ns, obj->sym, at * sizeof(*ns));
	memcpy(ns + at + n, obj->sym + at, (old - at) * sizeof(*ns));
	for (size_t i = 0; i < old; i++)
		obj->sym_map[i] = (uint32_t)(i < at ? i : i + n);
	for (size_t i = 0; i < n; i++) {
		struct symbol *sym = &ns[at + i];

		sym->s = syms[i];
		sym->shndx = shndx[i];
		sym->s.st_shndx = shndx[i] >= SHN_LORESERVE ? SHN_XINDEX : (Elf64_Section)shndx[i];
		sym->name = "";
		out_idx[i] = (uint32_t)(at + i);
	}
	free(obj->sym);
	obj->sym = ns;
	obj->nsym = obj->cap_sym = old + n;
	obj->nsym_inserted += n;
	obj->first_global += n;
	obj->sec[obj->symtab].sh.sh_info = (uint32_t)obj->first_global;

	for (size_t i = 1; i < obj->nsec; i++) {
		struct section *s = &obj->sec[i];

		if (s->secsym)
			s->secsym = obj->sym_map[s->secsym];
		if (s->rela_for) {
			if (!s->relocs_renumbered)
				continue;
			for (size_t r = 0; r < s->nrelocs; r++)
				s->relocs[r].sym = obj->sym_map[s->relocs[r].sym];
			s->relocs_dirty = true;
		} else if (s->sh.sh_type == SHT_GROUP && s->sh.sh_link == obj->symtab) {
			if (s->sh.sh_info >= old)
				return elfobj_error(obj, "group %s: signature symbol out of range", s->name), -1;
			s->sh.sh_info = obj->sym_map[s->sh.sh_info];
		} else if (s->sh.sh_type == SHT_LLVM_ADDRSIG && s->sh.sh_link == obj->symtab) {
			if (uleb_remap(obj, i, old) < 0)
				return -1;
		}
	}
	obj->modified = true;
	return 0;
}

/* Section names repeat (a table per function in user mode): add each once. */
static int64_t section_name_offset(struct elfobj *obj, const char *name)
{
	for (size_t i = 0; i < obj->nnames; i++)
		if (strcmp(obj->names[i].name, name) == 0)
			return obj->names[i].off;
	int64_t off = append_string(obj, obj->shstrndx, name);

	if (off >= 0 && obj->nnames < ARRAY_SIZE(obj->names))
		obj->names[obj->nnames++] = (struct name_off){ name, (uint32_t)off };
	return off;
}

size_t elfobj_add_section(struct elfobj *obj, const char *name, const GElf_Shdr *sh,
			  uint8_t *bytes, size_t size)
{
	int64_t name_off = section_name_offset(obj, name);
	struct section *s;

	if (name_off < 0)
		return 0;
	if (obj->nsec == obj->cap_sec) {
		size_t cap = obj->cap_sec * 2 + 8;
		struct section *n = xrealloc_array(obj->sec, cap, sizeof(*n));

		if (!n)
			return elfobj_error(obj, "out of memory"), 0;
		obj->sec = n;
		obj->cap_sec = cap;
	}
	s = &obj->sec[obj->nsec];
	memset(s, 0, sizeof(*s));
	s->sh = *sh;
	s->sh.sh_name = (Elf64_Word)name_off;
	s->sh.sh_size = size;
	s->name = name;
	s->bytes = bytes;
	s->size = size;
	s->owned = true;
	if (s->sh.sh_type == SHT_REL || s->sh.sh_type == SHT_RELA)
		s->rela_for = s->sh.sh_info;
	obj->modified = true;
	return obj->nsec++;
}

void elfobj_set_relocs(struct elfobj *obj, size_t secidx, struct reloc *r, size_t n)
{
	struct section *s = &obj->sec[secidx];

	s->relocs = r;
	s->nrelocs = n;
	s->relocs_parsed = true;
	s->relocs_dirty = true;
	s->sh.sh_size = n * gelf_fsize(obj->elf, s->sh.sh_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL,
				       1, EV_CURRENT);
	obj->modified = true;
}

int elfobj_add_to_group(struct elfobj *obj, size_t group, size_t secidx)
{
	struct section *g = &obj->sec[group];
	uint8_t *b;

	if (!elfobj_edit_bytes(obj, group))
		return -1;
	b = realloc(g->bytes, g->size + 4);
	if (!b)
		return elfobj_error(obj, "out of memory"), -1;
	elfobj_write_word(obj, b + g->size, 4, secidx);
	g->bytes = b;
	g->size += 4;
	g->sh.sh_size = g->size;
	obj->sec[secidx].group = (uint32_t)group;
	obj->sec[secidx].sh.sh_flags |= SHF_GROUP;
	return 0;
}

/* ---- writing ---- */

/*
 * The output is the input, copied by the kernel (copy_file_range: no byte
 * passes through this process, and a file system that shares extents
 * shares them), with what changed appended after it: a section edited in
 * place goes back where it was when it did not grow, a grown or added one
 * goes to the end, and a new section header table follows them.  What the
 * old table and the replaced sections took stays in the file, unreferenced,
 * as the kernel's recordmcount leaves it.  libelf encodes every structure
 * (a scratch descriptor on the temporary file, never written through, and
 * gelf_xlatetof for the file's byte order); only the placement is ours.
 */

/* A section's encoded contents and where they go in the output. */
struct piece {
	void *buf;
	size_t size;
	uint64_t offset;
	bool owned;		/* buf allocated for the output */
};

struct output {
	Elf *scratch;		/* gives gelf_update_* a class, writes nothing */
	uint64_t end;		/* the output's size so far */
};

static int fill_symtab(struct elfobj *obj, Elf_Data *d)
{
	size_t n = obj->nsym;

	d->d_type = ELF_T_SYM;
	d->d_size = n * gelf_fsize(obj->elf, ELF_T_SYM, 1, EV_CURRENT);
	d->d_buf = malloc(d->d_size ? d->d_size : 1);
	if (!d->d_buf)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < n; i++)
		if (!gelf_update_sym(d, (int)i, &obj->sym[i].s))
			return elfobj_error(obj, "symbol %zu: %s", i, elf_errmsg(-1)), -1;
	return 0;
}

static int fill_symtab_shndx(struct elfobj *obj, Elf_Data *d)
{
	uint8_t *b = calloc(obj->nsym ? obj->nsym : 1, 4);

	if (!b)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < obj->nsym; i++)
		if (obj->sym[i].s.st_shndx == SHN_XINDEX)
			elfobj_write_word(obj, b + 4 * i, 4, obj->sym[i].shndx);
	d->d_buf = b;
	d->d_size = obj->nsym * 4;
	return 0;
}

static int fill_relocs(struct elfobj *obj, const struct section *s, Elf_Data *d)
{
	bool rela = s->sh.sh_type == SHT_RELA;

	d->d_type = rela ? ELF_T_RELA : ELF_T_REL;
	d->d_size = s->nrelocs * gelf_fsize(obj->elf, d->d_type, 1, EV_CURRENT);
	d->d_buf = malloc(d->d_size ? d->d_size : 1);
	if (!d->d_buf)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < s->nrelocs; i++) {
		const struct reloc *r = &s->relocs[i];
		uint64_t info = encode_rinfo(obj, r->sym, r->type);
		bool ok;

		if (rela) {
			GElf_Rela ra = { .r_offset = r->offset, .r_info = info, .r_addend = r->addend };

			ok = gelf_update_rela(d, (int)i, &ra);
		} else {
			GElf_Rel rl = { .r_offset = r->offset, .r_info = info };

			ok = gelf_update_rel(d, (int)i, &rl);
		}
		if (!ok)
			return elfobj_error(obj, "%s: %s", s->name, elf_errmsg(-1)), -1;
	}
	return 0;
}

/* From the memory form gelf_update_* left in `d` to the file's byte order, in place. */
static int to_file_order(struct elfobj *obj, struct output *out, Elf_Data *d)
{
	Elf_Data dst = *d;

	if (!gelf_xlatetof(out->scratch, &dst, d, obj->ehdr.e_ident[EI_DATA]))
		return elfobj_error(obj, "cannot encode: %s", elf_errmsg(-1)), -1;
	return 0;
}

/* Symbol tables and relocations rebuilt from the arrays, encoded by libelf. */
static int encode_table(struct elfobj *obj, struct output *out, size_t i, struct piece *p)
{
	struct section *s = &obj->sec[i];
	Elf_Scn *scn = elf_newscn(out->scratch);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	int rc;

	if (!d)
		return elfobj_error(obj, "cannot encode section %zu: %s", i, elf_errmsg(-1)), -1;
	d->d_version = EV_CURRENT;
	if (i == obj->symtab)
		rc = fill_symtab(obj, d);
	else if (i == obj->symtab_shndx)
		rc = fill_symtab_shndx(obj, d);
	else
		rc = fill_relocs(obj, s, d);
	/* Kept before the check: a fill that fails half-way has allocated it too. */
	*p = (struct piece){ d->d_buf, d->d_size, 0, true };
	d->d_buf = NULL;	/* ours to free, not libelf's */
	if (rc < 0)
		return -1;
	if (d->d_type != ELF_T_BYTE && to_file_order(obj, out, &(Elf_Data){ .d_buf = p->buf, .d_size = p->size,
									       .d_type = d->d_type,
									       .d_version = EV_CURRENT }) < 0)
		return -1;
	return 0;
}

static bool rebuilt_table(const struct elfobj *obj, size_t i)
{
	const struct section *s = &obj->sec[i];

	if (obj->nsym_inserted && (i == obj->symtab || i == obj->symtab_shndx))
		return true;
	return s->rela_for && s->relocs_dirty;
}

/* What section i's output contents are, when they differ from the input's. */
static int section_piece(struct elfobj *obj, struct output *out, size_t i, struct piece *p)
{
	const struct section *s = &obj->sec[i];

	*p = (struct piece){ 0 };
	if (s->sh.sh_type == SHT_NOBITS)
		return 0;
	if (rebuilt_table(obj, i))
		return encode_table(obj, out, i, p);
	if (s->owned)
		*p = (struct piece){ s->bytes, s->size, 0, false };
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/*
 * A changed section that still fits where it was goes back there; the
 * others are appended, aligned as their header asks.  Returns false when
 * the output would be absurdly larger than the input: a forged alignment
 * must not turn a small object into gigabytes of padding.
 */
static bool place(struct elfobj *obj, struct output *out, size_t i, struct piece *p)
{
	struct section *s = &obj->sec[i];
	GElf_Shdr in;
	uint64_t limit = 4 * (uint64_t)obj->image_size + (1u << 20);

	if (s->scn && gelf_getshdr(s->scn, &in) && in.sh_type != SHT_NOBITS && p->size <= in.sh_size) {
		p->offset = in.sh_offset;
		return true;
	}
	if (s->sh.sh_addralign > limit || p->size > limit)
		return false;
	p->offset = align_up(out->end, s->sh.sh_addralign);
	out->end = p->offset + p->size;
	s->sh.sh_offset = p->offset;
	return out->end <= limit;
}

static int write_all(struct elfobj *obj, int fd, const void *buf, size_t size, uint64_t offset)
{
	const uint8_t *b = buf;

	while (size) {
		ssize_t n = pwrite(fd, b, size, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return elfobj_error(obj, "cannot write: %s", n < 0 ? strerror(errno) : "short write"), -1;
		b += n;
		size -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

/*
 * The unchanged bytes: copied inside the kernel from the file read, else
 * (another file system, an old kernel, a lent image) written from memory.
 */
static int copy_input(struct elfobj *obj, int fd)
{
	loff_t in_off = 0, out_off = 0;

	while (obj->src_fd >= 0 && (size_t)out_off < obj->image_size) {
		ssize_t n = copy_file_range(obj->src_fd, &in_off, fd, &out_off, obj->image_size - (size_t)out_off, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && out_off == 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
					      errno == EOPNOTSUPP))
			break;
		if (n < 0)
			return elfobj_error(obj, "cannot write: %s", strerror(errno)), -1;
		if (n == 0)
			return elfobj_error(obj, "changed by another process while being processed: left as it is now"), -1;
	}
	if ((size_t)out_off == obj->image_size)
		return 0;
	return write_all(obj, fd, obj->image, obj->image_size, 0);
}

static void narrow_shdr(const GElf_Shdr *g, Elf32_Shdr *s)
{
	*s = (Elf32_Shdr){ g->sh_name, g->sh_type, (Elf32_Word)g->sh_flags, (Elf32_Addr)g->sh_addr,
			   (Elf32_Off)g->sh_offset, (Elf32_Word)g->sh_size, g->sh_link, g->sh_info,
			   (Elf32_Word)g->sh_addralign, (Elf32_Word)g->sh_entsize };
}

/* Section 0 carries the count and the name table's index when the header's fields cannot. */
static GElf_Shdr header_of(const struct elfobj *obj, size_t i)
{
	GElf_Shdr sh0 = { 0 };

	if (i)
		return obj->sec[i].sh;
	if (obj->nsec >= SHN_LORESERVE)
		sh0.sh_size = obj->nsec;
	if (obj->shstrndx >= SHN_LORESERVE)
		sh0.sh_link = (Elf64_Word)obj->shstrndx;
	return sh0;
}

/* The new section header table, encoded for the file, at the end. */
static int write_shdrs(struct elfobj *obj, struct output *out, int fd, uint64_t *shoff)
{
	size_t ent = gelf_fsize(obj->elf, ELF_T_SHDR, 1, EV_CURRENT), size = ent * obj->nsec;
	uint8_t *buf = malloc(size ? size : 1);
	int rc = -1;

	if (!buf)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < obj->nsec; i++) {
		GElf_Shdr g = header_of(obj, i);

		if (obj->is64)
			memcpy(buf + i * ent, &g, sizeof(g));
		else
			narrow_shdr(&g, (Elf32_Shdr *)(void *)(buf + i * ent));
	}
	*shoff = align_up(out->end, obj->is64 ? 8 : 4);
	if (to_file_order(obj, out, &(Elf_Data){ .d_buf = buf, .d_size = size, .d_type = ELF_T_SHDR,
						  .d_version = EV_CURRENT }) == 0)
		rc = write_all(obj, fd, buf, size, *shoff);
	out->end = *shoff + size;
	free(buf);
	return rc;
}

/* The ELF header, last: where the new table is and how many sections it has. */
static int write_ehdr(struct elfobj *obj, struct output *out, int fd, uint64_t shoff)
{
	GElf_Ehdr eh = obj->ehdr;
	size_t size = gelf_fsize(obj->elf, ELF_T_EHDR, 1, EV_CURRENT);
	uint8_t buf[sizeof(Elf64_Ehdr)];
	void *mem;

	if (!obj->is64 && shoff > UINT32_MAX)
		return elfobj_error(obj, "the output would pass 4 GiB, more than a 32-bit object can address"), -1;
	eh.e_shoff = shoff;
	eh.e_shnum = obj->nsec < SHN_LORESERVE ? (Elf64_Half)obj->nsec : 0;
	eh.e_shstrndx = obj->shstrndx < SHN_LORESERVE ? (Elf64_Half)obj->shstrndx : SHN_XINDEX;
	/* The scratch descriptor narrows it to the class's form. */
	if (!gelf_update_ehdr(out->scratch, &eh) ||
	    !(mem = obj->is64 ? (void *)elf64_getehdr(out->scratch) : (void *)elf32_getehdr(out->scratch)))
		return elfobj_error(obj, "cannot write the ELF header: %s", elf_errmsg(-1)), -1;
	memcpy(buf, mem, size);
	if (to_file_order(obj, out, &(Elf_Data){ .d_buf = buf, .d_size = size, .d_type = ELF_T_EHDR,
						  .d_version = EV_CURRENT }) < 0)
		return -1;
	return write_all(obj, fd, buf, size, 0);
}

/* Section i's new contents, if any, in their place. */
static int emit_piece(struct elfobj *obj, struct output *out, int fd, size_t i)
{
	struct piece p;
	int rc = -1;

	if (section_piece(obj, out, i, &p) < 0)
		goto out;
	if (!p.buf && obj->sec[i].scn)
		return 0;	/* untouched: already there */
	if (!place(obj, out, i, &p)) {
		elfobj_error(obj, "the output would take more than %llu bytes for %zu of input: "
			     "section alignments too large", (unsigned long long)out->end, obj->image_size);
		goto out;
	}
	rc = 0;
	obj->sec[i].sh.sh_size = obj->sec[i].sh.sh_type == SHT_NOBITS ? obj->sec[i].size : p.size;
	if (p.size)
		rc = write_all(obj, fd, p.buf, p.size, p.offset);
out:
	if (p.owned)
		free(p.buf);
	return rc;
}

static int emit_elf(struct elfobj *obj, int fd)
{
	struct output out = { elf_begin(fd, ELF_C_WRITE, NULL), obj->image_size };
	uint64_t shoff;
	int rc = -1;

	if (!out.scratch || !gelf_newehdr(out.scratch, obj->ehdr.e_ident[EI_CLASS])) {
		elfobj_error(obj, "cannot create output: %s", elf_errmsg(-1));
		goto done;
	}
	if (copy_input(obj, fd) < 0)
		goto done;
	for (size_t i = 1; i < obj->nsec; i++)
		if (emit_piece(obj, &out, fd, i) < 0)
			goto done;
	if (write_shdrs(obj, &out, fd, &shoff) == 0)
		rc = write_ehdr(obj, &out, fd, shoff);
done:
	if (out.scratch)
		elf_end(out.scratch);
	return rc;
}

/* The input as it was read: for -o when there is nothing to change. */
static int copy_image(struct elfobj *obj, int fd)
{
	size_t done = 0;

	while (done < obj->image_size) {
		ssize_t n = write(fd, obj->image + done, obj->image_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return elfobj_error(obj, "cannot write: %s", n < 0 ? strerror(errno) : "short write"), -1;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Whether PATH is the file we read (not an -o output) and another process
 * replaced or rewrote it since: then its version is kept, not ours made from
 * the old contents.  Only the instants between this check and the rename
 * remain for a replacement to be lost in.
 */
static bool replaced_since_read(const struct elfobj *obj, const char *path)
{
	struct stat now, arg;

	if (!obj->src.st_ino || stat(path, &now) < 0 || stat(obj->path, &arg) < 0 ||
	    now.st_dev != arg.st_dev || now.st_ino != arg.st_ino)
		return false;
	return now.st_dev != obj->src.st_dev || now.st_ino != obj->src.st_ino ||
	       now.st_size != obj->src.st_size || now.st_mtim.tv_sec != obj->src.st_mtim.tv_sec ||
	       now.st_mtim.tv_nsec != obj->src.st_mtim.tv_nsec;
}

/* The output written into memory, then copied to the device: libelf seeks, a pipe cannot. */
static int copy_to_device(struct elfobj *obj, const char *shown, int mem, int dev)
{
	char buf[65536];
	ssize_t n;

	if (lseek(mem, 0, SEEK_SET) < 0)
		return elfobj_error(obj, "cannot write %s: %s", shown, strerror(errno)), -1;
	while ((n = read(mem, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0, w; done < n; done += w) {
			w = write(dev, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return elfobj_error(obj, "cannot write %s: %s", shown,
						    w < 0 ? strerror(errno) : "short write"), -1;
		}
	}
	if (n < 0)
		return elfobj_error(obj, "cannot write %s: %s", shown, strerror(errno)), -1;
	return 0;
}

static bool written_through(mode_t mode)
{
	return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode);
}

/*
 * A device or a FIFO named as the output is written through, as cp does:
 * never replaced by a file.  O_NONBLOCK: a FIFO without a reader fails
 * (ENXIO) instead of waiting for one, a serial line does not wait for a
 * carrier.
 */
static int open_through(struct elfobj *obj, const char *shown, const char *path)
{
	int dev = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), flags;
	struct stat st;

	if (dev < 0 && errno == ENXIO)
		return elfobj_error(obj, "cannot write %s: a FIFO that no process reads (writing would wait for "
				    "one): give a regular file, a device or a FIFO being read", shown), -1;
	if (dev < 0)
		return elfobj_error(obj, "cannot write %s: %s", shown, strerror(errno)), -1;
	if (fstat(dev, &st) < 0 || !written_through(st.st_mode) || (flags = fcntl(dev, F_GETFL)) < 0 ||
	    fcntl(dev, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		elfobj_error(obj, "cannot write %s: %s", shown, errno ? strerror(errno) : "replaced while being written");
		close(dev);
		return -1;
	}
	return dev;
}

static int write_through(struct elfobj *obj, const char *shown, const char *path, int (*fill)(struct elfobj *, int))
{
	int mem = memfd_create("recordmcount-output", MFD_CLOEXEC), dev, rc = -1;

	if (mem < 0)
		return elfobj_error(obj, "cannot write %s: memfd_create: %s", shown, strerror(errno)), -1;
	if (fill(obj, mem) == 0 && (errno = 0, dev = open_through(obj, shown, path)) >= 0) {
		rc = copy_to_device(obj, shown, mem, dev);
		if (close(dev) < 0 && rc == 0)
			rc = (elfobj_error(obj, "cannot write %s: %s", shown, strerror(errno)), -1);
	}
	close(mem);
	return rc;
}

/* Neither replaced nor written: a socket cannot be opened, a directory is no output. */
static int refuse_special(struct elfobj *obj, const char *shown, mode_t mode)
{
	const char *what = S_ISSOCK(mode) ? "a socket" : S_ISDIR(mode) ? "a directory" : "not a regular file";

	return elfobj_error(obj, "cannot write %s: %s: give a regular file or a device", shown, what), -1;
}

/* The temporary file `.BASE.rmc-PID.tmp` (files.h); one of our pid is a dead process's. */
static int create_temp(const char *tmp)
{
	int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	return fd;
}

/*
 * Fill a temporary file in the target's directory and rename it over the
 * target only when everything succeeded: the target is never half-written.
 */
static int replace_file(struct elfobj *obj, const char *path, mode_t mode, int (*fill)(struct elfobj *, int))
{
	char *tmp;
	int fd, rc = -1;

	file_remove_stale_temps(path);
	if (!(tmp = file_temp_name(path)))
		return elfobj_error(obj, "out of memory"), -1;
	fd = create_temp(tmp);
	if (fd < 0) {
		elfobj_error(obj, "cannot create temporary file in its directory: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	if (fill(obj, fd) < 0)
		goto fail;
	if (fchmod(fd, mode & 07777) < 0) {
		elfobj_error(obj, "cannot set mode of temporary file: %s", strerror(errno));
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		elfobj_error(obj, "cannot write temporary file: %s", strerror(errno));
		goto fail;
	}
	fd = -1;
	if (replaced_since_read(obj, path)) {
		elfobj_error(obj, "changed by another process while being processed: left as it is now");
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		elfobj_error(obj, "cannot replace the file: %s", strerror(errno));
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(tmp);
	return rc;
}

/*
 * As cp and install treat their destination: a symlink's file is replaced
 * (the link stays), a device or a FIFO with a reader written through, a
 * FIFO without one or a socket refused.
 */
static int replace_atomically(struct elfobj *obj, const char *path, mode_t mode,
			      int (*fill)(struct elfobj *, int))
{
	struct stat st;
	char *target;
	int rc;

	/* stat follows /proc's links too (-o /dev/stdout on a pipe), which readlink cannot */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return written_through(st.st_mode) ? write_through(obj, path, path, fill) :
						     refuse_special(obj, path, st.st_mode);
	if (!(target = file_follow_links(path)))
		return elfobj_error(obj, "cannot write %s: %s", path, strerror(errno)), -1;
	rc = replace_file(obj, target, mode, fill);
	free(target);
	return rc;
}

int elfobj_write(struct elfobj *obj, const char *path, mode_t mode)
{
	return replace_atomically(obj, path, mode, emit_elf);
}

int elfobj_copy(struct elfobj *obj, const char *path, mode_t mode)
{
	return replace_atomically(obj, path, mode, copy_image);
}
