// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch attach: its options, the checks every process must
 * pass, and --inject-only.  A tracing session is attach_trace.c's; the
 * calls in the held process attach_call.c's, the holding inject.c's.
 *
 * --inject-only loads the runtime into process PID and leaves: all its
 * threads are stopped with ptrace, one of them calls its libc's dlopen(),
 * and every thread goes on as it was.  The runtime stays dormant
 * (objpatch/lib/rt_api.c): for the length of the call the process's
 * environment holds OBJPATCH_ATTACH, which the runtime's constructor
 * reads before anything else.
 *
 * What the process could hold against the call: it is refused, target
 * untouched and with status 2, when it does not exist, is not ours to
 * ptrace, already has a tracer, is of another machine or has no dlopen.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "elf/dynsym.h"
#include "objpatch/attach/attach.h"
#include "objpatch/attach/attach_call.h"
#include "objpatch/attach/attach_list.h"
#include "objpatch/attach/attach_stream.h"
#include "objpatch/attach/inject.h"
#include "objpatch/engine/opts.h"
#include "objpatch/engine/analyses.h"
#include "objpatch/attach/proc.h"
#include "objpatch/engine/runtime_path.h"
#include "util/array.h"

/* Holds tried when PTRACE_SEIZE says EPERM and no tracer is left to name (one let go meanwhile). */
#define HOLD_TRIES 3
/* The settings of a session: OBJPATCH_ATTACH and the runtime's variables. */
#define SETTINGS_MAX 8

struct attach_opts {
	bool inject_only, args, verbose;
	bool list, json;	/* --list: what can be traced, nothing done to the process */
	const char *lib, *pid, *policy, *trace_only;	/* trace_only: an option --inject-only does not take */
	const char *output;	/* --output, checked before the process is touched */
	unsigned long thread;	/* 0: objpatch picks */
	double duration;	/* seconds; 0: until a signal */
	char *filter;		/* the runtime's OBJPATCH_FILTER: the patterns, ',' between them */
	const char **globs;	/* the same, one by one */
	size_t nglobs, cap_globs;
	/* objpatch report's options, "--NAME=VALUE" as given, for the trace once the session ends */
	const char **report;
	size_t nreport, cap_report;
};

static void attach_usage(FILE *f)
{
	fprintf(f, "usage: objpatch attach [OPTIONS] PID\n"
		   "       objpatch attach --list [--json] PID\n"
		   "Traces the functions of the running process PID (built with recorded call sites)\n"
		   "until the duration ends or objpatch gets SIGINT (Ctrl-C), SIGTERM, SIGHUP or\n"
		   "SIGQUIT (a second one stops waiting for the runtime), then detaches, leaving the\n"
		   "runtime loaded but dormant, and prints the trace (as objpatch report would).\n"
		   "  -F, --filter=GLOB   trace the functions matching GLOB, in order; '!GLOB' excludes\n"
		   "                      (repeatable; default: every function)\n"
		   "  -a, --args          each call's arguments (strings by address)\n"
		   "      --duration=SECONDS  detach after this long (decimals: 0.5)\n"
		   "  -o, --output=FILE   the trace (default standard output)\n"
		   "      --format=FMT    text, json, folded, svg or perfetto (default text)\n"
		   "      --hex           integers in hex\n"
		   "      --errno-names   negative integers that are errno values with their names\n"
		   "      --policy=P      when objpatch reads behind: wait (default) or drop (lost, counted)\n"
		   "      --summary, --sort=KEY, --graph=FUNCTION, --tid=TID, --below=FUNCTION,\n"
		   "      --callers=FUNCTION, --min-duration=TIME, --max-depth=N: objpatch report's\n"
		   "      --lib=PATH      the runtime to load (default: the one objpatch run preloads);\n"
		   "                      a runtime the process has loaded already is used again\n"
		   "      --thread=TID    the thread that makes the calls (default: one not inside\n"
		   "                      malloc or the loader)\n"
		   "      --inject-only   load the runtime, dormant, and leave\n"
		   "  -v, --verbose       say how long the process was held (its threads stopped)\n"
		   "      --list          print the functions that can be traced in PID, with their\n"
		   "                      prototypes: per module (its program, its libraries, those it\n"
		   "                      loaded with dlopen) a line with its path, load address and\n"
		   "                      count, then its functions as objpatch list prints them; the\n"
		   "                      process is neither stopped nor traced\n"
		   "  -j, --json          with --list: one JSON object, one object per module\n"
		   "  -h, --help          this text\n"
		   "Exit status: 0 traced (or loaded); 1 when it failed; 2 when the process was refused\n"
		   "(untouched) or for a usage error.  --list: 0; 1 when a module could not be read;\n"
		   "2 when the process was refused or has no recorded call sites.\n");
}

/* From OPT_OUTPUT on: objpatch report's options (and the analyses, ANALYSIS_*). */
enum { OPT_INJECT_ONLY = 1, OPT_VERBOSE, OPT_LIB, OPT_THREAD, OPT_LIST, OPT_JSON, OPT_FILTER, OPT_ARGS, OPT_DURATION, OPT_POLICY,
       OPT_OUTPUT, OPT_FORMAT, OPT_HEX, OPT_ERRNO_NAMES };

static const struct cli_opt attach_options[] = {
	{ "filter", 'F', "GLOB", OPT_FILTER },
	{ "args", 'a', NULL, OPT_ARGS },
	{ "duration", 0, "SECONDS", OPT_DURATION },
	{ "output", 'o', "FILE", OPT_OUTPUT },
	{ "format", 0, "text|json|folded|svg|perfetto", OPT_FORMAT },
	{ "hex", 0, NULL, OPT_HEX },
	{ "errno-names", 0, NULL, OPT_ERRNO_NAMES },
	{ "policy", 0, "wait|drop", OPT_POLICY },
	/* report's analyses; its -F, -N and -D are the runtime's filter here, as in objpatch run */
	ANALYSIS_VIEW_OPTIONS,
	{ "max-depth", 0, "N", ANALYSIS_MAX_DEPTH },
	{ "inject-only", 0, NULL, OPT_INJECT_ONLY },
	{ "verbose", 'v', NULL, OPT_VERBOSE },
	{ "list", 0, NULL, OPT_LIST },
	{ "json", 'j', NULL, OPT_JSON },
	{ "lib", 0, "PATH", OPT_LIB },
	{ "thread", 0, "TID", OPT_THREAD },
	{ NULL, 0, NULL, 0 },
};

static const char *option_name(int id)
{
	for (const struct cli_opt *o = attach_options; o->name; o++)
		if (o->id == id)
			return o->name;
	return "?";
}

/*
 * An option of objpatch report, kept as "--NAME=VALUE" for its parser,
 * which checks them all before the process is touched (report_check()).
 */
static int keep_for_report(struct attach_opts *o, const char *name, const char *v)
{
	char *arg;

	if (!grow_array(&o->report, o->nreport, &o->cap_report, sizeof(*o->report)) ||
	    asprintf(&arg, "--%s%s%s", name, v ? "=" : "", v ? v : "") < 0)
		return -1;
	o->report[o->nreport++] = arg;
	return 0;
}

static int add_glob(struct attach_opts *o, const char *glob)
{
	const char *why = cli_bad_filter_glob(glob);
	char *f;

	if (why) {
		fprintf(stderr, "objpatch attach: --filter %s: %s\n", glob, why);
		return -1;
	}
	if (!grow_array(&o->globs, o->nglobs, &o->cap_globs, sizeof(*o->globs)) ||
	    asprintf(&f, "%s%s%s", o->filter ? o->filter : "", o->filter ? "," : "", glob) < 0)
		return -1;
	free(o->filter);
	o->filter = f;
	o->globs[o->nglobs++] = glob;
	return 0;
}

static int set_duration(struct attach_opts *o, const char *v)
{
	char *end;

	errno = 0;
	o->duration = strtod(v, &end);
	if (!*v || *end || errno || !(o->duration > 0) || o->duration > 1e9 || strspn(v, "0123456789.") != strlen(v)) {
		fprintf(stderr, "objpatch attach: --duration %s: not a number of seconds: give one above 0 (0.5, 10)\n",
			v);
		return -1;
	}
	return 0;
}

static int set_option(void *ctx, int id, const char *v)
{
	struct attach_opts *o = ctx;

	if (id != CLI_OPERAND && id != OPT_INJECT_ONLY && id != OPT_LIB && id != OPT_THREAD && id != OPT_LIST &&
	    id != OPT_JSON && id != OPT_VERBOSE)
		o->trace_only = option_name(id);
	if (id == OPT_OUTPUT)
		o->output = v;
	if (id >= OPT_OUTPUT)
		return keep_for_report(o, option_name(id), v);
	switch (id) {
	case OPT_LIST:
	case OPT_JSON:
		*(id == OPT_LIST ? &o->list : &o->json) = true;
		return 0;
	case OPT_THREAD:
		o->thread = strtoul(v, NULL, 10);
		if (!o->thread || strspn(v, "0123456789") != strlen(v)) {
			fprintf(stderr, "objpatch attach: --thread %s: not a thread id: give one of /proc/PID/task\n", v);
			return -1;
		}
		return 0;
	case OPT_INJECT_ONLY:
		o->inject_only = true;
		return 0;
	case OPT_VERBOSE:
		o->verbose = true;
		return 0;
	case OPT_LIB:
		o->lib = v;
		return 0;
	case OPT_FILTER:
		return add_glob(o, v);
	case OPT_ARGS:
		o->args = true;
		return 0;
	case OPT_DURATION:
		return set_duration(o, v);
	case OPT_POLICY:
		if (strcmp(v, "wait") && strcmp(v, "drop")) {
			fprintf(stderr, "objpatch attach: --policy %s: not a policy: give wait (lossless) or drop (lose and "
				"count the events objpatch cannot take)\n", v);
			return -1;
		}
		o->policy = v;
		return 0;
	}
	if (o->pid) {
		fprintf(stderr, "objpatch attach: %s: one process at a time (PID %s given already)\n", v, o->pid);
		return -1;
	}
	o->pid = v;
	return 0;
}

/* One line naming the process and why: status 2, the process untouched. */
int attach_refuse(pid_t pid, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "objpatch attach: %d: ", (int)pid);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int attach_refuse_ptrace(pid_t pid)
{
	char scope[16] = "";
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");

	if (f) {
		if (!fgets(scope, sizeof(scope), f))
			scope[0] = 0;
		fclose(f);
		scope[strcspn(scope, "\n")] = 0;
	}
	if (scope[0] && strcmp(scope, "0"))
		return attach_refuse(pid, "ptrace not permitted: kernel.yama.ptrace_scope is %s (%s); run objpatch as root, "
			      "or allow it with `sysctl kernel.yama.ptrace_scope=%s`", scope,
			      !strcmp(scope, "1") ? "only a parent may trace its children" :
			      !strcmp(scope, "2") ? "only CAP_SYS_PTRACE may trace" : "no process may be traced",
			      !strcmp(scope, "3") ? "0 (3 holds until reboot)" : "0");
	return attach_refuse(pid, "ptrace not permitted: the process is another user's or not dumpable; run objpatch as "
		      "its user or as root");
}

/* Whether process `p` is an objpatch (its name as /proc shows it). */
bool attach_is_objpatch(pid_t p)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
	if (!(f = fopen(path, "re")))
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strcmp(comm, "objpatch\n");
}

int attach_refuse_tracer(pid_t pid, pid_t tracer)
{
	if (attach_is_objpatch(tracer))
		return attach_refuse(pid, "another objpatch attach (pid %d) holds it: a process takes one session at a "
				     "time; wait for that one to end", (int)tracer);
	return attach_refuse(pid, "already traced by process %d (a debugger, strace): a process has one tracer at a "
			     "time; detach that one first", (int)tracer);
}

/* What a process must be before anything is done to it; 0 or the refusal's status. */
static int check_process(pid_t pid, const struct remote_port **port, pid_t *live)
{
	char state[64], tracer[32], exe[PATH_MAX], link[64];
	uint16_t machine = 0;
	uint8_t elfclass = 0;
	ssize_t n;

	if (pid == getpid())
		return attach_refuse(pid, "that is objpatch itself: give another process");
	if (!proc_status_field(pid, "State", state, sizeof(state)))
		return attach_refuse(pid, "no such process: give the pid of a running process (pgrep NAME finds it)");
	if (!(*live = proc_live_thread(pid)))
		return attach_refuse(pid, "the process has exited (state %s): nothing runs there to attach to", state);
	if (proc_status_field(pid, "TracerPid", tracer, sizeof(tracer)) && strcmp(tracer, "0"))
		return attach_refuse_tracer(pid, (pid_t)atoi(tracer));
	if (state[0] == 'T')
		return attach_refuse(pid, "the process is stopped (state %s): continue it first (kill -CONT %d)", state, (int)pid);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)*live);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (!proc_exe_machine(*live, &machine, &elfclass))
		return errno == EACCES ? attach_refuse_ptrace(pid) :
		       attach_refuse(pid, "its program %s is not an ELF file objpatch can read", n > 0 ? exe : link);
	if (!strncmp(strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe, "qemu-", 5))
		return attach_refuse(pid, "it runs under %s: qemu-user's guest cannot be traced through ptrace; attach to "
			      "native processes only", exe);
	if (!(*port = remote_port_for(machine, elfclass)))
		return attach_refuse(pid, "its program %s is for ELF machine %u (class %u), and objpatch attaches to this "
			      "machine's processes only (x86_64 and i386 on x86_64)", exe, machine, elfclass);
	return 0;
}

int attach_load_module(pid_t pid, const struct proc_module *m, struct elfobj *obj, char *path, size_t len)
{
	int fd, rc;

	snprintf(path, len, "/proc/%d/root%s", (int)pid, m->path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = elfobj_load_mapped(obj, m->path, fd);
	close(fd);
	return rc;
}

static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/') + 1;

	return !strncmp(base, "libc.so", 7) || (!strncmp(base, "libc-", 5) && base[5] >= '0' && base[5] <= '9');
}

static char exe_path[PATH_MAX];

static bool is_exe(const char *path)
{
	return !strcmp(path, exe_path);
}

/* Code a borrowed thread must not be inside: a call of dlopen would wait for its locks. */
static const char *const locking[] = {
	"malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign", "aligned_alloc",
	"valloc", "pvalloc", "malloc_trim", "mallinfo", "mallinfo2", "malloc_stats", "malloc_info",
	"dlopen", "dlclose", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "dlmopen", "dl_iterate_phdr", "fork",
	"_Fork",	/* fork()'s system call, while fork() holds malloc's locks (and the runtime's, by its atfork handler) */
};

_Static_assert(sizeof(locking) / sizeof(locking[0]) <= ATTACH_AVOID_MAX, "struct target_syms holds them all");

uint64_t attach_load_bias(struct elfobj *obj, const struct proc_module *m)
{
	uint64_t vaddr = 0;

	dynsym_first_load(obj, &vaddr);
	return m->base - vaddr;
}

/*
 * The environment the process reads is the executable's copy of environ
 * when it has one (a copy relocation moves it there, and libc then uses
 * it too), else libc's.
 */
static void exe_environ(pid_t pid, struct target_syms *t)
{
	static const char *const names[] = { "__environ", "environ" };
	struct proc_module m;
	struct elfobj obj;
	char path[PATH_MAX + 32], link[64];
	GElf_Sym s;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe_path, sizeof(exe_path) - 1);
	exe_path[n > 0 ? n : 0] = 0;
	if (n <= 0 || !proc_find_module(pid, is_exe, &m) || attach_load_module(pid, &m, &obj, path, sizeof(path)) < 0)
		return;
	for (size_t i = 0; i < 2; i++)
		if (dynsym_lookup(&obj, names[i], &s) && s.st_shndx != SHN_ABS) {
			t->environ = attach_load_bias(&obj, &m) + s.st_value;
			break;
		}
	elfobj_free(&obj);
}

/*
 * libc's signal-return code (glibc's __restore_rt, a local symbol): the
 * port's bytes, once in libc's executable segments; 0 when not found
 * (calls then return to address 0, as before).
 */
static uint64_t sigreturn_code(const struct remote_port *port, const char *path, struct elfobj *obj, uint64_t bias)
{
	uint64_t found = 0;
	size_t nph = 0;
	int fd;

	if (!port->sigreturn_code || elf_getphdrnum(obj->elf, &nph) < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	for (size_t i = 0; i < nph && !found; i++) {
		GElf_Phdr ph;
		uint8_t *text;

		if (!gelf_getphdr(obj->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    !(text = malloc(ph.p_filesz)))
			continue;
		if (pread(fd, text, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
			void *at = memmem(text, ph.p_filesz, port->sigreturn_code, port->sigreturn_len);

			if (at)
				found = bias + ph.p_vaddr + (uint64_t)((uint8_t *)at - text);
		}
		free(text);
	}
	close(fd);
	return found;
}

/* `live`: a live thread of `pid`, whose /proc entry shows the memory. */
static int find_symbols(pid_t pid, pid_t live, const struct remote_port *port, struct target_syms *t)
{
	struct proc_module m;
	struct elfobj obj;
	char path[PATH_MAX + 32];
	GElf_Sym s;
	uint64_t bias;

	memset(t, 0, sizeof(*t));
	if (!proc_find_module(live, is_libc, &m))
		return attach_refuse(pid, "no libc in the process (statically linked?): attach loads the runtime with "
			      "libc's dlopen");
	if (attach_load_module(live, &m, &obj, path, sizeof(path)) < 0)
		return attach_refuse(pid, "its libc %s: %s", m.path, obj.err[0] ? obj.err : strerror(errno));
	bias = attach_load_bias(&obj, &m);
	if (dynsym_lookup(&obj, "dlopen", &s))
		t->dlopen = bias + s.st_value;
	if (dynsym_lookup(&obj, "dlerror", &s))
		t->dlerror = bias + s.st_value;
	if (dynsym_lookup(&obj, "__environ", &s))
		t->environ = bias + s.st_value;
	if (dynsym_lookup(&obj, "mmap", &s))
		t->mmap = bias + s.st_value;
	if (dynsym_lookup(&obj, "munmap", &s))
		t->munmap = bias + s.st_value;
	t->sigreturn = sigreturn_code(port, path, &obj, bias);
	for (size_t i = 0; i < sizeof(locking) / sizeof(locking[0]); i++)
		if (dynsym_lookup(&obj, locking[i], &s) && s.st_size)
			t->avoid[t->navoid++] = (struct inject_range){ bias + s.st_value, bias + s.st_value + s.st_size };
	elfobj_free(&obj);
	if (!t->dlopen || !t->environ)
		return attach_refuse(pid, "its libc %s has no %s (glibc 2.34 or later has it)", m.path,
			      t->dlopen ? "__environ" : "dlopen");
	exe_environ(live, t);
	return 0;
}

/* The runtime for the process's machine: --lib, or the one objpatch run would preload. */
static int runtime_for(pid_t pid, const struct remote_port *port, const char *lib, char *out, size_t len)
{
	const struct remote_port *host = NULL;
	uint16_t machine;
	uint8_t elfclass;
	char sub[32] = "";

	if (proc_exe_machine(getpid(), &machine, &elfclass))
		host = remote_port_for(machine, elfclass);
	if (host != port)
		snprintf(sub, sizeof(sub), "%s/", port->name);
	if (lib ? !realpath(lib, out) : find_runtime(out, len, sub) < 0) {
		if (lib)
			return attach_refuse(pid, "--lib %s: %s", lib, strerror(errno));
		return attach_refuse(pid, "no %s runtime beside objpatch or installed: build it (make%s%s)", port->name,
			      sub[0] ? " runtime-" : "", sub[0] ? port->name : "");
	}
	return 0;
}

/* The thread asked for (--thread), among those held: -1 with in->err set when it is not one. */
static ssize_t asked_thread(struct inject *in, pid_t tid)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->t[i].tid == tid && !in->t[i].gone)
			return (ssize_t)i;
	snprintf(in->err, sizeof(in->err), "%d: --thread %d: not a thread of the process: give one of /proc/%d/task",
		 (int)in->pid, (int)tid, (int)in->pid);
	return -1;
}

int attach_hold(struct inject *in, pid_t pid, const struct remote_port *port, const struct target_syms *t, pid_t tid,
		ssize_t *thread)
{
	char tracer[32];
	int tries = 0;

	while (inject_stop(in, pid, port) < 0) {
		/* PTRACE_SEIZE refuses a thread another tracer holds with EPERM too: that one is named. */
		if (in->errnum == EPERM && in->failed_tid &&
		    proc_status_field(in->failed_tid, "TracerPid", tracer, sizeof(tracer)) && strcmp(tracer, "0"))
			return attach_refuse_tracer(pid, (pid_t)atoi(tracer));
		/* Or held a moment ago by one that has let go since (an attach starting its session): again. */
		if (in->errnum == EPERM && ++tries < HOLD_TRIES) {
			usleep(1000);
			continue;
		}
		if (in->errnum == EPERM)
			return attach_refuse_ptrace(pid);
		fprintf(stderr, "objpatch attach: %s\n", in->err);
		return in->errnum == ESRCH ? 2 : 1;
	}
	inject_step(in, "stop");
	inject_safe_calls(in, t->sigreturn, t->mmap, t->munmap);
	*thread = tid ? asked_thread(in, tid) : inject_pick(in, t->avoid, t->navoid);
	inject_step(in, "pick");
	return 0;
}

/* Holds the process for the load; 0, 1 (failed) or 2 (refused). */
static int inject(pid_t pid, const struct remote_port *port, const struct target_syms *t, const char *lib,
		  pid_t tid, bool verbose)
{
	struct inject in;
	uint64_t handle = 0;
	ssize_t thread;
	int rc = attach_hold(&in, pid, port, t, tid, &thread);

	if (rc)
		return rc;
	if (thread < 0 || call_load(&in, (size_t)thread, t, lib, &handle) < 0) {
		fprintf(stderr, "objpatch attach: %s\n", in.err);
		rc = 1;
	}
	if (!rc)
		printf("objpatch attach: %d: %s loaded, dormant (handle 0x%" PRIx64 ", by thread %d)\n", (int)pid, lib,
		       handle, (int)in.t[thread].tid);
	inject_detach(&in);
	if (verbose)
		attach_say_held(pid, &in);
	return rc;
}

void attach_say_held(pid_t pid, const struct inject *in)
{
	fprintf(stderr, "objpatch attach: %d: held %.2f ms (its threads stopped):", (int)pid, (double)in->held_ns / 1e6);
	for (size_t i = 0; i < in->nsteps; i++)
		fprintf(stderr, "%s %s %.2f", i ? "," : "", in->steps[i].what, (double)in->steps[i].ns / 1e6);
	fprintf(stderr, " ms\n");
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v <= 0 || v > INT_MAX) {
		fprintf(stderr, "objpatch attach: %s: not a process id: give a positive number\n", s);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

/* The inject-only mode's options: the others are a session's. */
static int check_mode(const struct attach_opts *o)
{
	if (!o->pid) {
		fprintf(stderr, "objpatch attach: no process: objpatch attach [OPTIONS] PID\n");
		return -1;
	}
	if (o->inject_only && o->trace_only) {
		fprintf(stderr, "objpatch attach: --%s: a tracing option, and --inject-only traces nothing: give one "
			"or the other\n", o->trace_only);
		return -1;
	}
	return 0;
}

/* --list: its options checked, then the listing (attach_list.c). */
static int list_mode(const struct attach_opts *o)
{
	const char *other = o->inject_only ? "inject-only" : o->trace_only ? o->trace_only : o->lib ? "lib" :
			    o->verbose ? "verbose" :
			    o->thread ? "thread" : NULL;
	pid_t pid;

	if (!o->list)
		fprintf(stderr, "objpatch attach: --json goes with --list: objpatch attach --list --json PID\n");
	else if (other)
		fprintf(stderr, "objpatch attach: --%s: --list only reads the process's files and takes no other option "
			"than --json\n", other);
	else if (!o->pid)
		fprintf(stderr, "objpatch attach: no process: objpatch attach --list PID\n");
	if (!o->list || other || !o->pid || parse_pid(o->pid, &pid) < 0)
		return 2;
	return attach_list(pid, o->json);
}

static void free_opts(struct attach_opts *o)
{
	for (size_t i = 0; i < o->nreport; i++)
		free((char *)o->report[i]);
	free(o->report);
	free(o->globs);
	free(o->filter);
}

/* The session asked for, once the process and its runtime are known. */
static int trace(pid_t pid, pid_t live, const struct remote_port *port, const struct target_syms *t,
		 const struct attach_opts *o, const char *lib)
{
	const struct attach_session s = {
		.lib = lib, .filter = o->filter, .globs = o->globs, .nglobs = o->nglobs, .args = o->args,
		.policy = o->policy, .thread = (pid_t)o->thread, .duration = o->duration, .report = o->report,
		.nreport = o->nreport, .output = o->output, .verbose = o->verbose,
	};

	return attach_trace(pid, live, port, t, &s);
}

int attach_main(int argc, char **argv)
{
	struct attach_opts o = { 0 };
	const struct cli_cmd cmd = { .name = "objpatch attach", .opts = attach_options, .usage = attach_usage,
				     .set = set_option, .ctx = &o };
	const struct remote_port *port = NULL;
	struct target_syms syms;
	char lib[PATH_MAX];
	sigset_t held, old;
	pid_t pid, live = 0;
	int rc = cli_parse(&cmd, argc, argv, 2);

	if (rc >= 0 && (o.list || o.json)) {
		rc = list_mode(&o);
		free_opts(&o);
		return rc;
	}
	if (rc == CLI_HELP || rc < 0 || check_mode(&o) < 0 || parse_pid(o.pid, &pid) < 0) {
		free_opts(&o);
		return rc == CLI_HELP ? 0 : 2;
	}
	elf_version(EV_CURRENT);
	if ((rc = check_process(pid, &port, &live)) || (rc = runtime_for(pid, port, o.lib, lib, sizeof(lib))) ||
	    (rc = find_symbols(pid, live, port, &syms))) {
		free_opts(&o);
		return rc;
	}
	if (!o.inject_only) {
		rc = trace(pid, live, port, &syms, &o, lib);
		free_opts(&o);
		return rc;
	}
	free_opts(&o);
	/* objpatch killed while it holds the process would leave a thread mid-call: finish first. */
	attach_end_signals(&held);
	sigprocmask(SIG_BLOCK, &held, &old);
	rc = inject(pid, port, &syms, lib, (pid_t)o.thread, o.verbose);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
