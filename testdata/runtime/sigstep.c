// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigstep PROGRAM [ARG...]: runs PROGRAM under ptrace and, between its
 * first and second SIGSTOP to itself, delivers SIGUSR1 at every instruction
 * it executes.  At each instruction: a hardware breakpoint goes on it, the
 * signal is delivered, the handler runs at full speed until the thread is
 * back at that instruction with the same stack pointer (the breakpoint),
 * then the instruction itself is single-stepped, and so on.  Instructions
 * of the handlers are not signalled.  A race between a signal handler and
 * the code it interrupts (here the runtime's trampolines and recorder) that
 * a stress test meets once in hours is met here every time.
 *
 * x86_64 Linux only.  Prints "# N instructions signalled"; exits with
 * PROGRAM's exit status, 128 + the signal that killed it, or 125 when the
 * tracing itself failed (the reason on stderr).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACER_FAILED 125
/* DR7: breakpoint 0 enabled (L0), on execution, length 1. */
#define DR7_EXEC_BP0 1UL

static pid_t child;
static bool end_seen;		/* the child's second SIGSTOP */

static void __attribute__((noreturn)) fail(const char *what)
{
	fprintf(stderr, "sigstep: %s: %s\n", what, strerror(errno));
	if (child > 0)
		kill(child, SIGKILL);
	exit(TRACER_FAILED);
}

/* Resumes the child (PTRACE_CONT or PTRACE_SINGLESTEP) and waits for its next stop. */
static int resume(enum __ptrace_request how, int sig)
{
	int status;

	if (ptrace(how, child, NULL, (void *)(long)sig) < 0)
		fail("ptrace resume");
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			fail("waitpid");
	return status;
}

/* A stop for a single step (or for a handler's entry after an injection), not a real SIGTRAP. */
static bool is_step_stop(int status)
{
	siginfo_t si;

	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP)
		return false;
	if (ptrace(PTRACE_GETSIGINFO, child, NULL, &si) < 0)
		fail("PTRACE_GETSIGINFO");
	return si.si_code != SI_KERNEL && si.si_code != SI_USER && si.si_code != SI_TKILL;
}

static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* PTRACE_CONT, passing every signal on, until the child stops itself with SIGSTOP or ends. */
static int run_to_sigstop(int status)
{
	while (WIFSTOPPED(status) && WSTOPSIG(status) != SIGSTOP)
		status = resume(PTRACE_CONT, WSTOPSIG(status));
	return status;
}

static void set_debugreg(int i, unsigned long v)
{
	if (ptrace(PTRACE_POKEUSER, child, (void *)(offsetof(struct user, u_debugreg) + i * sizeof(long)),
		   (void *)v) < 0)
		fail("setting a debug register (PTRACE_POKEUSER)");
}

static void get_regs(struct user_regs_struct *regs)
{
	if (ptrace(PTRACE_GETREGS, child, NULL, regs) < 0)
		fail("PTRACE_GETREGS");
}

/*
 * The child is stopped at an instruction: delivers SIGUSR1 there and lets
 * the handler run until the thread is back.  The stop status then, or how
 * the child ended.
 */
static int signal_here(const struct user_regs_struct *at)
{
	struct user_regs_struct regs;
	int status, sig = SIGUSR1;

	set_debugreg(0, at->rip);
	set_debugreg(7, DR7_EXEC_BP0);
	for (;;) {
		status = resume(PTRACE_CONT, sig);
		sig = 0;
		if (!WIFSTOPPED(status))
			return status;
		if (WSTOPSIG(status) == SIGSTOP) {
			end_seen = true;	/* the end, reached by the step before */
			continue;
		}
		if (WSTOPSIG(status) != SIGTRAP || !is_step_stop(status)) {
			sig = WSTOPSIG(status);	/* the program's own: delivered */
			continue;
		}
		get_regs(&regs);
		/* The handler may run the same instruction on its own stack: go on then. */
		if (regs.rip == at->rip && regs.rsp == at->rsp)
			break;
	}
	set_debugreg(7, 0);
	return status;
}

int main(int argc, char **argv)
{
	struct user_regs_struct regs;
	unsigned long long signalled = 0;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: sigstep PROGRAM [ARG...]\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		fail("fork");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			fail("PTRACE_TRACEME");
		execvp(argv[1], argv + 1);
		fail(argv[1]);
	}
	/* The stop after exec: a SIGTRAP of ptrace's own, not passed on. */
	if (waitpid(child, &status, 0) < 0)
		fail("waitpid");
	if (!WIFSTOPPED(status))
		return exit_code(status);
	if (ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)(long)PTRACE_O_EXITKILL) < 0)
		fail("PTRACE_SETOPTIONS");
	status = run_to_sigstop(resume(PTRACE_CONT, 0));
	if (!WIFSTOPPED(status)) {
		fprintf(stderr, "sigstep: %s ended before its first SIGSTOP\n", argv[1]);
		return exit_code(status);
	}
	/* From the first SIGSTOP (swallowed) to the second: signal, step, signal, ... */
	for (int sig = 0;;) {
		status = resume(PTRACE_SINGLESTEP, sig);
		sig = 0;
		if (!WIFSTOPPED(status))
			break;
		if (!is_step_stop(status)) {
			if (WSTOPSIG(status) == SIGSTOP)
				break;
			sig = WSTOPSIG(status);	/* the program's own: delivered */
			continue;
		}
		get_regs(&regs);
		status = signal_here(&regs);
		signalled++;
		if (!WIFSTOPPED(status) || end_seen)
			break;
	}
	printf("# %llu instructions signalled\n", signalled);
	fflush(stdout);
	while (WIFSTOPPED(status))
		status = resume(PTRACE_CONT, WSTOPSIG(status) == SIGSTOP || WSTOPSIG(status) == SIGTRAP ?
				0 : WSTOPSIG(status));
	return exit_code(status);
}
