// SPDX-License-Identifier: GPL-2.0-only
/*
 * The program t/74-trace-output.t traces: a UTF-8 string, a user-space -1
 * (errno convention, no errno name by default), a named thread.  Built
 * again with -DREBUILT, its functions move and `greet` is renamed: a
 * recording of the first build must still report the first build's names.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef REBUILT
#define greet greet_renamed
/* Code before the others, so that every address changes. */
__attribute__((noipa)) unsigned shift_everything(unsigned x)
{
	for (unsigned i = 0; i < x; i++)
		x ^= x << 3 ^ i * 2654435761u;
	return x;
}
#endif

__attribute__((noipa)) const char *greet(int formal)
{
	return formal ? "caf\303\251 \342\202\254" : "bad \377 byte";
}

/* Fails as user code does: -1, errno set. */
__attribute__((noipa)) int fails(void)
{
	return -1;
}

static void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "out-worker");
	return fails() == -1 ? arg : NULL;
}

int main(void)
{
	pthread_t t;

	printf("%s %s\n", greet(1), greet(0));
	if (fails() != -1 || pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
