// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount --check.  An object's table is compared with what the
 * recorder itself finds in it (record_sites, check_object.c); a linked
 * file's entries are decoded with the architecture's call forms (arch/,
 * tables/calls.c), and its functions' first bytes are searched for calls to
 * the hook that have no entry (check_linked.c); patchable entries are
 * checked against their NOP pads (check_patchable.c); --fix rewrites a
 * linked file's table (check_fix.c).  Here: each file's run, its findings
 * and the places they name, and the report as text or JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/files.h"
#include "recordmcount/check_internal.h"
#include "recordmcount/record.h"
#include "util/array.h"

static const char *const kind_names[CHECK_NKINDS] = {
	[CHECK_MISSING] = "missing",
	[CHECK_STALE] = "stale",
	[CHECK_DUPLICATE] = "duplicate",
	[CHECK_NOT_CALL] = "not-call",
	[CHECK_UNTRACED] = "untraced",
	[CHECK_WRONG_TABLE] = "wrong-table",
	[CHECK_NO_PROTO] = "no-proto",
	[CHECK_HOOK_REF] = "hook-ref",
	[CHECK_NO_TABLE] = "no-table",
	[CHECK_UNTYPED] = "untyped",
	[CHECK_NOT_TRACEABLE] = "not-traceable",
};

/* The findings that count: all but the notes (CHECK_IS_NOTE). */
static size_t errors(const struct report *r)
{
	size_t n = 0;

	for (int k = 0; k < CHECK_NKINDS; k++)
		n += CHECK_IS_NOTE(k) ? 0 : r->count[k];
	return n;
}

/* ---- places and findings ---- */

struct finding *add_finding(struct report *r, enum check_kind kind, const struct funcs *fs,
			    uint32_t sec, uint64_t off, uint64_t addr, const char *fmt, ...)
{
	const struct func_sym *f = sec ? function_at(fs->v, fs->n, sec, off) : NULL;
	struct finding *x;
	va_list ap;

	if (!grow_array(&r->f, r->nf, &r->cap, sizeof(*r->f)))
		return elfobj_error(r->obj, "out of memory"), NULL;
	x = &r->f[r->nf++];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->sec = sec;
	x->off = off;
	x->addr = addr;
	x->inside = f != NULL;
	if (!f && sec)
		f = function_before(fs->v, fs->n, sec, off);
	if (f) {
		x->func = f->name;
		x->func_off = off - f->off;
	}
	va_start(ap, fmt);
	vsnprintf(x->why, sizeof(x->why), fmt, ap);
	va_end(ap);
	r->count[kind]++;
	return x;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

const char *section_name(const struct elfobj *obj, uint32_t sec)
{
	return sec && sec < obj->nsec ? obj->sec[sec].name : "?";
}

/* The arch's NOP for any of its call forms is at the place: its length, or 0. */
size_t nop_at(const struct elfobj *obj, uint32_t sec, uint64_t off)
{
	const struct section *s = &obj->sec[sec];

	if (!is_code(obj, sec) || off >= s->size)
		return 0;
	for (size_t i = 0; i < obj->arch->ncalls; i++) {
		const struct insn_pattern *nop = &obj->arch->calls[i].nop;

		if (nop->n && insn_matches(nop, s->bytes + off, s->size - off, obj->code_big_endian))
			return insn_len(nop);
	}
	return 0;
}

/*
 * gcc's -mnop-mcount NOP in place of the entry hook's call: the arch's NOP,
 * or a multi-byte NOP of the call's length (i386: gcc writes x86_64's
 * `nopl 0(%eax,%eax,1)`, the recorder its `lea`).  Its length, or 0.
 */
size_t compiler_nop_at(const struct elfobj *obj, uint32_t sec, uint64_t off)
{
	const struct section *s = &obj->sec[sec];
	const struct arch *a = obj->arch;
	size_t len = nop_at(obj, sec, off), call_len = a->ncalls ? insn_len(&a->calls[0].nop) : 0;

	if (len || !a->pad_nop_len || !call_len || !is_code(obj, sec) || off >= s->size)
		return len;
	return a->pad_nop_len(s->bytes + off, s->size - off) == call_len ? call_len : 0;
}

/* A compiler's entry at the start of the call's sequence (s390): the call's distance from it, or 0. */
size_t recorded_prefix_at(const struct elfobj *obj, const struct table_entry *e)
{
	const struct section *s = &obj->sec[e->sec];

	if (!e->sec || e->off >= s->size || s->sh.sh_type == SHT_NOBITS)
		return 0;
	return arch_recorded_prefix_len(obj->arch, s->bytes + e->off, s->size - e->off, obj->code_big_endian);
}

/* ---- entries in table order, and sorted ---- */

static const struct table_entry *sort_base;

static int cmp_entry_index(const void *a, const void *b)
{
	const struct table_entry *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Entry indices by place (objects: addr is 0, so by section and offset). */
size_t *entry_order(const struct table_entry *e, size_t n)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	sort_base = e;
	if (n)
		qsort(order, n, sizeof(*order), cmp_entry_index);
	return order;
}

int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- output ---- */

static void json_string(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\u%04x", *p);	/* bytes, not UTF-8: symbol names need not be text */
		else
			putchar(*p);
	}
	putchar('"');
}

static void place_text(const struct report *r, const struct finding *x, char *buf, size_t size)
{
	if (r->linked)
		snprintf(buf, size, "0x%llx", (unsigned long long)x->addr);
	else
		snprintf(buf, size, "%s+0x%llx", section_name(r->obj, x->sec), (unsigned long long)x->off);
}

static void print_finding_text(const char *path, const struct report *r, const struct finding *x)
{
	char place[300];

	place_text(r, x, place, sizeof(place));
	if (x->kind == CHECK_NO_TABLE)	/* the whole file: no place to name */
		printf("%s: %s: %s\n", path, kind_names[x->kind], x->why);
	else if (x->func)
		printf("%s: %s: %s+0x%llx (%s): %s\n", path, kind_names[x->kind], x->func,
		       (unsigned long long)x->func_off, place, x->why);
	else
		printf("%s: %s: outside any function (%s): %s\n", path, kind_names[x->kind], place, x->why);
}

static void print_counts_text(const struct report *r)
{
	bool first = true;

	for (int k = 0; k < CHECK_NKINDS; k++) {
		if (!r->count[k] || CHECK_IS_NOTE(k))
			continue;
		printf("%s%s %zu", first ? " (" : ", ", kind_names[k], r->count[k]);
		first = false;
	}
	if (!first)
		putchar(')');
}

/*
 * The untyped functions in one line after the summary, shaped like no
 * finding ("FILE: KIND: ..."): a file built without -g has thousands, and
 * they are no error.  --json lists each one.
 */
static void print_untyped_text(const char *path, const struct report *r)
{
	size_t n = r->count[CHECK_UNTYPED], shown = 0, undescribed = 0;

	if (!n)
		return;
	/* The advice follows the notes' causes: -g cannot help where the DWARF is there. */
	for (size_t i = 0; i < r->nf; i++)
		undescribed += r->f[i].kind == CHECK_UNTYPED && strstr(r->f[i].why, "DWARF does not describe it");
	printf("%s: %zu function%s without a prototype, %s values print untyped (a note, not an error; %s):", path,
	       n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
	       undescribed == n ? "the DWARF has no concrete entry for them: a static C++ function or a lambda, "
				  "or code built at -g1" :
	       undescribed ? "compile with -g and record without --no-protos; some have DWARF without a concrete "
			     "entry, which -g cannot change" :
			     "compile with -g and record without --no-protos");
	for (size_t i = 0; i < r->nf && shown < 4; i++)
		if (r->f[i].kind == CHECK_UNTYPED)
			printf("%s %s", shown++ ? "," : "", r->f[i].func ? r->f[i].func : "?");
	if (n > shown)
		printf(" and %zu more", n - shown);
	putchar('\n');
}

static void print_text(const char *path, const struct report *r)
{
	size_t nerr = errors(r);

	for (size_t i = 0; i < r->nf; i++)
		if (!CHECK_IS_NOTE(r->f[i].kind))
			print_finding_text(path, r, &r->f[i]);
	printf("%s: ", path);
	if (nerr) {
		printf("%zu finding%s", nerr, nerr == 1 ? "" : "s");
		print_counts_text(r);
	} else {
		printf("clean");
	}
	printf("; %s, %zu entr%s: %zu call%s, %zu NOP%s, %zu not verifiable, %zu zeroed; %zu call%s to the hook found%s\n",
	       r->linked ? "linked" : "object", r->entries, r->entries == 1 ? "y" : "ies", r->calls,
	       r->calls == 1 ? "" : "s", r->nops, r->nops == 1 ? "" : "s", r->unverified, r->zeroed, r->sites,
	       r->sites == 1 ? "" : "s", r->linked ? (r->sorted ? "; sorted" : "; not sorted") : "");
	print_untyped_text(path, r);
	for (size_t i = 0; i < r->nf; i++)
		if (r->f[i].kind == CHECK_NOT_TRACEABLE)
			printf("%s: nothing traceable (a note, not an error): %s\n", path, r->f[i].why);
	if (r->pad_table)
		printf("%s: %zu patchable entr%s at a function's NOP pad\n", path, r->patchable,
		       r->patchable == 1 ? "y" : "ies");
	if (r->fix_tried && !r->fix_error[0])
		printf("%s: --fix: %s, %zu entr%s zeroed; %zu finding%s remain\n", path,
		       r->written ? "table rewritten" : "nothing to change", r->fix_zeroed,
		       r->fix_zeroed == 1 ? "y" : "ies", r->remaining, r->remaining == 1 ? "" : "s");
}

static void print_json_finding(const struct report *r, const struct finding *x)
{
	printf("{\"kind\":\"%s\",\"function\":", kind_names[x->kind]);
	if (x->func)
		json_string(x->func);
	else
		printf("null");
	printf(",\"function_offset\":%llu,\"inside\":%s,\"section\":", (unsigned long long)x->func_off,
	       x->inside ? "true" : "false");
	if (x->sec)
		json_string(section_name(r->obj, x->sec));
	else
		printf("null");
	printf(",\"section_offset\":%llu", (unsigned long long)x->off);
	/* Addresses as strings: kernel addresses do not fit a JSON reader's double. */
	if (r->linked)
		printf(",\"address\":\"0x%llx\"", (unsigned long long)x->addr);
	printf(",\"explanation\":");
	json_string(x->why);
	putchar('}');
}

/* The counts of the kinds that are findings (notes have their own). */
static void print_json_counts(const size_t *count)
{
	bool first = true;

	putchar('{');
	for (int k = 0; k < CHECK_NKINDS; k++) {
		if (CHECK_IS_NOTE(k))
			continue;
		printf("%s\"%s\":%zu", first ? "" : ",", kind_names[k], count[k]);
		first = false;
	}
	putchar('}');
}

static void print_json_list(const struct report *r, const char *name, bool notes)
{
	bool first = true;

	printf(",\"%s\":[", name);
	for (size_t i = 0; i < r->nf; i++) {
		if (CHECK_IS_NOTE(r->f[i].kind) != notes)
			continue;
		printf(first ? "\n" : ",\n");
		print_json_finding(r, &r->f[i]);
		first = false;
	}
	putchar(']');
}

static void print_json(const char *path, const struct report *r, const char *error, bool first)
{
	printf("%s\n{\"file\":", first ? "" : ",");
	json_string(path);
	if (error) {
		printf(",\"status\":\"error\",\"error\":");
		json_string(error);
		putchar('}');
		return;
	}
	printf(",\"type\":\"%s\",\"arch\":\"%s\",\"status\":\"%s\",\"entries\":%zu,\"calls\":%zu,\"nops\":%zu,"
	       "\"unverified\":%zu,\"zeroed\":%zu,\"hook_calls\":%zu", r->linked ? "linked" : "object",
	       r->obj->arch->name, errors(r) ? "findings" : "clean", r->entries, r->calls, r->nops, r->unverified,
	       r->zeroed, r->sites);
	if (r->linked)
		printf(",\"sorted\":%s", r->sorted ? "true" : "false");
	printf(",\"patchable\":%zu", r->patchable);
	printf(",\"untyped\":%zu,\"counts\":", r->count[CHECK_UNTYPED]);
	print_json_counts(r->count);
	print_json_list(r, "findings", false);
	print_json_list(r, "notes", true);
	if (r->fix_error[0]) {
		printf(",\"fix\":{\"error\":");
		json_string(r->fix_error);
		putchar('}');
	} else if (r->fix_tried) {
		printf(",\"fix\":{\"written\":%s,\"zeroed\":%zu,\"remaining\":%zu}", r->written ? "true" : "false",
		       r->fix_zeroed, r->remaining);
	}
	putchar('}');
}

/* ---- files ---- */

static int load_file(struct elfobj *obj, const char *path, const char *target)
{
	const char *why;
	struct stat st;
	int fd, rc;

	if ((why = file_open_input(target, false, &fd, &st))) {
		memset(obj, 0, sizeof(*obj));
		return elfobj_error(obj, "%s", why), -1;
	}
	rc = elfobj_load(obj, path, fd);
	close(fd);
	return rc;
}

static int check_loaded(struct report *r, const char *fix_target)
{
	int rc;

	switch (r->obj->ehdr.e_type) {
	case ET_REL:
		if (fix_target)
			return elfobj_error(r->obj, "--fix is for linked files: an object's table is relocated, "
					    "record the object again instead"), -1;
		r->linked = false;
		if (refuse_slim_lto(r->obj) < 0)
			return -1;
		rc = check_object(r);
		break;
	case ET_EXEC:
	case ET_DYN:
		r->linked = true;
		rc = check_linked(r, fix_target);
		break;
	default:
		return elfobj_error(r->obj, "neither an object nor a linked file (ELF type %u)", r->obj->ehdr.e_type),
		       -1;
	}
	if (rc == 0 && r->nf)
		qsort(r->f, r->nf, sizeof(*r->f), cmp_finding);
	return rc;
}

/* After --fix wrote the file: what is left, counted the same way. */
static int recheck(struct report *r, const char *path, const char *target)
{
	struct elfobj obj;
	struct report again = { .obj = &obj };
	int rc = load_file(&obj, path, target);

	if (rc == 0)
		rc = check_loaded(&again, NULL);
	if (rc < 0)
		elfobj_error(r->obj, "after --fix: %.400s", obj.err);
	r->remaining = errors(&again);
	free(again.f);
	elfobj_free(&obj);
	return rc;
}

void check_start(struct check_run *run)
{
	if (run->json)
		printf("{\"files\":[");
}

int check_file(struct check_run *run, const char *path, const char *target)
{
	struct elfobj obj;
	struct report r = { .obj = &obj };
	int rc = load_file(&obj, path, target), status;

	if (rc == 0)
		rc = check_loaded(&r, run->fix ? target : NULL);
	if (rc == 0 && r.written)
		rc = recheck(&r, path, target);
	if (rc < 0 || r.fix_error[0]) {
		fprintf(stderr, "recordmcount: %s: %s\n", path, rc < 0 ? obj.err : r.fix_error);
		status = CHECK_FAILED;
		run->failed++;
	} else {
		status = (r.fix_tried && r.written ? r.remaining : errors(&r)) ? CHECK_FINDINGS : CHECK_CLEAN;
		run->untyped += r.count[CHECK_UNTYPED];
		run->clean += status == CHECK_CLEAN;
		run->with_findings += status == CHECK_FINDINGS;
		for (int k = 0; k < CHECK_NKINDS; k++)
			run->count[k] += r.count[k];
	}
	if (run->json)
		print_json(path, &r, rc < 0 ? obj.err : NULL, run->files == 0);
	else if (rc == 0)
		print_text(path, &r);
	run->files++;
	free(r.f);
	elfobj_free(&obj);
	return status;
}

int check_finish(struct check_run *run)
{
	int status = run->failed ? CHECK_FAILED : run->with_findings ? CHECK_FINDINGS : CHECK_CLEAN;

	if (run->json) {
		printf("\n],\"summary\":{\"files\":%zu,\"clean\":%zu,\"with_findings\":%zu,\"failed\":%zu,"
		       "\"untyped\":%zu,\"counts\":", run->files, run->clean, run->with_findings, run->failed,
		       run->untyped);
		print_json_counts(run->count);
		printf("}}\n");
	}
	return status;
}
