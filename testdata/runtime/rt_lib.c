// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two shared libraries for t/90-runtime.t, from one source: built with
 * -DDIRECT it is linked to rt_dl (DT_NEEDED, loaded before main), without
 * it rt_dl loads it with dlopen() after start-up.  Each exports a traced
 * function returning a value of its own.
 */
#ifdef DIRECT
int lib_direct(int x);
__attribute__((noinline)) int lib_direct(int x)
{
	__asm__ volatile("");
	return x + 10;
}
#else
long lib_loaded(long x);
__attribute__((noinline)) long lib_loaded(long x)
{
	__asm__ volatile("");
	return x * 2 - 44;	/* -42 for 1: a long, so shown with its errno name, ENOMSG */
}
#endif
