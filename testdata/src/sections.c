// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions in named sections: .text.custom is traced (a .text prefix), while
 * .noinstr.text and .fixup are executable but not traced, so their hook calls
 * must be turned into NOPs.
 */
#define noinline __attribute__((noinline))

extern void sink(long v);

__attribute__((section(".text.custom"))) noinline int custom_traced(int x)
{
	sink(x);
	return x + 1;
}

__attribute__((section(".noinstr.text"))) noinline int noinstr_one(int x)
{
	sink(x);
	return x * 2;
}

__attribute__((section(".noinstr.text"))) noinline int noinstr_two(int x)
{
	sink(x + 1);
	return x - 2;
}

__attribute__((section(".fixup"))) noinline void fixup_handler(long v)
{
	sink(v);
}

int plain(int x)
{
	fixup_handler(x);
	return custom_traced(x) + noinstr_one(x) + noinstr_two(x);
}
