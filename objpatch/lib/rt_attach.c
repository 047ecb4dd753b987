// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Sessions of objpatch attach: the runtime, loaded dormant into a running
 * process (rt_api.c's constructor saw OBJPATCH_ATTACH), traces it while
 * objpatch reads, then goes back to dormant; it is never unloaded (a
 * return trampoline may still be on some thread's stack), so a later
 * attach starts a session in the same copy.
 *
 * objpatch calls objpatch_attach_start() in a thread it borrowed while it
 * holds every other thread stopped with ptrace.  The call does little:
 * it reads the settings objpatch put in environ, connects to objpatch's
 * socket, sends the recording's header (a few bytes: the socket takes
 * them while objpatch still holds the process) and starts the session's
 * thread.  Reading every module's tables and patching are that thread's,
 * once objpatch has let the process go: the reading can take long, and
 * patching must not wait for a stopped thread (x86's patcher waits for
 * the threads inside its trap handler; the mprotect writer's faulting
 * threads sleep until their window closes).  Except for a process with
 * -fpatchable-function-entry pads (OBJPATCH_ATTACH_HELD): a pad of
 * several NOPs becomes one only where no thread can be between two of
 * them, so it is done while the threads are held, by a second call,
 * objpatch_attach_enable_held().  objpatch may have to let the others run
 * during the start call (a held thread had a lock it needs: inject.c),
 * never during that one: it makes it once none is inside a pad, malloc,
 * the loader or the patcher's handlers, so it waits for no held thread
 * (the core sync, membarrier, interrupts running threads only).  Until
 * then the session's thread waits, and ends the session if objpatch
 * closes the socket instead.  The calls report failure by their value
 * and runtime.err (objpatch_error()), never on the process's standard error.
 *
 * The session's thread streams the raw recording (trace/raw.h) to the
 * socket every OBJPATCH_FLUSH_MS, polling it meanwhile: anything to read
 * (objpatch shut its side: the user's Ctrl-C or the duration's end) or
 * the end of the stream (objpatch died) ends the session.  Ending: every
 * site back to its NOP, the exit instant set, the final flush (frames
 * still open close there as unfinished), the socket closed, dormant.
 * Threads inside traced functions return later through the trampolines,
 * unrecorded (rt_record.c).  The thread takes no signal: the program's
 * handlers run on its own threads.
 */
#include <errno.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "arch/patch.h"
#include "objpatch/lib/rt.h"

#define API __attribute__((visibility("default")))

/*
 * A thread that cannot send for this long (objpatch stopped, or hung)
 * ends the session rather than hold the process: rt_raw.c stops sending.
 */
#define SEND_TIMEOUT_S 10

bool rt_attached;
bool rt_all_held;

/* Under runtime.lock: the session's socket is open.  session_thread: a session runs (start refused). */
static bool in_session;
static _Atomic bool session_thread;
static int session_fd = -1;
static unsigned long long dl_adds;
static bool patched;	/* the sites are objpatch_attach_enable_held()'s (OBJPATCH_ATTACH_HELD) */
/* objpatch_attach_enable_held() is still to come: the session's thread waits for it. */
static _Atomic bool held_pending;
/* How often that thread looks whether objpatch closed the socket meanwhile. */
#define HELD_POLL_MS 10

/*
 * The process id of the objpatch whose session runs, 0 between sessions:
 * a second objpatch attach reads it in the process's memory and refuses
 * at once, naming that objpatch (OBJPATCH_ATTACH_OWNER is its setting).
 * Cleared before the stream ends, so the next one may start as soon as
 * the last one has seen the end.
 */
API volatile int objpatch_attach_owner;

static int owner_setting(void)
{
	const char *v = rt_attach_setting("OBJPATCH_ATTACH_OWNER");
	int pid = v ? atoi(v) : 0;

	return pid > 0 ? pid : -1;	/* an objpatch that does not say: some session still runs */
}

/* What the constructor does for a runtime started from the environment, once and quietly. */
static int first_start(void)
{
	static bool done;
	char err[256];

	if (done)
		return 0;
	rt_timestamp_init();
	rt_output_init();
	rt_record_init(runtime.buffer_mb);
	/* The patcher's fork handler first: ours then run first, in lock order. */
	if (patch_init(err, sizeof(err)) < 0) {
		rt_error("%s", err);
		return -1;
	}
	if (rt_fork_handlers()) {
		rt_error("pthread_atfork failed");
		return -1;
	}
	done = true;
	return 0;
}

/* The socket objpatch listens on (OBJPATCH_OUTPUT); CLOEXEC, so no program the process runs has it. */
static int connect_objpatch(void)
{
	const char *path = rt_attach_setting("OBJPATCH_OUTPUT");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { SEND_TIMEOUT_S, 0 };
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(a.sun_path)) {
		rt_error("OBJPATCH_OUTPUT: not the path of objpatch's socket");
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rt_error("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *ctx)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
		*(unsigned long long *)ctx = info->dlpi_adds;
	return 1;
}

/*
 * Loaded RTLD_LOCAL, the runtime's dlopen() does not interpose on the
 * program's: a library the program loads meanwhile is found by the
 * loader's count of loads, which every module reports.
 */
static void scan_new_modules(void)
{
	unsigned long long adds = 0;

	dl_iterate_phdr(count_adds, &adds);
	if (adds == dl_adds)
		return;
	dl_adds = adds;
	/* Before any of their sites is enabled: a frame it hooks may be crossed by an exception at once. */
	if (rt_unwind_hook_modules)
		rt_unwind_hook_modules();
	rt_scan_modules(NULL);
}

/* Under runtime.lock: the recording's header sent, the session's clock started; threads record from here on. */
static void open_recording(void)
{
	rt_output_init();
	rt_raw_session_begin(session_fd);
	rt_record_session_start(rt_timestamp());
	atomic_store(&rt_dormant, false);
}

/* Under runtime.lock: every site the filters want enabled, from a state where all are off (a forked child keeps its parent's). */
static void enable_sites(void)
{
	rt_set_filters(runtime.start_filters, runtime.nstart_filters, true);
	dl_adds = 0;
	scan_new_modules();
}

/* Under runtime.lock, in the session's thread: the sites, unless the start call did them; the modules recorded. */
static void begin(void)
{
	if (!patched)
		enable_sites();
	rt_raw_begin();
}

/*
 * Under runtime.lock: the session's end.  `sites`: every site back to its NOP
 * (not at the process's exit, where it would only delay it).
 */
static void end(bool sites)
{
	size_t matched = 0;

	if (!in_session)
		return;
	if (sites)
		rt_set_filter("*", false, &matched);
	rt_stop();
	rt_flush(true);
	atomic_store(&rt_dormant, true);
	/* Dormant, the process keeps no descriptor of ours (the patcher's /proc/self/mem). */
	patch_release();
	/* Before the stream's end: objpatch may start the next session as soon as it sees it. */
	objpatch_attach_owner = 0;
	atomic_store(&session_thread, false);
	rt_raw_session_end();
	rt_record_release_dead();
	session_fd = -1;
	in_session = false;
}

/* Whether objpatch wrote, shut its side or died: each ends the session. */
static bool asked_to_stop(int fd, unsigned ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, (int)ms) > 0;
}

/* Whether objpatch closed the socket before the held call enabled the sites (it failed, or died). */
static bool wait_for_held_sites(int fd)
{
	while (atomic_load(&held_pending))
		if (asked_to_stop(fd, HELD_POLL_MS))
			return true;
	return false;
}

static void *session_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	bool stop;

	/* What ps -L shows, and how objpatch tells a session runs (a second attach waits for it). */
	pthread_setname_np(pthread_self(), RT_SESSION_THREAD);
	stop = wait_for_held_sites(fd);
	pthread_mutex_lock(&runtime.lock);
	begin();
	if (stop)
		end(true);
	pthread_mutex_unlock(&runtime.lock);
	while (!stop) {
		/* A socket the program closed: its number may be a file of the program's now, not ours to poll. */
		stop = !rt_raw_session_ours() || asked_to_stop(fd, runtime.flush_ms);
		pthread_mutex_lock(&runtime.lock);
		if (!in_session) {
			stop = true;	/* the process's exit ended it */
		} else {
			scan_new_modules();
			if (!stop)
				stop = rt_flush(false) < 0 || rt_raw_failed();
			if (stop)
				end(true);
		}
		pthread_mutex_unlock(&runtime.lock);
	}
	return NULL;
}

/* The session's thread, every signal blocked. */
static int start_thread(int fd)
{
	sigset_t all, old;
	pthread_t id;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&id, NULL, session_main, (void *)(intptr_t)fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		rt_error("pthread_create: %s", strerror(rc));
		return -1;
	}
	pthread_detach(id);
	return 0;
}

/*
 * 0: the session runs; 2: another session runs (objpatch_attach_owner
 * names its objpatch); 3: a held thread has runtime.lock (objpatch lets
 * the threads run and calls again); -1 with runtime.err set.  Called by
 * objpatch attach (OBJPATCH_ATTACH in environ), every other thread of the
 * process stopped.
 */
API int objpatch_attach_start(void)
{
	int fd;

	if (!rt_attached) {
		rt_error("the runtime was started from the environment (objpatch run, LD_PRELOAD or linked in): the "
			 "process traces itself already");
		return -1;
	}
	if (atomic_load(&session_thread)) {
		/* objpatch prints these words as its own refusal (status 2). */
		rt_error("another objpatch attach (pid %d) is tracing it: a process takes one session at a time; "
			 "wait for that one to end", objpatch_attach_owner);
		return 2;
	}
	if (rt_read_attach_settings() < 0 || first_start() < 0)
		return -1;
	/*
	 * No session thread has the lock, but a held thread inside fork()
	 * does (our atfork handler): waiting for it could hold the process
	 * for ever.  Before connecting, so that a call made again connects once.
	 */
	if (pthread_mutex_trylock(&runtime.lock) != 0)
		return 3;
	if ((fd = connect_objpatch()) < 0) {
		pthread_mutex_unlock(&runtime.lock);
		return -1;
	}
	atomic_store(&session_thread, true);
	objpatch_attach_owner = owner_setting();
	session_fd = fd;
	in_session = true;
	open_recording();
	patched = rt_attach_setting("OBJPATCH_ATTACH_HELD") != NULL;
	atomic_store(&held_pending, patched);
	pthread_mutex_unlock(&runtime.lock);
	if (start_thread(fd) < 0) {
		/* No final flush: its records could fill the socket while objpatch holds the process. */
		pthread_mutex_lock(&runtime.lock);
		atomic_store(&held_pending, false);
		atomic_store(&rt_dormant, true);
		rt_raw_session_end();
		session_fd = -1;
		in_session = false;
		pthread_mutex_unlock(&runtime.lock);
		objpatch_attach_owner = 0;
		atomic_store(&session_thread, false);
		return -1;
	}
	return 0;
}

/*
 * 0, 3 when a held thread has runtime.lock (objpatch lets the threads run
 * and calls again), or -1 with runtime.err set.  Called by objpatch attach
 * after objpatch_attach_start() with OBJPATCH_ATTACH_HELD, every other
 * thread of the process stopped and none inside a pad, malloc or the
 * loader.
 */
API int objpatch_attach_enable_held(void)
{
	if (!atomic_load(&held_pending)) {
		rt_error("no session waits for its sites: objpatch_attach_start() with OBJPATCH_ATTACH_HELD comes first");
		return -1;
	}
	/*
	 * The session's thread waits for this call before it takes the lock,
	 * but a held thread inside fork() has it (our atfork handler, and
	 * malloc's locks with it) and, stopped, would never let go: waiting
	 * here would hold the process for ever.
	 */
	if (pthread_mutex_trylock(&runtime.lock) != 0)
		return 3;
	if (in_session) {
		rt_all_held = true;
		enable_sites();
		rt_all_held = false;
	}
	pthread_mutex_unlock(&runtime.lock);
	atomic_store(&held_pending, false);
	return 0;
}

void rt_attach_exit(void)
{
	pthread_mutex_lock(&runtime.lock);
	end(false);
	pthread_mutex_unlock(&runtime.lock);
}

/*
 * The child has no session thread and must never write to objpatch's
 * stream: its copy of the socket is closed, unwritten, and it records
 * nothing; its sites stay as they were until a session of its own.
 */
void rt_attach_fork_child(void)
{
	atomic_store(&rt_dormant, true);
	objpatch_attach_owner = 0;
	atomic_store(&session_thread, false);
	atomic_store(&held_pending, false);
	in_session = false;
	session_fd = -1;
	rt_raw_fork_child();
	patch_release();	/* the parent's /proc/PID/mem */
}
