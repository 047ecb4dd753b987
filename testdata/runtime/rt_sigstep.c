// SPDX-License-Identifier: GPL-2.0-only
/*
 * The traced side of t/92-sigstep.t: between its two SIGSTOPs to itself it
 * calls traced functions of every return class, and the tracer (sigstep.c)
 * delivers SIGUSR1 at every instruction of that stretch, the runtime's
 * trampolines and recorder included.  The handler calls a traced function
 * too, so its frames are pushed and popped at every point of an entry or a
 * return of the interrupted call.  Each result is checked, in the handler
 * and out of it; a return address the runtime lost or mixed up shows as a
 * wrong result or a crash.
 *
 * Prints "# ..." counts; exits 0 when every result was right.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "objpatch.h"
#include "traced.h"

struct pair {
	long a, b;
};

static volatile sig_atomic_t handled, wrong_in_handler;

TRACED int step_leaf(int x)
{
	return x * 3;
}

static void on_usr1(int sig)
{
	int r = step_leaf(sig);

	KEEP(r);
	if (r != sig * 3)
		wrong_in_handler++;
	handled++;
}

TRACED long step_fib(int n)
{
	return n < 2 ? n : step_fib(n - 1) + step_fib(n - 2);
}

TRACED double step_half(int x)
{
	return x / 2.0;
}

TRACED long double step_third(int x)
{
	return x / 3.0L;
}

TRACED struct pair step_pair(long x)
{
	return (struct pair){ x, -x };
}

TRACED const char *step_name(int x)
{
	return x & 1 ? "odd" : "even";
}

TRACED void step_void(int *x)
{
	*x += 1;
}

/* One call of every return class; the number of wrong results. */
TRACED int step_round(int i)
{
	struct pair p = step_pair(i);
	int bad = 0, v = i;

	bad += step_fib(3) != 2;
	bad += step_half(i) != i / 2.0;
	bad += step_third(i) != i / 3.0L;
	bad += p.a != i || p.b != -i;
	bad += strcmp(step_name(i), i & 1 ? "odd" : "even") != 0;
	step_void(&v);
	bad += v != i + 1;
	return bad;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	int bad;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	if (objpatch_enable("step_*") <= 0) {
		printf("# objpatch_enable: %s\n", objpatch_error());
		return 1;
	}
	/* The tracer steps (and signals) from here to the next stop only. */
	kill(getpid(), SIGSTOP);
	bad = step_round(5);
	kill(getpid(), SIGSTOP);
	printf("# %d wrong results, %d wrong in the handler, %d signals handled\n", bad,
	       (int)wrong_in_handler, (int)handled);
	if (objpatch_flush() < 0)
		printf("# objpatch_flush: %s\n", objpatch_error());
	return bad || wrong_in_handler;
}
