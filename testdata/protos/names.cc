// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ names at g++ -O2: a function in an anonymous namespace (internal
 * linkage: no DW_AT_linkage_name, a mangled _ZN12_GLOBAL__N_1... symbol) and
 * a template whose instance gcc clones by IPA-SRA (a .isra.N symbol).  Both
 * must be named as DWARF reads, qualified, the clone keeping its suffix.
 */
#include <cstdio>

struct big {
	long a, b, c, d;
};

namespace {
__attribute__((noipa)) int real_main(int argc, char **argv)
{
	return argc + (argv[0][0] == 'x');
}
}

namespace ns {
/* Passed by value, two fields read: IPA-SRA passes only those. */
template <typename T> __attribute__((noinline)) static long sra(big b, T k)
{
	std::puts(k);
	return b.c * 3 + b.a;
}

long call(big *b, const char *k)
{
	return sra<const char *>(*b, k);
}
}

int main(int argc, char **argv)
{
	big b{ 1, 2, 3, 4 };

	return real_main(argc, argv) + (int)ns::call(&b, "x") - 10 - argc;
}
