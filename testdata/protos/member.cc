// SPDX-License-Identifier: GPL-2.0-only
/*
 * Member functions defined outside their class: their DWARF is a
 * DW_AT_specification pointing into the class, where the name and the
 * declared types are.  The runtime wants the qualified names.
 */
#define noinline __attribute__((noinline))

extern "C" void sink(long v);

struct S {
	int v;
	int get(int k) const;
	static long count(const char *what, unsigned n);
};

namespace geo {
struct Point {
	double x, y;
	double dot(const Point &o) const;
};
}

noinline int S::get(int k) const
{
	return v + k;
}

noinline long S::count(const char *what, unsigned n)
{
	sink((long)what);
	return (long)n * 2;
}

noinline double geo::Point::dot(const Point &o) const
{
	return x * o.x + y * o.y;
}

long use_members(const S &s, const geo::Point &p)
{
	return s.get(3) + S::count("n", 4) + (long)p.dot(p);
}
