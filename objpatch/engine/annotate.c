// SPDX-License-Identifier: GPL-2.0-only
//
// objpatch annotate: rewrites the return values of a kernel function_graph
// trace (funcgraph-retval) by the functions' return types, read from the
// prototype tables of vmlinux and modules.  The kernel prints the first
// return register of every function as if it held a long: void functions
// show whatever was left there, narrow types show the register's upper bits.
// Only the value is rewritten; every other byte of a line stays as it was,
// so the columns keep their alignment.
//
// Formats read (Documentation/trace/ftrace.rst, print_graph_retval()):
//   6.5 to 6.12   leaf "f(); /* = 0x0 */"      closing "} /* f = -22 */"
//   6.13 and on   leaf "f(); /* ret=0x0 */"    closing "} /* f ret=-22 */"
//                 (a return address "<-caller+0x1/0x2" may come first)
//   the 2019 RFC  closing "} /* ret=0x0 */", which does not name f
// The kernel prints hex, or decimal when the value is an errno (-4095..-1,
// also after sign-extending a 32-bit value on a 64-bit kernel).  The
// argument lists of funcgraph-args (6.15) are retyped by annotate_args.c.
//
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/files.h"
#include "objpatch/engine/annotate.h"
#include "objpatch/engine/annotate_args.h"
#include "objpatch/engine/opts.h"
#include "trace/format.h"
#include "tables/sig.h"
#include "tables/tables.h"
#include "util/array.h"
#include "util/u64map.h"

/* ---- the functions of the images ---- */

struct fn {
	const char *name;	/* in an image's mapping */
	const char *sig;
	bool ambiguous;		/* one name, several return types: which one ran is unknown */
	bool params_differ;	/* one name, several signatures: whose arguments were printed is unknown */
	int parsed;		/* 0: not yet; 1: in `s`; -1: malformed */
	struct signature s;
};

struct image {
	struct elfobj obj;
	struct proto_entry *protos;
	size_t n;
};

/* What --stats counts: values by what annotate made of them, and the functions seen. */
enum value_class {
	VC_VOID, VC_BOOL, VC_ENUM, VC_ERRNO, VC_INTEGER, VC_POINTER, VC_OTHER,
	VC_UNKNOWN, VC_NOT_FOUND, VC_N
};

struct annot_stats {
	unsigned long lines, calls, values, changed;
	unsigned long narrowed;	/* typed values whose register held bits above the type's width */
	bool last_narrowed;	/* set by decide() */
	unsigned long by_class[VC_N];
	char **names;		/* the functions the trace names, each once */
	bool *found;
	size_t nnames, cap;
	enum value_class last;	/* set by decide() */
};

struct annot {
	struct image *img;
	size_t nimg;
	struct fn *fn;
	size_t nfn;
	struct format_target target;
	bool hex;
	unsigned long not_understood;
	struct annot_stats *stats;	/* NULL: --stats not given */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: objpatch annotate --image FILE [--image FILE]... [--hex] [--strict] [--stats]\n"
		   "                        [TRACE]\n"
		   "Rewrites the return values of a kernel function_graph trace (funcgraph-retval;\n"
		   "TRACE or standard input) by the return types in the prototype tables of the\n"
		   "images (vmlinux, modules).  Values that cannot be typed are kept and marked '?'.\n"
		   "Argument lists (funcgraph-args) are typed by the parameters the same way.\n"
		   "  -i, --image=FILE   a vmlinux or module with a prototype table (repeatable)\n"
		   "      --hex          integers in hex\n"
		   "      --strict       exit 1 when a line was not understood\n"
		   "      --stats        counts to standard error: lines, functions (and those not\n"
		   "                     in the tables), values by class; exit 1 when a function\n"
		   "                     is not in the tables\n"
		   "  -h, --help         this text\n"
		   "Exit status: 0; 1 when the trace could not be read (or, with --strict, a line was\n"
		   "not understood); 2 for a usage error or an image that cannot be used.\n");
}

/* A trace: a file, or a FIFO whose writer it waits for (as cat would); never a device (/dev/zero). */
static FILE *open_trace(const char *path)
{
	struct stat st;
	FILE *f = NULL;
	const char *why;
	int fd;

	if (!(why = file_open_input(path, true, &fd, &st)) && !(f = fdopen(fd, "r"))) {
		why = strerror(errno);
		close(fd);
	}
	if (why)
		fprintf(stderr, "objpatch annotate: %s: %s\n", path, why);
	return f;
}

static int load_image(struct image *im, const char *path)
{
	struct stat st;
	const char *why;
	int fd, rc;

	if ((why = file_open_input(path, false, &fd, &st))) {
		fprintf(stderr, "objpatch annotate: %s: %s\n", path, why);
		return -1;
	}
	rc = elfobj_load_mapped(&im->obj, path, fd);
	close(fd);
	if (rc == 0)
		rc = protos_read(&im->obj, &im->protos, &im->n);
	if (rc < 0) {
		fprintf(stderr, "objpatch annotate: %s: %s\n", path, im->obj.err);
		return -1;
	}
	for (size_t i = 1; i < im->obj.nsec; i++)
		if (strcmp(im->obj.sec[i].name, PROTO_TABLE) == 0 || strcmp(im->obj.sec[i].name, PROTO_RET_TABLE) == 0)
			return 0;
	fprintf(stderr, "objpatch annotate: %s: no prototype table (" PROTO_TABLE " or " PROTO_RET_TABLE "): "
		"record its objects from -g builds\n", path);
	return -1;
}

/* Every image must be for the one machine the trace comes from. */
static int image_target(struct annot *a)
{
	const GElf_Ehdr *first = &a->img[0].obj.ehdr;

	for (size_t i = 1; i < a->nimg; i++) {
		const GElf_Ehdr *e = &a->img[i].obj.ehdr;

		if (e->e_machine != first->e_machine || e->e_ident[EI_CLASS] != first->e_ident[EI_CLASS] ||
		    e->e_ident[EI_DATA] != first->e_ident[EI_DATA]) {
			fprintf(stderr, "objpatch annotate: %s: another machine than %s\n", a->img[i].obj.path,
				a->img[0].obj.path);
			return -1;
		}
	}
	/* Loading found the image's descriptor, which holds the ABI's return conventions. */
	format_target_for_arch(a->img[0].obj.arch, first->e_ident[EI_DATA] == ELFDATA2MSB, &a->target);
	return 0;
}

static int cmp_fn(const void *x, const void *y)
{
	const struct fn *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->sig, b->sig);
}

/*
 * The part of a signature a return value depends on: version, flags and the
 * return type, up to the first parameter.  Static functions of one name in
 * different files format alike when it is the same.
 */
static size_t return_part(const char *sig)
{
	const char *rs = strchr(sig, PROTO_RS[0]);

	rs = rs ? strchr(rs + 1, PROTO_RS[0]) : NULL;
	return rs ? (size_t)(rs - sig) : strlen(sig);
}

static bool same_return(const char *x, const char *y)
{
	size_t n = return_part(x);

	return n == return_part(y) && memcmp(x, y, n) == 0;
}

/* One entry per name, sorted for lookup. */
static int index_functions(struct annot *a)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < a->nimg; i++)
		total += a->img[i].n;
	a->fn = calloc(total ? total : 1, sizeof(*a->fn));
	if (!a->fn) {
		fprintf(stderr, "objpatch annotate: out of memory\n");
		return -1;
	}
	for (size_t i = 0; i < a->nimg; i++)
		for (size_t j = 0; j < a->img[i].n; j++)
			a->fn[k++] = (struct fn){ .name = a->img[i].protos[j].name,
						  .sig = a->img[i].protos[j].sig };
	qsort(a->fn, total, sizeof(*a->fn), cmp_fn);
	k = 0;
	for (size_t i = 0; i < total; i++) {
		if (k && strcmp(a->fn[k - 1].name, a->fn[i].name) == 0) {
			a->fn[k - 1].ambiguous |= !same_return(a->fn[k - 1].sig, a->fn[i].sig);
			a->fn[k - 1].params_differ |= strcmp(a->fn[k - 1].sig, a->fn[i].sig) != 0;
			continue;
		}
		a->fn[k++] = a->fn[i];
	}
	a->nfn = k;
	return 0;
}

static struct fn *lookup(struct annot *a, const char *name, size_t len)
{
	size_t lo = 0, hi = a->nfn;

	/* `name` is not NUL-terminated and may hold a NUL of a broken trace. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2, fl = strnlen(a->fn[mid].name, len + 1);
		int c = memcmp(a->fn[mid].name, name, fl < len ? fl : len);

		if (c == 0)
			c = fl < len ? -1 : fl > len;
		if (c == 0)
			return &a->fn[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct signature *signature_of(struct fn *f)
{
	if (!f->parsed)
		f->parsed = sig_parse(f->sig, &f->s) == 0 && f->s.known ? 1 : -1;
	return f->parsed > 0 ? &f->s : NULL;
}

/* ---- one line of the trace ---- */

enum kind {
	K_OTHER,	/* not understood */
	K_PLAIN,	/* understood, nothing to rewrite: headers, comments, interrupts */
	K_SWITCH,	/* " 1)  sh-42  =>  cat-43" */
	K_ENTRY,	/* "f() {" */
	K_LEAF,		/* "f();" */
	K_CLOSE,	/* "}" */
};

struct gline {
	enum kind kind;
	long cpu, pid;		/* -1: no such column */
	long prev_pid;		/* K_SWITCH: the task switched from */
	size_t indent;		/* spaces before the function part: its depth */
	const char *name;	/* NULL: none on the line */
	size_t name_len;
	size_t args, args_end;	/* K_ENTRY, K_LEAF: what the parentheses after the name hold */
	/*
	 * The comment ending the line (from the space before it), its text,
	 * the value item in it ("= V" or "ret=V") and V.
	 */
	bool has_comment, has_value, bad_value;
	size_t cmt, text, item, val, val_end;
	uint64_t raw;
};

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static bool starts(const char *s, size_t i, size_t end, const char *w)
{
	size_t n = strlen(w);

	return end - i >= n && memcmp(s + i, w, n) == 0;
}

/*
 * Past the " [module]" that %ps puts after the name of a module's function
 * ("bm_free [binfmt_misc]()"), from `j` just after the name; `j` if none.
 */
static size_t past_module(const char *s, size_t j, size_t end)
{
	size_t k = j + 2;

	if (!starts(s, j, end, " ["))
		return j;
	while (k < end && name_char(s[k]))
		k++;
	return k > j + 2 && k < end && s[k] == ']' ? k + 1 : j;
}

/* A function part starts at `i`: "}", a comment, an interrupt arrow, or a name and "(". */
static bool function_part_at(const char *s, size_t i, size_t end)
{
	size_t j = i;

	if (i < end && s[i] == '}')
		return true;
	if (starts(s, i, end, "/*") || starts(s, i, end, "==========>") || starts(s, i, end, "<=========="))
		return true;
	while (j < end && name_char(s[j]))
		j++;
	if (j == i)
		return false;
	j = past_module(s, j, end);
	return j < end && s[j] == '(';
}

/* The pid of a task column "comm-pid" (comm may hold '-' itself), -1 if it is not one. */
static long task_pid(const char *s, size_t from, size_t to)
{
	size_t d;

	while (from < to && s[from] == ' ')
		from++;
	while (to > from && s[to - 1] == ' ')
		to--;
	d = to;
	while (d > from && isdigit((unsigned char)s[d - 1]))
		d--;
	if (d == to || d < from + 2 || s[d - 1] != '-' || to - d > 9)
		return -1;
	return strtol(s + d, NULL, 10);
}

/* A column "N)" of digits only: the CPU. */
static long cpu_column(const char *s, size_t from, size_t to)
{
	while (from < to && s[from] == ' ')
		from++;
	if (from == to || to - from > 6)
		return -1;
	for (size_t i = from; i < to; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	return strtol(s + from, NULL, 10);
}

/*
 * The value item of a comment's text [t, end): "= V" (6.5) at its start or
 * after the name, "ret=V" (6.13, the RFC) as its last word.  V is "0x1f"
 * (the kernel's %lx) or "-22" (%ld, errnos).  A decimal errno stands for
 * the register sign-extended: on a 64-bit kernel it may have been
 * 0xffffffea as well, which only a 64-bit return type tells apart.
 */
static void find_value(const char *s, size_t t, size_t end, struct gline *g)
{
	size_t i;

	if (starts(s, t, end, "= ")) {
		g->item = t;
		g->val = t + 2;
	} else if (starts(s, t, end, "ret=")) {
		g->item = t;
		g->val = t + 4;
	} else {
		for (i = end; i > t && s[i - 1] != ' '; i--)
			;
		if (i > t + 2 && s[i - 2] == '=' && s[i - 3] == ' ') {		/* "f = V" */
			g->item = i - 2;
			g->val = i;
		} else if (starts(s, i, end, "ret=") && i > t) {		/* "f ret=V", "<-x ret=V" */
			g->item = i;
			g->val = i + 4;
		} else {
			return;
		}
	}
	g->val_end = end;
	g->has_value = annotate_number(s, g->val, end, &g->raw);
	g->bad_value = !g->has_value;
}

/* A comment from `i` (a space, then the comment) to the end of the line; false if something else is there. */
static bool trailing_comment(const char *s, size_t i, size_t end, struct gline *g)
{
	if (i == end)
		return true;
	if (!starts(s, i, end, " /* ") || end - i < 7 || memcmp(s + end - 3, " */", 3) != 0)
		return false;
	g->has_comment = true;
	g->cmt = i;
	g->text = i + 4;
	return true;
}

static void parse_close(const char *s, size_t p, size_t end, struct gline *g)
{
	size_t t, tend, n;

	g->kind = K_CLOSE;
	if (!trailing_comment(s, p + 1, end, g)) {
		g->kind = K_OTHER;
		return;
	}
	if (!g->has_comment)
		return;
	t = g->text;
	tend = end - 3;
	if (!starts(s, t, tend, "ret=")) {	/* the RFC has no name */
		for (n = t; n < tend && s[n] != ' '; n++)
			;
		g->name = s + t;
		g->name_len = n - t;
		/* ftrace.rst shows funcgraph-tail's closing name as "f()". */
		if (g->name_len > 2 && !memcmp(s + n - 2, "()", 2))
			g->name_len -= 2;
		if (n == tend)
			return;
	}
	find_value(s, t, tend, g);
	if (!g->has_value && !g->bad_value)
		g->bad_value = true;	/* words after the name that are no value */
}

static void parse_call(const char *s, size_t p, size_t end, struct gline *g)
{
	size_t q = p, depth = 0;

	while (name_char(s[q]))
		q++;
	g->name = s + p;
	g->name_len = q - p;
	q = past_module(s, q, end);
	g->args = q + 1;
	/* funcgraph-args prints the arguments, which may hold parentheses. */
	for (; q < end; q++) {
		depth += s[q] == '(';
		depth -= s[q] == ')';
		if (!depth)
			break;
	}
	if (q == end)
		return;		/* K_OTHER */
	g->args_end = q++;
	if (q < end && s[q] == ';') {
		g->kind = K_LEAF;
		if (!trailing_comment(s, q + 1, end, g))
			g->kind = K_OTHER;
		else if (g->has_comment)
			find_value(s, g->text, end - 3, g);
	} else if (starts(s, q, end, " {")) {
		g->kind = K_ENTRY;	/* possibly with a comment holding the return address */
	}
}

/* "prev-1  =>  next-2" after the CPU column of a context-switch banner. */
static bool parse_switch(const char *s, size_t i, size_t end, struct gline *g)
{
	const char *arrow = memmem(s + i, end - i, " => ", 4);
	size_t a;

	if (!arrow)
		return false;
	a = (size_t)(arrow - s);
	g->prev_pid = task_pid(s, i, a);
	g->pid = task_pid(s, a + 4, end);
	if (g->prev_pid < 0 || g->pid < 0)
		return false;
	g->kind = K_SWITCH;
	return true;
}

static bool plain_line(const char *s, size_t end)
{
	size_t i = 0;

	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == end || s[i] == '#' || starts(s, i, end, "(Overruns:") || starts(s, i, end, "CPU:"))
		return true;
	/* ftrace_dump()'s own lines */
	if (starts(s, i, end, "Dumping ftrace ") || starts(s, i, end, "(ftrace buffer empty)"))
		return true;
	while (i < end && (s[i] == '-' || s[i] == ' '))
		i++;
	return i == end;	/* the dashes around a context switch */
}

/*
 * The prefix the kernel's console puts before a line of ftrace_dump()'s
 * output (ftrace_dump_on_oops, sysrq-z): the time "[    1.234567]" and, with
 * CONFIG_PRINTK_CALLER, the caller "[     T1]" or "[     C0]", then one
 * space.  Its length, 0 when the line has none.
 */
static size_t console_prefix(const char *s, size_t end)
{
	size_t i = 0, j;
	bool time = false;

	while (i < end && s[i] == '[') {
		bool digits = false, dot = false, caller = false;

		for (j = i + 1; j < end && s[j] == ' '; j++)
			;
		if (!time && j < end && isdigit((unsigned char)s[j])) {
			for (; j < end && (isdigit((unsigned char)s[j]) || s[j] == '.'); j++) {
				digits |= s[j] != '.';
				dot |= s[j] == '.';
			}
		} else if (time && j < end && (s[j] == 'T' || s[j] == 'C')) {
			for (j++; j < end && isdigit((unsigned char)s[j]); j++)
				caller = true;
		}
		if (j == end || s[j] != ']' || !(time ? caller : digits && dot))
			break;
		time = true;
		i = j + 1;
	}
	return time && i < end && s[i] == ' ' ? i + 1 : 0;
}

/*
 * The columns before the function part (absolute time, CPU "N)", task
 * "comm-pid |", latency flags, duration "|") each end in ')' or '|'; the
 * function part is the first thing after them that looks like one.  A
 * console's prefix is skipped first.
 */
static void parse_line(const char *s, size_t end, struct gline *g)
{
	size_t i = console_prefix(s, end), j, k;

	*g = (struct gline){ .kind = K_OTHER, .cpu = -1, .pid = -1, .prev_pid = -1 };
	if (plain_line(s + i, end - i)) {
		g->kind = K_PLAIN;
		return;
	}
	for (;;) {
		for (j = i; j < end && s[j] == ' '; j++)
			;
		if (function_part_at(s, j, end))
			break;
		for (k = j; k < end && s[k] != '|' && s[k] != ')'; k++)
			;
		if (k == end) {
			if (g->cpu >= 0)
				parse_switch(s, j, end, g);
			return;
		}
		if (s[k] == ')' && g->cpu < 0 && g->pid < 0)
			g->cpu = cpu_column(s, j, k);
		else if (s[k] == '|' && g->pid < 0)
			g->pid = task_pid(s, j, k);
		i = k + 1;
	}
	g->indent = j - i;
	if (s[j] == '}')
		parse_close(s, j, end, g);
	else if (s[j] == '/' || s[j] == '=' || s[j] == '<')
		g->kind = K_PLAIN;
	else
		parse_call(s, j, end, g);
}

/* ---- per-task call stacks, for closing lines that do not name their function ---- */

#define MAX_FRAMES 1024

struct frame {
	char *name;
	size_t indent;
};

struct stack {
	uint64_t key;
	struct frame *v;
	size_t n, cap;
};

/* Stacks by task (`index`: a key's place in v); and which task each CPU runs. */
struct stacks {
	struct stack *v;
	size_t n, cap;
	struct u64map index;
	long *cpu_task;		/* since the CPU's last context switch; -1: unknown */
	size_t ncpu;
};

#define KEY_NONE	(UINT64_C(1) << 62)
#define KEY_CPU		(UINT64_C(2) << 62)
#define KEY_PID		(UINT64_C(3) << 62)
#define KEY_IDLE	(UINT64_C(1) << 61)	/* pid 0 runs on every CPU at once: one per CPU */

/* Room for `more` new stacks: pointers to stacks stay valid until then. */
static bool reserve(struct stacks *st, size_t more)
{
	while (st->cap < st->n + more)
		if (!grow_array(&st->v, st->cap, &st->cap, sizeof(*st->v)))
			return false;
	return true;
}

static struct stack *find_stack(struct stacks *st, uint64_t key)
{
	struct u64map_entry *e = u64map_find(&st->index, key);

	return e && e->key ? &st->v[e->value] : NULL;
}

static struct stack *stack_for(struct stacks *st, uint64_t key)
{
	struct u64map_entry *e = u64map_find(&st->index, key);

	if (!e)
		return NULL;
	if (e->key)
		return &st->v[e->value];
	if (!reserve(st, 1))
		return NULL;
	u64map_add(&st->index, e, key, (uint32_t)st->n);
	st->v[st->n] = (struct stack){ .key = key };
	return &st->v[st->n++];
}

static void drop_frames(struct stack *s, size_t keep)
{
	while (s->n > keep)
		free(s->v[--s->n].name);
}

static void push_frame(struct stack *s, const char *name, size_t len, size_t indent)
{
	char *copy;

	if (s->n == MAX_FRAMES) {	/* entries whose returns were lost: forget the oldest half */
		for (size_t i = 0; i < MAX_FRAMES / 2; i++)
			free(s->v[i].name);
		memmove(s->v, s->v + MAX_FRAMES / 2, (MAX_FRAMES / 2) * sizeof(*s->v));
		s->n -= MAX_FRAMES / 2;
	}
	if (!grow_array(&s->v, s->n, &s->cap, sizeof(*s->v)) || !(copy = strndup(name, len)))
		return;		/* without memory, nameless closings stay unresolved */
	s->v[s->n++] = (struct frame){ copy, indent };
}

static long *cpu_task(struct stacks *st, long cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if ((size_t)cpu >= st->ncpu) {
		size_t n = (size_t)cpu + 1;
		long *v = realloc(st->cpu_task, n * sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = st->ncpu; i < n; i++)
			v[i] = -1;
		st->cpu_task = v;
		st->ncpu = n;
	}
	return &st->cpu_task[cpu];
}

static uint64_t task_key(long pid, long cpu)
{
	if (pid == 0 && cpu >= 0)
		return KEY_PID | KEY_IDLE | (uint64_t)cpu;
	return KEY_PID | (uint64_t)pid;
}

/* Calls nest per task: the task column, else the task a banner put on the CPU, else the CPU. */
static uint64_t key_of(struct stacks *st, const struct gline *g)
{
	long *task = cpu_task(st, g->cpu);

	if (g->pid >= 0)
		return task_key(g->pid, g->cpu);
	if (task && *task >= 0)
		return task_key(*task, g->cpu);
	return g->cpu >= 0 ? KEY_CPU | (uint64_t)g->cpu : KEY_NONE;
}

/*
 * A banner names the task the CPU ran until now: calls stacked under the
 * CPU before the first banner were that task's.
 */
static void context_switch(struct stacks *st, const struct gline *g)
{
	long *task = cpu_task(st, g->cpu);
	struct stack *from, *to;

	if (!task)
		return;
	if (*task < 0 && reserve(st, 1) && (from = find_stack(st, KEY_CPU | (uint64_t)g->cpu)) && from->n &&
	    (to = stack_for(st, task_key(g->prev_pid, g->cpu))) && !to->n) {
		struct stack tmp = *to;

		to->v = from->v, to->n = from->n, to->cap = from->cap;
		from->v = tmp.v, from->n = 0, from->cap = tmp.cap;
	}
	if (*task < 0 && (from = find_stack(st, KEY_CPU | (uint64_t)g->cpu)))
		drop_frames(from, 0);
	*task = g->pid;
}

/*
 * Keeps the stacks in step with the line; for a closing line that does not
 * name its function, returns the name of the call it closes (malloc'd).
 */
static char *track(struct stacks *st, const struct gline *g)
{
	struct stack *s;
	char *name;

	if (g->kind == K_SWITCH) {
		context_switch(st, g);
		return NULL;
	}
	if ((g->kind != K_ENTRY && g->kind != K_CLOSE) || !(s = stack_for(st, key_of(st, g))))
		return NULL;
	if (g->kind == K_ENTRY) {
		push_frame(s, g->name, g->name_len, g->indent);
		return NULL;
	}
	if (g->name) {
		for (size_t i = s->n; i-- > 0;)
			if (strlen(s->v[i].name) == g->name_len && !memcmp(s->v[i].name, g->name, g->name_len)) {
				drop_frames(s, i);
				break;
			}
		return NULL;
	}
	/* Frames deeper than this closing lost their own closings. */
	while (s->n && s->v[s->n - 1].indent > g->indent)
		drop_frames(s, s->n - 1);
	if (!s->n || s->v[s->n - 1].indent != g->indent)
		return NULL;
	name = s->v[--s->n].name;
	return name;
}

static void free_stacks(struct stacks *st)
{
	for (size_t i = 0; i < st->n; i++) {
		drop_frames(&st->v[i], 0);
		free(st->v[i].v);
	}
	free(st->v);
	u64map_free(&st->index);
	free(st->cpu_task);
}

/* ---- the value ---- */

enum verdict { V_TYPED, V_VOID, V_MARK };

/* The kernel captured one register: types it holds whole. */
static bool in_one_register(const struct signature *sig, const struct format_target *t)
{
	const struct sig_type *r = &sig->ret;

	if (annotate_one_register(r, t))
		return true;
	switch (r->cls) {
	case TC_STRUCT:
	case TC_UNION:
		return !(sig->flags & PROTO_RET_FP) && r->size && r->size <= t->reg_bytes &&
		       r->size <= t->struct_regs;
	default:
		return false;	/* floats: the kernel does not read FP registers */
	}
}

/* What a typed value counts as for --stats. */
static enum value_class value_class(const struct sig_type *r, const char *text)
{
	switch (r->cls) {
	case TC_BOOL:
		return VC_BOOL;
	case TC_ENUM:
		return VC_ENUM;
	case TC_POINTER:
	case TC_STRING:
		return VC_POINTER;
	case TC_INT:
	case TC_UINT:
	case TC_CHAR:
		return strstr(text, " (E") ? VC_ERRNO : VC_INTEGER;
	default:
		return VC_OTHER;
	}
}

/*
 * Whether typing dropped bits the register held above the type's width (a
 * bool set in %al over whatever %rax held).  A signed value the kernel
 * printed sign-extended (its errno form) lost nothing.
 */
static bool narrowed(const struct sig_type *r, uint64_t raw, const struct format_target *t)
{
	uint64_t high;

	if (r->cls != TC_BOOL && r->cls != TC_INT && r->cls != TC_UINT && r->cls != TC_CHAR &&
	    r->cls != TC_ENUM)
		return false;
	if (!r->size || r->size >= 8 || r->size >= t->reg_bytes)
		return false;
	high = raw >> (8 * r->size);
	return high != 0 && !(r->cls == TC_INT && (raw >> (8 * r->size - 1) & 1) &&
			      high == UINT64_MAX >> (8 * r->size));
}

/*
 * What the value of `name` becomes.  A clone's suffix (.isra.0, .constprop.1,
 * .part.2, .cold, .llvm.123) is dropped for the lookup only when the whole
 * name is not in the tables; such a match is not reliable, since a clone may
 * return less than its source.  Void stays void: no clone invents a value.
 */
static enum verdict decide(struct annot *a, const char *name, size_t len, uint64_t raw, char **text)
{
	struct fn *f = name ? lookup(a, name, len) : NULL;
	const char *dot = name ? memchr(name, '.', len) : NULL;
	bool exact = f != NULL;
	const struct signature *sig;
	struct signature shown;
	struct raw_value v = { .gpr = { raw } };
	/* Kernel code returns negative errnos: their names are on. */
	struct format_opts o = { .hex = a->hex, .target = &a->target, .errno_names = true };
	size_t n;

	if (!f && dot && dot > name)
		f = lookup(a, name, (size_t)(dot - name));
	if (a->stats) {
		a->stats->last = f ? VC_UNKNOWN : VC_NOT_FOUND;
		a->stats->last_narrowed = false;
	}
	if (!f || f->ambiguous || !(sig = signature_of(f)))
		return V_MARK;
	if (sig->ret.cls == TC_VOID) {
		if (a->stats)
			a->stats->last = VC_VOID;
		return V_VOID;
	}
	if (!exact || !(sig->flags & PROTO_RELIABLE) || !in_one_register(sig, &a->target))
		return V_MARK;
	/* The string itself is not in the trace: its address is what there is. */
	shown = *sig;
	if (shown.ret.cls == TC_STRING)
		shown.ret.cls = TC_POINTER;
	n = format_return(NULL, 0, &shown, &v, &o);
	if (!(*text = malloc(n + 1)))
		return V_MARK;
	format_return(*text, n + 1, &shown, &v, &o);
	if (strncmp(*text, "ret=", 4) == 0)
		memmove(*text, *text + 4, n - 4 + 1);
	if (a->stats) {
		a->stats->last = value_class(&shown.ret, *text);
		a->stats->last_narrowed = narrowed(&shown.ret, raw, &a->target);
	}
	return V_TYPED;
}

/* The line being written: its bytes, and the argument list's new text if it has one. */
struct line {
	FILE *out;
	const char *s;
	size_t args, args_end;
	const char *args_text;	/* NULL: the list stays */
};

/* s[from, to), with the argument list's new text in its place when it lies there. */
static void put(const struct line *l, size_t from, size_t to)
{
	if (l->args_text && from <= l->args && l->args_end <= to) {
		fwrite(l->s + from, 1, l->args - from, l->out);
		fputs(l->args_text, l->out);
		from = l->args_end;
	}
	if (to > from)
		fwrite(l->s + from, 1, to - from, l->out);
}

/* `eol`: where the line's end of line starts; `len`: the whole line. */
static void write_value(struct annot *a, const struct line *l, size_t eol, size_t len,
			const struct gline *g, const char *name, size_t name_len)
{
	uint64_t mask = a->target.reg_bytes >= 8 ? UINT64_MAX : UINT64_C(0xffffffff);
	char *text = NULL;

	enum verdict v = decide(a, name, name_len, g->raw & mask, &text);

	if (a->stats) {
		struct annot_stats *st = a->stats;

		st->values++;
		st->by_class[name ? st->last : VC_NOT_FOUND]++;
		st->narrowed += name && v == V_TYPED && st->last_narrowed;
		if (v == V_VOID || (v == V_TYPED && (strlen(text) != g->val_end - g->val ||
						     memcmp(text, l->s + g->val, g->val_end - g->val))))
			st->changed++;
	}
	switch (v) {
	case V_TYPED:
		put(l, 0, g->val);
		fputs(text, l->out);
		put(l, g->val_end, len);
		free(text);
		break;
	case V_VOID:
		/* The item with its space; the comment too when nothing else is in it. */
		if (g->item == g->text) {
			put(l, 0, g->cmt);
			put(l, eol, len);
		} else {
			put(l, 0, g->item - 1);
			put(l, g->val_end, len);
		}
		break;
	case V_MARK:
		put(l, 0, g->val_end);
		putc('?', l->out);
		put(l, g->val_end, len);
		break;
	}
}

/*
 * The new text of an entry's or a leaf's argument list, or NULL.  Only a
 * function the tables name exactly, with one signature, is typed: a clone
 * found without its suffix has other parameters than its source.
 */
static char *rewrite_args(struct annot *a, const char *s, const struct gline *g, bool *malformed)
{
	const struct format_opts o = { .hex = a->hex, .target = &a->target };
	struct fn *f;

	*malformed = false;
	if ((g->kind != K_ENTRY && g->kind != K_LEAF) || g->args >= g->args_end)
		return NULL;
	f = lookup(a, g->name, g->name_len);
	return annotate_args(s, g->args, g->args_end, f && !f->ambiguous && !f->params_differ ?
			     signature_of(f) : NULL, &o, malformed);
}

/* --stats: the function a line names, remembered once, with whether the tables have it. */
static void saw_function(struct annot *a, const char *name, size_t len)
{
	struct annot_stats *st = a->stats;
	const char *dot = memchr(name, '.', len);
	size_t i;

	for (i = 0; i < st->nnames; i++)
		if (strlen(st->names[i]) == len && !memcmp(st->names[i], name, len))
			return;
	if (st->nnames == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		char **n = realloc(st->names, cap * sizeof(*n));
		bool *f = n ? realloc(st->found, cap * sizeof(*f)) : NULL;

		if (n)
			st->names = n;
		if (!f)
			return;		/* out of memory: the count is short, the trace still right */
		st->found = f;
		st->cap = cap;
	}
	if (!(st->names[st->nnames] = strndup(name, len)))
		return;
	st->found[st->nnames++] = lookup(a, name, len) || (dot && dot > name && lookup(a, name, (size_t)(dot - name)));
}

static void annotate_line(struct annot *a, struct stacks *st, FILE *out, const char *s, size_t len)
{
	size_t eol = len;
	struct gline g;
	struct line l = { .out = out, .s = s };
	char *closed, *args;
	bool malformed;

	if (eol && s[eol - 1] == '\n')
		eol--;
	if (eol && s[eol - 1] == '\r')
		eol--;
	parse_line(s, eol, &g);
	closed = track(st, &g);
	args = rewrite_args(a, s, &g, &malformed);
	l.args = g.args;
	l.args_end = g.args_end;
	l.args_text = args;
	if (g.kind == K_OTHER || g.bad_value || malformed)
		a->not_understood++;
	if (a->stats) {
		a->stats->lines++;
		if (g.kind == K_ENTRY || g.kind == K_LEAF || g.kind == K_CLOSE)
			a->stats->calls++;
		if (g.name && g.name_len && g.kind != K_OTHER)
			saw_function(a, g.name, g.name_len);
	}
	if (!g.has_value)
		put(&l, 0, len);
	else if (g.name)
		write_value(a, &l, eol, len, &g, g.name, g.name_len);
	else
		write_value(a, &l, eol, len, &g, closed, closed ? strlen(closed) : 0);
	free(args);
	free(closed);
}

static int annotate_stream(struct annot *a, FILE *in, const char *path)
{
	struct stacks st = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	while ((n = getline(&line, &cap, in)) > 0)
		annotate_line(a, &st, stdout, line, (size_t)n);
	if (ferror(in)) {
		fprintf(stderr, "objpatch annotate: %s: %s\n", path, strerror(errno));
		rc = -1;
	}
	free(line);
	free_stacks(&st);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "objpatch annotate: standard output: %s\n", strerror(errno));
		rc = -1;
	}
	return rc;
}

static void free_annot(struct annot *a)
{
	for (size_t i = 0; i < a->nfn; i++)
		if (a->fn[i].parsed > 0)
			sig_free(&a->fn[i].s);
	free(a->fn);
	for (size_t i = 0; i < a->nimg; i++) {
		free(a->img[i].protos);
		elfobj_free(&a->img[i].obj);
	}
	free(a->img);
	if (a->stats) {
		for (size_t i = 0; i < a->stats->nnames; i++)
			free(a->stats->names[i]);
		free(a->stats->names);
		free(a->stats->found);
	}
}

/*
 * --stats, to standard error: one line of counts, then the functions the
 * tables lack, if any.  True when there are such functions.
 */
static bool print_stats(const struct annot *a)
{
	const struct annot_stats *st = a->stats;
	const unsigned long *c = st->by_class;
	size_t missing = 0;

	for (size_t i = 0; i < st->nnames; i++)
		missing += !st->found[i];
	fprintf(stderr, "objpatch annotate: %lu lines, %lu calls, %zu functions (%zu not in the tables), "
		"%lu values (%lu changed): void %lu (dropped), bool %lu, enum %lu, errno %lu, "
		"integer %lu, pointer %lu, other %lu, unknown %lu, not in the tables %lu; "
		"narrowed %lu (bits above the type's width dropped)\n",
		st->lines, st->calls, st->nnames, missing, st->values, st->changed, c[VC_VOID], c[VC_BOOL],
		c[VC_ENUM], c[VC_ERRNO], c[VC_INTEGER], c[VC_POINTER], c[VC_OTHER], c[VC_UNKNOWN],
		c[VC_NOT_FOUND], st->narrowed);
	for (size_t i = 0; i < st->nnames; i++)
		if (!st->found[i])
			fprintf(stderr, "objpatch annotate: %s: not in the tables of the images\n", st->names[i]);
	return missing > 0;
}

struct annotate_opts {
	struct annot *a;
	const char **paths;
	const char *trace;
	bool strict, stats;
};

enum { ANN_IMAGE = 1, ANN_HEX, ANN_STRICT, ANN_STATS };

static int annotate_option(void *ctx, int id, const char *v)
{
	struct annotate_opts *o = ctx;

	if (id == ANN_IMAGE)
		o->paths[o->a->nimg++] = v;
	else if (id == ANN_HEX)
		o->a->hex = true;
	else if (id == ANN_STRICT)
		o->strict = true;
	else if (id == ANN_STATS)
		o->stats = true;
	else if (o->trace)
		return fprintf(stderr, "objpatch annotate: %s: one trace at a time: annotate each alone\n", v), -1;
	else
		o->trace = v;
	return 0;
}

int annotate_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "image", 'i', "FILE", ANN_IMAGE },
		{ "hex", 0, NULL, ANN_HEX },
		{ "strict", 0, NULL, ANN_STRICT },
		{ "stats", 0, NULL, ANN_STATS },
		{ NULL, 0, NULL, 0 },
	};
	struct annot_stats stats = { 0 };
	struct annot a = { 0 };
	struct annotate_opts o = { .a = &a, .paths = calloc((size_t)argc, sizeof(*o.paths)) };
	const struct cli_cmd cmd = { .name = "objpatch annotate", .opts = opts, .usage = usage,
				     .set = annotate_option, .ctx = &o };
	const char **paths = o.paths, *trace;
	bool strict;
	FILE *in = stdin;
	int rc = 2;

	if (!paths)
		return 2;
	rc = cli_parse(&cmd, argc, argv, 2);
	if (rc >= 0 && !a.nimg) {
		fprintf(stderr, "objpatch annotate: no --image: give the vmlinux (and modules) the trace is of\n");
		rc = CLI_ERROR;
	}
	if (rc < 0) {
		free(paths);
		return rc == CLI_HELP ? 0 : 2;
	}
	rc = 2;
	trace = o.trace ? o.trace : "-";
	strict = o.strict;
	if (o.stats)
		a.stats = &stats;
	elf_version(EV_CURRENT);
	a.img = calloc(a.nimg, sizeof(*a.img));
	if (!a.img)
		goto out;
	for (size_t i = 0; i < a.nimg; i++)
		if (load_image(&a.img[i], paths[i]) < 0) {
			a.nimg = i + 1;
			goto out;
		}
	if (image_target(&a) < 0 || index_functions(&a) < 0)
		goto out;
	if (strcmp(trace, "-") != 0 && !(in = open_trace(trace)))
		goto out;
	rc = annotate_stream(&a, in, strcmp(trace, "-") ? trace : "standard input") < 0 ? 1 : 0;
	if (a.not_understood)
		fprintf(stderr, "objpatch annotate: %lu line%s not understood, passed through unchanged\n",
			a.not_understood, a.not_understood == 1 ? "" : "s");
	if (strict && a.not_understood && rc == 0)
		rc = 1;
	if (o.stats && print_stats(&a) && rc == 0)
		rc = 1;
	if (in != stdin)
		fclose(in);
out:
	free_annot(&a);
	free(paths);
	return rc;
}
