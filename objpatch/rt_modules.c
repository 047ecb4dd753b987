// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loaded modules' tables and sites, and turning sites on and off.
 *
 * A module's tables come from its file (the executable through
 * /proc/self/exe, libraries by the loader's name), read with the recorder's
 * own reader; link-time addresses plus the load bias are the run-time ones.
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
#include "../arch/arch.h"
#include "../recordmcount/functions.h"
#include "patch.h"
#include "rt.h"
#include "tables.h"

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

static bool wanted(const struct rt_func *f)
{
	bool on = false;

	for (size_t i = 0; i < nfilters; i++)
		if (fnmatch(filters[i].glob, f->name, 0) == 0)
			on = filters[i].on;
	return on;
}

/* ---- loading a module ---- */

struct found {
	char *path;
	uintptr_t bias;
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

static int cmp_func(const void *a, const void *b)
{
	uintptr_t x = ((const struct rt_func *)a)->addr, y = ((const struct rt_func *)b)->addr;

	return x < y ? -1 : x > y;
}

static int cmp_rt_site(const void *a, const void *b)
{
	uintptr_t x = ((const struct rt_site *)a)->addr, y = ((const struct rt_site *)b)->addr;

	return x < y ? -1 : x > y;
}

/* Arena for the names a module keeps after its file image is gone. */
struct arena {
	char *p;
	size_t n, cap;
};

static size_t arena_add(struct arena *a, const char *s)
{
	size_t len = strlen(s) + 1, at = a->n;

	while (a->n + len > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 4096;
		char *p = realloc(a->p, cap);

		if (!p)
			return SIZE_MAX;
		a->p = p;
		a->cap = cap;
	}
	memcpy(a->p + at, s, len);
	a->n += len;
	return at;
}

/*
 * Functions by address: the prototype table's (with names and signatures),
 * then the symbol table's for the rest.  Names are arena offsets until the
 * arena stops moving.
 */
static int load_functions(struct elfobj *obj, struct rt_module *m, struct arena *names)
{
	struct proto_entry *pe = NULL;
	struct func_sym *fs;
	size_t np = 0, nf = 0;

	if (protos_read(obj, &pe, &np) < 0)
		return -1;
	fs = function_index(obj, &nf);
	for (size_t i = 0; i < np + nf; i++) {
		struct rt_func f = { 0 };
		size_t off;

		if (i < np) {
			f.addr = pe[i].where.addr + m->bias;
			f.size = pe[i].size;
			off = arena_add(names, pe[i].name);
			f.have_sig = sig_parse(pe[i].sig, &f.sig) == 0;
		} else {
			const struct func_sym *s = &fs[i - np];

			if (!s->sec || s->sec >= obj->nsec)
				continue;
			f.addr = obj->sec[s->sec].sh.sh_addr + s->off + m->bias;
			f.size = s->size;
			off = arena_add(names, s->name);
		}
		if (off == SIZE_MAX || !grow_array(&m->funcs, m->nfuncs, &m->nfuncs_cap, sizeof(*m->funcs))) {
			free(pe);
			free(fs);
			return -1;
		}
		f.name = (const char *)(uintptr_t)off;
		m->funcs[m->nfuncs++] = f;
	}
	free(pe);
	free(fs);
	/* Stable: for one address the prototype's entry (listed first) stays first. */
	qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), cmp_func);
	return 0;
}

/* The function holding `addr` among the first n (sorted), or SIZE_MAX. */
static size_t func_index_at(const struct rt_module *m, size_t n, uintptr_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return SIZE_MAX;
	/* Several entries at one address: prefer the first (the prototype's). */
	lo--;
	while (lo && m->funcs[lo - 1].addr == m->funcs[lo].addr)
		lo--;
	/* Past its end: code no symbol describes. */
	for (size_t i = lo; i < n && m->funcs[i].addr == m->funcs[lo].addr; i++)
		if (!m->funcs[i].size || addr < m->funcs[i].addr + m->funcs[i].size)
			return lo;
	return SIZE_MAX;
}

/* How many bytes the site holds, from the arch's call and NOP forms; 0: neither. */
static size_t site_length(const struct arch *a, const uint8_t *code)
{
	for (size_t i = 0; i < a->ncalls; i++) {
		const struct call_form *c = &a->calls[i];
		size_t len = insn_len(&c->nop);

		if (!len)
			continue;
		if (insn_matches(&c->site, code, len, false) || insn_matches(&c->nop, code, len, false))
			return len;
	}
	return 0;
}

static const struct call_form *nop_form(const struct arch *a, size_t len)
{
	for (size_t i = 0; i < a->ncalls; i++)
		if (insn_len(&a->calls[i].nop) == len)
			return &a->calls[i];
	return NULL;
}

static const struct arch *host_arch(void)
{
	GElf_Ehdr e = { .e_machine = rt_arch_host.machine };

	e.e_ident[EI_CLASS] = rt_arch_host.elfclass;
	e.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? ELFDATA2MSB : ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	return arch_for_ehdr(&e);
}

static void name_unnamed(struct rt_module *m, struct rt_site *s, struct arena *names)
{
	char buf[32];
	struct rt_func f = { .addr = s->addr };
	size_t off;

	snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)s->addr);
	off = arena_add(names, buf);
	if (off == SIZE_MAX || !grow_array(&m->funcs, m->nfuncs, &m->nfuncs_cap, sizeof(*m->funcs)))
		return;
	f.name = (const char *)(uintptr_t)off;
	s->func = (uint32_t)m->nfuncs;
	m->funcs[m->nfuncs++] = f;
}

static int load_sites(struct elfobj *obj, const struct found *fd, struct rt_module *m,
		      struct arena *names)
{
	const struct arch *a = host_arch();
	struct table_entry *te = NULL;
	size_t nt = 0, bad = 0, sorted = m->nfuncs;

	if (tables_read(obj, &te, &nt) < 0)
		return -1;
	m->sites = calloc(nt ? nt : 1, sizeof(*m->sites));
	if (!m->sites) {
		free(te);
		return -1;
	}
	for (size_t i = 0; i < nt; i++) {
		struct rt_site *s = &m->sites[m->nsites];
		uintptr_t addr = te[i].addr + m->bias;
		size_t len, fi;

		if (!te[i].user || !te[i].addr)
			continue;	/* kernel tables hold absolute addresses for another world */
		if (!in_exec(fd, addr, 1) || !(len = site_length(a, (const uint8_t *)addr)) ||
		    !in_exec(fd, addr, len)) {
			bad++;
			continue;
		}
		*s = (struct rt_site){ .addr = addr, .len = (uint8_t)len,
				       .kind = te[i].entry ? SITE_FENTRY : SITE_MCOUNT };
		fi = func_index_at(m, sorted, addr);
		if (fi == SIZE_MAX)
			name_unnamed(m, s, names);
		else
			s->func = (uint32_t)fi;
		m->nsites++;
	}
	free(te);
	qsort(m->sites, m->nsites, sizeof(*m->sites), cmp_rt_site);
	if (bad)
		fprintf(stderr, "objpatch: %s: %zu table entries do not hold a hook call or NOP; left alone\n",
			m->path, bad);
	return 0;
}

/* Can every site of the module call anywhere in [p, p + size)? */
static bool within_reach(const struct rt_module *m, uintptr_t p, uintptr_t size)
{
	uintptr_t span = p < m->lo ? m->hi - p : p + size - m->lo;

	return span <= rt_arch_host.reach;
}

/* A page within reach of every site, holding one stub per entry trampoline. */
static int make_stubs(struct rt_module *m)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), step = 1 << 20;
	uintptr_t above = (m->hi + page - 1) & ~(page - 1), below = m->lo & ~(page - 1);
	void *p = MAP_FAILED;

	/* The nearest free page above the text, then below it, a megabyte at a time. */
	for (uintptr_t off = 0; off < rt_arch_host.reach && p == MAP_FAILED; off += step) {
		uintptr_t cand[2] = { above + off, below > off + page ? below - off - page : 0 };

		for (int i = 0; i < 2 && p == MAP_FAILED; i++) {
			if (!cand[i] || !within_reach(m, cand[i], page))
				continue;
			p = mmap((void *)cand[i], page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			/* Old kernels take the address as a hint only. */
			if (p != MAP_FAILED && !within_reach(m, (uintptr_t)p, page)) {
				munmap(p, page);
				p = MAP_FAILED;
			}
		}
	}
	if (p == MAP_FAILED)
		return rt_error("%s: no free page within reach of its code", m->path), -1;
	for (int k = 0; k < SITE_KINDS; k++)
		for (int c = 0; c < CAPTURES; c++)
			rt_arch_host.encode_stub((uint8_t *)p + (k * CAPTURES + c) * STUB_SIZE,
						 (uintptr_t)rt_arch_host.entry[k][c]);
	if (mprotect(p, page, PROT_READ | PROT_EXEC)) {
		munmap(p, page);
		return rt_error("%s: mprotect: %s", m->path, strerror(errno)), -1;
	}
	__builtin___clear_cache((char *)p, (char *)p + page);
	m->stubs = p;
	return 0;
}

static void finish_names(struct rt_module *m, struct arena *names)
{
	m->strings = names->p;
	for (size_t i = 0; i < m->nfuncs; i++)
		m->funcs[i].name = m->strings + (uintptr_t)m->funcs[i].name;
}

static void free_module(struct rt_module *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].have_sig)
			sig_free(&m->funcs[i].sig);
	free(m->funcs);
	free(m->sites);
	free(m->strings);
	free(m->path);
	free(m);
}

/* NULL with rt.err set on failure; a module without sites is not kept (NULL, no error). */
static struct rt_module *load_module(struct found *f)
{
	struct rt_module *m = calloc(1, sizeof(*m));
	struct elfobj obj = { 0 };
	struct arena names = { 0 };
	int fd;

	rt.err[0] = 0;
	if (!m)
		return NULL;
	m->path = f->path;
	f->path = NULL;
	m->bias = f->bias;
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || elfobj_load(&obj, m->path, fd) < 0) {
		/* A module we cannot read has no tables we could use: not an error. */
		if (fd >= 0)
			close(fd);
		elfobj_free(&obj);
		free_module(m);
		return NULL;
	}
	close(fd);
	if (obj.arch == host_arch() && load_functions(&obj, m, &names) == 0 &&
	    load_sites(&obj, f, m, &names) == 0 && m->nsites) {
		m->lo = m->sites[0].addr;
		m->hi = m->sites[m->nsites - 1].addr + m->sites[m->nsites - 1].len;
		finish_names(m, &names);
		elfobj_free(&obj);
		if (make_stubs(m) == 0)
			return m;
		free_module(m);
		return NULL;
	}
	elfobj_free(&obj);
	free(names.p);
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
static enum capture capture_for(const struct rt_func *f)
{
	const struct sig_type *r = &f->sig.ret;

	if (!f->have_sig || !(f->sig.flags & PROTO_RELIABLE))
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
	return (uintptr_t)m->stubs + (s->kind * CAPTURES + capture_for(&m->funcs[s->func])) * STUB_SIZE;
}

/* The bytes a site holds in a state: our call, or the NOP of its length. */
static bool site_bytes(const struct rt_module *m, const struct rt_site *s, bool on, uint8_t *out)
{
	const struct call_form *c;

	if (on)
		return rt_arch_host.encode_call(out, s->len, s->addr, stub_for(m, s));
	c = nop_form(host_arch(), s->len);
	if (!c)
		return false;
	insn_write(&c->nop, out, false);
	return true;
}

static int add_change(struct change *ch, const struct rt_module *m, struct rt_site *s, bool on,
		      const uint8_t *current)
{
	size_t cap = ch->cap;

	if (ch->n == ch->cap) {
		cap = cap ? 2 * cap : 256;
		void *a = realloc(ch->ps, cap * sizeof(*ch->ps));

		if (!a)
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
	}
	if (current)
		memcpy(ch->bytes[ch->n][0], current, s->len);
	else if (!site_bytes(m, s, s->enabled, ch->bytes[ch->n][0]))
		return 0;
	if (!site_bytes(m, s, on, ch->bytes[ch->n][1]))
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
	for (size_t i = 0; i < m->nsites; i++) {
		struct rt_site *s = &m->sites[i];
		bool on = wanted(&m->funcs[s->func]);
		uint8_t want[RT_MAX_SITE];

		if (!site_bytes(m, s, on, want)) {
			s->broken = true;
			continue;
		}
		if (memcmp(want, (const void *)s->addr, s->len) == 0) {
			s->enabled = on;
			continue;
		}
		if (add_change(ch, m, s, on, (const uint8_t *)s->addr) < 0)
			return -1;
	}
	return 0;
}

int rt_scan_modules(size_t *patched)
{
	struct scan sc = { 0 };
	struct change ch = { 0 };
	int rc = 0;

	dl_iterate_phdr(collect, &sc);
	for (size_t i = 0; i < sc.n; i++) {
		struct rt_module *m = load_module(&sc.v[i]), **mods;

		free(sc.v[i].path);
		if (!m) {
			if (rt.err[0])
				fprintf(stderr, "objpatch: %s\n", rt.err);
			continue;
		}
		mods = realloc(rt.mods, (rt.nmods + 1) * sizeof(*rt.mods));
		if (!mods || first_patch(m, &ch) < 0) {
			free(mods ? mods : rt.mods);
			rt.mods = NULL;
			rt.nmods = 0;
			rc = -1;
			break;
		}
		rt.mods = mods;
		rt.mods[rt.nmods++] = m;
	}
	free(sc.v);
	if (rc == 0 && ch.n)
		apply(&ch, only_thread());
	if (patched)
		*patched = ch.n;
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

		for (size_t j = 0; j < m->nsites; j++) {
			struct rt_site *s = &m->sites[j];

			if (s->broken || s->enabled == on || fnmatch(glob, m->funcs[s->func].name, 0))
				continue;
			if (add_change(&ch, m, s, on, NULL) < 0) {
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

const struct rt_func *rt_func_for_ra(uintptr_t ra)
{
	for (size_t i = 0; i < rt.nmods; i++) {
		const struct rt_module *m = rt.mods[i];
		const struct rt_site *s;

		if (ra <= m->lo || ra > m->hi + RT_MAX_SITE)
			continue;
		s = site_for_ra(m, ra);
		if (s && ra - s->addr <= RT_MAX_SITE)
			return &m->funcs[s->func];
	}
	return NULL;
}
