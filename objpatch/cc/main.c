// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch-cc, objpatch-c++: a compiler wrapper, as ccache is one, so that
 * any build system (make, autotools, CMake, Meson) makes traceable
 * programs: the real compiler runs with the machine's instrumentation
 * flags, and every object it writes is recorded (user mode, sites NOP'd)
 * before the build goes on.  Links never get the flags.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "objpatch/cc/cmdline.h"
#include "objpatch/cc/cc.h"
#include "objpatch/cc/compiler.h"
#include "util/array.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

struct argvec {
	char **v;
	size_t n, cap;
};

static void add(struct argvec *a, const char *s)
{
	/* Room for it and the NULL after it; a wrapper without memory cannot run the compiler either. */
	if (!grow_array(&a->v, a->n + 1, &a->cap, sizeof(*a->v)))
		abort();
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static void add_compiler(struct argvec *a, const struct compiler *cc)
{
	add(a, cc->path);
	for (size_t i = 1; i < cc->nwords; i++)
		add(a, cc->words[i]);
}

/* The form's words, split once: each compile of a compile-and-link adds them all. */
static char **split_flags(char *flags)
{
	struct argvec words = { 0 };

	for (char *save, *w = strtok_r(flags, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		add(&words, w);
	add(&words, "");	/* never NULL: an empty form is a list of no words */
	words.v[--words.n] = NULL;
	return words.v;
}

/*
 * The instrumentation: the machine's form, and -g for the prototypes unless
 * the user chose.  The prototypes need types, not where variables live:
 * without var-tracking the same code is built with the same prototypes in
 * about half of -g's extra time (docs/usage.md, "Tracing a real project").
 */
static void add_flags(struct argvec *a, char **flags, const struct cmdline *c)
{
	for (size_t i = 0; flags[i]; i++)
		add(a, flags[i]);
	if (!c->has_g) {
		add(a, "-g");
		add(a, "-fno-var-tracking");
	}
}

/* Temporary objects of a compile-and-link, removed however the wrapper ends. */
static char tmpdir[4096];
static char *tmp_objs[256];
static volatile size_t ntmp;

static void cleanup(void)
{
	for (size_t i = 0; i < ntmp; i++)
		unlink(tmp_objs[i]);
	if (tmpdir[0])
		rmdir(tmpdir);
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Where gcc and clang put the object of `-c SRC` without -o: SRC's base name, .o, here. */
static char *object_of(const char *src)
{
	const char *base = base_name(src), *dot = strrchr(base, '.');
	char *out;

	if (asprintf(&out, "%.*s.o", (int)(dot ? dot - base : (long)strlen(base)), base) < 0)
		abort();
	return out;
}

/* Sources compiled without the flags: assembly, headers, other languages. */
static bool plain_source(const struct arg *a)
{
	return a->input && a->lang != LANG_TRACED && a->lang != LANG_LINK;
}

static bool keep_input(const struct arg *a, int traced)
{
	return traced < 0 || plain_source(a) == (traced == 0);
}

static bool has_plain_sources(const struct cmdline *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (plain_source(&c->v[i]))
			return true;
	return false;
}

/* The command with only some inputs (traced: 1 all but plain sources, 0 those alone, -1 all). */
static void add_args(struct argvec *a, const struct cmdline *c, int traced)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->v[i].input || keep_input(&c->v[i], traced))
			add(a, c->v[i].text);
}

static bool is_regular(const char *path)
{
	struct stat st;

	/* a missing object is cc_record's to report */
	return stat(path, &st) < 0 || S_ISREG(st.st_mode);
}

static int record_objects(const struct cmdline *c)
{
	int failed = 0;

	for (size_t i = 0; i < c->n; i++) {
		char *obj;

		if (!c->v[i].input || c->v[i].lang != LANG_TRACED)
			continue;
		obj = c->output ? strdup(c->output) : object_of(c->v[i].text);
		/* `-c -o /dev/null` (configure's checks): no object to keep, nothing to remove */
		if (!is_regular(obj)) {
			free(obj);
			continue;
		}
		if (cc_record(obj) < 0) {
			unlink(obj);
			failed = 1;
		}
		free(obj);
	}
	return failed;
}

/*
 * -c: one run with the flags, then each object recorded.  Sources that are
 * not instrumented (assembly) in the same command compile in a run of
 * their own, without the flags.
 */
static int compile_only(const struct compiler *cc, const struct cmdline *c, char **orig, int norig, char **flags)
{
	struct argvec a = { 0 }, rest = { 0 };
	bool split = has_plain_sources(c);
	int status;

	if (c->output && strcmp(c->output, "-") == 0) {
		fprintf(stderr, "objpatch-cc: -o -: an object written to standard output cannot be recorded: "
			"write it to a file\n");
		return 1;
	}
	add_compiler(&a, cc);
	if (!split)
		for (int i = 0; i < norig; i++)
			add(&a, orig[i]);
	else
		add_args(&a, c, 1);
	add_flags(&a, flags, c);
	status = run_wait(a.v);
	if (status == 0 && split) {
		add_compiler(&rest, cc);
		add_args(&rest, c, 0);
		status = run_wait(rest.v);
	}
	free(a.v);
	free(rest.v);
	return status ? status : record_objects(c);
}

/*
 * -MD in a compile-and-link: gcc and clang write PROG.d with the target
 * PROG (`cc -MMD -o prog prog.c`); the temporary object's compile must
 * too.  With more than one source (no one place) or no -o, to /dev/null:
 * never a file left in the temporary directory.
 */
static void add_dep_file(struct argvec *a, const struct cmdline *c, char **dep)
{
	const char *dot = c->output ? strrchr(base_name(c->output), '.') : NULL;

	*dep = NULL;
	if (!c->md || c->mf)
		return;
	add(a, "-MF");
	if (!c->output || c->ntraced != 1) {
		add(a, "/dev/null");
		return;
	}
	if (asprintf(dep, "%.*s.d", (int)(dot ? dot - c->output : (long)strlen(c->output)), c->output) < 0)
		abort();
	add(a, *dep);
	if (!c->mt)
		add(a, "-MT"), add(a, c->output);
}

/* TMPDIR/N-SRC.o: numbered, as two sources may share a base name (a/x.c b/x.c). */
static char *temp_object(const char *src)
{
	const char *base = base_name(src), *dot = strrchr(base, '.');
	char *obj;

	if (asprintf(&obj, "%s/%zu-%.*s.o", tmpdir, ntmp, (int)(dot ? dot - base : (long)strlen(base)), base) < 0)
		abort();
	return obj;
}

/* One traced source of a compile-and-link, compiled with -c into the temporary directory. */
static int compile_temp(const struct compiler *cc, const struct cmdline *c, size_t src, char **flags, char **obj)
{
	struct argvec a = { 0 };
	char *dep;
	int status;

	*obj = NULL;
	if (ntmp == sizeof(tmp_objs) / sizeof(tmp_objs[0])) {
		fprintf(stderr, "objpatch-cc: more than %zu sources in one compile-and-link: compile them with -c\n",
			ntmp);
		return 1;
	}
	*obj = temp_object(c->v[src].text);
	tmp_objs[ntmp++] = *obj;
	add_compiler(&a, cc);
	for (size_t i = 0; i < c->n; i++) {
		const struct arg *v = &c->v[i];

		/* a -x after the source would apply to no file: gcc warns */
		if ((v->input && i != src) || v->link_only || v->is_output || (v->is_x && i > src) ||
		    (v->opt_arg && (c->v[i - 1].is_output || (c->v[i - 1].is_x && i > src))))
			continue;
		add(&a, v->text);
	}
	add(&a, "-c");
	add(&a, "-o");
	add(&a, *obj);
	add_dep_file(&a, c, &dep);
	add_flags(&a, flags, c);
	status = run_wait(a.v);
	free(dep);
	free(a.v);
	if (status)
		return status;
	return cc_record(*obj) < 0 ? 1 : 0;
}

/*
 * Compile and link in one command (configure's tests): each traced source
 * compiled and recorded alone, then the link with their objects in their
 * places and no instrumentation flags (no -pg start-up files, no gmon.out).
 */
static int compile_and_link(const struct compiler *cc, const struct cmdline *c, char **flags)
{
	const char *tmp = getenv("TMPDIR");
	struct argvec a = { 0 };
	const char *x = NULL;	/* the -x in force */
	int status = 0;

	snprintf(tmpdir, sizeof(tmpdir), "%s/objpatch-cc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "objpatch-cc: %s: %s: set TMPDIR to a writable directory\n", tmpdir, strerror(errno));
		tmpdir[0] = 0;
		return 1;
	}
	add_compiler(&a, cc);
	for (size_t i = 0; i < c->n && status == 0; i++) {
		const struct arg *v = &c->v[i];
		char *obj;

		if (v->is_x)
			x = v->text[2] ? v->text + 2 : (i + 1 < c->n ? c->v[i + 1].text : NULL);
		if (!v->input || v->lang != LANG_TRACED) {
			add(&a, v->text);
			continue;
		}
		status = compile_temp(cc, c, i, flags, &obj);
		if (status)
			break;
		/* the object is the linker's, whatever -x says about the files around it */
		if (x && strcmp(x, "none") != 0)
			add(&a, "-xnone");
		add(&a, obj);
		if (x && strcmp(x, "none") != 0)
			add(&a, "-x"), add(&a, x);
	}
	if (status == 0)
		status = run_wait(a.v);
	free(a.v);
	cleanup();
	return status;
}

static const struct { const char *name, *port; } ported[] = {
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) { #name, #port },
#include "arch/machines.h"
#undef MACHINE
};

static int refuse_machine(const struct cc_target *t)
{
	fprintf(stderr, "objpatch-cc: %s: no tracing runtime for this machine (objpatch traces", t->machine);
	for (size_t i = 0; i < sizeof(ported) / sizeof(ported[0]); i++)
		if (strcmp(ported[i].port, "-") != 0)
			fprintf(stderr, " %s", ported[i].name);
	fprintf(stderr, "): OBJPATCH_CC_OFF=1 builds it untraced\n");
	return 1;
}

static int refuse_lto(void)
{
	fprintf(stderr, "objpatch-cc: -flto: link-time optimization compiles the code again at the link, after "
		"its objects were recorded, and the program would be untraced: build without LTO (-fno-lto, "
		"meson -Db_lto=false, cmake -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF)\n");
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: objpatch-cc [COMPILER] [ARGS...]   (objpatch-c++: default c++)\n"
		"Runs COMPILER (default cc) with the instrumentation flags of its target machine and\n"
		"records every object it writes (recordmcount --mode=user --nop, in process), so the\n"
		"programs a build makes are traced by `objpatch run`.\n"
		"  CC='objpatch-cc gcc' CXX='objpatch-c++ g++' make\n"
		"Environment: OBJPATCH_CC_OFF=1 runs the compiler untouched; OBJPATCH_CC_FLAGS replaces the\n"
		"instrumentation flags; OBJPATCH_CC_VERBOSE=1 prints each command run.\n");
}

/* The first argument names the compiler when it is neither an option nor a file to compile or link. */
static bool is_compiler_word(const char *a)
{
	const char *dot = strrchr(base_name(a), '.');
	static const char *const objects[] = { ".o", ".a", ".so", ".lo", ".obj" };

	if (a[0] == '-' || a[0] == '@' || lang_of_name(a) != LANG_LINK || strstr(a, ".so."))
		return false;
	for (size_t i = 0; dot && i < sizeof(objects) / sizeof(objects[0]); i++)
		if (strcmp(dot, objects[i]) == 0)
			return false;
	return true;
}

/* objpatch-cc compiles with cc, objpatch-c++ with c++; a link named gcc (ccache's way) with gcc. */
static const char *default_compiler(const char *self)
{
	if (strcmp(self, "objpatch-cc") == 0)
		return "cc";
	if (strcmp(self, "objpatch-c++") == 0)
		return "c++";
	return self;
}

static int setup_compiler(struct compiler *cc, int argc, char **argv, int *first)
{
	const char *probe;
	char *p;

	*first = 1;
	cc->words[0] = argc > 1 && is_compiler_word(argv[1]) ? argv[(*first)++] : default_compiler(base_name(argv[0]));
	cc->nwords = 1;
	if (is_launcher(cc->words[0]) && *first < argc && is_compiler_word(argv[*first]))
		cc->words[cc->nwords++] = argv[(*first)++];
	cc->path = find_compiler(cc->words[0]);
	if (!cc->path)
		return -1;
	probe = cc->words[cc->nwords - 1];
	p = cc->nwords > 1 ? find_compiler(probe) : cc->path;
	cc->clang = compiler_is_clang(p ? p : probe, probe);
	if (p != cc->path)
		free(p);
	return 0;
}

static int wrap(const struct compiler *cc, char **args, int nargs)
{
	struct cmdline c;
	struct cc_target t;
	char *form, **flags;
	const char *env = getenv("OBJPATCH_CC_FLAGS");
	int rc;

	if (cmdline_parse(&c, args, nargs) < 0)
		return 1;
	if (c.passthrough || c.ntraced == 0)
		rc = -1;
	else if (c.lto)
		rc = refuse_lto();
	else if (cc_target_of(cc, &c, &t) < 0)
		rc = 1;
	else if (!t.flags && !(env && *env))
		rc = refuse_machine(&t);
	else {
		form = strdup(env && *env ? env : t.flags);
		flags = split_flags(form);
		rc = c.compile_only ? compile_only(cc, &c, args, nargs, flags) : compile_and_link(cc, &c, flags);
		free(flags);
		free(form);
	}
	cmdline_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	struct compiler cc = { 0 };
	const char *off = getenv("OBJPATCH_CC_OFF"), *verbose = getenv("OBJPATCH_CC_VERBOSE");
	struct argvec a = { 0 };
	int first, rc;

	/* A link named gcc (ccache's way) passes --version to gcc. */
	bool named_self = strcmp(default_compiler(base_name(argv[0])), base_name(argv[0])) != 0;

	if (argc == 2 && strcmp(argv[1], "--help") == 0)
		return usage(stdout), 0;
	if (argc == 2 && strcmp(argv[1], "--version") == 0 && named_self)
		return printf("%s %s\n", base_name(argv[0]), VERSION), 0;
	cc_verbose = verbose && strcmp(verbose, "0") != 0 && *verbose;
	if (setup_compiler(&cc, argc, argv, &first) < 0)
		return 127;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	rc = off && *off && strcmp(off, "0") != 0 ? -1 : wrap(&cc, argv + first, argc - first);
	if (rc < 0) {
		/* nothing to instrument: become the compiler, the arguments as they came */
		add_compiler(&a, &cc);
		for (int i = first; i < argc; i++)
			add(&a, argv[i]);
		rc = run_exec(a.v);
		free(a.v);
	}
	free(cc.path);
	return rc;
}
