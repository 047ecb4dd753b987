// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a raw recording (trace/raw.h), made on this machine or another:
 * numbers are turned to this machine's byte order once, as they are read,
 * so that the writer and the value formatter see the words the recording
 * runtime had; bytes (paths, a string's characters) stay as they are.
 * A recording is a file from elsewhere: every event is checked to be whole
 * before the writer, which trusts its input, reads it.
 */
#include <stdlib.h>
#include <string.h>
#include "trace/event.h"
#include <gelf.h>
#include "trace/raw.h"

static bool host_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static bool depth_ok(uint32_t depth)
{
	return depth && depth <= EV_DEPTH_MAX;
}

int raw_read_header(struct raw_reader *r, FILE *f)
{
	struct raw_header *h = &r->h;

	r->f = f;
	if (fread(h, 1, sizeof(*h), f) != sizeof(*h) || memcmp(h->magic, RAW_MAGIC, sizeof(h->magic) - 3)) {
		snprintf(r->err, sizeof(r->err), "not an objpatch recording");
		return -1;
	}
	if (!memcmp(h->magic, RAW_MAGIC_V1, sizeof(h->magic)))
		r->version = 1;
	else if (!memcmp(h->magic, RAW_MAGIC, sizeof(h->magic)))
		r->version = 2;
	else {
		snprintf(r->err, sizeof(r->err), "a recording of a later format (%.14s): use a newer objpatch",
			 h->magic);
		return -1;
	}
	r->swap = !depth_ok(h->depth) && depth_ok(__builtin_bswap32(h->depth));
	if (r->swap) {
		h->machine = __builtin_bswap16(h->machine);
		h->depth = __builtin_bswap32(h->depth);
		h->pid = (int32_t)__builtin_bswap32((uint32_t)h->pid);
	}
	if (!depth_ok(h->depth)) {
		snprintf(r->err, sizeof(r->err), "corrupt header (depth %u)", h->depth);
		return -1;
	}
	if (!trace_machine_for(h->machine, h->elfclass, host_big_endian() != r->swap, &r->machine)) {
		snprintf(r->err, sizeof(r->err), "recorded on machine %u (ELF class %u), which has no runtime",
			 h->machine, h->elfclass);
		return -1;
	}
	return 0;
}

static void swap_words(uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		w[i] = __builtin_bswap64(w[i]);
}

/*
 * How many of an event's words are numbers (the rest are a string's
 * characters), given its header word in the reader's order; 0 if the
 * header cannot be one the runtime wrote.
 */
static size_t event_numbers(uint64_t head)
{
	size_t words = ev_words(head), numbers;
	enum capture c = ev_capture(head);

	switch (ev_type(head)) {
	case EV_ENTRY:
		return EV_ENTRY_WORDS;
	case EV_UNWOUND:
		return words == EV_HEADER_WORDS ? EV_HEADER_WORDS : 0;
	case EV_EXIT:
		if ((unsigned)c >= CAPTURES || words > EV_MAX_WORDS)
			return 0;
		numbers = EV_HEADER_WORDS + ev_capture_words(c);
		/* A string's characters: a length byte, the bytes, in words of their own. */
		if (c == CAPTURE_STRING)
			return words > numbers ? numbers : 0;
		return words == numbers ? numbers : 0;
	default:
		return 0;
	}
}

/* Whole, well-formed events, turned to the reader's byte order; false if they are not. */
static bool import_events(uint64_t *w, size_t n, bool swap)
{
	size_t i = 0;

	while (i < n) {
		size_t words, numbers;

		if (n - i < EV_HEADER_WORDS)
			return false;
		if (swap)
			swap_words(w + i, EV_HEADER_WORDS);
		words = ev_words(w[i + 1]);
		numbers = event_numbers(w[i + 1]);
		if (!numbers || words > n - i)
			return false;
		if (swap)
			swap_words(w + i + EV_HEADER_WORDS, numbers - EV_HEADER_WORDS);
		if (numbers < words) {
			const uint8_t *s = (const uint8_t *)(w + i + numbers);

			if ((size_t)s[0] + 1 > (words - numbers) * 8)
				return false;
		}
		i += words;
	}
	return true;
}

/*
 * RAW_FUNCTIONS: its numbers turned, every length checked to stay inside
 * the record, so that a reader can walk it trusting them.
 */
static bool import_functions(uint64_t *w, size_t n, bool swap)
{
	size_t at;

	if (n < 3)
		return false;
	if (swap)
		swap_words(w, 3);
	if (w[2] > (n - 3) / 2)
		return false;
	if (swap)
		swap_words(w + 3, 2 * w[2]);
	at = 3 + 2 * w[2];
	for (uint64_t f = 0; f < w[1]; f++) {
		uint64_t words;

		if (n - at < 2)
			return false;
		if (swap)
			swap_words(w + at, 2);
		if (w[at] > 8 * n || w[at + 1] > 8 * n)
			return false;
		words = (w[at] + w[at + 1] + 7) / 8;
		if (words > n - at - 2)
			return false;
		at += 2 + words;
	}
	return true;
}

/* A record's numbers in the reader's byte order, by its type; false: corrupt. */
static bool import_payload(struct raw_reader *r, uint32_t type, size_t n)
{
	switch (type) {
	case RAW_MODULE:
	case RAW_THREAD:
		if (r->swap && n)
			swap_words(r->buf, 1);
		return true;
	case RAW_MODULE_ID:
		if (n < 4)
			return false;
		if (r->swap)
			swap_words(r->buf, 4);
		return r->buf[3] <= 8 * (n - 4) && r->buf[3] <= sizeof(((struct raw_module_id *)0)->build_id);
	case RAW_FUNCTIONS:
		return import_functions(r->buf, n, r->swap);
	case RAW_CLOCK:
	case RAW_COUNTS:
		if (r->swap)
			swap_words(r->buf, n);
		return true;
	case RAW_EVENTS:
		if (!n)
			return false;
		if (r->swap)
			swap_words(r->buf, 1);
		return import_events(r->buf + 1, n - 1, r->swap);
	default:
		return true;	/* a later version's record, skipped */
	}
}

int raw_read_record(struct raw_reader *r, struct raw_record *rec)
{
	size_t got = fread(rec, 1, sizeof(*rec), r->f);

	if (got == 0 && feof(r->f))
		return 0;
	if (got == sizeof(*rec) && r->swap) {
		rec->type = __builtin_bswap32(rec->type);
		rec->bytes = __builtin_bswap32(rec->bytes);
	}
	if (got != sizeof(*rec) || rec->bytes % 8) {
		snprintf(r->err, sizeof(r->err), "truncated or corrupt record");
		return -1;
	}
	if (rec->bytes / 8 > r->cap) {
		uint64_t *b = realloc(r->buf, rec->bytes);

		if (!b) {
			snprintf(r->err, sizeof(r->err), "out of memory (%u bytes)", rec->bytes);
			return -1;
		}
		r->buf = b;
		r->cap = rec->bytes / 8;
	}
	if (fread(r->buf, 1, rec->bytes, r->f) != rec->bytes) {
		snprintf(r->err, sizeof(r->err), "truncated record");
		return -1;
	}
	if (!import_payload(r, rec->type, rec->bytes / 8)) {
		snprintf(r->err, sizeof(r->err), "corrupt record of type %u", rec->type);
		return -1;
	}
	return 1;
}

void raw_reader_free(struct raw_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}

/* The NT_GNU_BUILD_ID note's bytes, if a note section has one. */
static void build_id(struct elfobj *obj, struct raw_module_id *id)
{
	for (size_t i = 0; i < obj->nsec; i++) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (obj->sec[i].sh.sh_type != SHT_NOTE || !obj->sec[i].scn ||
		    !(d = elf_getdata(obj->sec[i].scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz &&
			    nh.n_descsz <= sizeof(id->build_id)) {
				memcpy(id->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				id->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

void raw_module_id(struct elfobj *obj, struct raw_module_id *id)
{
	*id = (struct raw_module_id){ .size = (uint64_t)obj->src.st_size,
				      .mtime_ns = (uint64_t)obj->src.st_mtim.tv_sec * 1000000000u +
						  (uint64_t)obj->src.st_mtim.tv_nsec };
	build_id(obj, id);
}

bool raw_same_module(const struct raw_module_id *then, const struct raw_module_id *now, const char **why)
{
	if (then->build_id_len && now->build_id_len) {
		*why = "its build ID differs";
		return then->build_id_len == now->build_id_len &&
		       !memcmp(then->build_id, now->build_id, then->build_id_len);
	}
	*why = then->size != now->size ? "its size differs" : "it was modified since";
	return then->size == now->size && then->mtime_ns == now->mtime_ns;
}
