// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "dwarf/debugimage.h"

/* What libdw reads to describe functions; .debug_line and location lists are not needed. */
static const char *const debug_sections[] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_addr",
	".debug_rnglists", ".debug_ranges", ".debug_str_offsets", ".debug_types",
};

/* The name libdw knows a section by, or NULL: .zdebug_* are gnu-compressed .debug_*. */
static const char *debug_name(const char *name, bool *gnu_compressed)
{
	/* Every section of the object comes through here: most are quickly not debug sections. */
	if (name[0] != '.' || (name[1] != 'd' && name[1] != 'z')) {
		*gnu_compressed = false;
		return NULL;
	}
	*gnu_compressed = strncmp(name, ".zdebug_", 8) == 0;
	for (size_t i = 0; i < ARRAY_SIZE(debug_sections); i++)
		if (strcmp(name + *gnu_compressed, debug_sections[i] + *gnu_compressed) == 0 &&
		    (!*gnu_compressed || strcmp(name + 8, debug_sections[i] + 7) == 0))
			return debug_sections[i];
	return NULL;
}

/* Every allocated section gets addresses of its own, in index order. */
static int assign_addresses(struct elfobj *obj, struct debug_image *img)
{
	uint64_t next = 0x1000, limit = obj->is64 ? UINT64_MAX : UINT32_MAX;

	img->base = calloc(obj->nsec, sizeof(*img->base));
	img->order = calloc(obj->nsec, sizeof(*img->order));
	if (!img->base || !img->order)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 1; i < obj->nsec; i++) {
		uint64_t size = obj->sec[i].sh.sh_size ? obj->sec[i].sh.sh_size : 1;

		if (!(obj->sec[i].sh.sh_flags & SHF_ALLOC))
			continue;
		if (size > limit - next)
			return elfobj_error(obj, "allocated sections too large to address"), -1;
		img->base[i] = next;
		img->order[img->norder++] = (uint32_t)i;
		next += size;
	}
	return 0;
}

bool debug_image_locate(const struct debug_image *img, const struct elfobj *obj, uint64_t addr,
			uint32_t *sec, uint64_t *off)
{
	size_t lo = 0, hi = img->norder;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (img->base[img->order[mid]] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	uint32_t s = img->order[lo - 1];
	uint64_t size = obj->sec[s].sh.sh_size ? obj->sec[s].sh.sh_size : 1;

	if (addr - img->base[s] >= size)
		return false;
	*sec = s;
	*off = addr - img->base[s];
	return true;
}

/*
 * The section's contents as libdw must see them: decompressed, and in a
 * buffer of ours when relocations are to be applied.  A section nothing
 * changes (.debug_str, .debug_abbrev) is the object's own bytes: libelf
 * writes them into the image, no copy of ours first.
 */
static uint8_t *section_bytes(struct elfobj *obj, size_t i, bool gnu, bool relocated, size_t *size,
			      bool *owned)
{
	struct section *s = &obj->sec[i];
	uint8_t *src = s->bytes;
	size_t n = s->size;
	uint8_t *copy;

	if (gnu || (s->sh.sh_flags & SHF_COMPRESSED)) {
		/* libelf inflates into the input Elf only; our own bytes stay as they were. */
		Elf_Data *d;

		if ((gnu ? elf_compress_gnu(s->scn, 0, 0) : elf_compress(s->scn, 0, 0)) < 0 ||
		    !(d = elf_getdata(s->scn, NULL)))
			return elfobj_error(obj, "%s: cannot decompress: %s", s->name, elf_errmsg(-1)), NULL;
		src = d->d_buf;
		n = d->d_size;
	}
	*size = n;
	*owned = relocated;
	if (!relocated && src)
		return src;
	copy = malloc(n ? n : 1);
	if (!copy)
		return elfobj_error(obj, "out of memory"), NULL;
	if (n)
		memcpy(copy, src, n);
	*owned = true;
	return copy;
}

/*
 * Add `value` (plus, for REL, the addend in place) into the field at `p`:
 * the usual 4- or 8-byte field of the host's byte order as one load and
 * store, inline; .rel.debug_info holds a relocation per string and type
 * reference, thousands an object.
 */
static inline void relocate_word(const struct elfobj *obj, uint8_t *p, unsigned width, uint64_t value,
				 bool in_place, bool host_order)
{
	if (host_order && width == 4) {
		uint32_t w = 0;

		if (in_place)
			memcpy(&w, p, 4);
		w = (uint32_t)(w + value);
		memcpy(p, &w, 4);
	} else if (host_order && width == 8) {
		uint64_t w = 0;

		if (in_place)
			memcpy(&w, p, 8);
		w += value;
		memcpy(p, &w, 8);
	} else {
		if (in_place)
			value += elfobj_read_word(obj, p, width);
		elfobj_write_word(obj, p, width, value);
	}
}

/*
 * Apply the absolute relocations the arch descriptor names; other types
 * (RISC-V label differences, TLS offsets) describe nothing libdw needs here.
 * Read a chunk at a time and not kept: .rel.debug_info is most of an
 * object's relocations, and nothing else needs them.
 */
static int apply_relocations(struct elfobj *obj, const struct debug_image *img, size_t relidx,
			     uint8_t *bytes, size_t size)
{
	const struct arch *arch = obj->arch;
	bool in_place = obj->sec[relidx].sh.sh_type == SHT_REL || arch->addend_in_place;
	bool host_order = obj->big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint32_t type = 0, symidx = 0;
	unsigned width = 0;
	uint64_t symval = 0;
	bool have_type = false, have_sym = false;
	struct reloc chunk[512];
	ssize_t n;

	for (size_t first = 0; (n = elfobj_read_relocs(obj, relidx, first, chunk, ARRAY_SIZE(chunk))) > 0;
	     first += (size_t)n) {
		for (ssize_t i = 0; i < n; i++) {
			const struct reloc *r = &chunk[i];

			/*
			 * Runs of relocations share a type and a symbol (.debug_str's):
			 * the descriptor and the symbol are read when they change.
			 */
			if (!have_type || r->type != type) {
				have_type = true;
				type = r->type;
				width = arch_abs_width(arch, type, obj->is64);
			}
			if (!width || r->offset > size || size - r->offset < width)
				continue;
			if (!have_sym || r->sym != symidx) {
				const struct symbol *sym = &obj->sym[r->sym];

				have_sym = true;
				symidx = r->sym;
				symval = sym->s.st_value;
				if (sym->shndx && sym->shndx < obj->nsec && sym->s.st_shndx != SHN_ABS)
					symval += img->base[sym->shndx];
			}
			relocate_word(obj, bytes + r->offset, width, symval + (uint64_t)r->addend, in_place,
				      host_order);
		}
	}
	return n < 0 ? -1 : 0;
}

struct mini_section {
	const char *name;
	uint8_t *bytes;
	size_t size;
	bool owned;	/* a relocated or decompressed copy, else the object's bytes */
};

/* Write the relocated sections as an ELF file of their own, in memory. */
static int write_image(struct elfobj *obj, struct debug_image *img, struct mini_section *ms, size_t n)
{
	Elf *out;
	GElf_Ehdr eh;
	char names[256] = "";
	size_t nlen = 1;
	int rc = -1;

	img->fd = memfd_create("dwarf", MFD_CLOEXEC);
	if (img->fd < 0)
		return elfobj_error(obj, "memfd_create: %s", strerror(errno)), -1;
	out = elf_begin(img->fd, ELF_C_WRITE, NULL);
	if (!out || !gelf_newehdr(out, obj->ehdr.e_ident[EI_CLASS]) || !gelf_getehdr(out, &eh))
		goto fail;
	memcpy(eh.e_ident, obj->ehdr.e_ident, EI_NIDENT);
	eh.e_type = ET_REL;
	eh.e_machine = obj->ehdr.e_machine;
	eh.e_version = EV_CURRENT;
	eh.e_flags = obj->ehdr.e_flags;
	for (size_t i = 0; i <= n; i++) {
		const char *name = i < n ? ms[i].name : ".shstrtab";
		Elf_Scn *scn = elf_newscn(out);
		Elf_Data *d = scn ? elf_newdata(scn) : NULL;
		GElf_Shdr sh = { .sh_name = (Elf64_Word)nlen, .sh_addralign = 1 };

		if (!d)
			goto fail;
		strcpy(names + nlen, name);
		nlen += strlen(name) + 1;
		d->d_type = ELF_T_BYTE;
		d->d_version = EV_CURRENT;
		d->d_align = 1;
		if (i < n) {
			sh.sh_type = SHT_PROGBITS;
			d->d_buf = ms[i].bytes;
			d->d_size = ms[i].size;
		} else {
			sh.sh_type = SHT_STRTAB;
			d->d_buf = names;
			d->d_size = nlen;
			eh.e_shstrndx = (Elf64_Half)elf_ndxscn(scn);
		}
		if (!gelf_update_shdr(scn, &sh))
			goto fail;
	}
	if (!gelf_update_ehdr(out, &eh) || elf_update(out, ELF_C_WRITE) < 0)
		goto fail;
	rc = 0;
fail:
	if (rc < 0)
		elfobj_error(obj, "cannot build the DWARF image: %s", elf_errmsg(-1));
	if (out)
		elf_end(out);
	return rc;
}

int debug_image_open(struct elfobj *obj, struct debug_image *img)
{
	struct mini_section ms[ARRAY_SIZE(debug_sections)];
	uint32_t *relocs_of = NULL;
	size_t n = 0;
	int rc = -1;
	bool info = false;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	/* What debug_name reads as .debug_info, without matching every debug name. */
	for (size_t i = 1; i < obj->nsec && !info; i++)
		info = strcmp(obj->sec[i].name, ".debug_info") == 0 ||
		       strcmp(obj->sec[i].name, ".zdebug_info") == 0;
	if (!info)
		return 0;
	if (assign_addresses(obj, img) < 0 || !(relocs_of = calloc(obj->nsec, sizeof(*relocs_of)))) {
		if (!obj->err[0])
			elfobj_error(obj, "out of memory");
		goto out;
	}
	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].rela_for)
			relocs_of[obj->sec[i].rela_for] = (uint32_t)i;
	for (size_t i = 1; i < obj->nsec && n < ARRAY_SIZE(ms); i++) {
		bool gnu;
		const char *name = debug_name(obj->sec[i].name, &gnu);

		if (!name || obj->sec[i].sh.sh_type == SHT_NOBITS)
			continue;
		for (size_t j = 0; j < n; j++)
			if (strcmp(ms[j].name, name) == 0) {
				elfobj_error(obj, "two %s sections", name);
				goto out;
			}
		ms[n].name = name;
		ms[n].bytes = section_bytes(obj, i, gnu, relocs_of[i] != 0, &ms[n].size, &ms[n].owned);
		if (!ms[n].bytes)
			goto out;
		n++;
		if (relocs_of[i] && apply_relocations(obj, img, relocs_of[i], ms[n - 1].bytes, ms[n - 1].size) < 0)
			goto out;
	}
	if (write_image(obj, img, ms, n) < 0)
		goto out;
	img->elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
	img->dwarf = img->elf ? dwarf_begin_elf(img->elf, DWARF_C_READ, NULL) : NULL;
	if (!img->dwarf) {
		elfobj_error(obj, "cannot read DWARF: %s", dwarf_errmsg(-1));
		goto out;
	}
	rc = 1;
out:
	for (size_t j = 0; j < n; j++)
		if (ms[j].owned)
			free(ms[j].bytes);
	free(relocs_of);
	if (rc < 0)
		debug_image_close(img);
	return rc;
}

void debug_image_close(struct debug_image *img)
{
	if (img->dwarf)
		dwarf_end(img->dwarf);
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img->base);
	free(img->order);
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}
