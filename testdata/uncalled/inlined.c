// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/73-runtime-mistakes.t's program for functions the compiler inlined at
 * every call site: length() and size() are inlined into main() at -O2, but
 * stay out of line (externally visible), with a site, as redis's
 * listTypeLength: objpatch list shows them, and nothing calls them.
 * With "forever", a thread calls them (inlined) and called() without end,
 * for objpatch attach.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct list { long n; };

long length(const struct list *l)
{
	return l->n;
}

long size(const struct list *l)
{
	return l->n * 2;
}

__attribute__((noinline)) long called(long x)
{
	return x + 1;
}

static volatile long sink;

static void *forever(void *arg)
{
	struct list l = { (long)arg };

	for (long i = 0;; i++) {
		sink += length(&l) + size(&l) + called(i);
		if (i == 1024) {
			puts("ready");	/* objpatch attach may come */
			fflush(stdout);
		}
		if (!(i & 1023))
			usleep(100);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct list l = { argc > 1 ? atol(argv[1]) : 3 };
	pthread_t t;

	if (argc > 2 && !strcmp(argv[2], "forever")) {
		pthread_create(&t, NULL, forever, (void *)l.n);
		pthread_join(t, NULL);
	}

	printf("%ld %ld %ld\n", length(&l), size(&l), called(l.n));
	return 0;
}
