// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch run: starts a program with the tracing runtime preloaded and
 * the settings in its environment (the runtime reads them at start-up, see
 * man/libobjpatch.3), and exits as the program did.
 *
 * A program for another machine than this one (its ELF header says so) is
 * run under qemu-user with that machine's runtime, built beside this binary
 * as <arch>/libobjpatch.so (make builds build/aarch64/libobjpatch.so when
 * the cross compiler is installed) or installed as
 * LIBDIR/objpatch/<arch>/libobjpatch.so.  LD_PRELOAD then goes to the guest
 * only, through qemu's -E: in qemu's own environment the host's loader
 * would try to preload it into qemu.  The OBJPATCH_* variables need no
 * such care: qemu hands its environment to the guest.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "elf/files.h"
#include "objpatch/engine/analyses.h"
#include "objpatch/engine/opts.h"
#include "objpatch/engine/report.h"
#include "objpatch/engine/runtime_path.h"
#include "objpatch/cli/run.h"
#include "objpatch/engine/dead_chunks.h"
#include "trace/event.h"
#include "trace/filter.h"
#include "util/array.h"

static void usage_of(FILE *f, bool record)
{
	if (record)
		fprintf(f, "usage: objpatch record [OPTIONS] [--] PROGRAM [ARGS...]\n"
			   "Runs PROGRAM as objpatch run does, writing the events unformatted for\n"
			   "objpatch report.\n");
	else
		fprintf(f, "usage: objpatch run [OPTIONS] [--] PROGRAM [ARGS...]\n"
			   "Traces PROGRAM's functions as a function graph.\n");
	fprintf(f, "  -F, --filter=GLOB   trace the functions matching GLOB, in order; '!GLOB' excludes\n"
		   "                      (repeatable; default: every function)%s\n"
		   "  -o, --output=FILE   %s\n",
		record ? "\n                      the recording keeps them: report names those that never ran" : "",
		record ? "the recording (default objpatch.data)" : "the trace (default standard error)");
	if (!record)
		fprintf(f, "      --format=FMT    text, json, folded, svg (a flame graph, default output\n"
			   "                      objpatch.svg) or perfetto (a binary trace, needs --output)\n"
			   "                      (default text)\n"
			   "      --hex           integers in hex\n");
	fprintf(f, "  -a, --args          each call's arguments, by the types of its prototype\n"
		   "      --errno-names   negative integers that are errno values with their names\n"
		   "                      (-22 (EINVAL)): kernel-style code%s\n",
		record ? "; kept in the recording for report" : "");
	fprintf(f, "  -D, --depth=N       shadow-stack frames per thread, 1 to %d (default 256)\n"
		   "      --policy=P      when the output is behind: wait (default, lossless) or drop\n"
		   "                      (the events are lost and counted)\n"
		   "      --lib=PATH      the runtime to preload (default: libobjpatch.so beside objpatch)\n"
		   "  -h, --help          this text\n"
		   "%s"
		   "SIGINT, SIGTERM, SIGHUP and SIGQUIT go to the program, whose trace is finished.\n"
		   "Exit status: the program's (128+N when signal N killed it); 1 when it exited 0 but\n"
		   "nothing was traceable or the trace could not be written; 2 when it did not start.\n",
		EV_DEPTH_MAX, record ? "" :
		"Analyses, as objpatch report's (the program is recorded, then reported):\n"
		"      --summary, --sort=KEY, --graph=FUNCTION, --tid=TID, --below=FUNCTION,\n"
		"      --callers=FUNCTION, --min-duration=TIME, --max-depth=N\n");
}

static void run_usage(FILE *f)
{
	usage_of(f, false);
}

static void record_usage(FILE *f)
{
	usage_of(f, true);
}

/* Machines whose programs run under qemu-user when they are not this one's. */
struct foreign {
	uint16_t machine;
	uint8_t elfclass, data;
	const char *name;	/* qemu-NAME, NAME/libobjpatch.so; "-": no runtime */
	const char *prefix;	/* TRIPLE-: /usr/TRIPLE is Debian's cross libc, the guest's root */
};

static const struct foreign foreign_machines[] = {
#define MACHINE(name, prefix, clang, kflags, port, qemu, em, class, data, desc) { em, class, data, #qemu, #prefix },
#include "arch/machines.h"
#undef MACHINE
};

/* e_ident's class and byte order and e_machine of an ELF file; false if it is not one (a script...). */
static bool elf_machine(const char *path, uint8_t *elfclass, uint8_t *data, uint16_t *machine)
{
	unsigned char h[20];
	struct stat st;
	int fd;
	bool ok;

	/* a FIFO named as the program would block open(2) */
	if (file_open_input(path, false, &fd, &st))
		return false;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && memcmp(h, ELFMAG, SELFMAG) == 0;
	close(fd);
	if (!ok)
		return false;
	*elfclass = h[EI_CLASS];
	*data = h[EI_DATA];
	*machine = h[EI_DATA] == ELFDATA2MSB ? (uint16_t)(h[18] << 8 | h[19]) : (uint16_t)(h[19] << 8 | h[18]);
	return true;
}

/* The file execvp() would run for `name`, or NULL. */
static char *program_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return strdup(name);
	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found; d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&found, "%s/%s", *d ? d : ".", name) < 0)
			found = NULL;
		else if (access(found, X_OK) != 0) {
			free(found);
			found = NULL;
		}
	}
	free(dirs);
	return found;
}

/*
 * The foreign machine `prog` is for: NULL when this machine runs it (or it
 * is no ELF file: a script, say); *unknown set when no runtime exists for it.
 */
static const struct foreign *foreign_for(const char *prog, bool *unknown)
{
	uint8_t pc, sc, pd, sd;
	uint16_t pm, sm;
	char *path = program_path(prog);
	bool elf = path && elf_machine(path, &pc, &pd, &pm);

	free(path);
	*unknown = false;
	if (!elf || !elf_machine("/proc/self/exe", &sc, &sd, &sm) || (pm == sm && pc == sc && pd == sd))
		return NULL;
	for (size_t i = 0; i < sizeof(foreign_machines) / sizeof(foreign_machines[0]); i++)
		if (foreign_machines[i].machine == pm && foreign_machines[i].elfclass == pc &&
		    foreign_machines[i].data == pd && strcmp(foreign_machines[i].name, "-"))
			return &foreign_machines[i];
	*unknown = true;
	return NULL;
}

static int append_env(const char *name, const char *value, const char *sep)
{
	const char *old = getenv(name);
	char *v;
	int rc;

	if (!old || !*old)
		return setenv(name, value, 1);
	if (asprintf(&v, "%s%s%s", value, sep, old) < 0)
		return -1;
	rc = setenv(name, v, 1);
	free(v);
	return rc;
}

struct run_opts {
	char *filter;
	const char *output, *format, *lib, *depth, *policy;
	bool hex, record, errno_names, args;
	bool output_created;		/* cli_check_output() made the file: no trace, no file */
	const struct cli_cmd *cmd;	/* while parsing: for messages */
	/*
	 * Analyses (run only): checked as they are given, then handed as
	 * they were to objpatch report's code, which formats a recording
	 * this run makes in a directory of its own (`recording`).
	 */
	struct analyses an;
	const char **an_args;
	size_t nan_args, cap_an_args;
	char *recording_dir, *recording;
	char **globs;			/* the filter's patterns one by one, for report_name_uncalled() */
	size_t nglobs;
	const char *trace_output, *trace_format;	/* what the user asked the trace to be */
};

enum { OPT_FILTER = 1, OPT_OUTPUT, OPT_FORMAT, OPT_HEX, OPT_DEPTH, OPT_LIB, OPT_ERRNO_NAMES, OPT_POLICY, OPT_ARGS };

/* uftrace's letters where it has the option: -F, -D, -a; -o as recordmcount's. */
static const struct cli_opt run_options[] = {
	{ "filter", 'F', "GLOB", OPT_FILTER },
	{ "output", 'o', "FILE", OPT_OUTPUT },
	{ "format", 0, "text|json|folded|svg|perfetto", OPT_FORMAT },
	{ "args", 'a', NULL, OPT_ARGS },
	{ "hex", 0, NULL, OPT_HEX },
	{ "errno-names", 0, NULL, OPT_ERRNO_NAMES },
	{ "depth", 'D', "N", OPT_DEPTH },
	{ "policy", 0, "wait|drop", OPT_POLICY },
	{ "lib", 0, "PATH", OPT_LIB },
	/* report's analyses; its -F, -N and -D are run's filter and depth here */
	ANALYSIS_VIEW_OPTIONS,
	{ "max-depth", 0, "N", ANALYSIS_MAX_DEPTH },
	{ NULL, 0, NULL, 0 },
};

/* record: no formatting options, the recording holds the events as they are */
static const struct cli_opt record_options[] = {
	{ "filter", 'F', "GLOB", OPT_FILTER },
	{ "output", 'o', "FILE", OPT_OUTPUT },
	{ "args", 'a', NULL, OPT_ARGS },
	{ "errno-names", 0, NULL, OPT_ERRNO_NAMES },
	{ "depth", 'D', "N", OPT_DEPTH },
	{ "policy", 0, "wait|drop", OPT_POLICY },
	{ "lib", 0, "PATH", OPT_LIB },
	{ NULL, 0, NULL, 0 },
};

/* What the runtime cannot read back: a ',' (its separator), nothing, an unclosed '['. */
static int add_filter(const char *cmd, struct run_opts *o, const char *glob)
{
	const char *why = cli_bad_filter_glob(glob);
	char *f, **globs;

	if (why) {
		fprintf(stderr, "%s: --filter %s: %s\n", cmd, glob, why);
		return -1;
	}
	if (asprintf(&f, "%s%s%s", o->filter ? o->filter : "", o->filter ? "," : "", glob) < 0)
		return -1;
	free(o->filter);
	o->filter = f;
	globs = realloc(o->globs, (o->nglobs + 1) * sizeof(*o->globs));
	if (!globs)
		return -1;
	o->globs = globs;
	if (!(o->globs[o->nglobs] = strdup(glob)))
		return -1;
	o->nglobs++;
	return 0;
}

/* An analysis option: checked now, kept as given for objpatch report's parser. */
static int add_analysis(struct run_opts *o, int id, const char *v)
{
	const char *name = NULL;

	if (analyses_option(&o->an, o->cmd, id, v) != 0)
		return -1;
	for (const struct cli_opt *opt = run_options; opt->name; opt++)
		if (opt->id == id)
			name = opt->name;
	if (!grow_array(&o->an_args, o->nan_args, &o->cap_an_args, sizeof(*o->an_args)) ||
	    asprintf((char **)&o->an_args[o->nan_args], "--%s%s%s", name, v ? "=" : "", v ? v : "") < 0)
		return -1;
	o->nan_args++;
	return 0;
}

static int set_option(void *ctx, int id, const char *v)
{
	struct run_opts *o = ctx;
	unsigned long n;

	if (id >= ANALYSIS_SUMMARY)
		return add_analysis(o, id, v);

	switch (id) {
	case OPT_FILTER:
		return add_filter(o->cmd->name, o, v);
	case OPT_OUTPUT:
		if (!*v) {
			fprintf(stderr, "%s: --output is empty: give a file name\n", o->cmd->name);
			return -1;
		}
		o->output = v;
		return 0;
	case OPT_FORMAT:
		if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "folded") && strcmp(v, "svg") &&
		    strcmp(v, "perfetto")) {
			fprintf(stderr, "%s: --format %s: not a format: give text, json, folded, svg or perfetto\n",
				o->cmd->name, v);
			return -1;
		}
		o->format = v;
		return 0;
	case OPT_HEX:
		o->hex = true;
		return 0;
	case OPT_ERRNO_NAMES:
		o->errno_names = true;
		return 0;
	case OPT_ARGS:
		o->args = true;
		return 0;
	case OPT_DEPTH:
		o->depth = v;
		return cli_number(o->cmd, "depth", v, 1, EV_DEPTH_MAX, &n);
	case OPT_LIB:
		o->lib = v;
		return 0;
	case OPT_POLICY:
		if (strcmp(v, "wait") && strcmp(v, "drop")) {
			fprintf(stderr, "%s: --policy %s: not a policy: give wait (lossless) or drop (lose and count "
				"the events the output cannot take)\n", o->cmd->name, v);
			return -1;
		}
		o->policy = v;
		return 0;
	}
	return -1;
}

static enum trace_format format_of(const char *name)
{
	static const char *const names[] = { [TRACE_TEXT] = "text", [TRACE_JSON] = "json", [TRACE_FOLDED] = "folded",
					     [TRACE_SVG] = "svg", [TRACE_PERFETTO] = "perfetto" };

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (enum trace_format)i;
	return TRACE_TEXT;
}

/* Returns the index of PROGRAM in argv; CLI_HELP, CLI_ERROR (after one line). */
static int parse(int argc, char **argv, struct run_opts *o)
{
	const struct cli_cmd cmd = {
		.name = o->record ? "objpatch record" : "objpatch run",
		.opts = o->record ? record_options : run_options,
		.usage = o->record ? record_usage : run_usage, .set = set_option, .ctx = o, .first_operand_ends = true,
	};
	int prog;

	o->cmd = &cmd;
	prog = cli_parse(&cmd, argc, argv, 2);
	o->cmd = NULL;
	if (prog >= 0 && o->nan_args && analyses_check(&o->an, format_of(o->format), o->format != NULL) < 0)
		return CLI_ERROR;
	if (prog >= argc) {
		fprintf(stderr, "%s: no program to run: %s [OPTIONS] -- PROGRAM [ARGS...]\n", cmd.name, cmd.name);
		return CLI_ERROR;
	}
	return prog;
}

/* Sets the environment; `lib` gets the runtime's path (for a foreign program's LD_PRELOAD). */
static int set_environment(const struct run_opts *o, const struct foreign *f, char *lib)
{
	char out[PATH_MAX], sub[64] = "";

	if (f)
		snprintf(sub, sizeof(sub), "%s/", f->name);
	if (o->lib) {
		if (!realpath(o->lib, lib)) {
			fprintf(stderr, "objpatch run: %s: %s\n", o->lib, strerror(errno));
			return -1;
		}
	} else if (find_runtime(lib, PATH_MAX, sub) < 0) {
		fprintf(stderr, "objpatch run: %slibobjpatch.so is neither beside objpatch nor installed in %s%s: "
			"build it with make (and make install), or give one with --lib\n",
			sub, runtime_install_dir(), sub[0] ? "/objpatch" : "");
		return -1;
	}
	/* The program may change directory: the output's path must not depend on it. */
	if (o->output && o->output[0] != '/') {
		if (!getcwd(out, sizeof(out)) || strlen(out) + strlen(o->output) + 2 > sizeof(out))
			return -1;
		strcat(out, "/");
		strcat(out, o->output);
	} else if (o->output) {
		snprintf(out, sizeof(out), "%s", o->output);
	}
	if ((!f && append_env("LD_PRELOAD", lib, ":")) ||
	    setenv("OBJPATCH_FILTER", o->filter ? o->filter : "*", 1) ||
	    (o->output && setenv("OBJPATCH_OUTPUT", out, 1)) ||
	    (o->format && setenv("OBJPATCH_FORMAT", o->format, 1)) || (o->hex && setenv("OBJPATCH_HEX", "1", 1)) ||
	    (o->errno_names && setenv("OBJPATCH_ERRNO_NAMES", "1", 1)) ||
	    (o->args && setenv("OBJPATCH_ARGS", "1", 1)) ||
	    (o->depth && setenv("OBJPATCH_DEPTH", o->depth, 1)) ||
	    (o->policy && setenv("OBJPATCH_POLICY", o->policy, 1))) {
		perror("objpatch run: setenv");
		return -1;
	}
	return 0;
}

/*
 * qemu-NAME -L ROOT -E LD_PRELOAD=LIB PROGRAM ARGS...: ROOT is
 * $OBJPATCH_ROOT_NAME when set (this machine's own root: sh4's libc comes
 * from another Debian release than the host's cross libcs, and one
 * QEMU_LD_PREFIX cannot serve two machines), else $QEMU_LD_PREFIX (qemu's
 * own variable), else Debian's cross libc.
 */
static const char *guest_root(const struct foreign *f, char *var, size_t size)
{
	const char *root;

	snprintf(var, size, "OBJPATCH_ROOT_%s", f->name);
	root = getenv(var);
	if (!root || !*root) {
		snprintf(var, size, "QEMU_LD_PREFIX");
		root = getenv(var);
	}
	return root && *root ? root : NULL;
}

/*
 * A root that is not there: qemu would say only that the host's own
 * loader is an "Invalid ELF image".  Named with what chose it.
 */
static bool guest_root_present(const char *cmd, const struct foreign *f)
{
	char var[64], def[PATH_MAX];
	const char *root = guest_root(f, var, sizeof(var));
	struct stat st;

	if (!root) {
		snprintf(def, sizeof(def), "/usr/%.*s", (int)strlen(f->prefix) - 1, f->prefix);
		if (stat(def, &st) == 0 && S_ISDIR(st.st_mode))
			return true;
		fprintf(stderr, "%s: no %s: the %s program's libraries are not installed "
			"(scripts/deps.sh installs them), or set OBJPATCH_ROOT_%s to its root\n", cmd, def, f->name, f->name);
		return false;
	}
	if (stat(root, &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	fprintf(stderr, "%s: %s=%s: no such directory (the root qemu-%s runs the program in)\n", cmd, var, root, f->name);
	return false;
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* qemu-ARCH -L ROOT -E LD_PRELOAD=LIB PROGRAM ARGS...: every string owned, for free_argv(). */
static char **qemu_argv(const struct foreign *f, const char *lib, char **args, int nargs)
{
	char **v = calloc((size_t)nargs + 9, sizeof(*v));
	char var[64];
	const char *root = guest_root(f, var, sizeof(var)), *path = getenv("LD_LIBRARY_PATH");
	int n = 0;
	bool ok;

	if (!v)
		return NULL;
	ok = asprintf(&v[n++], "qemu-%s", f->name) >= 0 && (v[n++] = strdup("-L")) &&
	     (root && *root ? (v[n++] = strdup(root)) != NULL : asprintf(&v[n++], "/usr/%.*s", (int)strlen(f->prefix) - 1, f->prefix) >= 0) &&
	     (v[n++] = strdup("-E")) && asprintf(&v[n++], "LD_PRELOAD=%s", lib) >= 0 &&
	     /*
	      * The guest's loader reads the host's /etc/ld.so.cache, which may
	      * name the host's multilib copy of the guest's libc (i386's
	      * /lib32): another build than the cross ld.so's, and mixing them
	      * hangs the first pthread_create.  The root's lib/ goes first.
	      */
	     (v[n++] = strdup("-E")) &&
	     asprintf(&v[n++], "LD_LIBRARY_PATH=%s/lib%s%s", v[2], path && *path ? ":" : "",
		      path && *path ? path : "") >= 0 &&
	     /* qemu does not search PATH for the program. */
	     (v[n++] = program_path(args[0]));
	for (int i = 1; ok && i < nargs; i++)
		ok = (v[n++] = strdup(args[i])) != NULL;
	if (!ok) {
		/* asprintf leaves its pointer undefined on failure: never free it. */
		v[n - 1] = NULL;
		free_argv(v);
		return NULL;
	}
	return v;
}

/*
 * Where every traced process's runtime says, as it exits, how many sites
 * it found and whether its trace was written (objpatch/lib/rt_status.c):
 * the program may be a shell whose children are the traced ones.
 */
static char *status_file(const char *cmd)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;

	if (asprintf(&path, "%s/objpatch-status.XXXXXX", dir && *dir ? dir : "/tmp") < 0)
		return NULL;
	fd = mkstemp(path);
	if (fd < 0 || setenv("OBJPATCH_STATUS", path, 1)) {
		fprintf(stderr, "%s: %s: %s: set TMPDIR to a directory you can write\n", cmd, path, strerror(errno));
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

struct run_report {
	unsigned processes, failed;
	unsigned long long sites, funcs, traced;
};

/*
 * The lines of the status file: "PID SITES WRITTEN FUNCTIONS TRACED", one
 * per process that exited (a runtime before the last two fields: all traced).
 */
static struct run_report read_status(const char *path)
{
	struct run_report r = { 0 };
	FILE *f = fopen(path, "r");
	unsigned long long sites, funcs, traced;
	char line[128];
	int pid, written, n;

	while (f && fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%d %llu %d %llu %llu", &pid, &sites, &written, &funcs, &traced);
		if (n < 3)
			break;
		if (n < 5)
			funcs = traced = sites;
		r.processes++;
		r.sites += sites;
		r.failed += !written;
		r.funcs += funcs;
		r.traced += traced;
	}
	if (f)
		fclose(f);
	return r;
}

/* The filter's patterns as they were typed, for a message. */
static void patterns_text(const struct run_opts *o, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < o->nglobs && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s'%s'", i ? " " : "", o->globs[i]);
}

/*
 * One line per thing the runtimes reported wrong; false if there was one.
 * `exited0`: the program exited 0, so that no report means no runtime (and
 * not a program that failed, or could not start, before its exit handlers).
 */
static bool report_ok(const char *cmd, const char *prog, const struct run_opts *o, const struct run_report *r,
		      bool exited0)
{
	char patterns[256];

	if (!r->processes) {
		if (!exited0)
			return true;
		fprintf(stderr, "%s: %s: no trace: the runtime was not loaded (a static program?) or the program "
				"left by _exit(); link it dynamically and leave by exit() or main's return\n", cmd, prog);
		return false;
	}
	if (!r->sites)
		fprintf(stderr, "%s: %s: no recorded call sites in the program or its libraries: compile with -pg "
				"and run recordmcount --mode=user on its objects\n", cmd, prog);
	if (r->sites && r->funcs && !r->traced && o->nglobs) {
		patterns_text(o, patterns, sizeof(patterns));
		fprintf(stderr, "%s: --filter %s selects none of the %llu functions with a call site: see their names "
				"with `objpatch list %s`\n", cmd, patterns, r->funcs, prog);
	}
	if (r->failed)
		fprintf(stderr, "%s: %s: the trace of %u of %u processes could not be written: give --output a "
				"file on a file system with room\n", cmd, o->output ? o->output : "standard error",
			r->failed, r->processes);
	return r->sites && !r->failed && (r->traced || !r->funcs || !o->nglobs);
}

/* ---- signals: what stops objpatch stops the program, which then finishes its trace ---- */

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static volatile sig_atomic_t program_pid;

/*
 * A signal someone sent objpatch goes to the program, which may handle it
 * and whose runtime finishes the trace as it exits; objpatch then exits as
 * the program did.  One the terminal sent (Ctrl-C: SI_KERNEL) went to the
 * whole foreground process group, the program included: passed on, the
 * program would get it twice.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (program_pid > 0 && si->si_code != SI_KERNEL)
		kill((pid_t)program_pid, sig);
}

static void block_forwarded(int how, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigprocmask(how, &set, old);
}

static void set_forwarding(bool on)
{
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO | SA_RESTART };

	if (!on)
		sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
}

/*
 * Whether objpatch is the foreground job of its terminal.  If not (run by
 * `timeout`, a script, a service manager), the program gets a process
 * group of its own: a signal sent to objpatch's group (timeout sends its
 * signal to the program and to its own group) then reaches the program
 * once, through objpatch.
 */
static bool foreground(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	pid_t fg = fd >= 0 ? tcgetpgrp(fd) : -1;

	if (fd >= 0)
		close(fd);
	return fg > 0 && fg == getpgrp();
}

static int wait_program(const char *cmd, pid_t pid, const char *prog)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror(cmd);
			return 2;
		}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "%s: %s: killed by signal %d\n", cmd, prog, WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/* This machine's byte order, as e_ident says it. */
static uint8_t host_data(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
}

/*
 * Analyses: the program is recorded in a directory of this run's own, and
 * the recording formatted by objpatch report's code once it has exited,
 * into the output the user named (checked now, as always).
 */
static int record_for_analyses(struct run_opts *o, const char *cmd)
{
	const char *dir = getenv("TMPDIR");
	bool created;

	if (o->output && cli_check_output(cmd, o->output, &created) < 0)
		return -1;
	o->trace_output = o->output;
	o->trace_format = o->format;
	if (asprintf(&o->recording_dir, "%s/objpatch-run.XXXXXX", dir && *dir ? dir : "/tmp") < 0)
		return -1;
	if (!mkdtemp(o->recording_dir) || asprintf(&o->recording, "%s/trace.data", o->recording_dir) < 0) {
		fprintf(stderr, "%s: %s: %s: set TMPDIR to a directory you can write\n", cmd, o->recording_dir,
			strerror(errno));
		return -1;
	}
	o->output = o->recording;
	o->format = "raw";
	return 0;
}

/* The recording of record_for_analyses() reported; its directory removed.  The report's status. */
static int report_analyses(struct run_opts *o)
{
	const char *argv[16 + o->nan_args];
	char *format = NULL, *output = NULL;
	int argc = 0, rc;
	DIR *d;

	argv[argc++] = "objpatch";
	argv[argc++] = "report";
	if (o->trace_format && asprintf(&format, "--format=%s", o->trace_format) >= 0)
		argv[argc++] = format;
	if (o->trace_output && asprintf(&output, "--output=%s", o->trace_output) >= 0)
		argv[argc++] = output;
	if (o->hex)
		argv[argc++] = "--hex";
	for (size_t i = 0; i < o->nan_args; i++)
		argv[argc++] = o->an_args[i];
	argv[argc++] = "--";
	argv[argc++] = o->recording;
	argv[argc] = NULL;
	/* The runtime wrote the recording raw: report names the filter's functions that never ran. */
	report_name_uncalled("objpatch run", "", (const char *const *)o->globs, o->nglobs);
	rc = access(o->recording, R_OK) == 0 ? report_run(argc, (char **)argv, 2) : 0;
	free(format);
	free(output);
	/* The recordings: the program's, and its forked children's (trace.PID.data). */
	if ((d = opendir(o->recording_dir))) {
		for (struct dirent *e; (e = readdir(d));)
			if (e->d_name[0] != '.')
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(o->recording_dir);
	return rc;
}

/* Everything before the program starts; 0, else the exit status. */
static int prepare(struct run_opts *o, const char *cmd, const char *prog, const struct foreign **f, char *lib)
{
	bool unknown;

	*f = foreign_for(prog, &unknown);
	if (unknown) {
		fprintf(stderr, "%s: %s: a program for another machine, and no runtime for it\n", cmd, prog);
		return 2;
	}
	if (*f && !guest_root_present(cmd, *f))
		return 2;
	/* Binary, into the program's own messages: never what was meant. */
	if (o->format && strcmp(o->format, "perfetto") == 0 && !o->output) {
		fprintf(stderr, "%s: --format perfetto: a binary trace, and the default output is standard error: "
			"give --output FILE (say, trace.perfetto-trace)\n", cmd);
		return 2;
	}
	/* record: the same run, writing the events as they are for objpatch report. */
	if (o->record) {
		o->format = "raw";
		if (!o->output)
			o->output = "objpatch.data";
	}
	/* A picture is no terminal's output: a file, named where objpatch runs. */
	if (o->format && !strcmp(o->format, "svg") && !o->output)
		o->output = "objpatch.svg";
	if (!o->record && o->nan_args && record_for_analyses(o, cmd) < 0)
		return 2;
	if ((o->output && cli_check_output(cmd, o->output, &o->output_created) < 0) || set_environment(o, *f, lib) < 0)
		return 2;
	return 0;
}

/* What to do when PROGRAM could not be started. */
static const char *exec_hint(int err, const char *prog)
{
	if (err == ENOENT && !strchr(prog, '/'))
		return "not on PATH: give its path (./PROGRAM for one in this directory)";
	if (err == ENOENT)
		return "give the path of an existing program";
	if (err == EACCES)
		return "not an executable file: give the program, or make it executable (chmod +x)";
	if (err == ENOEXEC)
		return "not a program this machine can start: give an executable";
	return "give a program this user can run";
}

/*
 * The file cli_check_output() created, still empty: the first process wrote no
 * trace (a shell whose children are the traced programs: they write
 * name.PID.ext), and an empty file would read as an empty trace.
 */
static void remove_unwritten(const struct run_opts *o)
{
	if (o->output_created)
		cli_remove_empty_output(o->output);
}

static void free_analyses(struct run_opts *o)
{
	for (size_t i = 0; i < o->nan_args; i++)
		free((char *)o->an_args[i]);
	free(o->an_args);
	analyses_free(&o->an);
	free(o->recording);
	free(o->recording_dir);
}

/* The filter, as the runtime's variable and as its patterns. */
static void free_filter(struct run_opts *o)
{
	free(o->filter);
	o->filter = NULL;
	for (size_t i = 0; i < o->nglobs; i++)
		free(o->globs[i]);
	free(o->globs);
	o->globs = NULL;
	o->nglobs = 0;
}

int run_main(int argc, char **argv)
{
	struct run_opts o = { .record = strcmp(argv[1], "record") == 0 };
	const char *cmd = o.record ? "objpatch record" : "objpatch run";
	int prog = parse(argc, argv, &o), rc;
	const struct foreign *f;
	char lib[PATH_MAX], **args, *status;
	struct run_report report;
	sigset_t mask;
	bool own_group;
	int shared;
	size_t salvaged;
	pid_t pid;

	if (prog < 0) {
		free_filter(&o);
		return prog == CLI_HELP ? 0 : 2;
	}
	rc = prepare(&o, cmd, argv[prog], &f, lib);
	free(o.filter);
	o.filter = NULL;
	if (rc) {
		free_filter(&o);
		return rc;
	}
	if (!(status = status_file(cmd)))
		return 2;
	args = f ? qemu_argv(f, lib, argv + prog, argc - prog) : argv + prog;
	shared = o.record ? salvage_prepare(cmd) : -1;
	own_group = !foreground();
	/* Blocked until the program's pid is known: none is lost, none kills objpatch first. */
	block_forwarded(SIG_BLOCK, &mask);
	if (!args || (pid = fork()) < 0) {
		perror(cmd);
		unlink(status);
		free(status);
		return 2;
	}
	if (pid == 0) {
		if (own_group)
			setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		execvp(args[0], args);
		fprintf(stderr, "%s: %s: %s: %s\n", cmd, args[0], strerror(errno), exec_hint(errno, args[0]));
		_exit(127);
	}
	if (f)
		free_argv(args);
	if (own_group)
		setpgid(pid, pid);	/* as the child does: whichever runs first */
	program_pid = pid;
	set_forwarding(true);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	rc = wait_program(cmd, pid, argv[prog]);
	program_pid = 0;
	set_forwarding(false);
	salvaged = shared >= 0 ? salvage_slots(cmd, shared, o.output, f && f->data != host_data()) : 0;
	if (shared >= 0)
		close(shared);
	report = read_status(status);
	/* A process that died before its runtime could report had sites: it recorded events. */
	if (salvaged && !report.processes)
		report = (struct run_report){ .processes = 1, .sites = salvaged };
	unlink(status);
	free(status);
	remove_unwritten(&o);
	/* A program that failed keeps its status, the messages said; a killed one has no report. */
	if (rc < 128 && !report_ok(cmd, argv[prog], &o, &report, rc == 0) && rc == 0)
		rc = 1;
	if (o.recording) {
		int reported = report_analyses(&o);

		rc = rc ? rc : reported;
	}
	free_analyses(&o);
	free_filter(&o);
	return rc;
}
