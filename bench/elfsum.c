// SPDX-License-Identifier: GPL-2.0-only
/*
 * An object's contents without its layout, for bench/same-output.sh: the
 * ELF header but for where the section header table is, each section's
 * header but for its file offset, and a checksum of each section's bytes.
 * Two writers that place sections differently but write the same sections
 * print the same lines.
 *
 *   elfsum FILE...
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

static int summarize(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t n, shstrndx;
	int rc = 1;

	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrnum(e, &n) < 0 || elf_getshdrstrndx(e, &shstrndx) < 0) {
		fprintf(stderr, "elfsum: %s: %s\n", path, elf_errmsg(-1));
		goto out;
	}
	printf("%s: type %u machine %u flags %#x sections %zu names %zu\n", path, eh.e_type, eh.e_machine,
	       eh.e_flags, n, shstrndx);
	for (size_t i = 1; i < n; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		Elf_Data *d;
		uLong crc = crc32(0, NULL, 0);

		if (!scn || !gelf_getshdr(scn, &sh)) {
			fprintf(stderr, "elfsum: %s: section %zu: %s\n", path, i, elf_errmsg(-1));
			goto out;
		}
		if (sh.sh_type != SHT_NOBITS && (d = elf_rawdata(scn, NULL)) && d->d_size)
			crc = crc32(crc, d->d_buf, (uInt)d->d_size);
		printf("[%zu] %s type %u flags %#llx addr %#llx size %llu link %u info %u align %llu entsize %llu crc %08lx\n",
		       i, elf_strptr(e, shstrndx, sh.sh_name) ?: "?", sh.sh_type, (unsigned long long)sh.sh_flags,
		       (unsigned long long)sh.sh_addr, (unsigned long long)sh.sh_size, sh.sh_link, sh.sh_info,
		       (unsigned long long)sh.sh_addralign, (unsigned long long)sh.sh_entsize, crc);
	}
	rc = 0;
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	elf_version(EV_CURRENT);
	for (int i = 1; i < argc; i++)
		rc |= summarize(argv[i]);
	return rc;
}
