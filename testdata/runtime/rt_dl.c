// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/90-runtime.t: traced code in shared libraries (one linked, one
 * dlopen()ed after start-up), and a recursion deeper than the shadow stack
 * the test allows.  Prints its own checks on stdout.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int lib_direct(int x);
int dl_recurse(int n);

/* The asm keeps the compiler from turning the recursion into a loop. */
__attribute__((noinline)) int dl_recurse(int n)
{
	int r;

	if (!n)
		return 0;
	r = dl_recurse(n - 1);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "./librt_loaded.so";
	long (*loaded)(long);
	void *h;

	printf("%s - lib_direct(1) = 11\n", lib_direct(1) == 11 ? "ok" : "not ok");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		printf("not ok - dlopen %s: %s\n", path, dlerror());
		return 1;
	}
	loaded = (long (*)(long))dlsym(h, "lib_loaded");
	printf("%s - lib_loaded(1) = -42\n", loaded && loaded(1) == -42 ? "ok" : "not ok");
	printf("%s - dl_recurse(10) = 10\n", dl_recurse(10) == 10 ? "ok" : "not ok");
	printf("done\n");
	return 0;
}
