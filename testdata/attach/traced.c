// SPDX-License-Identifier: GPL-2.0-only
/*
 * A service-like process for objpatch attach to trace (t/98-attach-trace.t),
 * built with recorded call sites: workers that call small typed functions
 * in a loop and check every result, a reader blocked in read() on standard
 * input inside a traced function (wait_line) that hands each line to
 * another, and (mode `fork`) a
 * thread that forks a child now and then, which calls traced functions
 * too and exits with a status the parent checks.  A wrong result or
 * status prints "wrong: ..." and exits 3.
 *
 * Mode `fork-held`: a line "fork" makes the reader fork a child that
 * exits 0 at once, but the program's own fork handler, which runs after
 * those registered later (a runtime loaded since), prints "forking" and
 * blocks until a byte comes on fd 5: the reader stays inside fork() with
 * the runtime's lock, as long as the test wants.  Then "forked: STATUS".
 *
 * It prints "ready" once every thread runs.  A line "quit" stops the
 * workers, each prints its rounds, and the program exits 7 (from main,
 * so that exit handlers run); any other line is counted, and the reader
 * prints "line N: LENGTH" for it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 3

static atomic_bool stop;
static atomic_int running;

static void wrong(const char *what, long got, long want)
{
	printf("wrong: %s: %ld, expected %ld\n", what, got, want);
	fflush(stdout);
	_exit(3);
}

__attribute__((noinline)) int add_pair(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) const char *parity(long v)
{
	return v % 2 ? "odd" : "even";
}

__attribute__((noinline)) bool is_square(long v)
{
	long r = 0;

	while (r * r < v)
		r++;
	return r * r == v;
}

__attribute__((noinline)) size_t line_length(const char *line)
{
	return strlen(line);
}

/* The reader's wait: a traced frame that stays open while the thread is blocked in read(). */
__attribute__((noinline)) char *wait_line(char *buf, int size)
{
	return fgets(buf, size, stdin);
}

__attribute__((noinline)) int child_work(int k)
{
	return add_pair(k, 40) - 40;
}

static void *worker(void *arg)
{
	long id = (long)arg, round;

	atomic_fetch_add(&running, 1);
	for (round = 0; !atomic_load(&stop); round++) {
		int k = (int)(round % 1000);

		if (add_pair(k, (int)id) != k + (int)id)
			wrong("add_pair", add_pair(k, (int)id), k + id);
		if (fib(12) != 144)
			wrong("fib(12)", fib(12), 144);
		if (strcmp(parity(k), k % 2 ? "odd" : "even"))
			wrong("parity", k, k % 2);
		if (is_square((long)k * k) != true || (k > 1 && is_square((long)k * k + 1)))
			wrong("is_square", k, k);
		usleep(100);
	}
	printf("worker %ld: %ld rounds, all right\n", id, round);
	return NULL;
}

static bool fork_armed;

/* The program's prepare handler, registered first, so run last: inside fork(), every later handler's lock held. */
static void block_in_fork(void)
{
	char c;

	if (!fork_armed)
		return;
	if (write(1, "forking\n", 8) != 8)
		_exit(4);
	while (read(5, &c, 1) < 0)
		;
}

/* The reader forks, blocked inside fork() until fd 5 says (mode fork-held). */
static void fork_held(void)
{
	int st = -1;
	pid_t pid;

	fork_armed = true;
	pid = fork();
	if (pid == 0)
		_exit(0);
	fork_armed = false;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		wrong("fork-held's child", pid, 0);
	printf("forked: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st));
}

/* A child every few milliseconds: its status must be its own. */
static void *forker(void *arg)
{
	int k = 0;

	(void)arg;
	atomic_fetch_add(&running, 1);
	while (!atomic_load(&stop)) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			_exit(child_work(k % 100) == k % 100 ? k % 100 : 101);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != k % 100)
			wrong("child status", pid < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st), k % 100);
		k++;
		usleep(5000);
	}
	printf("forker: %d children, all right\n", k);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[WORKERS], f;
	bool forks = argc > 1 && !strcmp(argv[1], "fork");
	bool hold_forks = argc > 1 && !strcmp(argv[1], "fork-held");
	char line[4096];
	long lines = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (hold_forks)
		pthread_atfork(block_in_fork, NULL, NULL);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)i);
	if (forks)
		pthread_create(&f, NULL, forker, NULL);
	while (atomic_load(&running) < WORKERS + forks)
		usleep(1000);
	printf("ready\n");
	/* The reader: main itself, blocked in read() between lines. */
	while (wait_line(line, sizeof(line)) && strcmp(line, "quit\n")) {
		if (hold_forks && !strcmp(line, "fork\n"))
			fork_held();
		else
			printf("line %ld: %zu\n", ++lines, line_length(line));
	}
	atomic_store(&stop, true);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	if (forks)
		pthread_join(f, NULL);
	return 7;
}
