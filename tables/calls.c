// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where the code of a linked file calls: the arch's decoders give a call's
 * target; a target inside the hook or a stub leading to it (veneers,
 * long-branch and PLT-call stubs) is the hook, and a call through the PLT
 * or a GOT slot is followed to the dynamic relocation or the address the
 * slot holds.  recordmcount --check proves a table with it; objpatch list
 * counts the functions a table leaves out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tables/calls.h"
#include "util/array.h"

struct hook_range {
	uint64_t from, to;
	const char *name;
	bool entry;
};

/* 0: not a hook; 1: a hook called after the prologue; 2: an entry hook. */
static int hook_kind(const struct arch *arch, const char *name)
{
	const char *const *lists[2] = { arch->hooks, arch->entry_hooks };

	if (name[0] == '.')
		name++;
	for (int k = 0; k < 2; k++)
		for (const char *const *h = lists[k]; h && *h; h++)
			if (strcmp(name, *h) == 0)
				return k + 1;
	return 0;
}

/*
 * Linker stubs that lead to the hook: ARM and AArch64 veneers
 * (__gnu_mcount_nc_veneer, ___mcount_veneer, __NAME_from_thumb) and
 * PowerPC long-branch and PLT-call stubs (00000018.long_branch._mcount).
 */
static int stub_kind(const struct arch *arch, const char *name)
{
	static const char *const suffixes[] = { "_veneer", "_from_thumb", "_from_arm" };
	static const char *const markers[] = { "long_branch", "plt_call", "plt_branch" };
	char buf[128];
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(markers); i++) {
		const char *dot = strrchr(name, '.');

		if (!strstr(name, markers[i]) || !dot)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(dot + 1, "+@"), dot + 1);
		return hook_kind(arch, buf);
	}
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t sl = strlen(suffixes[i]);
		int k;

		if (len <= sl || len - sl >= sizeof(buf) || strcmp(name + len - sl, suffixes[i]) != 0)
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)(len - sl), name);
		k = hook_kind(arch, buf);
		if (!k && strncmp(buf, "__", 2) == 0)
			k = hook_kind(arch, buf + 2);
		if (k)
			return k;
	}
	return 0;
}

static int push_hook(struct linked *l, uint64_t from, uint64_t size, const char *name, int kind)
{
	if (!grow_array(&l->hooks, l->nhooks, &l->cap_hooks, sizeof(*l->hooks)))
		return elfobj_error(l->obj, "out of memory"), -1;
	l->hooks[l->nhooks++] = (struct hook_range){ from, from + (size ? size : 1), name, kind == 2 };
	return 0;
}

/*
 * The hook's code, and the stubs that lead to it: a call anywhere into them
 * is a call to the hook (PowerPC ELFv2 calls the local entry, after the
 * global entry's TOC setup).
 */
int collect_hooks(struct linked *l)
{
	struct elfobj *obj = l->obj;

	for (size_t i = 1; i < obj->nsym; i++) {
		const struct symbol *s = &obj->sym[i];
		int type = GELF_ST_TYPE(s->s.st_info), kind;
		uint64_t value = s->s.st_value;

		if (type == STT_SECTION || type == STT_FILE || !is_code(obj, s->shndx) || !s->name[0])
			continue;
		kind = hook_kind(obj->arch, s->name);
		if (!kind)
			kind = stub_kind(obj->arch, s->name);
		if (!kind)
			continue;
		if (obj->arch->func_symbol_mask)
			value &= obj->arch->func_symbol_mask;
		if (push_hook(l, value, s->s.st_size, s->name, kind) < 0)
			return -1;
	}
	/* Function descriptors (ppc64 ELFv1): the function index knows the code. */
	for (size_t i = 0; i < l->fs.n; i++) {
		const struct func_sym *f = &l->fs.v[i];
		int kind = hook_kind(obj->arch, f->name);

		if (kind && push_hook(l, obj->sec[f->sec].sh.sh_addr + f->off, f->size, f->name, kind) < 0)
			return -1;
	}
	return 0;
}

const struct hook_range *hook_at(const struct linked *l, uint64_t addr)
{
	for (size_t i = 0; i < l->nhooks; i++)
		if (addr >= l->hooks[i].from && addr < l->hooks[i].to)
			return &l->hooks[i];
	return NULL;
}

static int cmp_dynrel(const void *a, const void *b)
{
	const struct dynrel *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static const char *dynrel_name(struct elfobj *obj, Elf_Data *syms, size_t strtab, uint32_t symi)
{
	GElf_Sym gs;
	const char *name;

	if (!syms || !symi || !gelf_getsym(syms, (int)symi, &gs))
		return "";
	name = elf_strptr(obj->elf, strtab, gs.st_name);
	return name ? name : "";
}

static int read_dynrel_section(struct linked *l, size_t i)
{
	struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[i];
	bool rela = s->sh.sh_type == SHT_RELA;
	size_t entsize = gelf_fsize(obj->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	Elf_Data *d = elf_getdata(s->scn, NULL), *syms = NULL;
	size_t strtab = 0;

	if (!d || s->sh.sh_entsize != entsize)
		return elfobj_error(obj, "%s: cannot read the dynamic relocations", s->name), -1;
	if (s->sh.sh_link && s->sh.sh_link < obj->nsec &&
	    (obj->sec[s->sh.sh_link].sh.sh_type == SHT_DYNSYM || obj->sec[s->sh.sh_link].sh.sh_type == SHT_SYMTAB)) {
		syms = elf_getdata(obj->sec[s->sh.sh_link].scn, NULL);
		strtab = obj->sec[s->sh.sh_link].sh.sh_link;
	}
	for (size_t k = 0; k < d->d_size / entsize; k++) {
		GElf_Rela ra = { 0 };
		GElf_Rel rl;
		uint32_t sym, type;

		if (rela ? !gelf_getrela(d, (int)k, &ra) : !gelf_getrel(d, (int)k, &rl))
			return elfobj_error(obj, "%s: %s", s->name, elf_errmsg(-1)), -1;
		if (!rela)
			ra = (GElf_Rela){ .r_offset = rl.r_offset, .r_info = rl.r_info };
		elfobj_decode_rinfo(obj, ra.r_info, &sym, &type);
		if (!grow_array(&l->dyn, l->ndyn, &l->cap_dyn, sizeof(*l->dyn)))
			return elfobj_error(obj, "out of memory"), -1;
		l->dyn[l->ndyn++] = (struct dynrel){ ra.r_offset, ra.r_addend, dynrel_name(obj, syms, strtab, sym) };
	}
	return 0;
}

/* Dynamic relocations: the allocated relocation sections (not --emit-relocs' ones). */
int collect_dynrels(struct linked *l)
{
	struct elfobj *obj = l->obj;

	for (size_t i = 1; i < obj->nsec; i++) {
		const GElf_Shdr *sh = &obj->sec[i].sh;

		if ((sh->sh_type == SHT_RELA || sh->sh_type == SHT_REL) && (sh->sh_flags & SHF_ALLOC) &&
		    read_dynrel_section(l, i) < 0)
			return -1;
	}
	if (l->ndyn)
		qsort(l->dyn, l->ndyn, sizeof(*l->dyn), cmp_dynrel);
	return 0;
}

static const struct dynrel *dynrel_at(const struct linked *l, uint64_t off)
{
	struct dynrel key = { .off = off };

	return l->ndyn ? bsearch(&key, l->dyn, l->ndyn, sizeof(*l->dyn), cmp_dynrel) : NULL;
}

/* The allocated section holding [addr, addr + len), or 0. */
uint32_t section_holding(const struct elfobj *obj, uint64_t addr, uint64_t len, bool code)
{
	for (size_t i = 1; i < obj->nsec; i++) {
		const struct section *s = &obj->sec[i];

		if (!(s->sh.sh_flags & SHF_ALLOC) || s->sh.sh_type == SHT_NOBITS ||
		    (code && !(s->sh.sh_flags & SHF_EXECINSTR)))
			continue;
		if (addr >= s->sh.sh_addr && addr - s->sh.sh_addr < s->size && s->size - (addr - s->sh.sh_addr) >= len)
			return (uint32_t)i;
	}
	return 0;
}

static struct target make_target(enum target_kind kind, uint64_t addr, const char *name, bool entry)
{
	return (struct target){ .kind = kind, .addr = addr, .name = name, .entry = entry };
}

static struct target resolve_address(const struct linked *l, uint64_t addr, int depth);

/* A pointer-sized slot the call goes through: its dynamic relocation, or its contents. */
static struct target resolve_slot(const struct linked *l, uint64_t slot, int depth)
{
	const struct elfobj *obj = l->obj;
	const struct dynrel *d = dynrel_at(l, slot);
	unsigned ptr = obj->is64 ? 8 : 4;
	uint32_t sec;
	int kind;

	if (d && d->name[0]) {
		kind = hook_kind(obj->arch, d->name);
		if (kind)
			return make_target(TARGET_HOOK, slot, d->name, kind == 2);
		return make_target(TARGET_OTHER, 0, d->name, false);
	}
	if (d)
		return resolve_address(l, (uint64_t)d->addend, depth + 1);
	sec = section_holding(obj, slot, ptr, false);
	if (!sec)
		return make_target(TARGET_UNKNOWN, 0, NULL, false);
	return resolve_address(l, elfobj_read_word(obj, obj->sec[sec].bytes + (slot - obj->sec[sec].sh.sh_addr), ptr),
			       depth + 1);
}

static bool is_plt(const char *name)
{
	return strncmp(name, ".plt", 4) == 0 || strncmp(name, ".iplt", 5) == 0;
}

/* A PLT entry's first instructions lead through a GOT slot. */
#define PLT_SEARCH 16

static struct target follow_plt(const struct linked *l, uint32_t sec, uint64_t addr, int depth)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[sec];
	unsigned align = obj->arch->insn_align ? obj->arch->insn_align : 1;

	for (uint64_t p = addr; p < addr + PLT_SEARCH && p - s->sh.sh_addr < s->size; p += align) {
		uint64_t off = p - s->sh.sh_addr, to;

		for (size_t i = 0; i < obj->arch->ndecoders; i++) {
			const struct call_decoder *d = &obj->arch->decoders[i];

			if (d->jump && d->target &&
			    insn_matches(&d->insn, s->bytes + off, s->size - off, obj->code_big_endian) &&
			    d->target(s->bytes + off, s->size - off, obj->code_big_endian, p, &to))
				return d->slot ? resolve_slot(l, to, depth) : resolve_address(l, to, depth + 1);
		}
	}
	return make_target(TARGET_UNKNOWN, addr, NULL, false);
}

static struct target resolve_address(const struct linked *l, uint64_t addr, int depth)
{
	const struct hook_range *h = hook_at(l, addr);
	uint32_t sec;

	if (h)
		return make_target(TARGET_HOOK, addr, h->name, h->entry);
	sec = section_holding(l->obj, addr, 1, true);
	if (sec && depth < 2 && is_plt(l->obj->sec[sec].name))
		return follow_plt(l, sec, addr, depth);
	return make_target(TARGET_OTHER, addr, NULL, false);
}

/*
 * What the code at `addr` calls, by the arch's decoders: the hook wins over
 * a call form that cannot be verified, which wins over another callee.
 */
struct target decode_call(const struct linked *l, uint32_t sec, uint64_t off, bool whole)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[sec];
	uint64_t addr = s->sh.sh_addr + off;
	struct target best = { .kind = TARGET_NONE };

	for (size_t i = 0; i < obj->arch->ndecoders && off < s->size; i++) {
		const struct call_decoder *d = &obj->arch->decoders[i];
		struct target t = { .kind = TARGET_UNKNOWN };
		uint64_t to;

		if (d->jump || d->ref || !insn_matches(&d->insn, s->bytes + off, s->size - off, obj->code_big_endian))
			continue;
		if (whole && d->calls_after && !d->calls_after(s->bytes + off, s->size - off, obj->code_big_endian))
			continue;
		if (d->target) {
			if (!d->target(s->bytes + off, s->size - off, obj->code_big_endian, addr, &to))
				continue;
			t = d->slot ? resolve_slot(l, to, 0) : resolve_address(l, to, 0);
		}
		t.len = d->len;
		if (t.kind > best.kind)
			best = t;
		if (best.kind == TARGET_HOOK)
			break;
	}
	return best;
}

struct target decode_ref(const struct linked *l, uint32_t sec, uint64_t off)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[sec];
	uint64_t addr = s->sh.sh_addr + off, to;

	for (size_t i = 0; i < obj->arch->ndecoders && off < s->size; i++) {
		const struct call_decoder *d = &obj->arch->decoders[i];
		struct target t;

		if (!d->ref || !d->target || !insn_matches(&d->insn, s->bytes + off, s->size - off, obj->code_big_endian) ||
		    !d->target(s->bytes + off, s->size - off, obj->code_big_endian, addr, &to))
			continue;
		t = resolve_address(l, to, 0);
		t.len = d->len;
		if (t.kind == TARGET_HOOK)
			return t;
	}
	return (struct target){ .kind = TARGET_NONE };
}

bool is_code(const struct elfobj *obj, uint32_t sec)
{
	return sec && sec < obj->nsec && obj->sec[sec].sh.sh_type == SHT_PROGBITS &&
	       (obj->sec[sec].sh.sh_flags & SHF_EXECINSTR);
}

bool next_hook_call(const struct linked *l, const struct func_sym *f, uint64_t *p, struct target *t)
{
	const struct elfobj *obj = l->obj;
	const struct section *s = &obj->sec[f->sec];
	unsigned align = obj->arch->insn_align ? obj->arch->insn_align : 1;
	uint64_t start = s->sh.sh_addr + f->off, len = f->size;

	if (!f->size || !obj->arch->ndecoders || !is_code(obj, f->sec) || f->off >= s->size || hook_at(l, start))
		return false;
	if (obj->arch->hook_window && len > obj->arch->hook_window)
		len = obj->arch->hook_window;
	if (*p < start)
		*p = (start + align - 1) / align * align;
	for (; *p < start + len && *p - s->sh.sh_addr < s->size; *p += align) {
		*t = decode_call(l, f->sec, *p - s->sh.sh_addr, true);
		if (t->kind == TARGET_HOOK)
			return true;
	}
	return false;
}

int linked_open(struct linked *l, struct elfobj *obj)
{
	*l = (struct linked){ .obj = obj };
	l->fs.v = function_index(obj, &l->fs.n);
	if (!l->fs.v)
		return elfobj_error(obj, "out of memory"), -1;
	return collect_hooks(l) < 0 || collect_dynrels(l) < 0 ? -1 : 0;
}

void linked_close(struct linked *l)
{
	free(l->fs.v);
	free(l->hooks);
	free(l->dyn);
	free(l->pe);
	*l = (struct linked){ 0 };
}

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t unrecorded_functions(const struct linked *l, const uint64_t *addrs, size_t naddrs, const char **first)
{
	size_t n = 0;

	*first = NULL;
	for (size_t i = 0; i < l->fs.n; i++) {
		const struct func_sym *f = &l->fs.v[i];
		struct target t;
		uint64_t p = 0;

		while (next_hook_call(l, f, &p, &t)) {
			if (!bsearch(&p, addrs, naddrs, sizeof(*addrs), cmp_addr)) {
				if (!n++)
					*first = f->name;
				break;
			}
			p += t.len ? t.len : 1;
		}
	}
	return n;
}
