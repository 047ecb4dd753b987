// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "recordmcount/proto_tables.h"
#include "recordmcount/emit.h"
#include "elf/functions.h"
#include "elf/lto.h"
#include "recordmcount/record.h"
#include "util/array.h"

static const char *const traceable_sections[] = {
	".init.text", ".ref.text", ".sched.text", ".spinlock.text", ".irqentry.text",
	".softirqentry.text", ".kprobes.text", ".cpuidle.text",
};

bool section_is_traceable(const char *name)
{
	if (strncmp(name, ".text", 5) == 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(traceable_sections); i++)
		if (strcmp(name, traceable_sections[i]) == 0)
			return true;
	return false;
}

const struct func_sym *traced_function(const struct elfobj *obj, const struct func_sym *fs, size_t nf,
				       uint32_t sec, uint64_t off)
{
	if (!sec || sec >= obj->nsec || !section_is_traceable(obj->sec[sec].name))
		return NULL;
	return function_at(fs, nf, sec, off);
}

bool elfobj_has_tables(const struct elfobj *obj)
{
	for (size_t i = 1; i < obj->nsec; i++) {
		const char *n = obj->sec[i].name;

		/* Thousands of sections, none of them tables but these four: the cheap test first. */
		if (n[0] != '_' || n[1] != '_')
			continue;
		if (strcmp(n, KERNEL_TABLE) == 0 || strcmp(n, USER_TABLE) == 0 ||
		    strcmp(n, ENTRY_TABLE) == 0 || strcmp(n, PATCHABLE_TABLE) == 0)
			return true;
	}
	return false;
}

int refuse_slim_lto(struct elfobj *obj)
{
	if (gcc_lto_kind(obj) != GCC_LTO_SLIM)
		return 0;
	return elfobj_error(obj, "GCC LTO object (-flto): its code is not compiled yet, so there are no call "
			    "sites to record; compile without -flto, or add -ffat-lto-objects and link with -fno-lto"),
	       -1;
}

bool object_has_dwarf(const struct elfobj *obj)
{
	for (size_t i = 1; i < obj->nsec; i++)
		if (strcmp(obj->sec[i].name, ".debug_info") == 0)
			return true;
	return false;
}

/* What a symbol is to the recorder, a byte per symbol. */
enum hook_kind {
	NOT_HOOK,
	HOOK_AFTER_PROLOGUE,
	HOOK_ENTRY,
};

static bool in_list(const char *const *list, const char *name)
{
	for (const char *const *h = list; h && *h; h++)
		if (strcmp(name, *h) == 0)
			return true;
	return false;
}

static enum hook_kind hook_kind(const struct arch *arch, const char *name)
{
	if (name[0] == '.')
		name++;
	if (in_list(arch->hooks, name))
		return HOOK_AFTER_PROLOGUE;
	return in_list(arch->entry_hooks, name) ? HOOK_ENTRY : NOT_HOOK;
}

/* A byte per symbol: which hook it names, if any.  NULL only when out of memory. */
static uint8_t *find_hook_symbols(struct elfobj *obj, bool *any)
{
	uint8_t *hook = calloc(obj->nsym ? obj->nsym : 1, 1);

	*any = false;
	if (!hook)
		return NULL;
	for (size_t i = 1; i < obj->nsym; i++) {
		const struct symbol *s = &obj->sym[i];

		if (GELF_ST_TYPE(s->s.st_info) == STT_SECTION)
			continue;
		hook[i] = (uint8_t)hook_kind(obj->arch, s->name);
		*any |= hook[i] != NOT_HOOK;
	}
	return hook;
}

static const struct call_form *match_call(const struct elfobj *obj, const struct section *text,
					  const struct reloc *r, uint64_t *site)
{
	const struct arch *arch = obj->arch;

	for (size_t i = 0; i < arch->ncalls; i++) {
		const struct call_form *f = &arch->calls[i];
		uint64_t at = r->offset + (int64_t)f->site_adjust;

		if (f->rtype != r->type || at >= text->size)
			continue;
		if (!insn_matches(&f->site, text->bytes + at, text->size - at, obj->code_big_endian))
			continue;
		/* Where the instruction alone could be an address load (MIPS lui), the call must follow. */
		if (arch->sequence_call) {
			uint32_t disabled;

			if (arch->sequence_call(text->bytes, text->size, at, obj->code_big_endian, &disabled) < 0)
				continue;
		}
		*site = at;
		return f;
	}
	return NULL;
}

/*
 * Where the sequence of the call at `site` ends: the hook's relocations
 * before this offset (from the site's first one) describe the same call.
 */
static uint64_t sequence_end(const struct elfobj *obj, const struct section *text, uint64_t site)
{
	uint32_t disabled;
	int64_t call;

	if (!obj->arch->sequence_call)
		return site;
	call = obj->arch->sequence_call(text->bytes, text->size, site, obj->code_big_endian, &disabled);
	return call < 0 ? site : (uint64_t)call + 4;
}

static int push_site(struct elfobj *obj, struct recording *rec, uint32_t sec, uint64_t off, bool entry)
{
	if (!grow_array(&rec->sites, rec->nsites, &rec->cap, sizeof(*rec->sites)))
		return elfobj_error(obj, "out of memory"), -1;
	rec->sites[rec->nsites++] = (struct site){ .sec = sec, .off = off, .entry = entry };
	return 0;
}

/* A call in a traced section that no function symbol holds: the caller warns. */
static int push_outside(struct elfobj *obj, struct recording *rec, uint32_t sec, uint64_t off)
{
	if (!grow_array(&rec->outside, rec->noutside, &rec->cap_outside, sizeof(*rec->outside)))
		return elfobj_error(obj, "out of memory"), -1;
	rec->outside[rec->noutside++] = (struct site){ .sec = sec, .off = off };
	return 0;
}

static int push_stray(struct elfobj *obj, struct recording *rec, uint32_t sec, const struct reloc *r)
{
	/* R_*_NONE relocates nothing: a call replaced by NOPs (the kernel's tool keeps its symbol). */
	if (r->type == obj->arch->reloc_none)
		return 0;
	if (!grow_array(&rec->strays, rec->nstrays, &rec->cap_strays, sizeof(*rec->strays)))
		return elfobj_error(obj, "out of memory"), -1;
	rec->strays[rec->nstrays++] = (struct stray_ref){ .sec = sec, .off = r->offset, .type = r->type,
							   .sym = obj->sym[r->sym].name };
	return 0;
}

struct byte_range {
	uint64_t from, to;
};

static int cmp_range(const void *a, const void *b)
{
	const struct byte_range *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * Replace one call outside the traceable sections by the NOP of a form whose
 * expectations hold, with its prefix if present.  Returns the byte range
 * rewritten, or an empty range when no form applies.
 */
static struct byte_range nop_call(struct elfobj *obj, size_t textidx, const struct reloc *r)
{
	struct section *text = &obj->sec[textidx];
	const struct arch *arch = obj->arch;
	bool be = obj->code_big_endian;

	for (size_t i = 0; i < arch->ncalls; i++) {
		const struct call_form *f = &arch->calls[i];
		uint64_t at = r->offset + (int64_t)f->site_adjust;
		const struct insn_pattern *expect = f->nop_expect.n ? &f->nop_expect : &f->site;
		size_t plen = insn_len(&f->prefix);
		struct byte_range range = { at, at + insn_len(&f->nop) };
		uint8_t *code;

		if (f->rtype != r->type || !f->nop.n || at >= text->size ||
		    !insn_matches(expect, text->bytes + at, text->size - at, be) ||
		    !insn_matches(&f->site, text->bytes + at, text->size - at, be) ||
		    range.to > text->size)
			continue;
		code = elfobj_edit_bytes(obj, textidx);
		if (!code)
			return (struct byte_range){ 0, 0 };
		insn_write(&f->nop, code + at, be);
		if (plen && at >= plen && insn_matches(&f->prefix, code + at - plen, plen, be)) {
			insn_write(&f->prefix_nop, code + at - plen, be);
			range.from -= plen;
		}
		return range;
	}
	return (struct byte_range){ 0, 0 };
}

/* Every relocation whose field lies in a NOP'd range would rewrite the NOP. */
static void drop_relocs_in(struct elfobj *obj, struct section *rs, struct byte_range *ranges, size_t n)
{
	qsort(ranges, n, sizeof(*ranges), cmp_range);
	for (size_t i = 0; i < rs->nrelocs; i++) {
		struct reloc *r = &rs->relocs[i];
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (ranges[mid].to <= r->offset)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && ranges[lo].from <= r->offset) {
			r->type = obj->arch->reloc_none;
			r->sym = 0;
			r->addend = 0;
		}
	}
	rs->relocs_dirty = true;
}

struct section_scan {
	struct byte_range *nops;	/* room for two per relocation */
	size_t nnops, ignored;
	const struct func_sym *fs;	/* the object's function symbols (traced_function) */
	size_t nf;
};

/*
 * The arch's variable call sequences (sequence_call): the call word
 * becomes its disabled form and every other word of the sequence that
 * carries one of the hook's relocations, starting with relocs[first], a
 * NOP.  1 when done, 0 when the arch has no such form for it, -1 on error.
 */
static int disable_sequence(struct elfobj *obj, size_t textidx, const struct section *rs, size_t first,
			    const uint8_t *hook, uint64_t site, struct section_scan *scan)
{
	const struct arch *arch = obj->arch;
	const struct section *text = &obj->sec[textidx];
	uint64_t start = rs->relocs[first].offset, len = arch->seq_nop ? insn_len(arch->seq_nop) : 0;
	size_t end = first;
	uint32_t disabled;
	int64_t call;
	uint8_t *code;

	if (!arch->sequence_call || !len)
		return 0;
	call = arch->sequence_call(text->bytes, text->size, site, obj->code_big_endian, &disabled);
	if (call < 0)
		return 0;
	/* The sequence's relocated words: all before the call, or on it (R_MIPS_JALR). */
	while (end < rs->nrelocs && rs->relocs[end].offset >= start && rs->relocs[end].offset < (uint64_t)call + 4)
		end++;
	code = elfobj_edit_bytes(obj, textidx);
	if (!code)
		return -1;
	insn_store(code + call, 4, disabled, obj->code_big_endian);
	scan->nops[scan->nnops++] = (struct byte_range){ (uint64_t)call, (uint64_t)call + 4 };
	for (size_t k = first; k < end; k++) {
		uint64_t at = rs->relocs[k].offset;

		if (!hook[rs->relocs[k].sym] || at >= (uint64_t)call)
			continue;
		insn_write(arch->seq_nop, code + at, obj->code_big_endian);
		scan->nops[scan->nnops++] = (struct byte_range){ at, at + len };
	}
	return 1;
}

static int scan_relocs(struct elfobj *obj, size_t relidx, const uint8_t *hook,
		       struct recording *rec, struct section_scan *scan)
{
	struct section *rs = &obj->sec[relidx];
	uint32_t textidx = rs->rela_for;
	const struct section *text = &obj->sec[textidx];
	bool traceable = section_is_traceable(text->name);
	uint64_t seq_start = 0, seq_end = 0;
	bool in_seq = false;

	for (size_t i = 0; i < rs->nrelocs; i++) {
		const struct reloc *r = &rs->relocs[i];
		const struct call_form *form;
		uint64_t site;
		bool traced;

		if (!hook[r->sym])
			continue;
		if (in_seq && r->offset >= seq_start && r->offset < seq_end)
			continue;	/* another relocation of the same call */
		/*
		 * Not a call form of the arch's table: an address taken, a data
		 * word, hand-written code, or a sequence no compiler emitted
		 * before.  Never dropped in silence: the caller reports it.
		 */
		form = match_call(obj, text, r, &site);
		if (!form) {
			if (push_stray(obj, rec, textidx, r) < 0)
				return -1;
			continue;
		}
		rec->pic_calls += form->pic;
		seq_start = r->offset;
		seq_end = sequence_end(obj, text, site);
		in_seq = true;
		traced = traceable && traced_function(obj, scan->fs, scan->nf, textidx, site);
		if (traceable && !traced && push_outside(obj, rec, textidx, site) < 0)
			return -1;
		if (traced && push_site(obj, rec, textidx, site, hook[r->sym] == HOOK_ENTRY) < 0)
			return -1;
		if (traced && !rec->nop_traced)
			continue;
		struct byte_range range = nop_call(obj, textidx, r);

		if (range.to == range.from && !obj->err[0]) {
			int done = disable_sequence(obj, textidx, rs, i, hook, site, scan);

			if (done < 0)
				return -1;
			if (done)
				continue;	/* its ranges are in scan->nops */
		}
		if (range.to == range.from) {
			if (obj->err[0])
				return -1;
			if (traced)	/* --nop promised a program without the hook */
				return elfobj_error(obj, "%s+0x%llx: the call cannot be replaced by NOPs on %s",
						    text->name, (unsigned long long)site, obj->arch->name), -1;
			scan->ignored++;
			continue;
		}
		scan->nops[scan->nnops++] = range;
	}
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_stray(const void *a, const void *b)
{
	const struct stray_ref *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Assemblers may write relocations out of order (gas relaxes jumps last): reports go by place. */
static void sort_strays(struct recording *rec)
{
	if (rec->nstrays)
		qsort(rec->strays, rec->nstrays, sizeof(*rec->strays), cmp_stray);
}

int record_sites(struct elfobj *obj, struct recording *rec, bool nop_traced, FILE *warn)
{
	bool any;
	uint8_t *hook;
	struct func_sym *fs;
	size_t nf = 0;
	int rc = -1;

	memset(rec, 0, sizeof(*rec));
	rec->nop_traced = nop_traced;
	if (!obj->symtab)
		return 0;
	hook = find_hook_symbols(obj, &any);
	if (!hook)
		return elfobj_error(obj, "out of memory"), -1;
	if (!any) {
		free(hook);
		return 0;
	}
	fs = function_index(obj, &nf);
	if (!fs) {
		free(hook);
		return elfobj_error(obj, "out of memory"), -1;
	}
	for (size_t i = 1; i < obj->nsec; i++) {
		struct section *rs = &obj->sec[i];
		const struct section *text;
		struct section_scan scan = { .fs = fs, .nf = nf };

		if (!rs->rela_for)
			continue;
		text = &obj->sec[rs->rela_for];
		if (text->sh.sh_type != SHT_PROGBITS || !(text->sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (text->sh.sh_flags & SHF_COMPRESSED) {
			elfobj_error(obj, "executable section %s is compressed", text->name);
			goto out;
		}
		if (elfobj_parse_relocs(obj, i) < 0)
			goto out;
		/* Room for NOPs in every section: a traced one's calls outside its functions get them too. */
		scan.nops = malloc((rs->nrelocs ? rs->nrelocs : 1) * 2 * sizeof(*scan.nops));
		if (!scan.nops) {
			elfobj_error(obj, "out of memory");
			goto out;
		}
		if (scan_relocs(obj, i, hook, rec, &scan) < 0) {
			free(scan.nops);
			goto out;
		}
		if (scan.nnops)
			drop_relocs_in(obj, rs, scan.nops, scan.nnops);
		free(scan.nops);
		rec->nopped += scan.nnops;
		rec->ignored += scan.ignored;
		if (warn && scan.nnops && !section_is_traceable(text->name))
			fprintf(warn, "%s: section %s: %zu call(s) to the profiling hook outside the traced "
				"sections, replaced by NOPs\n", obj->path, text->name, scan.nnops);
		if (warn && scan.ignored)
			fprintf(warn, "%s: section %s: %zu call(s) to the profiling hook outside the traced "
				"sections, left in place (no NOP form on %s)\n", obj->path, text->name,
				scan.ignored, obj->arch->name);
	}
	if (rec->nsites)	/* sites is NULL when there are none: qsort(NULL) is undefined */
		qsort(rec->sites, rec->nsites, sizeof(*rec->sites), cmp_site);
	if (rec->noutside)
		qsort(rec->outside, rec->noutside, sizeof(*rec->outside), cmp_site);
	sort_strays(rec);
	{
		size_t n = 0;

		for (size_t i = 0; i < rec->nsites; i++)
			if (!n || cmp_site(&rec->sites[n - 1], &rec->sites[i]))
				rec->sites[n++] = rec->sites[i];
		rec->nsites = n;
	}
	rc = 0;
out:
	free(fs);
	free(hook);
	return rc;
}

const char *stray_type(const struct elfobj *obj, const struct stray_ref *s, char *buf, size_t size)
{
	const char *name = arch_reloc_name(obj->arch, s->type);

	if (name)
		return name;
	snprintf(buf, size, "relocation type %u", s->type);
	return buf;
}

void recording_free(struct recording *rec)
{
	free(rec->sites);
	free(rec->strays);
	free(rec->outside);
	memset(rec, 0, sizeof(*rec));
}

/* An entry naming the start of the call's sequence (s390) stands for the call: how far on it is. */
static size_t recorded_call_skip(const struct elfobj *obj, const struct table_entry *e)
{
	const struct section *s = &obj->sec[e->sec];

	if (e->patchable || e->off >= s->size || s->sh.sh_type == SHT_NOBITS)
		return 0;
	return arch_recorded_prefix_len(obj->arch, s->bytes + e->off, s->size - e->off, obj->code_big_endian);
}

int recorded_sites(struct elfobj *obj, struct recording *rec, bool *has_protos)
{
	struct table_entry *e;
	size_t n;

	memset(rec, 0, sizeof(*rec));
	*has_protos = false;
	for (size_t i = 1; i < obj->nsec; i++)
		*has_protos |= strcmp(obj->sec[i].name, PROTO_TABLE) == 0 ||
			       strcmp(obj->sec[i].name, PROTO_RET_TABLE) == 0;
	if (tables_read(obj, &e, &n) < 0)
		return -1;
	rec->sites = calloc(n ? n : 1, sizeof(*rec->sites));
	if (!rec->sites)
		return free(e), elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < n; i++)
		if (e[i].sec)
			rec->sites[rec->nsites++] = (struct site){ .sec = e[i].sec,
								   .off = e[i].off + recorded_call_skip(obj, &e[i]),
								   .entry = e[i].entry,
								   .patchable = e[i].patchable };
	rec->cap = n;
	free(e);
	qsort(rec->sites, rec->nsites, sizeof(*rec->sites), cmp_site);
	return 0;
}

static bool section_named(const struct elfobj *obj, const char *name, bool *excluded)
{
	for (size_t i = 1; i < obj->nsec; i++)
		if (strcmp(obj->sec[i].name, name) == 0) {
			if (excluded)
				*excluded = obj->sec[i].sh.sh_flags & SHF_EXCLUDE;
			return true;
		}
	return false;
}

/*
 * A table gives the place, not the hook: a site at its function's entry
 * (after an endbr) calls an entry hook (-mfentry), one after the prologue
 * calls mcount.  -mnop-mcount leaves no relocation to tell otherwise.
 */
static void classify_entries(struct elfobj *obj, struct recording *rec, const struct func_sym *fs, size_t nf)
{
	if (!obj->arch->entry_hooks || !obj->arch->entry_hooks[0])
		return;
	for (size_t i = 0; i < rec->nsites; i++) {
		struct site *s = &rec->sites[i];
		const struct func_sym *f = function_at(fs, nf, s->sec, s->off);

		s->entry = f && (s->off == f->off || s->off == f->off + function_landing_pad(obj, f->sec, f->off));
	}
}

/* The sites of `rec` that are (or are not) patchable entries, in a recording of their own. */
static int pick_sites(struct elfobj *obj, const struct recording *rec, bool patchable, struct recording *out)
{
	memset(out, 0, sizeof(*out));
	out->sites = calloc(rec->nsites ? rec->nsites : 1, sizeof(*out->sites));
	if (!out->sites)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < rec->nsites; i++)
		if (rec->sites[i].patchable == patchable)
			out->sites[out->nsites++] = rec->sites[i];
	out->cap = rec->nsites;
	return 0;
}

/* Marks the tables named `name` of sections [1, upto) SHF_EXCLUDE: linkers drop them. */
static void exclude_tables(struct elfobj *obj, const char *name, size_t upto)
{
	for (size_t i = 1; i < upto; i++)
		if (strcmp(obj->sec[i].name, name) == 0)
			obj->sec[i].sh.sh_flags |= SHF_EXCLUDE;
	obj->modified = true;
}

/* A kernel-style __mcount_loc's sites into user-mode tables. */
static int kernel_table_to_user(struct elfobj *obj, const struct recording *rec)
{
	bool excluded = false;
	struct recording calls;
	struct func_sym *fs;
	size_t nf = 0, nsec = obj->nsec;
	int rc;

	if (!section_named(obj, KERNEL_TABLE, &excluded) || excluded)
		return 0;
	if (pick_sites(obj, rec, false, &calls) < 0)
		return -1;
	fs = function_index(obj, &nf);
	if (!fs) {
		recording_free(&calls);
		return elfobj_error(obj, "out of memory"), -1;
	}
	classify_entries(obj, &calls, fs, nf);
	free(fs);
	rc = emit_tables(obj, calls.sites, calls.nsites, MODE_USER);
	recording_free(&calls);
	if (rc < 0)
		return -1;
	exclude_tables(obj, KERNEL_TABLE, nsec);
	return 1;
}

/*
 * gcc 12 writes one __patchable_function_entries per object, SHF_LINK_ORDER
 * to one of its text sections: when that section's COMDAT group is
 * discarded, every other function's entry goes with it (t/36).  The table
 * is split, one per text section in its group, as gcc 13 writes it.
 */
static int split_patchable(struct elfobj *obj, const struct recording *rec)
{
	size_t tables = 0, sections = 0, nsec = obj->nsec;
	struct recording pads;
	uint32_t last = 0;
	int rc;

	for (size_t i = 1; i < obj->nsec; i++)
		tables += strcmp(obj->sec[i].name, PATCHABLE_TABLE) == 0 && !(obj->sec[i].sh.sh_flags & SHF_EXCLUDE);
	/* Sorted by section, and no site is in section 0. */
	for (size_t i = 0; i < rec->nsites; i++)
		if (rec->sites[i].patchable && rec->sites[i].sec != last) {
			last = rec->sites[i].sec;
			sections++;
		}
	if (sections <= tables)
		return 0;
	if (pick_sites(obj, rec, true, &pads) < 0)
		return -1;
	rc = emit_tables(obj, pads.sites, pads.nsites, MODE_PATCHABLE);
	recording_free(&pads);
	if (rc < 0)
		return -1;
	exclude_tables(obj, PATCHABLE_TABLE, nsec);
	return 1;
}

int recorded_to_user(struct elfobj *obj, struct recording *rec)
{
	int a, b;

	if (section_named(obj, USER_TABLE, NULL) || section_named(obj, ENTRY_TABLE, NULL))
		return 0;
	a = kernel_table_to_user(obj, rec);
	b = a < 0 ? -1 : split_patchable(obj, rec);
	return a < 0 || b < 0 ? -1 : a || b;
}

/*
 * Objects whose sites the compiler recorded: the relocations against the
 * hook that are no call form at all (the calls are the compiler's to list).
 */
static int find_strays(struct elfobj *obj, struct recording *rec)
{
	bool any;
	uint8_t *hook = obj->symtab ? find_hook_symbols(obj, &any) : NULL;
	int rc = 0;

	if (!obj->symtab)
		return 0;
	if (!hook)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 1; any && rc == 0 && i < obj->nsec; i++) {
		const struct section *rs = &obj->sec[i], *text;
		uint64_t seq_start = 0, seq_end = 0;
		bool in_seq = false;

		if (!rs->rela_for)
			continue;
		text = &obj->sec[rs->rela_for];
		if (text->sh.sh_type != SHT_PROGBITS || !(text->sh.sh_flags & SHF_EXECINSTR) ||
		    (text->sh.sh_flags & SHF_COMPRESSED))
			continue;
		if (elfobj_parse_relocs(obj, i) < 0) {
			rc = -1;
			break;
		}
		for (size_t k = 0; rc == 0 && k < rs->nrelocs; k++) {
			const struct reloc *r = &rs->relocs[k];
			uint64_t site;

			if (!hook[r->sym] || (in_seq && r->offset >= seq_start && r->offset < seq_end))
				continue;
			if (match_call(obj, text, r, &site)) {
				seq_start = r->offset;
				seq_end = sequence_end(obj, text, site);
				in_seq = true;
			} else {
				rc = push_stray(obj, rec, rs->rela_for, r);
			}
		}
	}
	free(hook);
	return rc;
}

/*
 * The compiler lists every call, in untraced sections too, and cannot know
 * that a symbol table will not cover one: the rule of record_sites
 * (traced_function) holds for its sites as well.  Those of traced sections
 * that it fails go to rec->outside for the warnings.  With `drop` (user
 * mode, which writes tables of its own) every site failing it leaves the
 * list and record_sites NOPs its call, as in an object without a table;
 * kernel mode leaves the compiler's table as the kernel's own build does.
 */
static int apply_traced_rule(struct elfobj *obj, struct recording *rec, bool drop, FILE *warn)
{
	struct func_sym *fs;
	size_t nf = 0, n = 0;
	int rc = 0;

	if (drop) {
		struct recording nops;

		rc = record_sites(obj, &nops, false, warn);
		recording_free(&nops);
		if (rc < 0)
			return -1;
	}
	fs = function_index(obj, &nf);
	if (!fs)
		return elfobj_error(obj, "out of memory"), -1;
	for (size_t i = 0; i < rec->nsites && rc == 0; i++) {
		const struct site *s = &rec->sites[i];

		if (s->patchable || traced_function(obj, fs, nf, s->sec, s->off)) {
			rec->sites[n++] = *s;
			continue;
		}
		if (section_is_traceable(obj->sec[s->sec].name))
			rc = push_outside(obj, rec, s->sec, s->off);
		if (!drop)
			rec->sites[n++] = *s;
	}
	rec->nsites = n;
	rec->outside_kept = !drop;
	free(fs);
	return rc;
}

int record_object(struct elfobj *obj, struct recording *rec, const struct record_options *o)
{
	bool has_protos;

	if (!elfobj_has_tables(obj)) {
		if (record_sites(obj, rec, o->nop, o->warn) < 0 || emit_tables(obj, rec->sites, rec->nsites, o->mode) < 0)
			return -1;
		/* A prototype table without site tables is not ours to add to: no second one. */
		return section_named(obj, PROTO_TABLE, NULL) || section_named(obj, PROTO_RET_TABLE, NULL) ? 0 :
		       emit_protos(obj, rec, o->protos);
	}
	/*
	 * The compiler recorded the sites itself (-mrecord-mcount,
	 * -fpatchable-function-entry), or a kernel-mode run did: no site is
	 * recorded twice, a missing prototype table is added, and user mode
	 * moves a kernel-style table's sites to its own tables.  Objects with
	 * user-mode tables are ours, done: left alone.
	 */
	if (section_named(obj, USER_TABLE, NULL) || section_named(obj, ENTRY_TABLE, NULL))
		return 0;
	if (recorded_sites(obj, rec, &has_protos) < 0 || find_strays(obj, rec) < 0)
		return -1;
	sort_strays(rec);
	bool excluded = false, converts = o->mode == MODE_USER && section_named(obj, KERNEL_TABLE, &excluded) &&
					  !excluded;

	if (apply_traced_rule(obj, rec, converts, o->warn) < 0)
		return -1;
	if (o->mode == MODE_USER && recorded_to_user(obj, rec) < 0)
		return -1;
	return has_protos ? 0 : emit_protos(obj, rec, o->protos);
}
