// SPDX-License-Identifier: GPL-2.0-only
/*
 * objpatch attach PID: a tracing session in a running process.
 *
 * Before the process is touched: its files must hold recorded sites, and
 * each --filter pattern must name one of their functions (each a refusal,
 * status 2); report's options are checked; the socket the runtime will
 * connect to is made (attach_stream.c).
 *
 * Then, with every thread held (inject.c): a thread not inside malloc or
 * the loader loads the runtime with dlopen() unless the process has it
 * already (a second attach uses the copy the first one loaded: never a
 * second one), and calls its objpatch_attach_start(), found in the loaded
 * file's dynamic symbols, with environ swapped for the session's
 * settings: the filter, --args, and OBJPATCH_OUTPUT naming the socket.
 * The call connects and starts the session's thread; every thread is let
 * go, and the runtime finds its sites and patches them from that thread
 * while the process runs (objpatch/lib/rt_attach.c says why).
 *
 * The runtime streams a raw recording (man/objpatch-recording.5), not a
 * formatted trace: the process does the least work, objpatch formats it
 * with report's code and every one of its options once the session ends.
 * What that costs: string arguments show as addresses, as they do for
 * `objpatch record`, since the process's memory is not read while it
 * runs (a formatted trace reads them in-process, when it writes them).
 *
 * The session ends on SIGINT, SIGTERM, SIGHUP or SIGQUIT, after --duration, or
 * when the process exits: objpatch shuts its side of the socket, the
 * runtime disables every site, finishes the recording and goes dormant,
 * and objpatch reads to the stream's end.  No ptrace stop is needed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/dynsym.h"
#include "objpatch/attach/attach.h"
#include "objpatch/attach/attach_list.h"
#include "objpatch/attach/attach_sites.h"
#include "objpatch/attach/attach_stream.h"
#include "objpatch/engine/report.h"
#include "objpatch/engine/opts.h"

#define START_SYM "objpatch_attach_start"
/* The runtime's session thread's name (objpatch/lib/rt.h, RT_SESSION_THREAD), and how long one ending is waited for. */
#define SESSION_THREAD "objpatch-attach"
#define ERROR_SYM "objpatch_error"
#define OWNER_SYM "objpatch_attach_owner"
#define ENABLE_HELD_SYM "objpatch_attach_enable_held"
#define FORKING_SYM "objpatch_attach_forking"
/* objpatch/lib/patch.c's PATCHER_TEXT: its trap and fault handlers. */
#define PATCHER_SECTION "objpatch_patcher_text"

static bool is_runtime(const char *path)
{
	const char *base = strrchr(path, '/') + 1;

	return !strncmp(base, "libobjpatch.so", 14);
}

/*
 * A traced file's C++ frames whose unwinder the runtime cannot hook
 * (attach_sites.c: a C++ runtime linked in, or i386): an exception thrown through a traced frame there meets
 * the return trampoline, and the program terminates.  Said before the
 * process is touched.  Elsewhere the runtime points the modules' GOT slots
 * of the unwinder's entry points at its hooks, as a preloaded one
 * interposes on them.
 */
static void warn_cxx(pid_t pid, const char *path)
{
	if (path)
		fprintf(stderr, "objpatch attach: %d: warning: %s has C++ frames whose unwinder an attached runtime "
			"cannot hook (its C++ runtime linked in statically, or i386): an exception thrown through a "
			"traced function there would terminate the program; filter out the functions exceptions "
			"cross\n", (int)pid, path);
}

/*
 * The runtime's functions in `obj`, relative to its first segment's
 * address, its owner variable's (0 when it has none) and its patcher's
 * section; false if it lacks a function.
 */
static bool runtime_offsets(struct elfobj *obj, struct runtime_syms *off)
{
	uint64_t vaddr = 0;
	GElf_Sym s, e, o, h, f;

	if (!dynsym_lookup(obj, START_SYM, &s) || !dynsym_lookup(obj, ERROR_SYM, &e) ||
	    !dynsym_lookup(obj, ENABLE_HELD_SYM, &h))
		return false;
	dynsym_first_load(obj, &vaddr);
	*off = (struct runtime_syms){ .start = s.st_value - vaddr, .error = e.st_value - vaddr,
				      .owner = dynsym_lookup(obj, OWNER_SYM, &o) ? o.st_value - vaddr : 0,
				      .enable_held = h.st_value - vaddr,
				      .forking = dynsym_lookup(obj, FORKING_SYM, &f) ? f.st_value - vaddr : 0 };
	for (size_t i = 1; i < obj->nsec; i++)
		if (obj->sec[i].name && !strcmp(obj->sec[i].name, PATCHER_SECTION))
			off->patcher = (struct inject_range){ obj->sec[i].sh.sh_addr - vaddr,
							      obj->sec[i].sh.sh_addr + obj->sec[i].sh.sh_size - vaddr };
	return true;
}

/* The runtime's offsets `off` where it is mapped at `base`. */
static struct runtime_syms runtime_at(const struct runtime_syms *off, uint64_t base)
{
	struct runtime_syms r = { .start = base + off->start, .error = base + off->error,
				  .owner = off->owner ? base + off->owner : 0, .enable_held = base + off->enable_held,
				  .forking = off->forking ? base + off->forking : 0 };

	if (off->patcher.hi)
		r.patcher = (struct inject_range){ base + off->patcher.lo, base + off->patcher.hi };
	return r;
}

/* Whether a thread of the process has the name of a session's (objpatch/lib/rt.h's RT_SESSION_THREAD). */
static bool session_running(pid_t pid)
{
	char path[64], comm[32];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return false;
	while (!found && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/comm", (int)pid, e->d_name);
		if ((f = fopen(path, "re"))) {
			found = fgets(comm, sizeof(comm), f) && !strcmp(comm, SESSION_THREAD "\n");
			fclose(f);
		}
	}
	closedir(d);
	return found;
}

/* The runtime's objpatch_attach_owner, read where `live` shows the memory: 0 between sessions. */
static int session_owner(pid_t live, uint64_t owner)
{
	char path[64];
	int32_t v = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)live);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (pread(fd, &v, sizeof(v), (off_t)owner) != (ssize_t)sizeof(v))
		v = 0;
	close(fd);
	return v;
}

/*
 * One session at a time, refused at once (2) while another runs, naming
 * its objpatch: waiting would only hide which one holds it.  A runtime
 * without the owner variable (an older one) shows a session by its thread.
 */
static int check_no_session(pid_t pid, pid_t live, const struct runtime_syms *r)
{
	int owner = r->owner ? session_owner(live, r->owner) : session_running(pid) ? -1 : 0;
	char tracer[32];

	/* Another objpatch holding the process now may be mid-load: the variable is not yet what it says. */
	if (proc_status_field(pid, "TracerPid", tracer, sizeof(tracer)) && strcmp(tracer, "0"))
		return attach_refuse_tracer(pid, (pid_t)atoi(tracer));
	if (owner > 0 && attach_is_objpatch(owner))
		return attach_refuse(pid, "another objpatch attach (pid %d) is tracing it: a process takes one session "
				     "at a time; wait for that one to end", owner);
	/* Its objpatch gone (killed): the runtime ends that session by itself, within a flush. */
	if (owner > 0 && session_running(pid))
		return attach_refuse(pid, "another objpatch attach (pid %d, exited) was tracing it: its session is "
				     "ending; try again", owner);
	if (owner < 0)
		return attach_refuse(pid, "another objpatch attach is tracing it (its thread %s runs): a process takes "
				     "one session at a time; wait for that one to end", SESSION_THREAD);
	return 0;
}

/*
 * Whether the process was started with the runtime preloaded and its
 * settings (objpatch run, or LD_PRELOAD by hand): its environment as it
 * began says so.  Such a runtime traces from the start and takes no session.
 */
static bool preloaded(pid_t pid)
{
	char path[64], *env = NULL;
	size_t cap = 0;
	ssize_t n;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && (n = getdelim(&env, &cap, 0, f)) > 0)
		found = !strncmp(env, "LD_PRELOAD=", 11) && strstr(env, "libobjpatch.so");
	free(env);
	fclose(f);
	return found;
}

/*
 * The runtime the process has loaded, if any: 1 with its functions in *r,
 * 0 when it has none, 2 after one line (a runtime too old to attach).
 */
static int loaded_runtime(pid_t pid, pid_t live, struct runtime_syms *r)
{
	struct proc_module m;
	struct elfobj obj;
	char path[PATH_MAX + 32];
	struct runtime_syms off;
	bool found;

	if (!proc_find_module(live, is_runtime, &m))
		return 0;
	if (preloaded(pid))
		return attach_refuse(pid, "its runtime %s was preloaded (objpatch run, or LD_PRELOAD): it traces the "
				     "process already, as its OBJPATCH_* variables say; attach to a process started "
				     "without it", m.path);
	if (attach_load_module(live, &m, &obj, path, sizeof(path)) < 0)
		return attach_refuse(pid, "its runtime %s: %s", m.path, obj.err[0] ? obj.err : strerror(errno));
	found = runtime_offsets(&obj, &off);
	elfobj_free(&obj);
	if (!found)
		return attach_refuse(pid, "its runtime %s has no %s (an older libobjpatch, or started from the "
			      "environment): restart the process to trace it with this objpatch", m.path,
			      ENABLE_HELD_SYM);
	*r = runtime_at(&off, m.base);
	return 1;
}

/*
 * The runtime objpatch would load has the functions a session calls: 0,
 * or 2 after one line.  Their offsets in *off, so that once it is loaded
 * only its address is read while the process is held (find_loaded()).
 */
static int check_lib(pid_t pid, const char *lib, struct runtime_syms *off)
{
	struct elfobj obj;
	int fd = open(lib, O_RDONLY | O_CLOEXEC);
	bool found = fd >= 0 && elfobj_load_mapped(&obj, lib, fd) == 0 && runtime_offsets(&obj, off);

	if (fd >= 0) {
		elfobj_free(&obj);
		close(fd);
	}
	if (!found)
		return attach_refuse(pid, "%s: not a runtime with %s and %s: give this objpatch's libobjpatch.so (--lib)",
			      lib, START_SYM, ENABLE_HELD_SYM);
	return 0;
}

/* What the session holds the process for: the pads to keep threads out of. */
struct held {
	uint64_t *pads;
	size_t npads;
	unsigned pad_len;
};

/* Something to trace, and every pattern naming some of it: 0, or 2 after one line; the pads in *h. */
static int check_sites(pid_t pid, pid_t live, const struct attach_session *s, struct held *h)
{
	struct attach_sites a;
	int rc = 0;

	if (attach_sites_count(live, s->globs, s->nglobs, &a) < 0) {
		free(a.matches);
		free(a.pads);
		free(a.cxx_unhooked);
		fprintf(stderr, "objpatch attach: out of memory\n");
		return 1;
	}
	if (!a.funcs)
		rc = attach_refuse_unrecorded(pid);
	for (size_t i = 0; !rc && i < s->nglobs; i++)
		if (!a.matches[i])
			rc = attach_refuse(pid, "--filter %s matches none of its %zu functions with a call site: see "
					   "their names with `objpatch attach --list %d`", s->globs[i], a.funcs, (int)pid);
	if (!rc)
		warn_cxx(pid, a.cxx_unhooked);
	free(a.matches);
	free(a.cxx_unhooked);
	*h = (struct held){ a.pads, a.npads, a.pad_len };
	return rc;
}

/* report's argv: "objpatch report", its options, "--" and the recording (NULL: only the options, for report_check). */
static char **report_argv(const struct attach_session *s, const char *recording, int *argc)
{
	char **argv = calloc(s->nreport + 5, sizeof(*argv));
	int n = 0;

	if (!argv)
		return NULL;
	argv[n++] = "objpatch";
	argv[n++] = "report";
	for (size_t i = 0; i < s->nreport; i++)
		argv[n++] = (char *)s->report[i];
	if (recording) {
		argv[n++] = "--";
		argv[n++] = (char *)recording;
	}
	*argc = n;
	return argv;
}

/*
 * A file for the recording, removed at once (objpatch killed leaves
 * nothing): report reads it as /proc/self/fd/N, that path in `path`.  The
 * descriptor, or -1 after one line.
 */
static int recording_file(char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/objpatch-attach.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "objpatch attach: %s: %s: set TMPDIR to a directory you can write\n", path,
			strerror(errno));
		return -1;
	}
	unlink(path);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The session's settings, as the runtime reads them (man/libobjpatch.3); `own` holds what to free. */
static size_t settings(const struct attach_session *s, const struct attach_channel *c, const struct held *h,
		       char **own, const char **vars)
{
	size_t n = 0;

	vars[n++] = ATTACH_VAR;
	vars[n++] = "OBJPATCH_FORMAT=raw";
	if (asprintf(&own[0], "OBJPATCH_OUTPUT=%s", c->path) < 0 ||
	    asprintf(&own[1], "OBJPATCH_FILTER=%s", s->filter ? s->filter : "*") < 0 ||
	    asprintf(&own[2], "OBJPATCH_ATTACH_OWNER=%d", (int)getpid()) < 0)
		return 0;
	vars[n++] = own[0];
	vars[n++] = own[1];
	vars[n++] = own[2];
	if (s->args)
		vars[n++] = "OBJPATCH_ARGS=1";
	if (s->policy && !strcmp(s->policy, "drop"))
		vars[n++] = "OBJPATCH_POLICY=drop";
	/* Pads are joined in the start call, every other thread held out of them (rt_attach.c). */
	if (h->npads)
		vars[n++] = "OBJPATCH_ATTACH_HELD=1";
	return n;
}

/*
 * The runtime found in the process once dlopen() has returned: `lib`
 * mapped, its functions at the offsets check_lib() read (`off`), found
 * from /proc/PID/maps alone; another path there (a process in a chroot)
 * has its file read again.
 */
static int find_loaded(struct inject *in, const char *lib, const struct runtime_syms *off, struct runtime_syms *r)
{
	struct proc_module m;

	for (size_t i = 0; i < in->n; i++)
		if (!in->t[i].gone) {
			bool same = proc_find_module(in->t[i].tid, is_runtime, &m) && !strcmp(m.path, lib);
			int found = same ? 1 : loaded_runtime(in->pid, in->t[i].tid, r);

			if (same)
				*r = runtime_at(off, m.base);
			if (found == 1) {
				inject_step(in, "find runtime");
				return 0;
			}
			snprintf(in->err, sizeof(in->err), "%d: dlopen succeeded but /proc/%d/maps shows no runtime",
				 (int)in->pid, (int)in->t[i].tid);
			return -1;
		}
	snprintf(in->err, sizeof(in->err), "%d: the process exited", (int)in->pid);
	return -1;
}

/* A held thread kept the runtime's lock through every round: -1, said in in->err. */
static int lock_kept(struct inject *in)
{
	snprintf(in->err, sizeof(in->err), "%d: a thread kept the runtime's lock (inside fork()?) for %g s while the "
		 "threads ran; try again", (int)in->pid, INJECT_FORK_WAIT_MS / 1000.0);
	return -1;
}

/*
 * The pads joined by the runtime in a thread of the held process, once no
 * thread is inside one, nor inside code whose locks the call would wait
 * for: malloc, the loader, the patcher's handlers.  Those calls that could
 * wait (the load, the start) are made before, since they may have to let
 * the other threads run (inject.c); this one never does.
 */
static int enable_held(struct inject *in, const struct target_syms *t, const struct held *h,
		       const struct runtime_syms *r)
{
	struct inject_range avoid[ATTACH_AVOID_MAX + 1];
	struct inject_places p = { h->pads, h->npads, h->pad_len, avoid, t->navoid, r->forking };
	uint64_t deadline = inject_now_ms() + INJECT_FORK_WAIT_MS;
	ssize_t thread;
	int rc;

	memcpy(avoid, t->avoid, t->navoid * sizeof(avoid[0]));
	if (r->patcher.hi)
		avoid[p.navoid++] = r->patcher;
	/* inject_settle() waits out the threads inside fork(), the lock's usual holders; another may have it. */
	for (int round = 0;; round++) {
		if ((thread = inject_settle(in, &p)) < 0)
			return -1;
		inject_step(in, "pads");
		if ((rc = call_enable_held(in, (size_t)thread, r)) != ATTACH_BUSY)
			return rc;
		if (inject_now_ms() >= deadline)
			return lock_kept(in);
		if (inject_let_run(in, round, r->forking, deadline) < 0)
			return -1;
	}
}

/* objpatch_attach_start(), made again while a held thread has the runtime's lock: as call_start(). */
static int start_session(struct inject *in, size_t thread, const struct target_syms *t, const struct runtime_syms *r,
			 const char *const *vars, size_t nvars)
{
	uint64_t deadline = inject_now_ms() + INJECT_FORK_WAIT_MS;
	int rc;

	for (int round = 0;; round++) {
		if ((rc = call_start(in, thread, t, r, vars, nvars)) != ATTACH_BUSY)
			return rc;
		if (inject_now_ms() >= deadline)
			return lock_kept(in);
		if (inject_let_run(in, round, r->forking, deadline) < 0)
			return -1;
	}
}

/*
 * Holds the process for the calls: the load (unless `loaded`), then the
 * session's start, then (pads) the sites' enabling.  0, 1 (failed) or 2
 * (refused).
 */
static int hold_and_start(pid_t pid, const struct remote_port *port, const struct target_syms *t,
			  const struct attach_session *s, const struct held *h, bool loaded, struct runtime_syms *r,
			  const char *const *vars, size_t nvars)
{
	const struct runtime_syms off = *r;	/* before the load: check_lib()'s offsets */
	char real[PATH_MAX] = "";
	struct inject in;
	uint64_t handle = 0;
	ssize_t thread;
	int rc;

	/* The path /proc/PID/maps will show for it (libobjpatch.so is a link to the versioned file). */
	if (!loaded && !realpath(s->lib, real))
		real[0] = 0;
	if ((rc = attach_hold(&in, pid, port, t, s->thread, &thread)))
		return rc;
	if (thread < 0 || (!loaded && (call_load(&in, (size_t)thread, t, s->lib, &handle) < 0 || find_loaded(&in, real, &off, r) < 0)) ||
	    (rc = start_session(&in, (size_t)thread, t, r, vars, nvars)) != 0 ||
	    (h->npads && enable_held(&in, t, h, r) < 0)) {
		/* 1 from the start call: another session began meanwhile, a refusal (2), the process as it was. */
		fprintf(stderr, "objpatch attach: %s\n", in.err);
		rc = rc == 1 ? 2 : 1;
	}
	inject_detach(&in);
	if (s->verbose)
		attach_say_held(pid, &in);
	return rc;
}

/* The session's end, said in one line where it is not the usual one. */
static int say_end(pid_t pid, const struct stream_end *e)
{
	if (e->exited && e->finished) {
		fprintf(stderr, "objpatch attach: %d: the process exited while attached; trace complete up to its exit\n",
			(int)pid);
	} else if (e->abandoned) {
		fprintf(stderr, "objpatch attach: %d: the runtime did not finish the trace (is the process stopped?); "
			"the trace ends where the stream did, and the process's sites may stay enabled until it "
			"runs again\n", (int)pid);
		return 1;
	} else if (e->exited) {
		fprintf(stderr, "objpatch attach: %d: the process ended while attached without finishing the trace "
			"(killed, or _exit()); the trace ends at its last event\n", (int)pid);
	} else if (!e->asked) {
		fprintf(stderr, "objpatch attach: %d: the runtime ended the session before objpatch asked (the process "
			"ran exec(), or could not send); the trace ends where the stream did\n", (int)pid);
	} else if (isatty(2)) {
		fprintf(stderr, "objpatch attach: %d: detached; the runtime stays loaded, dormant\n", (int)pid);
	}
	return 0;
}

/*
 * A session that traced nothing says so: an empty trace and status 0 alone
 * read as a tool that did nothing.  A filter naming functions gets report's
 * line naming those never called instead (report_name_uncalled()).
 */
static void say_untraced(pid_t pid, const struct attach_session *s, const struct stream_end *e)
{
	if (e->traced)
		return;
	for (size_t i = 0; i < s->nglobs; i++)
		if (s->globs[i][0] != '!' && strcmp(s->globs[i], "*"))
			return;
	fprintf(stderr, "objpatch attach: %d: no call was traced while attached: the trace is empty\n", (int)pid);
}

/*
 * What is left to do once the stream ended, for someone watching: a long
 * session's recording takes a while to format, and a process whose
 * threads outran the stream has its buffers drained after the stop.
 */
static void say_formatting(pid_t pid, const struct stream_end *e)
{
	if (!e->traced || !isatty(2))
		return;
	fprintf(stderr, "objpatch attach: %d: %.2f s traced; %.1f MiB of events, %.1f MiB of them drained after the "
		"stop; formatting them\n", (int)pid, e->traced_s, (double)e->bytes / (1 << 20),
		(double)e->drained / (1 << 20));
}

/* The session from the socket on: 0, 1 (failed) or 2 (refused). */
static int session(pid_t pid, const struct remote_port *port, const struct target_syms *t,
		   const struct attach_session *s, const struct held *h, bool loaded, struct runtime_syms *r, int out,
		   const char *recording)
{
	struct attach_channel c;
	char *own[3] = { NULL, NULL, NULL };
	const char *vars[10];
	struct stream_end e;
	size_t nvars;
	int rc, argc;
	char **argv;

	if (channel_open(&c, pid) < 0)
		return 1;
	if (!(nvars = settings(s, &c, h, own, vars))) {
		fprintf(stderr, "objpatch attach: out of memory\n");
		rc = 1;
	} else {
		rc = hold_and_start(pid, port, t, s, h, loaded, r, vars, nvars);
	}
	for (size_t i = 0; i < 3; i++)
		free(own[i]);
	if (rc || channel_accept(&c, pid) < 0) {
		channel_close(&c);
		return rc ? rc : 1;
	}
	rc = channel_stream(&c, pid, out, s->duration, &e);
	channel_close(&c);
	if (rc < 0)
		return 1;
	rc = say_end(pid, &e);
	say_untraced(pid, s, &e);
	say_formatting(pid, &e);
	if (!(argv = report_argv(s, recording, &argc)))
		return 1;
	report_name_uncalled("objpatch attach", " while attached", s->globs, s->nglobs);
	rc = report_run(argc, argv, 1) ? 1 : rc;
	free(argv);
	return rc;
}

/* The --output objpatch made, still empty: it would read as an empty trace. */
static void remove_unwritten(const struct attach_session *s, bool created)
{
	if (s->output && created)
		cli_remove_empty_output(s->output);
}

int attach_trace(pid_t pid, pid_t live, const struct remote_port *port, const struct target_syms *t,
		 const struct attach_session *s)
{
	struct runtime_syms r = { 0 };
	struct held h = { 0 };
	char recording[PATH_MAX];
	bool created = false;
	sigset_t held, old;
	char **argv;
	int argc, loaded, rc, out;

	if (!(argv = report_argv(s, NULL, &argc)))
		return 1;
	rc = report_check(argc, argv, 1);
	free(argv);
	if (rc < 0 || (s->output && cli_check_output("objpatch attach", s->output, &created) < 0))
		return 2;
	if ((loaded = loaded_runtime(pid, live, &r)) == 2 || (loaded && (rc = check_no_session(pid, live, &r))) ||
	    (!loaded && (rc = check_lib(pid, s->lib, &r))) ||
	    (rc = check_sites(pid, live, s, &h)) || (out = recording_file(recording, sizeof(recording))) < 0) {
		free(h.pads);
		remove_unwritten(s, created);
		return loaded == 2 ? 2 : rc ? rc : 1;
	}
	/*
	 * objpatch killed while it holds the process would leave a thread
	 * mid-call: the signals wait, and then end the session (signalfd).
	 */
	attach_end_signals(&held);
	sigprocmask(SIG_BLOCK, &held, &old);
	rc = session(pid, port, t, s, &h, loaded == 1, &r, out, recording);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(h.pads);
	close(out);
	remove_unwritten(s, created);
	return rc;
}
