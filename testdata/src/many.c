// SPDX-License-Identifier: GPL-2.0-only
/* Many small functions: a table of a few hundred sites. */
#define noinline __attribute__((noinline))

extern void sink(long v);

#define F(n) noinline long small_##n(long x) { sink(x); return x + n; }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)

F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)
F10(10) F10(11) F10(12) F10(13) F10(14) F10(15) F10(16) F10(17) F10(18) F10(19)
F10(20) F10(21) F10(22) F10(23) F10(24) F10(25) F10(26) F10(27) F10(28) F10(29)

static noinline long tiny_static(long x)
{
	return x * 5;
}

long many_entry(long x)
{
	return small_10(x) + small_299(x) + tiny_static(x);
}
