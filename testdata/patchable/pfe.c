// SPDX-License-Identifier: GPL-2.0-only
/*
 * For t/35-patchable.t: functions compiled with -fpatchable-function-entry,
 * one static, one that opts out (no pad, no entry), one in .text.unlikely.
 */
volatile int sink;

static __attribute__((noinline)) int helper(int x)
{
	sink = x;
	return x * 3 + sink;
}

__attribute__((patchable_function_entry(0))) int untraced(int x)
{
	return x + sink;
}

__attribute__((cold, noinline)) int rarely(int x)
{
	sink = x;
	return x - 1;
}

int add(int a, int b)
{
	return helper(a) + b;
}

int twice(int a)
{
	if (a < 0)
		return rarely(a);
	return add(a, a) + untraced(a);
}

int main(void)
{
	return twice(sink) & 1;
}
