// SPDX-License-Identifier: GPL-2.0-only
/*
 * t/73-runtime-mistakes.t's program for functions the compiler inlined at
 * every call site: length() and size() are inlined into main() at -O2, but
 * stay out of line (externally visible), with a site, as redis's
 * listTypeLength: objpatch list shows them, and nothing calls them.
 */
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	struct list l = { argc > 1 ? atol(argv[1]) : 3 };

	printf("%ld %ld %ld\n", length(&l), size(&l), called(l.n));
	return 0;
}
