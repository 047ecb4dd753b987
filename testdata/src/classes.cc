// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++: out-of-line and inline member functions, a virtual function and
 * template instances.  Inline members and templates are emitted in COMDAT
 * groups whose only symbols are weak.
 */
extern "C" void sink(long v);

class Counter {
public:
	explicit Counter(long start) : n(start) {}
	virtual ~Counter() {}
	__attribute__((noinline)) long bump(long by) { n += by; sink(n); return n; }
	virtual long value() const;
private:
	long n;
};

long Counter::value() const
{
	return n;
}

template <typename T>
__attribute__((noinline)) T twice(T v)
{
	sink((long)v);
	return v + v;
}

namespace {
__attribute__((noinline)) int hidden(int x)
{
	sink(x);
	return x - 3;
}
}

long use_all(long x)
{
	Counter c(x);

	c.bump(2);
	return c.value() + twice<int>((int)x) + twice<long>(x) + hidden((int)x);
}
