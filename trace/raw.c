// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a raw recording (trace/raw.h), made on this machine or another:
 * numbers are turned to this machine's byte order once, as they are read,
 * so that the writer and the value formatter see the words the recording
 * runtime had; bytes (paths, a string's characters) stay as they are.
 * A recording is a file from elsewhere: every event is checked to be whole
 * before the writer, which trusts its input, reads it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void raw_header_init(struct raw_header *h, uint16_t machine, uint8_t elfclass, uint32_t flags, uint32_t depth,
		     int32_t pid)
{
	memset(h, 0, sizeof(*h));
	/* Version 4 only where it differs: readers of version 3 read the rest. */
	if (flags & RAW_FLAG_ARGS)
		memcpy(h->magic, RAW_MAGIC, sizeof(RAW_MAGIC));
	else
		memcpy(h->magic, RAW_MAGIC_V3, sizeof(RAW_MAGIC_V3));
	h->byte_order = RAW_BYTE_ORDER;
	h->header_bytes = sizeof(*h);
	h->minor = RAW_MINOR;
	h->machine = machine;
	h->elfclass = elfclass;
	h->word_bytes = sizeof(void *);	/* the runtime calls it: the recording process's */
	h->flags = flags;
	h->depth = depth;
	h->pid = pid;
}

static int fail_at(struct raw_reader *r, uint64_t off, const char *fmt, va_list ap)
{
	int n = snprintf(r->err, sizeof(r->err), "offset %llu: ", (unsigned long long)off);

	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	return -1;
}

/* r->err = "offset OFF: " and the reason; returns -1. */
static int __attribute__((format(printf, 3, 4))) fail(struct raw_reader *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_at(r, off, fmt, ap);
	va_end(ap);
	return -1;
}

void raw_record_error(struct raw_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_at(r, r->rec_off, fmt, ap);
	va_end(ap);
}

/* What the file holds from `off` on, as far as its size is known. */
static uint64_t left_from(const struct raw_reader *r, uint64_t off)
{
	return r->size > off ? r->size - off : 0;
}

/* The file's size again: a recording that is still being written grows. */
static void refresh_size(struct raw_reader *r)
{
	struct stat st;

	if (r->size != UINT64_MAX && fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode))
		r->size = (uint64_t)st.st_size;
}

/* Reads n bytes at r->off: how many it got (fewer at the end of the file). */
static size_t take(struct raw_reader *r, void *p, size_t n)
{
	size_t got = fread(p, 1, n, r->f);

	r->off += got;
	return got;
}

/* Read error, or a header or record cut short at `at` (needing `need` bytes from there). */
static int short_read(struct raw_reader *r, uint64_t at, const char *what, uint64_t need, uint64_t got)
{
	if (ferror(r->f))
		return fail(r, r->off, "read error: %s", strerror(errno));
	return fail(r, at, "truncated %s (needs %llu bytes, %llu left): the recording was cut short", what,
		    (unsigned long long)need, (unsigned long long)got);
}

/* The format version the magic names: 0 if it is no recording's magic. */
static unsigned magic_version(const char magic[16])
{
	static const char *const known[] = { [1] = RAW_MAGIC_V1, [2] = RAW_MAGIC_V2, [3] = RAW_MAGIC_V3,
					     [RAW_VERSION] = RAW_MAGIC };
	const size_t pre = sizeof(RAW_MAGIC_PREFIX) - 1;
	unsigned v = 0;
	size_t i;

	if (memcmp(magic, RAW_MAGIC_PREFIX, pre))
		return 0;
	for (i = pre; i < 16 && magic[i] >= '0' && magic[i] <= '9' && v < 100000; i++)
		v = v * 10 + (unsigned)(magic[i] - '0');
	if (i == pre || i == 16 || magic[i] != '\n')
		return 0;
	/* Versions this reader knows have exactly their magic; later ones are only named. */
	if (v < sizeof(known) / sizeof(known[0]) && known[v] && memcmp(magic, known[v], 16))
		return 0;
	return v;
}

/* Versions 1 and 2: their header, its byte order from its depth. */
static int read_header_v2(struct raw_reader *r)
{
	struct raw_header_v2 old;
	struct raw_header *h = &r->h;

	memcpy(old.magic, h->magic, sizeof(old.magic));
	if (take(r, (char *)&old + 16, sizeof(old) - 16) != sizeof(old) - 16)
		return short_read(r, 0, "header", sizeof(old), r->off);
	r->swap = !depth_ok(old.depth) && depth_ok(__builtin_bswap32(old.depth));
	if (r->swap) {
		old.machine = __builtin_bswap16(old.machine);
		old.depth = __builtin_bswap32(old.depth);
		old.pid = (int32_t)__builtin_bswap32((uint32_t)old.pid);
	}
	h->header_bytes = sizeof(old);
	h->machine = old.machine;
	h->elfclass = old.elfclass;
	h->word_bytes = old.elfclass == ELFCLASS64 ? 8 : 4;
	h->flags = r->version >= 2 ? old.flags : 0;
	h->depth = old.depth;
	h->pid = old.pid;
	h->byte_order = RAW_BYTE_ORDER;
	return 0;
}

static void swap_header(struct raw_header *h)
{
	h->byte_order = __builtin_bswap32(h->byte_order);
	h->header_bytes = __builtin_bswap16(h->header_bytes);
	h->minor = __builtin_bswap16(h->minor);
	h->machine = __builtin_bswap16(h->machine);
	h->flags = __builtin_bswap32(h->flags);
	h->depth = __builtin_bswap32(h->depth);
	h->pid = (int32_t)__builtin_bswap32((uint32_t)h->pid);
}

/* Skips a later minor version's header fields. */
static int skip_header_rest(struct raw_reader *r)
{
	char skip[256];

	while (r->off < r->h.header_bytes) {
		size_t n = r->h.header_bytes - r->off < sizeof(skip) ? (size_t)(r->h.header_bytes - r->off) : sizeof(skip);

		if (take(r, skip, n) != n)
			return short_read(r, 0, "header", r->h.header_bytes, r->off);
	}
	return 0;
}

/* Version 3: byte order from its mark, the length it says it has. */
static int read_header_v3(struct raw_reader *r)
{
	struct raw_header *h = &r->h;

	if (take(r, (char *)h + 16, sizeof(*h) - 16) != sizeof(*h) - 16)
		return short_read(r, 0, "header", sizeof(*h), r->off);
	if (h->byte_order != RAW_BYTE_ORDER && h->byte_order != __builtin_bswap32(RAW_BYTE_ORDER))
		return fail(r, offsetof(struct raw_header, byte_order),
			    "corrupt header: byte-order mark 0x%08x, not 0x01020304 in either order", h->byte_order);
	r->swap = h->byte_order != RAW_BYTE_ORDER;
	if (r->swap)
		swap_header(h);
	if (h->header_bytes < sizeof(*h) || h->header_bytes % 8)
		return fail(r, offsetof(struct raw_header, header_bytes),
			    "corrupt header: its length %u is below %zu or not a multiple of 8", h->header_bytes,
			    sizeof(*h));
	if (h->elfclass != ELFCLASS32 && h->elfclass != ELFCLASS64)
		return fail(r, offsetof(struct raw_header, elfclass), "corrupt header: ELF class %u, not 1 or 2",
			    h->elfclass);
	if (h->word_bytes != (h->elfclass == ELFCLASS64 ? 8 : 4))
		return fail(r, offsetof(struct raw_header, word_bytes),
			    "corrupt header: %u-byte words with ELF class %u", h->word_bytes, h->elfclass);
	return skip_header_rest(r);
}

int raw_read_header(struct raw_reader *r, FILE *f)
{
	struct raw_header *h = &r->h;
	struct stat st;
	size_t got;

	r->f = f;
	r->version = 0;
	r->off = r->rec_off = 0;
	r->size = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	memset(h, 0, sizeof(*h));
	got = take(r, h->magic, sizeof(h->magic));
	if (ferror(f))
		return fail(r, r->off, "read error: %s", strerror(errno));
	if (!got)
		return fail(r, 0, "an empty file, not a recording: give a file objpatch record wrote");
	/* The start of a magic, cut short. */
	if (got < sizeof(h->magic) && !memcmp(h->magic, RAW_MAGIC, got < 14 ? got : 14))
		return short_read(r, 0, "header", sizeof(*h), got);
	if (got < sizeof(h->magic) || !(r->version = magic_version(h->magic)))
		return fail(r, 0, "not an objpatch recording (no %s magic): give a file objpatch record wrote",
			    RAW_MAGIC_PREFIX "N");
	if (r->version > RAW_VERSION) {
		fail(r, 0, "a recording of format version %u, this objpatch reads 1 to %u: use a newer objpatch",
		     r->version, RAW_VERSION);
		r->version = 0;
		return -1;
	}
	if ((r->version < 3 ? read_header_v2(r) : read_header_v3(r)) < 0)
		return -1;
	if (!depth_ok(h->depth))
		return fail(r, r->version < 3 ? offsetof(struct raw_header_v2, depth) : offsetof(struct raw_header, depth),
			    "corrupt header: depth %u, not 1 to %u", h->depth, EV_DEPTH_MAX);
	if (!trace_machine_for(h->machine, h->elfclass, host_big_endian() != r->swap, &r->machine))
		return fail(r, r->version < 3 ? offsetof(struct raw_header_v2, machine) : offsetof(struct raw_header, machine),
			    "recorded on machine %u (ELF class %u, %s-endian), which has no runtime", h->machine,
			    h->elfclass, host_big_endian() != r->swap ? "big" : "little");
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
static size_t event_numbers(uint64_t head, bool args)
{
	size_t words = ev_words(head), numbers;
	enum capture c = ev_capture(head);

	switch (ev_type(head)) {
	case EV_ENTRY:
		/* Only bit 63 makes an entry: a header word of type 1 would be read as 0 words. */
		return head & EV_ENTRY_BIT ? EV_ENTRY_WORDS : 0;
	case EV_UNWOUND:
		return words == EV_HEADER_WORDS ? EV_HEADER_WORDS : 0;
	case EV_ARGS:
		if (!args || words < EV_HEADER_WORDS || words > EV_ARGS_MAX_WORDS ||
		    (c & ~(unsigned)(ARGS_UNPLACED | ARGS_NO_STACK | ARGS_NO_REGS | ARGS_PACKED)))
			return 0;
		return words;
	case EV_EXIT:
		if ((unsigned)c >= CAPTURES || words > EV_MAX_WORDS)
			return 0;
		numbers = EV_HEADER_WORDS + ev_capture_words(c);
		/* A string's characters, a struct's bytes: a length byte, the bytes, in words of their own. */
		if (ev_capture_has_bytes(c))
			return words > numbers ? numbers : 0;
		return words == numbers ? numbers : 0;
	default:
		return 0;
	}
}

/*
 * The whole, well-formed event at `w` (`n` words left), turned to the
 * reader's byte order when `swap` (written only then): its words, or 0
 * with *why saying what is wrong.
 */
static size_t import_event(uint64_t *w, size_t n, bool swap, bool args, const char **why)
{
	size_t words, numbers;

	if (n < EV_HEADER_WORDS)
		return *why = "an event is cut short", 0;
	if (swap)
		swap_words(w, EV_HEADER_WORDS);
	words = ev_words(w[1]);
	numbers = event_numbers(w[1], args);
	if (!numbers)
		return *why = "an event's header word is not one the runtime writes", 0;
	if (words > n)
		return *why = "an event runs past the record", 0;
	if (swap)
		swap_words(w + EV_HEADER_WORDS, numbers - EV_HEADER_WORDS);
	if (numbers < words) {
		const uint8_t *s = (const uint8_t *)(w + numbers);

		if ((size_t)s[0] + 1 > (words - numbers) * 8)
			return *why = "a string's length runs past its event", 0;
	}
	return words;
}

/* Whole, well-formed events, turned to the reader's byte order: NULL, or what is wrong. */
static const char *import_events(uint64_t *w, size_t n, bool swap, bool args)
{
	const char *why = NULL;

	for (size_t i = 0, k; i < n; i += k) {
		/* Read once, in order, from memory no cache holds yet. */
		__builtin_prefetch(w + i + 64);
		if (!(k = import_event(w + i, n - i, swap, args, &why)))
			break;
	}
	return why;
}

/*
 * The header word of a well-formed exit of capture `c` and `value_words`
 * words of value (a fixed length: no characters follow), its depth aside:
 * the entry bit clear, its length, capture and type.
 */
#define EXIT_MASK (EV_ENTRY_BIT | UINT64_C(0x7fff) << 48 | UINT64_C(0xff) << 32 | 0xff)
#define EXIT_WORD(c, value_words) \
	((uint64_t)(EV_HEADER_WORDS + (value_words)) << 48 | (uint64_t)(c) << 32 | EV_EXIT)

const char *raw_check_events(const uint64_t *w, size_t n, bool args, size_t want, size_t *checked)
{
	const char *why = NULL;
	size_t i = 0, k;

	/* Not turned (swap false): import_event() only reads. */
	for (; i < n && i < want; i += k) {
		uint64_t head = n - i >= EV_HEADER_WORDS ? w[i + 1] : 0;

		/* The first read of these words: the next ones are asked for ahead. */
		__builtin_prefetch(w + i + 64);
		/*
		 * Most events are an entry, whole when its two words are, or an
		 * exit of one integer register's value or none, whole when its
		 * three or two are: import_event()'s answer, sooner.
		 */
		if (head & EV_ENTRY_BIT)
			k = EV_ENTRY_WORDS;
		else if ((head & EXIT_MASK) == EXIT_WORD(CAPTURE_GPR, 1) && n - i >= EV_HEADER_WORDS + 1)
			k = EV_HEADER_WORDS + 1;
		else if ((head & EXIT_MASK) == EXIT_WORD(CAPTURE_NONE, 0))
			k = EV_HEADER_WORDS;
		else if (!(k = import_event((uint64_t *)w + i, n - i, false, args, &why)))
			break;
	}
	*checked = i;
	return why;
}

/*
 * RAW_FUNCTIONS: its numbers turned, every length checked to stay inside
 * the record, so that a reader can walk it trusting them.
 */
static const char *import_functions(uint64_t *w, size_t n, bool swap)
{
	size_t at;

	if (n < 3)
		return "shorter than its 3 counts";
	if (swap)
		swap_words(w, 3);
	if (w[2] > (n - 3) / 2)
		return "more sites than the record holds";
	if (swap)
		swap_words(w + 3, 2 * w[2]);
	at = 3 + 2 * w[2];
	for (uint64_t f = 0; f < w[1]; f++) {
		uint64_t words;

		if (n - at < 2)
			return "more functions than the record holds";
		if (swap)
			swap_words(w + at, 2);
		if (w[at] > 8 * n || w[at + 1] > 8 * n)
			return "a name or signature runs past the record";
		words = (w[at] + w[at + 1] + 7) / 8;
		if (words > n - at - 2)
			return "a name or signature runs past the record";
		at += 2 + words;
	}
	return NULL;
}

/*
 * A record of events that needs no turning, in the caller's mapping of the
 * file: the file's position moved past it; its events are the caller's to
 * check (raw_check_events) as it reads them.
 */
static bool events_in_map(struct raw_reader *r, uint32_t type, uint32_t bytes)
{
	if (!r->map || r->swap || type != RAW_EVENTS || r->off % 8 || r->off + bytes > r->map_len ||
	    fseeko(r->f, (off_t)bytes, SEEK_CUR) < 0)
		return false;
	r->payload = (const uint64_t *)(r->map + r->off);
	r->off += bytes;
	return true;
}

/* A record's numbers in the reader's byte order, by its type: NULL, or why it is corrupt. */
static const char *import_payload(struct raw_reader *r, uint32_t type, size_t n)
{
	/*
	 * In the mapping: nothing to turn, and checked by the caller as it
	 * reads them, while they are in the cache; a pass of its own here
	 * would read every event from memory once more.
	 */
	if (r->payload != r->buf)
		return n ? NULL : "no thread ID";

	switch (type) {
	case RAW_NOTE:
		return NULL;	/* bytes only */
	case RAW_MODULE:
	case RAW_THREAD:
		if (r->swap && n)
			swap_words(r->buf, 1);
		return NULL;
	case RAW_MODULE_ID:
		if (n < 4)
			return "shorter than its 4 numbers";
		if (r->swap)
			swap_words(r->buf, 4);
		return r->buf[3] <= 8 * (n - 4) && r->buf[3] <= sizeof(((struct raw_module_id *)0)->build_id)
			       ? NULL : "its build ID's length runs past the record or 64 bytes";
	case RAW_FUNCTIONS:
		return import_functions(r->buf, n, r->swap);
	case RAW_CLOCK:
	case RAW_COUNTS:
		if (r->swap)
			swap_words(r->buf, n);
		return NULL;
	case RAW_EVENTS:
		if (!n)
			return "no thread ID";
		if (r->swap)
			swap_words(r->buf, 1);
		return import_events(r->buf + 1, n - 1, r->swap, r->version >= 4);
	default:
		return NULL;	/* a later version's record, skipped */
	}
}

/*
 * Room for `words` of payload.  With the file's size unknown (a pipe) the
 * claimed size is not trusted: the buffer grows with what is read
 * (read_payload), never more than twice that.
 */
static bool reserve(struct raw_reader *r, size_t words)
{
	uint64_t *b;

	if (words <= r->cap)
		return true;
	if (!(b = realloc(r->buf, words * 8)))
		return false;
	r->buf = b;
	r->cap = words;
	return true;
}

/* The payload of `bytes` (checked against the file's size when it is known): 0, or -1 with r->err set. */
static int read_payload(struct raw_reader *r, uint32_t bytes)
{
	size_t got = 0, n;

	while (got < bytes) {
		size_t want = bytes;

		if (r->size == UINT64_MAX && want > got + (64 << 10))
			want = got * 2 > got + (64 << 10) ? got * 2 : got + (64 << 10);
		if (want > bytes)
			want = bytes;
		if (!reserve(r, want / 8))
			return fail(r, r->rec_off, "out of memory for a record of %u bytes", bytes);
		n = take(r, (char *)r->buf + got, want - got);
		if (n != want - got)
			return short_read(r, r->rec_off, "record", sizeof(struct raw_record) + (uint64_t)bytes,
					  sizeof(struct raw_record) + got + n);
		got = want;
	}
	r->payload = r->buf;
	return 0;
}

int raw_read_record(struct raw_reader *r, struct raw_record *rec)
{
	size_t got;
	const char *why;

	r->rec_off = r->off;
	got = take(r, rec, sizeof(*rec));
	if (got == 0 && feof(r->f))
		return 0;
	if (got != sizeof(*rec))
		return short_read(r, r->rec_off, "record", sizeof(*rec), got);
	if (r->swap) {
		rec->type = __builtin_bswap32(rec->type);
		rec->bytes = __builtin_bswap32(rec->bytes);
	}
	if (rec->bytes % 8)
		return fail(r, r->rec_off, "corrupt record of type %u: its size %u is not a multiple of 8", rec->type,
			    rec->bytes);
	if (rec->bytes > left_from(r, r->off))
		refresh_size(r);
	/* Refused before any memory is taken for it: a corrupt size is no reason to ask for 4 GiB. */
	if (rec->bytes > left_from(r, r->off))
		return short_read(r, r->rec_off, "record", sizeof(*rec) + (uint64_t)rec->bytes,
				  left_from(r, r->rec_off));
	if (!events_in_map(r, rec->type, rec->bytes) && read_payload(r, rec->bytes) < 0)
		return -1;
	if ((why = import_payload(r, rec->type, rec->bytes / 8)))
		return fail(r, r->rec_off, "corrupt record of type %u: %s", rec->type, why);
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
