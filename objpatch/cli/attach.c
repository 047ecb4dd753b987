// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch attach: the first step of tracing a running process (issue
 * 21).  --inject-only loads the runtime into process PID and leaves: all
 * its threads are stopped with ptrace, one of them calls its libc's
 * dlopen(), and every thread goes on as it was.  The runtime stays
 * dormant (objpatch/lib/rt_api.c): for the length of the call the
 * process's environment holds OBJPATCH_ATTACH, which the runtime's
 * constructor reads before anything else.
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
#include "objpatch/cli/attach.h"
#include "objpatch/cli/inject.h"
#include "objpatch/cli/opts.h"
#include "objpatch/cli/proc.h"
#include "objpatch/cli/run.h"

#define RTLD_NOW_LINUX 2	/* <dlfcn.h>'s RTLD_NOW, the same on every Linux machine */
/* What the runtime looks for in its environment to stay dormant (objpatch/lib/rt.h, RT_ATTACH_VAR). */
#define ATTACH_VAR "OBJPATCH_ATTACH=1"
/* At most this much of the process's environment is copied below its stack pointer. */
#define ENV_COPY_MAX 65536

struct attach_opts {
	bool inject_only;
	const char *lib;
	const char *pid;
	unsigned long thread;	/* 0: objpatch picks */
};

static void attach_usage(FILE *f)
{
	fprintf(f, "usage: objpatch attach --inject-only [--lib=PATH] PID\n"
		   "Loads the tracing runtime into the running process PID, dormant, and leaves it\n"
		   "running as before (the first step of attach; tracing comes next).\n"
		   "      --inject-only   load the runtime and leave (the only mode yet)\n"
		   "      --lib=PATH      the runtime to load (default: the one objpatch run preloads)\n"
		   "      --thread=TID    the thread that calls dlopen (default: one not inside malloc\n"
		   "                      or the loader)\n"
		   "  -h, --help          this text\n"
		   "Exit status: 0 loaded; 1 when the load failed; 2 when the process was refused\n"
		   "(untouched) or for a usage error.\n");
}

enum { OPT_INJECT_ONLY = 1, OPT_LIB, OPT_THREAD };

static int set_option(void *ctx, int id, const char *v)
{
	struct attach_opts *o = ctx;

	if (id == OPT_THREAD) {
		o->thread = strtoul(v, NULL, 10);
		if (!o->thread || strspn(v, "0123456789") != strlen(v)) {
			fprintf(stderr, "objpatch attach: --thread %s: not a thread id: give one of /proc/PID/task\n", v);
			return -1;
		}
	} else if (id == OPT_INJECT_ONLY) {
		o->inject_only = true;
	} else if (id == OPT_LIB) {
		o->lib = v;
	} else if (o->pid) {
		fprintf(stderr, "objpatch attach: %s: one process at a time (PID %s given already)\n", v, o->pid);
		return -1;
	} else {
		o->pid = v;
	}
	return 0;
}

static int refuse(pid_t pid, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line naming the process and why: status 2, the process untouched. */
static int refuse(pid_t pid, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "objpatch attach: %d: ", (int)pid);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* The EPERM of PTRACE_SEIZE explained: Yama's scope, or the process's owner. */
static int refuse_ptrace(pid_t pid)
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
		return refuse(pid, "ptrace not permitted: kernel.yama.ptrace_scope is %s (%s); run objpatch as root, "
			      "or allow it with `sysctl kernel.yama.ptrace_scope=%s`", scope,
			      !strcmp(scope, "1") ? "only a parent may trace its children" :
			      !strcmp(scope, "2") ? "only CAP_SYS_PTRACE may trace" : "no process may be traced",
			      !strcmp(scope, "3") ? "0 (3 holds until reboot)" : "0");
	return refuse(pid, "ptrace not permitted: the process is another user's or not dumpable; run objpatch as "
		      "its user or as root");
}

/* What a process must be before anything is done to it; 0 or the refusal's status. */
static int check_process(pid_t pid, const struct remote_port **port, pid_t *live)
{
	char state[64], tracer[32], exe[PATH_MAX], link[64];
	uint16_t machine = 0;
	uint8_t elfclass = 0;
	ssize_t n;

	if (pid == getpid())
		return refuse(pid, "that is objpatch itself: give another process");
	if (!proc_status_field(pid, "State", state, sizeof(state)))
		return refuse(pid, "no such process: give the pid of a running process (pgrep NAME finds it)");
	if (!(*live = proc_live_thread(pid)))
		return refuse(pid, "the process has exited (state %s): nothing runs there to attach to", state);
	if (proc_status_field(pid, "TracerPid", tracer, sizeof(tracer)) && strcmp(tracer, "0"))
		return refuse(pid, "already traced by process %s (a debugger, strace): a process has one tracer at a "
			      "time; detach that one first", tracer);
	if (state[0] == 'T')
		return refuse(pid, "the process is stopped (state %s): continue it first (kill -CONT %d)", state, (int)pid);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)*live);
	n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (!proc_exe_machine(*live, &machine, &elfclass))
		return errno == EACCES ? refuse_ptrace(pid) :
		       refuse(pid, "its program %s is not an ELF file objpatch can read", n > 0 ? exe : link);
	if (!strncmp(strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe, "qemu-", 5))
		return refuse(pid, "it runs under %s: qemu-user's guest cannot be traced through ptrace; attach to "
			      "native processes only", exe);
	if (!(*port = remote_port_for(machine, elfclass)))
		return refuse(pid, "its program %s is for ELF machine %u (class %u), and objpatch attaches to this "
			      "machine's processes only (x86_64 and i386 on x86_64)", exe, machine, elfclass);
	return 0;
}

/* A file of the process, read where the process sees it (its root may be a container's). */
static int load_module(pid_t pid, const struct proc_module *m, struct elfobj *obj, char *path, size_t len)
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
};

#define NLOCKING (sizeof(locking) / sizeof(locking[0]))

/* What the call needs of the process: its libc's functions and the environment's address. */
struct target_syms {
	uint64_t dlopen, dlerror, environ;
	struct inject_range avoid[NLOCKING];
	size_t navoid;
};

static uint64_t load_bias(struct elfobj *obj, const struct proc_module *m)
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
	if (n <= 0 || !proc_find_module(pid, is_exe, &m) || load_module(pid, &m, &obj, path, sizeof(path)) < 0)
		return;
	for (size_t i = 0; i < 2; i++)
		if (dynsym_lookup(&obj, names[i], &s) && s.st_shndx != SHN_ABS) {
			t->environ = load_bias(&obj, &m) + s.st_value;
			break;
		}
	elfobj_free(&obj);
}

/* `live`: a live thread of `pid`, whose /proc entry shows the memory. */
static int find_symbols(pid_t pid, pid_t live, struct target_syms *t)
{
	struct proc_module m;
	struct elfobj obj;
	char path[PATH_MAX + 32];
	GElf_Sym s;
	uint64_t bias;

	memset(t, 0, sizeof(*t));
	if (!proc_find_module(live, is_libc, &m))
		return refuse(pid, "no libc in the process (statically linked?): attach loads the runtime with "
			      "libc's dlopen");
	if (load_module(live, &m, &obj, path, sizeof(path)) < 0)
		return refuse(pid, "its libc %s: %s", m.path, obj.err[0] ? obj.err : strerror(errno));
	bias = load_bias(&obj, &m);
	if (dynsym_lookup(&obj, "dlopen", &s))
		t->dlopen = bias + s.st_value;
	if (dynsym_lookup(&obj, "dlerror", &s))
		t->dlerror = bias + s.st_value;
	if (dynsym_lookup(&obj, "__environ", &s))
		t->environ = bias + s.st_value;
	for (size_t i = 0; i < NLOCKING; i++)
		if (dynsym_lookup(&obj, locking[i], &s) && s.st_size)
			t->avoid[t->navoid++] = (struct inject_range){ bias + s.st_value, bias + s.st_value + s.st_size };
	elfobj_free(&obj);
	if (!t->dlopen || !t->environ)
		return refuse(pid, "its libc %s has no %s (glibc 2.34 or later has it)", m.path,
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
	if (lib ? !realpath(lib, out) : run_find_runtime(out, len, sub) < 0) {
		if (lib)
			return refuse(pid, "--lib %s: %s", lib, strerror(errno));
		return refuse(pid, "no %s runtime beside objpatch or installed: build it (make%s%s)", port->name,
			      sub[0] ? " runtime-" : "", sub[0] ? port->name : "");
	}
	return 0;
}

/* Places `len` bytes below *at (aligned to `align`) in the process's memory. */
static int push(struct inject *in, uint64_t *at, const void *data, size_t len, unsigned align)
{
	*at = (*at - len) & ~(uint64_t)(align - 1);
	return inject_write(in, *at, data, len);
}

/*
 * The process's environment array with ATTACH_VAR first, below *at;
 * its address in *env.  Past ENV_COPY_MAX only ATTACH_VAR is there: the
 * runtime reads nothing else.
 */
static int push_environment(struct inject *in, uint64_t *at, uint64_t environ_array, uint64_t *env)
{
	unsigned w = in->port->word;
	size_t n = 0, max = ENV_COPY_MAX / w;
	uint64_t flag, word = 0;
	uint8_t *words;
	int rc;

	if (push(in, at, ATTACH_VAR, sizeof(ATTACH_VAR), 1) < 0)
		return -1;
	flag = *at;
	while (environ_array && n + 2 < max && inject_read_word(in, environ_array + n * w, &word) == 0 && word)
		n++;
	if (word)
		n = 0;	/* too long or unreadable: the variable alone */
	if (!(words = calloc(n + 2, w))) {
		snprintf(in->err, sizeof(in->err), "%d: out of memory", (int)in->pid);
		return -1;
	}
	memcpy(words, &flag, w);	/* little-endian: the low bytes first */
	rc = n ? inject_read(in, environ_array, words + w, n * w) : 0;
	if (rc == 0)
		rc = push(in, at, words, (n + 2) * w, w);
	free(words);
	*env = *at;
	return rc;
}

/* dlerror()'s text after a failed dlopen, into msg. */
static void remote_dlerror(struct inject *in, size_t thread, const struct target_syms *t, uint64_t below, char *msg,
			   size_t len)
{
	struct remote_call c = { .fn = t->dlerror, .below = below };
	uint64_t p = 0;

	snprintf(msg, len, "dlopen returned NULL");
	if (!t->dlerror || inject_call(in, thread, "dlerror", &c, &p) < 0 || !p)
		return;
	memset(msg, 0, len);
	for (size_t i = 0; i + 1 < len && pread(in->mem, msg + i, 1, (off_t)(p + i)) == 1 && msg[i]; i++)
		;
}

/*
 * dlopen(lib, RTLD_NOW) in thread `thread`, with the environment swapped
 * for the call: RTLD_LOCAL (0), so the runtime's own dlopen and unwinder
 * do not interpose on the program's.
 */
static int load(struct inject *in, size_t thread, const struct target_syms *t, const char *lib, uint64_t *handle)
{
	uint64_t at, path, env, saved_env = 0;
	struct remote_call c = { .fn = t->dlopen, .nargs = 2 };
	char why[256];
	int rc;

	if (inject_stack_top(in, thread, &at) < 0 || push(in, &at, lib, strlen(lib) + 1, 1) < 0)
		return -1;
	path = at;
	if (inject_read_word(in, t->environ, &saved_env) < 0 || push_environment(in, &at, saved_env, &env) < 0 ||
	    inject_write_word(in, t->environ, env) < 0)
		return -1;
	c.args[0] = path;
	c.args[1] = RTLD_NOW_LINUX;
	c.below = at;
	rc = inject_call(in, thread, "dlopen", &c, handle);
	if (inject_write_word(in, t->environ, saved_env) < 0)
		rc = -1;
	if (rc == 0 && !*handle) {
		remote_dlerror(in, thread, t, at, why, sizeof(why));
		snprintf(in->err, sizeof(in->err), "%d: loading %s: %s", (int)in->pid, lib, why);
		rc = -1;
	}
	return rc;
}

/* The thread asked for, among those held: -1 after one line when it is not one. */
static ssize_t asked_thread(struct inject *in, pid_t tid)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->t[i].tid == tid && !in->t[i].gone)
			return (ssize_t)i;
	snprintf(in->err, sizeof(in->err), "%d: --thread %d: not a thread of the process: give one of /proc/%d/task",
		 (int)in->pid, (int)tid, (int)in->pid);
	return -1;
}

/* Holds the process for the load; 0, 1 (failed) or 2 (refused). */
static int inject(pid_t pid, const struct remote_port *port, const struct target_syms *t, const char *lib,
		  pid_t tid)
{
	struct inject in;
	uint64_t handle = 0;
	ssize_t thread;
	int rc = 0;

	if (inject_stop(&in, pid, port) < 0) {
		if (in.errnum == EPERM)
			return refuse_ptrace(pid);
		fprintf(stderr, "objpatch attach: %s\n", in.err);
		return in.errnum == ESRCH ? 2 : 1;
	}
	thread = tid ? asked_thread(&in, tid) : inject_pick(&in, t->avoid, t->navoid);
	if (thread < 0 || load(&in, (size_t)thread, t, lib, &handle) < 0) {
		fprintf(stderr, "objpatch attach: %s\n", in.err);
		rc = 1;
	}
	if (!rc)
		printf("objpatch attach: %d: %s loaded, dormant (handle 0x%" PRIx64 ", by thread %d)\n", (int)pid, lib,
		       handle, (int)in.t[thread].tid);
	inject_detach(&in);
	return rc;
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

int attach_main(int argc, char **argv)
{
	static const struct cli_opt opts[] = {
		{ "inject-only", 0, NULL, OPT_INJECT_ONLY },
		{ "lib", 0, "PATH", OPT_LIB },
		{ "thread", 0, "TID", OPT_THREAD },
		{ NULL, 0, NULL, 0 },
	};
	struct attach_opts o = { 0 };
	const struct cli_cmd cmd = { .name = "objpatch attach", .opts = opts, .usage = attach_usage,
				     .set = set_option, .ctx = &o };
	const struct remote_port *port = NULL;
	struct target_syms syms;
	char lib[PATH_MAX];
	sigset_t held, old;
	pid_t pid, live = 0;
	int rc = cli_parse(&cmd, argc, argv, 2);

	if (rc == CLI_HELP)
		return 0;
	if (rc >= 0 && !o.pid)
		fprintf(stderr, "objpatch attach: no process: objpatch attach --inject-only PID\n");
	else if (rc >= 0 && !o.inject_only)
		fprintf(stderr, "objpatch attach: only --inject-only works yet (tracing a running process is issue 21's "
				"next step)\n");
	if (rc < 0 || !o.pid || !o.inject_only || parse_pid(o.pid, &pid) < 0)
		return 2;
	elf_version(EV_CURRENT);
	if ((rc = check_process(pid, &port, &live)) || (rc = runtime_for(pid, port, o.lib, lib, sizeof(lib))) ||
	    (rc = find_symbols(pid, live, &syms)))
		return rc;
	/* objpatch killed while it holds the process would leave a thread mid-call: finish first. */
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	sigaddset(&held, SIGQUIT);
	sigprocmask(SIG_BLOCK, &held, &old);
	rc = inject(pid, port, &syms, lib, (pid_t)o.thread);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}
