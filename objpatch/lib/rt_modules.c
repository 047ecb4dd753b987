// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loaded modules: finding them, reading and checking their sites, a
 * page of stubs within reach of each, and the function a return address
 * is in.  Writing the sites is rt_sites.c's.
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
#include "util/array.h"

/* Error-checking: a thread that records while it holds the lock must not wait for the writer (rt_output.c). */
struct rt_state runtime = { .lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP, .depth = 256 };

void rt_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(runtime.err, sizeof(runtime.err), fmt, ap);
	va_end(ap);
}

/*
 * The program is read as /proc/self/exe, which in objpatch's messages
 * would name objpatch itself: its path instead.  `msg` is rt_warn()'s.
 */
static const char *shown_to_objpatch(const char *msg)
{
	static char out[sizeof(runtime.err) + 4096];
	char exe[4096];
	ssize_t n;

	if (strncmp(msg, "/proc/self/exe", 14) || (n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return msg;
	exe[n] = 0;
	snprintf(out, sizeof(out), "%s%s", exe, msg + 14);
	return out;
}

/*
 * A process objpatch attached to must see nothing on its standard error:
 * the message is kept in runtime.err there (objpatch_error()) and goes to
 * objpatch in the session's recording, else it is printed.
 */
void rt_warn(const char *fmt, ...)
{
	char msg[sizeof(runtime.err)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (rt_attached) {
		memcpy(runtime.err, msg, sizeof(msg));
		rt_raw_note(shown_to_objpatch(msg));
	} else
		fprintf(stderr, "objpatch: %s\n", msg);
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
	for (size_t i = 0; i < runtime.nmods; i++)
		if (runtime.mods[i]->bias == bias && strcmp(runtime.mods[i]->path, path) == 0)
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
	const struct arch *a = rt_arch_host.desc;

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

/* How many bytes the site holds, a hook call or its NOP; 0: neither. */
size_t rt_site_length(const uint8_t *code)
{
	for (size_t i = 0; i < nforms; i++)
		if (insn_matches(forms[i].call, code, forms[i].len, host_big_endian) ||
		    rt_same_bytes(code, forms[i].nop, forms[i].len))
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

const uint8_t *rt_site_nop(const struct rt_site *s)
{
	const uint8_t *own = rt_arch_host.site_nop ? rt_arch_host.site_nop(s->addr, s->len) : NULL;

	return own ? own : nop_bytes(s->len);
}

/*
 * A pad holds NOPs of the compiler's choosing: gcc's five 0x90, clang's one
 * `nopl 8(%rax,%rax)`.  They become our NOP of the site's length, so that
 * every later patch knows both forms: a single instruction at any time
 * (the int3 protocol), a run of several only while no other thread runs,
 * since a thread may be inside the run.  After start-up such a run is left
 * alone (NOT_ALONE).
 */
enum adopted { ADOPTED, NOT_NOPS, NOT_ALONE };

static enum adopted adopt_nops(uintptr_t addr, size_t len, bool quiescent)
{
	const struct arch *a = rt_arch_host.desc;
	const uint8_t *nop = nop_bytes(len);
	uint8_t old[RT_MAX_SITE];
	size_t insns = 0, n;
	struct patch_site ps = { (void *)addr, old, nop, len };
	char err[256];
	int rc;

	if (!nop || !a->pad_nop_len || len > sizeof(old))
		return NOT_NOPS;
	memcpy(old, (const void *)addr, len);
	for (size_t at = 0; at < len; at += n, insns++)
		if (!(n = a->pad_nop_len(old + at, len - at)))
			return NOT_NOPS;
	if (insns > 1 && !quiescent)
		return NOT_ALONE;
	rc = insns > 1 ? patch_text_quiescent(&ps, 1, err, sizeof(err)) :
			 patch_text((void *)addr, old, nop, len, err, sizeof(err));
	if (rc < 0)
		rt_warn("%s", err);
	return rc == 0 ? ADOPTED : NOT_NOPS;
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

		if (te[i].patchable && te[i].addr && in_exec(fd, at, pre) && rt_same_bytes((const uint8_t *)at, nop, pre))
			ps[n++] = (struct patch_site){ (void *)at, nop, rt_arch_host.pad_prefix, pre };
	}
	if (n && patch_text_batch(ps, n, err, sizeof(err)) < 0)
		for (size_t i = 0; i < n; i++)
			if (patch_text(ps[i].addr, nop, ps[i].repl, pre, err, sizeof(err)) < 0)
				rt_warn("%s", err);
	free(ps);
}

/*
 * A pad of several NOPs met while other threads may run: left as it is,
 * and counted apart from a pad that holds something else, since the fix
 * differs (start the runtime before the threads, or attach, which holds
 * them).
 */
#define PAD_NOT_ALONE ((size_t)-2)

/* A pad's site made ready: its prefix written, its NOPs ours.  Its length, 0 or PAD_NOT_ALONE. */
static size_t prepare_pad(const struct found *fd, uintptr_t site)
{
	size_t len = rt_arch_host.desc->pad_site_len, pre = rt_arch_host.pad_prefix_len;
	enum adopted how;

	if (!in_exec(fd, site - pre, pre + len) ||
	    (pre && !rt_same_bytes((const uint8_t *)(site - pre), rt_arch_host.pad_prefix, pre)))
		return 0;
	if (rt_site_length((const uint8_t *)site) == len)
		return len;
	how = adopt_nops(site, len, fd->quiescent);
	return how == ADOPTED ? len : how == NOT_ALONE ? PAD_NOT_ALONE : 0;
}

static int load_sites(struct elfobj *obj, const struct found *fd, struct rt_module *m)
{
	struct table_entry *te = NULL;
	size_t nt = 0, bad, unsupported, foreign = 0, not_alone = 0;

	if (sym_read_sites(obj, rt_arch_host.desc->pad_site_len, rt_arch_host.desc->pad_site_offset, &te, &nt, &bad,
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
		if (len == PAD_NOT_ALONE) {
			not_alone++;
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
		rt_warn("%s: %zu table entr%s not hold a hook call or NOP; left alone", m->path, bad,
			bad == 1 ? "y does" : "ies do");
	if (unsupported)
		rt_warn("%s: %zu -fpatchable-function-entry pads: not patched on this architecture yet; left alone",
			m->path, unsupported);
	if (not_alone)
		rt_warn("%s: %zu -fpatchable-function-entry pads of several NOPs left alone: other threads may be "
			"inside one (or, under qemu-user, the thread count is unknown); start the runtime before the "
			"threads, or attach", m->path, not_alone);
	if (foreign)	/* RT_SITE_REFUSED: s390x's clang -pg */
		rt_warn("%s: %zu hook calls not where this machine's trampolines can find the return address "
			"(mcount after the prologue? use -mfentry); left alone", m->path, foreign);
	return 0;
}

/*
 * Names and signatures, and which function each site is in: read when a
 * filter or the trace first needs them, since a program that traces
 * nothing (yet) should not pay for them at start-up.
 */
int rt_module_functions(struct rt_module *m)
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

bool rt_args_supported(void)
{
	return rt_arch_host.entry_args[SITE_MCOUNT][CAPTURE_GPR] || rt_arch_host.entry_args[SITE_FENTRY][CAPTURE_GPR];
}

void (*rt_entry_trampoline(unsigned kind, unsigned capture))(void)
{
	/* Attached, each session chooses: the entries then skip the arguments when it does not want them. */
	if ((runtime.args || rt_attached) && rt_args_supported())
		return rt_arch_host.entry_args[kind][capture];
	return rt_arch_host.entry[kind][capture];
}

size_t rt_stub_size(void)
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
			rt_arch_host.encode_stub((uint8_t *)p + (k * CAPTURES + c) * rt_stub_size(),
						 (uintptr_t)rt_entry_trampoline(k, c));
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

/* NULL with runtime.err set on failure; a module without sites is not kept (NULL, no error). */
static struct rt_module *load_module(struct found *f)
{
	struct rt_module *m = calloc(1, sizeof(*m));
	int fd;

	runtime.err[0] = 0;
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
	if (m->file->arch == rt_arch_host.desc && load_sites(m->file, f, m) == 0 && m->nsites) {
		m->lo = m->sites[0].addr;
		m->hi = m->sites[m->nsites - 1].addr + m->sites[m->nsites - 1].len;
		if (make_stubs(m) == 0)
			return m;
	}
	free_module(m);
	return NULL;
}

/*
 * The modules loaded since the last scan (at start-up: all), appended to
 * runtime.mods from *first on; their sites are read and checked, not written.
 * `quiescent`: no other thread runs.  0, or -1 when one could not be kept.
 */
int rt_load_modules(bool quiescent, size_t *first)
{
	struct scan sc = { 0 };
	int rc = 0;

	*first = runtime.nmods;
	dl_iterate_phdr(collect, &sc);
	for (size_t i = 0; i < sc.n; i++) {
		struct rt_module *m, **mods;

		sc.v[i].quiescent = quiescent;
		m = load_module(&sc.v[i]);
		free(sc.v[i].path);
		if (!m) {
			if (runtime.err[0])
				rt_warn("%s", runtime.err);
			continue;
		}
		mods = realloc(runtime.mods, (runtime.nmods + 1) * sizeof(*runtime.mods));
		if (!mods) {
			free_module(m);	/* none of its sites written yet */
			rc = -1;
			continue;
		}
		runtime.mods = mods;
		runtime.mods[runtime.nmods++] = m;
	}
	free(sc.v);
	return rc;
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
	uintptr_t span = rt_arch_host.desc->ra_span ? rt_arch_host.desc->ra_span : RT_MAX_SITE;

	for (size_t i = 0; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];
		const struct rt_site *s;

		if (ra <= m->lo || ra > m->hi + span)
			continue;
		s = site_for_ra(m, ra);
		if (s && ra - s->addr <= span && rt_module_functions(m) == 0)
			return &m->syms.funcs[s->func];
	}
	return NULL;
}
