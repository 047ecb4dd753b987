// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A signal whose default action ends the process (SIGTERM from `objpatch
 * run`, SIGINT, SIGPIPE, abort()'s SIGABRT, a SIGSEGV...) would cut the
 * trace in the middle of a record: the writer thread is stopped wherever
 * it was, and the end of the document (JSON's "]", the flame graph, the
 * unfinished frames) is never written.  Where the process left such a
 * signal at its default action, the runtime handles it: the trace is
 * finished (rt_output_finish: every frame still open closes as unfinished
 * at the signal's instant), then the default action is restored and the
 * signal raised again, so that the process dies of it as it would have
 * (its status, its core dump).
 *
 * Only a process with something to trace takes them (a shell that starts
 * the traced programs is left as it is), and only the signals it left at
 * SIG_DFL: a handler of the program's own runs as always, and one it
 * installs later replaces ours.  SIGKILL cannot be handled: a recording
 * survives it (objpatch record's shared buffers), a formatted trace does
 * not.  Raw recordings take none: objpatch record appends what the
 * threads held once the process is gone, whatever ended it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "arch/patch.h"
#include "objpatch/lib/rt.h"

/*
 * Every signal whose default action ends the process, but SIGKILL (cannot
 * be handled), SIGTRAP (the patcher's int3 on x86) and SIGPROF (gprof's
 * timer, which -pg programs linked with -pg set up themselves).
 */
static const int ending[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGSYS,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

#define NENDING (sizeof(ending) / sizeof(ending[0]))

/* The signals the runtime handles: those the process left at their default action. */
static sigset_t handled;

/*
 * Another of them waits for this thread: the user asked twice, the wait
 * ends.  Not one the program handles (its timer's SIGALRM), which only
 * waits for the handler to return.
 */
static bool another_pending(void)
{
	sigset_t p;

	if (sigpending(&p) < 0)
		return false;
	for (size_t i = 0; i < NENDING; i++)
		if (sigismember(&handled, ending[i]) && sigismember(&p, ending[i]))
			return true;
	return false;
}

/* The default action, now: the process dies of `sig` as it would have untraced. */
static void die_of(int sig)
{
	struct sigaction dfl;
	sigset_t one;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	raise(sig);
	/* Blocked in this handler: delivered when unblocked (a fault's instruction faults again on return). */
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
}

/*
 * The first thread a signal ends finishes the trace; one that another
 * signal reaches meanwhile (a second SIGTERM, which went to another thread)
 * ends the process at once: the user did not want to wait.
 */
static atomic_flag finishing = ATOMIC_FLAG_INIT;

static void finish(int sig)
{
	(void)sig;
	if (!atomic_flag_test_and_set(&finishing))
		rt_output_finish(another_pending);
}

static void on_ending(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)si;
	(void)uc;
	finish(sig);
	die_of(sig);
	errno = saved;
}

/* Some module has a recorded site: a shell that only starts the traced programs has none. */
static bool traceable(void)
{
	for (size_t i = 0; i < runtime.nmods; i++)
		if (runtime.mods[i]->nsites)
			return true;
	return false;
}

void rt_signals_install(void)
{
	struct sigaction sa, old;

	if (runtime.format == FMT_RAW || !traceable())
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_ending;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/* While one finishes the trace, the others wait on this thread (another_pending sees them). */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NENDING; i++)
		sigaddset(&sa.sa_mask, ending[i]);
	/* The patcher's SIGSEGV (SIGTRAP) handler passes the others on: to the default action, through us. */
	patch_before_default(finish);
	sigemptyset(&handled);
	for (size_t i = 0; i < NENDING; i++)
		if (sigaction(ending[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL &&
		    sigaction(ending[i], &sa, NULL) == 0)
			sigaddset(&handled, ending[i]);
}
