// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C++ service for objpatch attach to trace while exceptions cross traced
 * frames (t/98-attach-cxx.t): workers call catcher(), which calls pass(),
 * whose Guard's destructor runs while thrower()'s exception passes, and
 * check every result and that every Guard was destroyed.  A wrong one
 * prints "wrong: ..." and exits 3; an exception the unwinder cannot carry
 * terminates the program.  It prints "ready" once the workers run; a line
 * "quit" stops them, each prints its rounds, and it exits 7; any other
 * line gets "line N".
 */
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

#define WORKERS 2

static std::atomic<bool> stop;
static std::atomic<int> running;
/*
 * Per thread: a worker checks its own guards when it stops, while another
 * worker may still be inside pass() with a Guard alive (a shared count
 * then read 1 now and then, with nothing wrong).
 */
static thread_local long guards;

struct Guard {
	Guard() { guards++; }
	~Guard() { guards--; }
};

static void wrong(const char *what, long got, long want)
{
	printf("wrong: %s: %ld, expected %ld\n", what, got, want);
	fflush(stdout);
	_exit(3);
}

__attribute__((noinline)) int thrower(int x)
{
	if (x % 3 == 0)
		throw x;
	return x + 1;
}

__attribute__((noinline)) int pass(int x)
{
	Guard g;

	return thrower(x) * 2;
}

__attribute__((noinline)) int catcher(int x)
{
	try {
		return pass(x);
	} catch (int v) {
		return -v;
	}
}

static void *worker(void *arg)
{
	long id = (long)arg, rounds = 0;

	running++;
	while (!stop) {
		for (int i = 1; i <= 30; i++) {
			int want = i % 3 == 0 ? -i : (i + 1) * 2;
			int got = catcher(i);

			if (got != want)
				wrong("catcher", got, want);
		}
		rounds++;
		usleep(100);
	}
	if (guards != 0)
		wrong("guards alive", guards, 0);
	printf("worker %ld: %ld rounds, all right\n", id, rounds);
	return NULL;
}

int main()
{
	pthread_t t[WORKERS];
	char line[256];
	int n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	while (running < WORKERS)
		usleep(1000);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin) && strcmp(line, "quit\n"))
		printf("line %d\n", ++n);
	stop = true;
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	return 7;
}
