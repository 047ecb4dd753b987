// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigstep PROGRAM [ARG...]: runs PROGRAM under ptrace and, between its
 * first and second SIGSTOP to itself, delivers SIGUSR1 at every instruction
 * it executes.  At each instruction: a hardware breakpoint goes on it, the
 * signal is delivered, the handler runs at full speed until the thread is
 * back at that instruction with the same stack pointer (the breakpoint),
 * then the instruction itself is single-stepped, and so on.  Where the
 * machine does not deliver debug-register breakpoints (some hypervisors
 * accept the registers and never trap), the breakpoint is an int3 written
 * over the instruction instead (the program does not read its own code
 * between the SIGSTOPs); a handler that runs that instruction itself steps
 * over it.  Calls into the vDSO run through unsignalled: single-stepped,
 * its clock's retry loop would never end on a machine whose clock is not
 * the TSC (kvm-clock), where the runtime's timestamps come from there.  Instructions
 * of the handlers are not signalled.  A race between a signal handler and
 * the code it interrupts (here the runtime's trampolines and recorder) that
 * a stress test meets once in hours is met here every time.
 *
 * x86_64 Linux only.  Prints "# N instructions signalled"; exits with
 * PROGRAM's exit status, 128 + the signal that killed it, or 125 when the
 * tracing itself failed (the reason on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
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
static bool hw_breakpoints;	/* the machine traps on them (hw_breakpoints_work) */

static void set_regs(const struct user_regs_struct *regs)
{
	if (ptrace(PTRACE_SETREGS, child, NULL, regs) < 0)
		fail("PTRACE_SETREGS");
}

/* Writes `byte` over the code at `addr`; returns the word that was there. */
static long poke_byte(uintptr_t addr, uint8_t byte)
{
	long word;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, child, (void *)addr, NULL);
	if (errno)
		fail("PTRACE_PEEKTEXT");
	if (ptrace(PTRACE_POKETEXT, child, (void *)addr, (void *)((word & ~0xffL) | byte)) < 0)
		fail("PTRACE_POKETEXT");
	return word;
}

static void poke_word(uintptr_t addr, long word)
{
	if (ptrace(PTRACE_POKETEXT, child, (void *)addr, (void *)word) < 0)
		fail("PTRACE_POKETEXT");
}

/*
 * Is this stop a trap of ours (the debug register's, or the int3 at `at`,
 * after which rip is put back on `at`), with the registers in *regs?
 */
static bool our_trap(int status, uintptr_t at, struct user_regs_struct *regs)
{
	if (WSTOPSIG(status) != SIGTRAP)
		return false;
	if (hw_breakpoints) {
		if (!is_step_stop(status))
			return false;
		get_regs(regs);
		return true;
	}
	get_regs(regs);
	if (regs->rip != at + 1)
		return false;
	regs->rip = at;
	set_regs(regs);
	return true;
}

/*
 * Resumes the child with `sig` and lets it run until it is back at `at`'s
 * instruction with `at`'s stack pointer.  The stop status then, or how the
 * child ended.
 */
static int run_back_to(const struct user_regs_struct *at, int sig)
{
	struct user_regs_struct regs;
	int status;
	long word = 0;

	if (hw_breakpoints) {
		set_debugreg(0, at->rip);
		set_debugreg(7, DR7_EXEC_BP0);
	} else {
		word = poke_byte(at->rip, 0xcc);
	}
	for (;;) {
		status = resume(PTRACE_CONT, sig);
		sig = 0;
		if (!WIFSTOPPED(status))
			return status;
		if (WSTOPSIG(status) == SIGSTOP) {
			end_seen = true;	/* the end, reached by the step before */
			continue;
		}
		if (!our_trap(status, at->rip, &regs)) {
			sig = WSTOPSIG(status);	/* the program's own: delivered */
			continue;
		}
		if (regs.rip == at->rip && regs.rsp == at->rsp)
			break;
		/* The handler runs the same instruction on its own stack: over it, and on. */
		if (!hw_breakpoints) {
			poke_word(at->rip, word);
			status = resume(PTRACE_SINGLESTEP, 0);
			if (!WIFSTOPPED(status))
				return status;
			poke_byte(at->rip, 0xcc);
			if (!is_step_stop(status))
				sig = WSTOPSIG(status);
		}
	}
	if (hw_breakpoints)
		set_debugreg(7, 0);
	else
		poke_word(at->rip, word);
	return status;
}

static uintptr_t vdso_lo, vdso_hi;

/* Where the child's vDSO is ([vdso] in its maps), once it runs. */
static void find_vdso(void)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	f = fopen(path, "re");
	if (!f)
		fail(path);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &vdso_lo, &vdso_hi) == 2)
			break;
	fclose(f);
}

static bool in_vdso(uintptr_t ip)
{
	return ip >= vdso_lo && ip < vdso_hi;
}

/* At a vDSO function's first instruction: runs it to its return. */
static int run_out_of_vdso(const struct user_regs_struct *entry)
{
	struct user_regs_struct back = *entry;

	errno = 0;
	back.rip = (unsigned long long)ptrace(PTRACE_PEEKDATA, child, (void *)entry->rsp, NULL);
	if (errno)
		fail("PTRACE_PEEKDATA");
	back.rsp = entry->rsp + 8;
	return run_back_to(&back, 0);
}

static void __attribute__((noinline)) probe_target(void)
{
	__asm__ volatile("nop");
}

/* Does an execution breakpoint in a debug register stop a traced child here? */
static bool hw_breakpoints_work(void)
{
	pid_t saved = child;
	int status;
	bool hit;

	child = fork();
	if (child < 0)
		fail("fork");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(TRACER_FAILED);
		raise(SIGSTOP);
		probe_target();
		_exit(0);
	}
	if (waitpid(child, &status, 0) < 0 || !WIFSTOPPED(status))
		fail("the breakpoint probe");
	set_debugreg(0, (unsigned long)probe_target);
	set_debugreg(7, DR7_EXEC_BP0);
	status = resume(PTRACE_CONT, 0);
	hit = WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP;
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	child = saved;
	return hit;
}

int main(int argc, char **argv)
{
	struct user_regs_struct regs;
	unsigned long long signalled = 0, vdso_calls = 0;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: sigstep PROGRAM [ARG...]\n");
		return 2;
	}
	hw_breakpoints = hw_breakpoints_work();
	printf("# back from each handler at a breakpoint: %s\n", hw_breakpoints ? "a debug register" : "int3");
	fflush(stdout);
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
	find_vdso();
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
		if (in_vdso(regs.rip)) {
			status = run_out_of_vdso(&regs);
			vdso_calls++;
		} else {
			status = run_back_to(&regs, SIGUSR1);
			signalled++;
		}
		if (!WIFSTOPPED(status) || end_seen)
			break;
	}
	printf("# %llu vDSO calls run through\n", vdso_calls);
	printf("# %llu instructions signalled\n", signalled);
	fflush(stdout);
	while (WIFSTOPPED(status))
		status = resume(PTRACE_CONT, WSTOPSIG(status) == SIGSTOP || WSTOPSIG(status) == SIGTRAP ?
				0 : WSTOPSIG(status));
	return exit_code(status);
}
