// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Turning sites on and off: the filters (and their history, replayed on
 * modules loaded later), each site's bytes in either state, and writing
 * them in batches through the patcher (patch.c).  At start-up every site
 * goes straight to what the filters want; later, objpatch_enable() and
 * _disable() change the sites whose functions match.  The modules and
 * their checked sites come from rt_modules.c.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch/patch.h"
#include "objpatch/lib/rt.h"
#include "trace/arg_text.h"
#include "util/array.h"

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

/*
 * fnmatch(3) has no error for a pattern it cannot use: an unclosed '['
 * matches only itself, a trailing '\\' nothing.  Both are mistakes.
 */
const char *rt_pattern_error(const char *glob)
{
	if (!*glob)
		return "an empty pattern";
	for (const char *p = glob; *p; p++) {
		if (*p == '\\' && !*++p)
			return "a '\\' that quotes nothing at its end";
		if (*p != '[')
			continue;
		/* A bracket expression: "[!" or "[^" negates, a ']' right after is a member. */
		const char *q = p + 1;

		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;
		while (*q && *q != ']')
			q++;
		if (!*q)
			return "a '[' without its ']'";
		p = q;
	}
	return NULL;
}

static struct filter_op *filters;
static size_t nfilters, cap_filters;

static void forget_filters(void)
{
	for (size_t i = 0; i < nfilters; i++)
		free(filters[i].glob);
	nfilters = 0;
}

static int remember_filter(const char *glob, bool on)
{
	char *g = strdup(glob);

	if (!g || !grow_array(&filters, nfilters, &cap_filters, sizeof(*filters))) {
		free(g);
		return -1;
	}
	/* "*" decides every site: what came before it no longer matters. */
	if (strcmp(glob, "*") == 0)
		forget_filters();
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

/*
 * No other thread runs: a change of several instructions may then be
 * written in place (asked once per scan: it reads /proc).
 */
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
	case TC_STRUCT:
	case TC_UNION:
		return rt_memory_value_bytes(sig) ? CAPTURE_MEMORY : CAPTURE_ALL;
	default:
		return CAPTURE_ALL;
	}
}

static uintptr_t stub_for(const struct rt_module *m, const struct rt_site *s)
{
	return (uintptr_t)m->stubs + (s->kind * CAPTURES + capture_for(&m->syms.funcs[s->func])) * rt_stub_size();
}

size_t rt_memory_value_bytes(const struct signature *sig)
{
	struct arg_field fields[TRACE_ARG_FIELDS];
	size_t used = 0;
	/* With its members: where alignment decides (SH-4), size alone does not tell. */
	struct arg_type t = trace_arg_type(&sig->ret, fields, &used);
	const struct arch *a = rt_arch_host.desc;

	if (!a->values.memory_address_returned || !sig->ret.size || sig->ret.size > SIG_MEMBERS_MAX_SIZE ||
	    (sig->ret.cls != TC_STRUCT && sig->ret.cls != TC_UNION) ||
	    !rt_arch_host.entry[SITE_MCOUNT][CAPTURE_MEMORY])
		return 0;
	if ((sig->flags & PROTO_RET_MEM) || (a->ret_by_address && a->ret_by_address(&t) == 1))
		return sig->ret.size;
	return 0;
}

/* The bytes a site holds in a state: our call, or the NOP of its length. */
static bool site_bytes(const struct rt_module *m, const struct rt_site *s, bool on, uint8_t *out)
{
	const uint8_t *nop;

	/* Its arguments' places, before anything can call it (out of memory: left alone). */
	if (on && rt_args_enable(m, s) < 0)
		return false;
	if (rt_arch_host.encode_site)
		return rt_arch_host.encode_site(out, s->len, s->addr, stub_for(m, s), s->kind, on);
	if (on)
		return rt_arch_host.encode_call(out, s->len, s->addr, stub_for(m, s));
	nop = rt_site_nop(s);
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
				rt_warn("refusing to patch: %s", err);
			}
		}
	}
	return failures;
}

/* Start-up: every site to the state the filters want, from whatever it holds now. */
static int first_patch(struct rt_module *m, struct change *ch)
{
	if ((nfilters && rt_module_functions(m) < 0) || reserve_changes(ch, m->nsites) < 0)
		return -1;
	for (size_t i = 0; i < m->nsites; i++) {
		struct rt_site *s = &m->sites[i];
		bool on = nfilters && wanted(&m->syms.funcs[s->func]);
		uint8_t want[RT_MAX_SITE];

		if (!site_bytes(m, s, on, want)) {
			s->broken = true;
			continue;
		}
		if (rt_same_bytes(want, (const uint8_t *)s->addr, s->len)) {
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
		return rt_site_nop(s);
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
			else if (!rt_same_bytes(nop, (const uint8_t *)s->addr, s->len))
				ps[k++] = (struct patch_site){ (void *)s->addr, (const uint8_t *)s->addr, nop, s->len };
		}
		if (k && patch_text_quiescent(ps, k, err, sizeof(err)) < 0)
			rt_warn("%s: %s", m->path, err);
		/* What each site holds now says what happened, whatever failed. */
		for (size_t j = first; j < i; j++) {
			struct rt_site *s = &m->sites[j];
			const uint8_t *nop = disabled_form(m, s, buf);

			if (nop && !rt_same_bytes(nop, (const uint8_t *)s->addr, s->len))
				s->broken = true;
		}
		done += k;
		first = i;
	}
	return done;
}

int rt_scan_modules(size_t *patched)
{
	struct change ch = { 0 };
	bool quiescent = rt_all_held || only_thread();
	size_t direct = 0, first;
	int rc = rt_load_modules(quiescent, &first);

	for (size_t i = first; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];

		/*
		 * s390x (encode_site): the disabled form holds the stub's
		 * displacement, written first, so that enabling later changes one
		 * byte; it needs each function's capture.  Other threads may run
		 * (dlopen): on a store machine patch_text_quiescent() is the
		 * ordinary batch, and the arch's store_ok() allows only changes to
		 * a NOP there.
		 */
		if (rt_arch_host.encode_site && rt_module_functions(m) < 0)
			rc = -1;
		else if (rt_arch_host.encode_site || (quiescent && !nfilters))
			direct += nop_all_direct(m);
		/* A module whose sites could not all be planned keeps those it could. */
		if (!(quiescent && !nfilters) && first_patch(m, &ch) < 0)
			rc = -1;
	}
	if (ch.n)
		apply(&ch, quiescent);
	if (patched)
		*patched = ch.n + direct;
	free_change(&ch);
	return rc;
}

/* Each function once: its sites are next to each other (sorted by address). */
static bool first_site_of_function(const struct rt_module *m, size_t j)
{
	return j == 0 || m->sites[j - 1].func != m->sites[j].func;
}

void rt_count_functions(size_t *funcs, size_t *traced)
{
	*funcs = *traced = 0;
	for (size_t i = 0; i < runtime.nmods; i++) {
		const struct rt_module *m = runtime.mods[i];

		for (size_t j = 0; j < m->nsites; j++) {
			if (!first_site_of_function(m, j))
				continue;
			++*funcs;
			*traced += m->sites[j].enabled;
		}
	}
}

/* Whether OBJPATCH_FILTER names functions: not only "*" (trace everything), where most never run. */
static bool filter_names_functions(void)
{
	for (size_t i = 0; i < runtime.nstart_filters; i++)
		if (runtime.start_filters[i].on && strcmp(runtime.start_filters[i].glob, "*"))
			return true;
	return false;
}

/* Appends `name` to the list of report_uncalled(): the first few, then only counted. */
static void list_name(char *list, size_t size, size_t n, const char *name)
{
	size_t len = strlen(list);

	if (n < 8)
		snprintf(list + len, size - len, "%s%s", n ? ", " : "", name);
	else if (n == 8)
		snprintf(list + len, size - len, ", ...");
}

void rt_report_uncalled(void)
{
	char list[512] = "";
	size_t n = 0;

	if (!filter_names_functions())
		return;
	for (size_t i = 0; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];

		if (rt_module_functions(m) < 0)
			continue;
		for (size_t j = 0; j < m->nsites; j++) {
			const struct sym_func *f = &m->syms.funcs[m->sites[j].func];

			if (first_site_of_function(m, j) && m->sites[j].enabled && !f->called)
				list_name(list, sizeof(list), n++, f->name);
		}
	}
	if (n)
		fprintf(stderr, "objpatch: %zu function%s matched by the filter %s never called: %s (inlined at every "
			"call site? a function the compiler inlined everywhere keeps its out-of-line copy, which "
			"nothing calls)\n", n, n == 1 ? "" : "s", n == 1 ? "was" : "were", list);
}

size_t rt_count_matches(const char *glob)
{
	size_t n = 0;

	for (size_t i = 0; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];

		if (rt_module_functions(m) < 0)
			continue;
		for (size_t j = 0; j < m->nsites; j++)
			n += first_site_of_function(m, j) && name_matches(glob, m->syms.funcs[m->sites[j].func].name);
	}
	return n;
}

int rt_set_filter(const char *glob, bool on, size_t *matched)
{
	struct change ch = { 0 };
	int changed = 0;

	if (remember_filter(glob, on) < 0)
		return rt_error("out of memory"), -1;
	for (size_t i = 0; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];

		if (rt_module_functions(m) < 0) {
			free_change(&ch);
			return -1;
		}
		for (size_t j = 0; j < m->nsites; j++) {
			struct rt_site *s = &m->sites[j];

			if (!name_matches(glob, m->syms.funcs[s->func].name))
				continue;
			*matched += first_site_of_function(m, j);
			if (s->broken || s->enabled == on)
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

int rt_set_filters(const struct rt_filter *f, size_t n, bool fresh)
{
	struct change ch = { 0 };
	int rc = 0;

	if (fresh)
		forget_filters();
	for (size_t i = 0; i < n; i++)
		if (remember_filter(f[i].glob, f[i].on) < 0)
			return rt_error("out of memory"), -1;
	for (size_t i = 0; i < runtime.nmods; i++) {
		struct rt_module *m = runtime.mods[i];

		if (rt_module_functions(m) < 0) {
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < m->nsites; j++) {
			struct rt_site *s = &m->sites[j];
			bool on = wanted(&m->syms.funcs[s->func]);

			if (s->broken || s->enabled == on)
				continue;
			if (add_change(&ch, m, s, on, NULL, NULL) < 0) {
				free_change(&ch);
				return rt_error("out of memory"), -1;
			}
		}
	}
	apply(&ch, false);
	free_change(&ch);
	return rc;
}
