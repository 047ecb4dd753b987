// SPDX-License-Identifier: GPL-2.0-only
/*
 * A class with its own copy constructor is not trivially copyable: the
 * Itanium C++ ABI returns it through a hidden address, even at 4 bytes,
 * and leaves that address in rax.  A plain struct of the same size comes
 * back in eax (t/62-members.t).
 */
#define noinline __attribute__((noinline))

struct Counted {
	int n;
	Counted(int v) : n(v) {}
	Counted(const Counted &o) : n(o.n) {}
};

struct Plain {
	int n;
};

noinline Counted counted(int v)
{
	__asm__ volatile("" ::: "memory");
	return Counted(v);
}

noinline Plain plain(int v)
{
	__asm__ volatile("" ::: "memory");
	return Plain{ v };
}

int main()
{
	return counted(7).n + plain(8).n == 15 ? 0 : 1;
}
