// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process for t/98-attach-hold.t that catches the signals objpatch
 * attach may send a borrowed thread to end a call (SIGURG, SIGWINCH: it
 * sends one only to a process that neither catches nor blocks it), and
 * counts each one its handlers see.  `urg`: only SIGURG is caught (the
 * call ends by SIGWINCH).  A worker calls a traced function in a loop.
 * It prints "ready"; each line on standard input prints the counts,
 * "urg N winch N"; at the end of input it exits 7.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int urg, winch;
volatile unsigned long sink;

static void on_signal(int sig)
{
	atomic_fetch_add(sig == SIGURG ? &urg : &winch, 1);
}

__attribute__((noipa)) unsigned long work(unsigned long x);
__attribute__((noipa)) unsigned long work(unsigned long x)
{
	return x * 2654435761u + 1;
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;)
		sink = work(sink);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char line[64];
	pthread_t id;

	sigaction(SIGURG, &sa, NULL);
	if (argc < 2 || strcmp(argv[1], "urg"))
		sigaction(SIGWINCH, &sa, NULL);
	if (pthread_create(&id, NULL, worker, NULL))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (fgets(line, sizeof(line), stdin))
		printf("urg %d winch %d\n", atomic_load(&urg), atomic_load(&winch));
	return 7;
}
