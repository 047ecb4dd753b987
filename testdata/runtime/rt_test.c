// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end program for the tracing runtime (t/90-runtime.t): traced
 * functions returning every class of value the formatter knows, and the
 * control flow a shadow stack must survive: recursion, longjmp over traced
 * frames, a signal handler calling traced code, threads, fork, and (in
 * rt_cxx.cc) C++ exceptions with a destructor on the unwind path.
 *
 * What each function must show in the trace is written by hand in
 * rt_expect.txt; testdata/runtime/check_trace.py compares.  Untraced, the
 * program checks its own results: "ok - ..." / "not ok - ..." lines and
 * "done" on stdout, nothing on stderr (the trace may go there), exit 0 when
 * every check passed.
 *
 * Every traced function is external, has a name of its own and is kept out
 * of inlining and interprocedural shortcuts, so each call in the source is a
 * call at run time and each return value really passes through registers.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "traced.h"

static int failed;

static void check(bool good, const char *desc)
{
	printf("%s - %s\n", good ? "ok" : "not ok", desc);
	failed += !good;
}

/* ---- rt_cxx.cc ---- */
int cx_run(void);

/* ---- scalars ---- */

enum state { ST_IDLE, ST_RUN, ST_STOP };

TRACED void ret_void(void)
{
	OPAQUE();
}

TRACED bool ret_true(void)
{
	OPAQUE();
	return true;
}

TRACED bool ret_false(void)
{
	OPAQUE();
	return false;
}

TRACED int ret_int_pos(void)
{
	OPAQUE();
	return 42;
}

/* Below -133: no errno name. */
TRACED int ret_int_neg(void)
{
	OPAQUE();
	return -1000;
}

TRACED int ret_einval(void)
{
	OPAQUE();
	return -22;
}

/* 0xffffffea in a register as wide as a long: an int's -22, not 4294967274. */
TRACED int ret_einval_trim(long x)
{
	OPAQUE();
	return (int)x;
}

TRACED long ret_enoent_long(void)
{
	OPAQUE();
	return -2;
}

TRACED long ret_long_big(void)
{
	OPAQUE();
	return (long)0x123456789LL;	/* ILP32 (rt_expect_*.txt): the low 32 bits */
}

TRACED unsigned int ret_uint_max(void)
{
	OPAQUE();
	return UINT_MAX;
}

/*
 * Narrow results from a wider argument: gcc and clang return the argument's
 * register as it is, the bits above the result's width left set.
 */
TRACED unsigned char ret_uchar(unsigned long x)
{
	OPAQUE();
	return (unsigned char)x;
}

TRACED signed char ret_schar(long x)
{
	OPAQUE();
	return (signed char)x;
}

TRACED unsigned short ret_ushort(unsigned long x)
{
	OPAQUE();
	return (unsigned short)x;
}

TRACED short ret_short(long x)
{
	OPAQUE();
	return (short)x;
}

TRACED char ret_char(void)
{
	OPAQUE();
	return 'A';
}

TRACED char ret_char_quote(void)
{
	OPAQUE();
	return '\'';
}

TRACED unsigned long ret_ulong_max(void)
{
	OPAQUE();
	return ULONG_MAX;
}

TRACED long long ret_llong(void)
{
	OPAQUE();
	return -5000000000LL;
}

TRACED unsigned long long ret_ullong(void)
{
	OPAQUE();
	return 10000000000000000000ULL;
}

#ifdef __SIZEOF_INT128__	/* not on 32-bit targets */
TRACED __int128 ret_int128_neg(void)
{
	OPAQUE();
	return -1;
}

TRACED unsigned __int128 ret_uint128_big(void)
{
	OPAQUE();
	return (unsigned __int128)1 << 64;
}
#endif

TRACED enum state ret_enum(void)
{
	OPAQUE();
	return ST_RUN;
}

static int some_global;

TRACED void *ret_ptr_const(void)
{
	OPAQUE();
	return (void *)0x12345678;
}

TRACED int *ret_ptr_global(void)
{
	OPAQUE();
	return &some_global;
}

TRACED void *ret_ptr_null(void)
{
	OPAQUE();
	return NULL;
}

TRACED void run_scalars(void)
{
	ret_void();
	check(ret_true() && !ret_false(), "bool");
	check(ret_int_pos() == 42 && ret_int_neg() == -1000, "int");
	check(ret_einval() == -22 && ret_einval_trim((long)0x1ffffffeaLL) == -22, "int -22");
	check(ret_enoent_long() == -2 && ret_long_big() == (long)0x123456789LL, "long");
	check(ret_uint_max() == UINT_MAX, "unsigned int");
	check(ret_uchar(0xabcdefc8UL) == 200, "unsigned char trimmed");
	check(ret_schar(0x12345ffL) == -1, "signed char sign-extended");
	check(ret_ushort((unsigned long)0x5a5a5a5affffULL) == 65535, "unsigned short trimmed");
	check(ret_short(0x98000L) == -32768, "short sign-extended");
	check(ret_char() == 'A' && ret_char_quote() == '\'', "char");
	check(ret_ulong_max() == ULONG_MAX, "unsigned long");
	check(ret_llong() == -5000000000LL && ret_ullong() == 10000000000000000000ULL, "long long");
#ifdef __SIZEOF_INT128__
	check(ret_int128_neg() == -1 && ret_uint128_big() == (unsigned __int128)1 << 64, "__int128");
#endif
	check(ret_enum() == ST_RUN, "enum");
	check(ret_ptr_const() == (void *)0x12345678 && ret_ptr_global() == &some_global &&
	      ret_ptr_null() == NULL, "pointers");
}

/* ---- strings ---- */

/* 80 characters: the formatter shows 64. */
static char long_text[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-0123456789abcdef";

TRACED const char *ret_str_zero(void)
{
	OPAQUE();
	return "zero";
}

TRACED char *ret_str_long(void)
{
	OPAQUE();
	return long_text;
}

TRACED const char *ret_str_special(void)
{
	OPAQUE();
	return "a\"b\\c\nd";
}

TRACED const char *ret_str_utf8(void)
{
	OPAQUE();
	return "caf\xc3\xa9";
}

TRACED const char *ret_str_empty(void)
{
	OPAQUE();
	return "";
}

TRACED const char *ret_str_null(void)
{
	OPAQUE();
	return NULL;
}

/* Never dereferenced by the program: the runtime must not crash reading it. */
TRACED char *ret_str_bad(void)
{
	OPAQUE();
	return (char *)16;
}

/* A buffer in its caller's frame, on the live stack: read directly by the runtime. */
TRACED char *ret_str_stack(char *buf)
{
	OPAQUE();
	return buf;
}

TRACED void run_strings(void)
{
	char buf[16] = "on the stack";

	check(strcmp(ret_str_zero(), "zero") == 0, "string");
	check(strlen(ret_str_long()) == 80, "long string");
	check(strcmp(ret_str_special(), "a\"b\\c\nd") == 0, "string with escapes");
	check(strcmp(ret_str_utf8(), "caf\xc3\xa9") == 0, "UTF-8 string");
	check(*ret_str_empty() == 0 && ret_str_null() == NULL, "empty and NULL strings");
	check(ret_str_bad() == (char *)16, "invalid string pointer");
	check(ret_str_stack(buf) == buf, "string on the caller's stack");
}

/* ---- floating point and structs ---- */

struct pair {
	int a, b;
};

struct wide_pair {
	long a, b;
};

struct big {
	long a, b, c;
};

struct fpair {
	double x, y;
};

TRACED float ret_float_half(void)
{
	OPAQUE();
	return 0.5f;
}

TRACED double ret_double_tenth(void)
{
	OPAQUE();
	return 0.1;
}

TRACED double ret_double_big(void)
{
	OPAQUE();
	return 1e100;
}

TRACED double ret_double_neg(void)
{
	OPAQUE();
	return -2.5;
}

TRACED struct pair ret_pair(void)
{
	OPAQUE();
	return (struct pair){ 1, 2 };
}

TRACED struct wide_pair ret_wide_pair(void)
{
	OPAQUE();
	return (struct wide_pair){ 1, -1 };
}

/* Returned through memory: the formatter shows "?". */
TRACED struct big ret_big(void)
{
	OPAQUE();
	return (struct big){ 1, 2, 3 };
}

/*
 * Returned in xmm0:xmm1 (v0:v1 on AArch64), not the integer registers: the
 * table flags it, and the value is printed raw and marked '?', never as the
 * integer registers' bytes.
 */
TRACED struct fpair ret_fpair(void)
{
	OPAQUE();
	return (struct fpair){ 0.5, -2 };
}

TRACED void run_floats_structs(void)
{
	struct pair p = ret_pair();
	struct wide_pair w = ret_wide_pair();
	struct big b = ret_big();
	struct fpair f = ret_fpair();

	check(ret_float_half() == 0.5f && ret_double_tenth() == 0.1 && ret_double_big() == 1e100 &&
	      ret_double_neg() == -2.5, "floating point");
	check(p.a == 1 && p.b == 2 && w.a == 1 && w.b == -1 && b.a + b.b + b.c == 6 && f.x == 0.5 &&
	      f.y == -2, "structs");
}

/* ---- recursion ---- */

TRACED int fib(int n)
{
	OPAQUE();
	int a, b;

	if (n < 2)
		return n;
	a = fib(n - 1);
	KEEP(a);
	b = fib(n - 2);
	KEEP(b);
	return a + b;
}

TRACED void run_recursion(void)
{
	check(fib(10) == 55, "fib(10): 177 calls, 10 deep");
}

/* ---- longjmp over two traced frames ---- */

static jmp_buf lj_env;

TRACED int lj_inner(int x)
{
	if (x > 0)
		longjmp(lj_env, x);
	return x - 1;
}

TRACED int lj_mid(int x)
{
	int r = lj_inner(x + 1);

	KEEP(r);
	return r + 1;
}

/* Called after the jump: its parent must be lj_outer, not the skipped frames. */
TRACED int lj_after(void)
{
	OPAQUE();
	return 3;
}

TRACED int lj_outer(void)
{
	if (setjmp(lj_env) == 0) {
		lj_mid(1);
		return -1000;
	}
	return lj_after() + 14;
}

TRACED void run_longjmp(void)
{
	check(lj_outer() == 17, "longjmp over two traced frames");
}

/* ---- a signal handler calling traced code ---- */

static volatile sig_atomic_t handler_result;

TRACED int in_handler(void)
{
	OPAQUE();
	return 99;
}

TRACED void on_sigusr1(int sig)
{
	if (sig == SIGUSR1)
		handler_result = in_handler();
}

TRACED int sig_raiser(void)
{
#ifdef RT_RAISE_BY_KILL
	/* qemu-sh4 7.2 delivers raise()'s signal only later (glibc 2.41 blocks, sends, unblocks). */
	kill(getpid(), SIGUSR1);
#else
	raise(SIGUSR1);
#endif
	return handler_result == 99 ? 5 : -1000;
}

TRACED void run_signal(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sigemptyset(&sa.sa_mask);
	check(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	check(sig_raiser() == 5, "signal handler ran a traced function");
	signal(SIGUSR1, SIG_DFL);
}

/* ---- threads ---- */

#define NTHREADS 4
#define THREAD_CALLS 5

TRACED int thread_work(int i)
{
	OPAQUE();
	return 1234 + (i & 0);
}

TRACED void *thread_main(void *arg)
{
	int *sum = arg;

	for (int i = 0; i < THREAD_CALLS; i++) {
		int r = thread_work(i);

		KEEP(r);
		*sum += r;
	}
	return NULL;
}

TRACED void run_threads(void)
{
	pthread_t t[NTHREADS];
	int sums[NTHREADS] = { 0 }, started = 0, total = 0;

	for (int i = 0; i < NTHREADS; i++)
		started += pthread_create(&t[i], NULL, thread_main, &sums[i]) == 0;
	check(started == NTHREADS, "threads started");
	for (int i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		total += sums[i];
	}
	check(total == NTHREADS * THREAD_CALLS * 1234, "threads' results");
}

/* ---- fork ---- */

TRACED void child_leaf(void)
{
	OPAQUE();
}

TRACED int child_work(void)
{
	child_leaf();
	return 31;
}

/* exit(), not _exit(): the runtime writes the child's trace at exit. */
TRACED int run_fork(void)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);	/* or the child would print the parent's buffered lines again */
	pid = fork();
	if (pid == 0)
		exit(child_work() == 31 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1000;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1000;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);	/* a crash keeps the lines before it */
	run_scalars();
	run_strings();
	run_floats_structs();
	run_recursion();
	run_longjmp();
	run_signal();
	check(cx_run() == 0, "C++: exception through two frames, destructor on the way, method");
	run_threads();
	check(run_fork() == 0, "fork: the child ran traced functions and exited 0");
	printf("done\n");
	return failed != 0;
}
