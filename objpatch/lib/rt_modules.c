// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loaded modules' tables and sites, and turning sites on and off.
 *
 * A module's tables come from its file (the executable through
 * /proc/self/exe, libraries by the loader's name), read with the recorder's
 * own reader; link-time addresses plus the load bias are the run-time ones.
 * Its sites and the names of its functions are read as a recording's
 * reader reads them (trace/symbols.c); what is only the runtime's is here.
 * Every site is checked before anything is written: it must hold the hook
 * call or a NOP the arch descriptor knows, inside an executable segment.
 * A site that holds anything else is never touched (reported once).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "arch/arch.h"
#include "arch/patch.h"
#include "objpatch/lib/rt.h"
#include "tables/tables.h"

struct rt_state rt = { .lock = PTHREAD_MUTEX_INITIALIZER, .depth = 256 };

void rt_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rt.err, sizeof(rt.err), fmt, ap);
	va_end(ap);
}

/* ---- the filter history, replayed on modules loaded later ---- */

struct filter_op {
	char *glob;
	bool on;
};

/*
 * fnmatch(3) costs about as much as the rest of planning a site: "*" and
 * patterns without a special character (the usual filters) need none of it.
 */
static bool name_matches(const char *glob, const char *name)
{
	if (glob[0] == '*' && !glob[1])
		return true;
	if (!strpbrk(glob, "*?[\\"))
		return strcmp(glob, name) == 0;
	return fnmatch(glob, name, 0) == 0;
}

static struct filter_op *filters;
static size_t nfilters, cap_filters;

static int remember_filter(const char *glob, bool on)
{
	char *g = strdup(glob);

	if (!g || !grow_array(&filters, nfilters, &cap_filters, sizeof(*filters))) {
		free(g);
		return -1;
	}
	/* "*" decides every site: what came before it no longer matters. */
	if (strcmp(glob, "*") == 0) {
		for (size_t i = 0; i < nfilters; i++)
			free(filters[i].glob);
		nfilters = 0;
	}
	filters[nfilters++] = (struct filter_op){ g, on };
	return 0;
}

static bool wanted(const struct sym_func *f)
{
	bool on = false;

	for (size_t i = 0; i < nfilters; i++)
		if (name_matches(filters[i].glob, f->name))
			on = filters[i].on;
	return on;
}

/* ---- loading a module ---- */

struct found {
	char *path;
	uintptr_t bias;
	bool quiescent;		/* no other thread runs (asked once per scan: it reads /proc) */
	uintptr_t exec_lo[8], exec_hi[8];
	unsigned nexec;
};

struct scan {
	struct found *v;
	size_t n, cap;
};

static bool known_module(const char *path, uintptr_t bias)
{
	for (size_t i = 0; i < rt.nmods; i++)
		if (rt.mods[i]->bias == bias && strcmp(rt.mods[i]->path, path) == 0)
			return true;
	return false;
}

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *s = data;
	const char *name = info->dlpi_name;
	struct found f = { .bias = info->dlpi_addr };

	(void)size;
	if (!name || !name[0])
		name = "/proc/self/exe";
	if (strncmp(name, "linux-vdso", 10) == 0 || strncmp(name, "linux-gate", 10) == 0)
		return 0;
	if (known_module(name, f.bias))
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum && f.nexec < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			f.exec_lo[f.nexec] = info->dlpi_addr + ph->p_vaddr;
			f.exec_hi[f.nexec++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		}
	}
	f.path = strdup(name);
	if (!f.path || !grow_array(&s->v, s->n, &s->cap, sizeof(*s->v))) {
		free(f.path);
		return 1;
	}
	s->v[s->n++] = f;
	return 0;
}

static bool in_exec(const struct found *f, uintptr_t a, size_t len)
{
	for (unsigned i = 0; i < f->nexec; i++)
		if (a >= f->exec_lo[i] && a + len <= f->exec_hi[i])
			return true;
	return false;
}

static int cmp_rt_site(const void *a, const void *b)
{
	uintptr_t x = ((const struct rt_site *)a)->addr, y = ((const struct rt_site *)b)->addr;

	return x < y ? -1 : x > y;
}

static const struct arch *host_arch(void)
{
	static const struct arch *a;
	GElf_Ehdr e = { .e_machine = rt_arch_host.machine, .e_flags = rt_arch_host.e_flags };

	if (a)
		return a;
	e.e_ident[EI_CLASS] = rt_arch_host.elfclass;
	e.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? ELFDATA2MSB : ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	return a = arch_for_ehdr(&e);
}

/*
 * The arch's call forms that have a NOP, with the NOP's bytes written out
 * once: every site of every module is checked against them.
 */
struct site_form {
	const struct insn_pattern *call;
	uint8_t len;
	uint8_t nop[RT_MAX_SITE];
};

static struct site_form forms[8];
static size_t nforms;
/* The recorder's patterns are read in the code's byte order: this machine's. */
static const bool host_big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

static void init_forms(void)
{
	const struct arch *a = host_arch();

	if (nforms || !a)
		return;
	for (size_t i = 0; i < a->ncalls && nforms < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct call_form *c = &a->calls[i];
		size_t len = insn_len(&c->nop);

		if (!len || len > RT_MAX_SITE)
			continue;
		forms[nforms] = (struct site_form){ .call = &c->site, .len = (uint8_t)len };
		insn_write(&c->nop, forms[nforms].nop, host_big_endian);
		nforms++;
	}
}

/* Sites are a few bytes: a loop beats a call to memcmp 20,000 times over. */
static bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* How many bytes the site holds, a hook call or its NOP; 0: neither. */
size_t rt_site_length(const uint8_t *code)
{
	for (size_t i = 0; i < nforms; i++)
		if (insn_matches(forms[i].call, code, forms[i].len, host_big_endian) ||
		    same_bytes(code, forms[i].nop, forms[i].len))
			return forms[i].len;
	return 0;
}

static const uint8_t *nop_bytes(size_t len)
{
	for (size_t i = 0; i < nforms; i++)
		if (forms[i].len == len)
			return forms[i].nop;
	return NULL;
}

/* A site's disabled form: the NOP, unless the arch wants another there (ppc64's `b .+8`). */
static const uint8_t *site_nop(const struct rt_site *s)
{
	const uint8_t *own = rt_arch_host.site_nop ? rt_arch_host.site_nop(s->addr, s->len) : NULL;

	return own ? own : nop_bytes(s->len);
}

static bool only_thread(void)
{
	char buf[1024];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *p;
	int field = 2;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* Field 20, num_threads, counted after the command name's closing parenthesis. */
	p = strrchr(buf, ')');
	while (p && field < 20) {
		p = strchr(p + 1, ' ');
		field++;
	}
	return p && atoi(p + 1) == 1;
}

/*
 * A pad holds NOPs of the compiler's choosing: gcc's five 0x90, clang's one
 * `nopl 8(%rax,%rax)`.  They become our NOP of the site's length, so that
 * every later patch knows both forms: a single instruction at any time
 * (the int3 protocol), a run of several only while no other thread runs,
 * since a thread may be inside the run.  After start-up such a run is left
 * alone.  True when the site now holds our NOP.
 */
static bool adopt_nops(uintptr_t addr, size_t len, bool quiescent)
{
	const struct arch *a = host_arch();
	const uint8_t *nop = nop_bytes(len);
	uint8_t old[RT_MAX_SITE];
	size_t insns = 0, n;
	struct patch_site ps = { (void *)addr, old, nop, len };
	char err[256];
	int rc;

	if (!nop || !a->pad_nop_len || len > sizeof(old))
		return false;
	memcpy(old, (const void *)addr, len);
	for (size_t at = 0; at < len; at += n, insns++)
		if (!(n = a->pad_nop_len(old + at, len - at)))
			return false;
	if (insns > 1 && !quiescent)
		return false;
	rc = insns > 1 ? patch_text_quiescent(&ps, 1, err, sizeof(err)) :
			 patch_text((void *)addr, old, nop, len, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr, "objpatch: %s\n", err);
	return rc == 0;
}

/*
 * The instruction a pad's site needs before it (AArch64's `mov x9, x30`),
 * written over the pad's first NOP when the module's tables are read: at
 * start-up, or when dlopen() returns, before any thread could call the
 * module's code; a core that ran the NOP would leave x9 to the trampoline
 * unset, so the `bl` after it is only written later, by a patch of its own.
 * One batch for the module: a patch per pad cost about 75 us under
 * qemu-user, 0.15 s for 2,000 functions.  A pad whose prefix did not land
 * is refused by prepare_pad().
 */
static void write_pad_prefixes(const struct found *fd, uintptr_t bias, const struct table_entry *te, size_t nt)
{
	size_t pre = rt_arch_host.pad_prefix_len, n = 0;
	const uint8_t *nop = nop_bytes(pre);
	struct patch_site *ps;
	char err[256];

	if (!pre || !nop || !fd || !(ps = calloc(nt ? nt : 1, sizeof(*ps))))
		return;
	for (size_t i = 0; i < nt; i++) {
		uintptr_t at = te[i].addr + bias - pre;

		if (te[i].patchable && te[i].addr && in_exec(fd, at, pre) && same_bytes((const uint8_t *)at, nop, pre))
			ps[n++] = (struct patch_site){ (void *)at, nop, rt_arch_host.pad_prefix, pre };
	}
	if (n && patch_text_batch(ps, n, err, sizeof(err)) < 0)
		for (size_t i = 0; i < n; i++)
			if (patch_text(ps[i].addr, nop, ps[i].repl, pre, err, sizeof(err)) < 0)
				fprintf(stderr, "objpatch: %s\n", err);
	free(ps);
}

/* A pad's site made ready: its prefix written, its NOPs ours.  Its length, or 0. */
static size_t prepare_pad(const struct found *fd, uintptr_t site)
{
	size_t len = rt_arch_host.pad_site_len, pre = rt_arch_host.pad_prefix_len;

	if (!in_exec(fd, site - pre, pre + len) ||
	    (pre && !same_bytes((const uint8_t *)(site - pre), rt_arch_host.pad_prefix, pre)))
		return 0;
	if (rt_site_length((const uint8_t *)site) == len || adopt_nops(site, len, fd->quiescent))
		return len;
	return 0;
}

static int load_sites(struct elfobj *obj, const struct found *fd, struct rt_module *m)
{
	struct table_entry *te = NULL;
	size_t nt = 0, bad, unsupported, foreign = 0;

	if (sym_read_sites(obj, rt_arch_host.pad_site_len, rt_arch_host.pad_site_offset, &te, &nt, &bad,
			   &unsupported) < 0)
		return -1;
	m->sites = calloc(nt ? nt : 1, sizeof(*m->sites));
	if (!m->sites) {
		free(te);
		return -1;
	}
	write_pad_prefixes(fd, m->bias, te, nt);
	for (size_t i = 0; i < nt; i++) {
		struct rt_site *s = &m->sites[m->nsites];
		enum site_kind kind = te[i].entry ? SITE_FENTRY : SITE_MCOUNT;
		uintptr_t addr;
		size_t len;

		if (!te[i].addr)
			continue;	/* zeroed by a tool (names nothing), or dropped by sym_read_sites() */
		addr = te[i].addr + m->bias;
		if (te[i].patchable)
			len = prepare_pad(fd, addr);
		else if (rt_arch_host.prepare_site)
			len = in_exec(fd, addr - rt_arch_host.site_before,
				      (size_t)rt_arch_host.site_before + rt_arch_host.site_after) ?
			      rt_arch_host.prepare_site(&addr, kind, fd->quiescent) : 0;
		else
			len = in_exec(fd, addr, 1) ? rt_site_length((const uint8_t *)addr) : 0;
		if (len == RT_SITE_REFUSED) {
			foreign++;
			continue;
		}
		if (!len || !in_exec(fd, addr, len)) {
			bad++;
			continue;
		}
		*s = (struct rt_site){ .addr = addr, .len = (uint8_t)len, .kind = kind };
		m->nsites++;
	}
	if (rt_arch_host.prepare_site)
		rt_arch_host.prepare_site(NULL, 0, fd->quiescent);	/* the writes it put off, in one batch */
	free(te);
	for (size_t i = 1; i < m->nsites; i++)
		if (m->sites[i].addr < m->sites[i - 1].addr) {
			qsort(m->sites, m->nsites, sizeof(*m->sites), cmp_rt_site);
			break;
		}
	if (bad)
		fprintf(stderr, "objpatch: %s: %zu table entries do not hold a hook call or NOP; left alone\n",
			m->path, bad);
	if (unsupported)
		fprintf(stderr, "objpatch: %s: %zu -fpatchable-function-entry pads: not patched on this "
			"architecture yet; left alone\n", m->path, unsupported);
	if (foreign)	/* RT_SITE_REFUSED: s390x's clang -pg */
		fprintf(stderr, "objpatch: %s: %zu hook calls not where this machine's trampolines can "
			"find the return address (mcount after the prologue? use -mfentry); left alone\n",
			m->path, foreign);
	return 0;
}

/*
 * Names and signatures, and which function each site is in: read when a
 * filter or the trace first needs them, since a program that traces
 * nothing (yet) should not pay for them at start-up.
 */
static int ensure_functions(struct rt_module *m)
{
	struct sym_walk w = { 0 };

	if (m->funcs_ready)
		return 0;
	if (sym_load(&m->syms, m->file, m->bias) < 0)
		goto oom;
	for (size_t i = 0; i < m->nsites; i++) {
		size_t fi = sym_site_function(&m->syms, &w, m->sites[i].addr);

		if (fi == SIZE_MAX)
			goto oom;
		m->sites[i].func = (uint32_t)fi;
	}
	m->funcs_ready = true;
	return 0;
oom:
	sym_free(&m->syms);	/* the next call starts over */
	return rt_error("%s: out of memory", m->path), -1;
}

/* Can every site of the module call anywhere in [p, p + size)? */
static bool within_reach(const struct rt_module *m, uintptr_t p, uintptr_t size)
{
	uintptr_t span = p < m->lo ? m->hi - p : p + size - m->lo;

	return span <= rt_arch_host.reach &&
	       (!rt_arch_host.reach_region || (p & ~rt_arch_host.reach_region) == (m->lo & ~rt_arch_host.reach_region));
}

/* MIPS n64 needs longer stubs. */
static size_t stub_size(void)
{
	return rt_arch_host.stub_size ? rt_arch_host.stub_size : STUB_SIZE;
}

/* A page within reach of every site, holding one stub per entry trampoline. */
static int make_stubs(struct rt_module *m)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), step = 1 << 20;
	uintptr_t above = (m->hi + page - 1) & ~(page - 1), below = m->lo & ~(page - 1);
	/* ARM's Thumb sleds need more than a page (stub_area). */
	uintptr_t size = (rt_arch_host.stub_area + page - 1) & ~(page - 1);
	void *p = MAP_FAILED;

	if (size < page)
		size = page;
	/* RISC-V's `jal` reaches 1 MiB: look closer, else the adjacent pages are the only candidates. */
	if (rt_arch_host.reach < (2u << 20))
		step = 64 << 10;

	/* The nearest free page above the text, then below it, a megabyte at a time. */
	for (uintptr_t off = 0; off < rt_arch_host.reach && p == MAP_FAILED; off += step) {
		uintptr_t cand[2] = { above + off, below > off + size ? below - off - size : 0 };

		for (int i = 0; i < 2 && p == MAP_FAILED; i++) {
			if (!cand[i] || !within_reach(m, cand[i], size))
				continue;
			p = mmap((void *)cand[i], size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			/* Old kernels take the address as a hint only. */
			if (p != MAP_FAILED && !within_reach(m, (uintptr_t)p, size)) {
				munmap(p, size);
				p = MAP_FAILED;
			}
		}
	}
	if (p == MAP_FAILED)
		return rt_error("%s: no free page within reach of its code", m->path), -1;
	for (int k = 0; k < SITE_KINDS; k++)
		for (int c = 0; c < CAPTURES; c++)
			rt_arch_host.encode_stub((uint8_t *)p + (k * CAPTURES + c) * stub_size(),
						 (uintptr_t)rt_arch_host.entry[k][c]);
	if (rt_arch_host.fill_stubs)
		rt_arch_host.fill_stubs(p, size);
	if (mprotect(p, size, PROT_READ | PROT_EXEC)) {
		munmap(p, size);
		return rt_error("%s: mprotect: %s", m->path, strerror(errno)), -1;
	}
	__builtin___clear_cache((char *)p, (char *)p + size);
	m->stubs = p;
	return 0;
}

static void free_module(struct rt_module *m)
{
	if (!m)
		return;
	sym_free(&m->syms);
	free(m->sites);
	if (m->file) {
		elfobj_free(m->file);
		free(m->file);
	}
	free(m->path);
	free(m);
}

/* NULL with rt.err set on failure; a module without sites is not kept (NULL, no error). */
static struct rt_module *load_module(struct found *f)
{
	struct rt_module *m = calloc(1, sizeof(*m));
	int fd;

	rt.err[0] = 0;
	init_forms();
	if (!m)
		return NULL;
	m->path = f->path;
	f->path = NULL;
	m->bias = f->bias;
	m->file = calloc(1, sizeof(*m->file));
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	/* A module we cannot read has no tables we could use: not an error. */
	if (!m->file || fd < 0 || elfobj_load_mapped(m->file, m->path, fd) < 0) {
		if (fd >= 0)
			close(fd);
		free_module(m);
		return NULL;
	}
	close(fd);
	if (m->file->arch == host_arch() && load_sites(m->file, f, m) == 0 && m->nsites) {
		m->lo = m->sites[0].addr;
		m->hi = m->sites[m->nsites - 1].addr + m->sites[m->nsites - 1].len;
		if (make_stubs(m) == 0)
			return m;
	}
	free_module(m);
	return NULL;
}

/* ---- writing sites ---- */

struct change {
	struct patch_site *ps;
	uint8_t (*bytes)[2][RT_MAX_SITE];
	struct rt_site **site;
	bool *to;
	size_t n, cap;
};

/* What an exit must keep to print the function's return value. */
static enum capture capture_for(struct sym_func *f)
{
	const struct signature *sig = sym_func_sig(f);
	const struct sig_type *r = sig ? &sig->ret : NULL;

	if (!sig || !(sig->flags & PROTO_RELIABLE))
		return CAPTURE_GPR;	/* printed as the raw register, marked '?' */
	switch (r->cls) {
	case TC_VOID:
		return CAPTURE_NONE;
	case TC_STRING:
		return CAPTURE_STRING;
	case TC_FLOAT:
		return r->size <= 8 ? CAPTURE_FP : CAPTURE_WIDE_FP;
	case TC_BOOL:
	case TC_INT:
	case TC_UINT:
	case TC_CHAR:
	case TC_ENUM:
	case TC_POINTER:
		return r->size <= sizeof(uintptr_t) ? CAPTURE_GPR : CAPTURE_ALL;
	default:
		return CAPTURE_ALL;
	}
}

static uintptr_t stub_for(const struct rt_module *m, const struct rt_site *s)
{
	return (uintptr_t)m->stubs + (s->kind * CAPTURES + capture_for(&m->syms.funcs[s->func])) * stub_size();
}

/* The bytes a site holds in a state: our call, or the NOP of its length. */
static bool site_bytes(const struct rt_module *m, const struct rt_site *s, bool on, uint8_t *out)
{
	const uint8_t *nop;

	if (rt_arch_host.encode_site)
		return rt_arch_host.encode_site(out, s->len, s->addr, stub_for(m, s), s->kind, on);
	if (on)
		return rt_arch_host.encode_call(out, s->len, s->addr, stub_for(m, s));
	nop = site_nop(s);
	if (!nop)
		return false;
	memcpy(out, nop, s->len);
	return true;
}

/* Room for `more` changes, so planning a module's sites grows the arrays once. */
static int reserve_changes(struct change *ch, size_t more)
{
	size_t cap = ch->n + more;
	void *a;

	if (cap <= ch->cap)
		return 0;
	if (!(a = realloc(ch->ps, cap * sizeof(*ch->ps))))
		return -1;
	ch->ps = a;
	if (!(a = realloc(ch->bytes, cap * sizeof(*ch->bytes))))
		return -1;
	ch->bytes = a;
	if (!(a = realloc(ch->site, cap * sizeof(*ch->site))))
		return -1;
	ch->site = a;
	if (!(a = realloc(ch->to, cap * sizeof(*ch->to))))
		return -1;
	ch->to = a;
	ch->cap = cap;
	return 0;
}

/* `current`, `next`: the site's bytes now and wanted, if the caller has them already. */
static int add_change(struct change *ch, const struct rt_module *m, struct rt_site *s, bool on,
		      const uint8_t *current, const uint8_t *next)
{
	if (ch->n == ch->cap && reserve_changes(ch, ch->cap ? ch->cap : 256) < 0)
		return -1;
	if (current)
		memcpy(ch->bytes[ch->n][0], current, s->len);
	else if (!site_bytes(m, s, s->enabled, ch->bytes[ch->n][0]))
		return 0;
	if (next)
		memcpy(ch->bytes[ch->n][1], next, s->len);
	else if (!site_bytes(m, s, on, ch->bytes[ch->n][1]))
		return 0;
	ch->site[ch->n] = s;
	ch->to[ch->n] = on;
	ch->n++;
	return 0;
}

static void free_change(struct change *ch)
{
	free(ch->ps);
	free(ch->bytes);
	free(ch->site);
	free(ch->to);
}

#define BATCH 4096

/* Applies the changes; a refused batch marks its sites broken and is reported. */
static int apply(struct change *ch, bool quiescent)
{
	int failures = 0;

	for (size_t i = 0; i < ch->n; i++)
		ch->ps[i] = (struct patch_site){ (void *)ch->site[i]->addr, ch->bytes[i][0], ch->bytes[i][1],
						  ch->site[i]->len };
	for (size_t i = 0; i < ch->n; i += BATCH) {
		size_t n = ch->n - i < BATCH ? ch->n - i : BATCH;
		char err[256];
		int rc = quiescent ? patch_text_quiescent(ch->ps + i, n, err, sizeof(err))
				   : patch_text_batch(ch->ps + i, n, err, sizeof(err));

		if (rc == 0) {
			for (size_t j = i; j < i + n; j++)
				ch->site[j]->enabled = ch->to[j];
			continue;
		}
		/* Which site? Retry one by one so the good ones still change. */
		for (size_t j = i; j < i + n; j++) {
			struct rt_site *s = ch->site[j];

			if (patch_text((void *)s->addr, ch->bytes[j][0],
				       ch->bytes[j][1], s->len, err, sizeof(err)) == 0) {
				s->enabled = ch->to[j];
			} else {
				s->broken = true;
				failures++;
				fprintf(stderr, "objpatch: refusing to patch: %s\n", err);
			}
		}
	}
	return failures;
}

/* Start-up: every site to the state the filters want, from whatever it holds now. */
static int first_patch(struct rt_module *m, struct change *ch)
{
	if ((nfilters && ensure_functions(m) < 0) || reserve_changes(ch, m->nsites) < 0)
		return -1;
	for (size_t i = 0; i < m->nsites; i++) {
		struct rt_site *s = &m->sites[i];
		bool on = nfilters && wanted(&m->syms.funcs[s->func]);
		uint8_t want[RT_MAX_SITE];

		if (!site_bytes(m, s, on, want)) {
			s->broken = true;
			continue;
		}
		if (same_bytes(want, (const uint8_t *)s->addr, s->len)) {
			s->enabled = on;
			continue;
		}
		if (add_change(ch, m, s, on, (const uint8_t *)s->addr, want) < 0)
			return -1;
	}
	return 0;
}

/*
 * Start-up with no filter and no other thread: every site to its NOP,
 * batch by batch through one small array, with no plan kept per site (the
 * per-site arrays' fresh pages cost more than the writes).  The expected
 * bytes are the text itself: load_sites() just checked them, and nobody
 * else runs.  Returns how many sites were written.
 */
#define DIRECT_BATCH 2048

/* A site's disabled form: the NOP, or (encode_site) the one of its stub, built in `buf`. */
static const uint8_t *disabled_form(const struct rt_module *m, const struct rt_site *s, uint8_t *buf)
{
	if (!rt_arch_host.encode_site)
		return site_nop(s);
	return site_bytes(m, s, false, buf) ? buf : NULL;
}

static size_t nop_all_direct(struct rt_module *m)
{
	struct patch_site ps[DIRECT_BATCH];
	uint8_t bufs[DIRECT_BATCH][RT_MAX_SITE], buf[RT_MAX_SITE];
	size_t done = 0, first = 0;

	while (first < m->nsites) {
		size_t k = 0, i = first;
		char err[256];

		for (; i < m->nsites && k < DIRECT_BATCH; i++) {
			struct rt_site *s = &m->sites[i];
			const uint8_t *nop = disabled_form(m, s, bufs[k]);

			if (!nop)
				s->broken = true;
			else if (!same_bytes(nop, (const uint8_t *)s->addr, s->len))
				ps[k++] = (struct patch_site){ (void *)s->addr, (const uint8_t *)s->addr, nop, s->len };
		}
		if (k && patch_text_quiescent(ps, k, err, sizeof(err)) < 0)
			fprintf(stderr, "objpatch: %s: %s\n", m->path, err);
		/* What each site holds now says what happened, whatever failed. */
		for (size_t j = first; j < i; j++) {
			struct rt_site *s = &m->sites[j];
			const uint8_t *nop = disabled_form(m, s, buf);

			if (nop && !same_bytes(nop, (const uint8_t *)s->addr, s->len))
				s->broken = true;
		}
		done += k;
		first = i;
	}
	return done;
}

int rt_scan_modules(size_t *patched)
{
	struct scan sc = { 0 };
	struct change ch = { 0 };
	bool quiescent = only_thread();
	size_t direct = 0;
	int rc = 0;

	dl_iterate_phdr(collect, &sc);
	for (size_t i = 0; i < sc.n; i++) {
		struct rt_module *m, **mods;

		sc.v[i].quiescent = quiescent;
		m = load_module(&sc.v[i]);

		free(sc.v[i].path);
		if (!m) {
			if (rt.err[0])
				fprintf(stderr, "objpatch: %s\n", rt.err);
			continue;
		}
		mods = realloc(rt.mods, (rt.nmods + 1) * sizeof(*rt.mods));
		if (!mods) {
			free_module(m);	/* nothing written to it yet */
			rc = -1;
			continue;
		}
		rt.mods = mods;
		rt.mods[rt.nmods++] = m;
		/*
		 * s390x (encode_site): the disabled form holds the stub's
		 * displacement, written first, so that enabling later changes one
		 * byte; it needs each function's capture.  Other threads may run
		 * (dlopen): on a store machine patch_text_quiescent() is the
		 * ordinary batch, and the arch's store_ok() allows only changes to
		 * a NOP there.
		 */
		if (rt_arch_host.encode_site && ensure_functions(m) < 0)
			rc = -1;
		else if (rt_arch_host.encode_site || (quiescent && !nfilters))
			direct += nop_all_direct(m);
		/* A module whose sites could not all be planned keeps those it could. */
		if (!(quiescent && !nfilters) && first_patch(m, &ch) < 0)
			rc = -1;
	}
	free(sc.v);
	if (ch.n)
		apply(&ch, quiescent);
	if (patched)
		*patched = ch.n + direct;
	free_change(&ch);
	return rc;
}

int rt_set_filter(const char *glob, bool on)
{
	struct change ch = { 0 };
	int changed = 0;

	if (remember_filter(glob, on) < 0)
		return rt_error("out of memory"), -1;
	for (size_t i = 0; i < rt.nmods; i++) {
		struct rt_module *m = rt.mods[i];

		if (ensure_functions(m) < 0) {
			free_change(&ch);
			return -1;
		}
		for (size_t j = 0; j < m->nsites; j++) {
			struct rt_site *s = &m->sites[j];

			if (s->broken || s->enabled == on || !name_matches(glob, m->syms.funcs[s->func].name))
				continue;
			if (add_change(&ch, m, s, on, NULL, NULL) < 0) {
				free_change(&ch);
				return rt_error("out of memory"), -1;
			}
		}
	}
	changed = (int)ch.n - apply(&ch, false);
	free_change(&ch);
	return changed;
}

static const struct rt_site *site_for_ra(const struct rt_module *m, uintptr_t ra)
{
	size_t lo = 0, hi = m->nsites;

	/* The site is the last one starting below ra; its call ends at ra. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sites[mid].addr < ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &m->sites[lo - 1] : NULL;
}

struct sym_func *rt_func_for_ra(uintptr_t ra)
{
	/* MIPS: a recording's sites are the sequences' first words, up to ra_span before ra. */
	uintptr_t span = rt_arch_host.ra_span ? rt_arch_host.ra_span : RT_MAX_SITE;

	for (size_t i = 0; i < rt.nmods; i++) {
		struct rt_module *m = rt.mods[i];
		const struct rt_site *s;

		if (ra <= m->lo || ra > m->hi + span)
			continue;
		s = site_for_ra(m, ra);
		if (s && ra - s->addr <= span && ensure_functions(m) == 0)
			return &m->syms.funcs[s->func];
	}
	return NULL;
}
