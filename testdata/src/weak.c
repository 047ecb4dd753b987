// SPDX-License-Identifier: GPL-2.0-only
/*
 * Weak definitions.  With -ffunction-sections each lands in a section whose
 * only symbol is weak, which the kernel's recordmcount cannot use as a base.
 */
extern void sink(long v);

__attribute__((weak)) int weak_hook(int x)
{
	sink(x);
	return x + 2;
}

__attribute__((weak)) void weak_default(void)
{
	sink(0);
}

int strong_user(int x)
{
	weak_default();
	return weak_hook(x) * 2;
}
