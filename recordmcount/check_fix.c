// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount --check --fix on a linked file: its tables rewritten sorted,
 * with the entries the check found stale zeroed, as the kernel's sorttable
 * does at link time; the file is replaced atomically (elfobj_copy).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/files.h"
#include "recordmcount/check_internal.h"

/* The file as it is on disk, for patching: libelf's view of the image is not ours to write. */
static uint8_t *read_again(struct elfobj *obj, const char *target)
{
	int fd;
	uint8_t *buf = malloc(obj->image_size ? obj->image_size : 1);
	struct stat sb;
	const char *why = file_open_input(target, false, &fd, &sb);
	size_t done = 0;

	if (why || !buf || (uint64_t)sb.st_size != obj->image_size) {
		elfobj_error(obj, "cannot read it again for --fix: %s", why ? why : buf ? "it changed" : "out of memory");
		goto fail;
	}
	while (done < obj->image_size) {
		ssize_t n = read(fd, buf + done, obj->image_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			elfobj_error(obj, "cannot read it again for --fix: %s", n < 0 ? strerror(errno) : "it shrank");
			goto fail;
		}
		done += (size_t)n;
	}
	close(fd);
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Dynamic relocations inside a table: sorting would leave them on other entries. */
static size_t relocs_into(const struct linked *l, const struct table_span *sp)
{
	const GElf_Shdr *sh = &l->obj->sec[sp->sec].sh;
	size_t n = 0;

	for (size_t i = 0; i < l->ndyn; i++)
		if (l->dyn[i].off >= sh->sh_addr + sp->from && l->dyn[i].off < sh->sh_addr + sp->to)
			n++;
	return n;
}

static int refuse_fix(const struct report *r, const struct linked *l, const struct linked_state *st)
{
	for (size_t i = 0; i < st->nspans; i++) {
		size_t n = relocs_into(l, &st->spans[i]);

		if (n)
			return elfobj_error(r->obj, "--fix refused: %zu dynamic relocations (R_*_RELATIVE or others) "
					    "apply to entries of its %s table; sorting would leave them on the wrong "
					    "entries", n, st->spans[i].user ? "user-mode" : KERNEL_TABLE), -1;
	}
	return 0;
}

/*
 * One table, new contents: zeroed entries first (the kernel's sorttable
 * leaves them there too), then the kept ones in ascending order.
 */
static int fix_span(struct report *r, const struct table_span *sp, const struct table_entry *te, const bool *drop,
		    uint8_t *out)
{
	struct elfobj *obj = r->obj;
	unsigned es = span_entsize(obj, sp);
	size_t n = (sp->to - sp->from) / es;
	uint64_t *v = malloc((n ? n : 1) * sizeof(*v));
	uint64_t base = obj->sec[sp->sec].sh.sh_addr + sp->from;

	if (!v)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t j = 0; j < n; j++) {
		v[j] = te[j].zeroed || drop[j] ? 0 : te[j].addr;
		r->fix_zeroed += !te[j].zeroed && drop[j];
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t j = 0; j < n; j++) {
		uint64_t w = v[j];

		if (sp->user && w) {
			int64_t rel = (int64_t)(w - (base + j * es));

			if (rel < INT32_MIN || rel > INT32_MAX) {
				free(v);
				return elfobj_error(obj, "--fix: entry 0x%llx is out of reach of a 32-bit offset",
						    (unsigned long long)w), -1;
			}
			w = (uint64_t)rel & 0xffffffffu;
		}
		elfobj_write_word(obj, out + j * es, es, w);
	}
	free(v);
	return 0;
}

static int write_fixed(struct report *r, const char *target, uint8_t *image)
{
	struct elfobj *obj = r->obj;
	uint8_t *mine = obj->image;
	struct stat sb;
	int rc;

	if (stat(target, &sb) < 0)
		return elfobj_error(obj, "cannot stat: %s", strerror(errno)), -1;
	/* elfobj_copy writes obj->image: lend it the patched copy. */
	obj->image = image;
	rc = elfobj_copy(obj, target, sb.st_mode);
	obj->image = mine;
	return rc;
}

int fix_tables(struct report *r, struct linked *l, struct linked_state *st, const char *target)
{
	struct elfobj *obj = r->obj;
	uint8_t *image = NULL;
	bool changed = false;
	size_t k = 0;
	int rc = -1;

	r->fix_tried = true;
	if (refuse_fix(r, l, st) < 0 || !(image = read_again(obj, target)))
		return -1;
	for (size_t i = 0; i < st->nspans; i++) {
		const struct table_span *sp = &st->spans[i];
		const struct section *s = &obj->sec[sp->sec];
		size_t n = (sp->to - sp->from) / span_entsize(obj, sp);
		uint64_t at = s->sh.sh_offset + sp->from, len = sp->to - sp->from;

		if (!len)	/* an empty table has no bytes (s->bytes may be NULL) */
			continue;
		if (k + n > st->nte || at > obj->image_size || obj->image_size - at < len ||
		    memcmp(image + at, s->bytes + sp->from, len) != 0) {
			elfobj_error(obj, "--fix: the table is not where its section header says");
			goto out;
		}
		if (fix_span(r, sp, st->te + k, st->drop + k, image + at) < 0)
			goto out;
		changed |= memcmp(image + at, s->bytes + sp->from, len) != 0;
		k += n;
	}
	rc = changed ? write_fixed(r, target, image) : 0;
	r->written = changed && rc == 0;
out:
	free(image);
	return rc;
}
