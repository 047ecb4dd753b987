// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C++ part of rt_test (see rt_test.c): an exception thrown through two
 * traced frames and caught two levels up, a destructor that runs on the
 * unwind path, and an ordinary method.  The unwinder walks the stack by the
 * return addresses: a runtime that hooks returns must not leave its own
 * address where the unwinder looks, or the program terminates.
 */
#include "traced.h"

static int guards_alive, guards_destroyed;

class Guard {
public:
	Guard();
	~Guard();
};

TRACED Guard::Guard()
{
	guards_alive++;
}

TRACED Guard::~Guard()
{
	guards_alive--;
	guards_destroyed++;
}

class Counter {
public:
	explicit Counter(int start) : n(start) {}
	int bump();

private:
	int n;
};

TRACED int Counter::bump()
{
	n += 2;
	return n;
}

extern "C" {

int cx_throw(int x);
int cx_pass(int x);
int cx_after_catch(void);
int cx_catch(void);
int cx_run(void);

TRACED int cx_throw(int x)
{
	if (x > 0)
		throw x;
	return x - 1;
}

/* The guard's destructor runs here while the exception passes. */
TRACED int cx_pass(int x)
{
	Guard g;
	int r = cx_throw(x + 1);

	KEEP(r);
	return r + 1;
}

/* Called in the handler: its parent must be cx_catch, not the unwound frames. */
TRACED int cx_after_catch(void)
{
	OPAQUE();
	return 3;
}

TRACED int cx_catch(void)
{
	try {
		cx_pass(1);
	} catch (int e) {
		return e == 2 ? cx_after_catch() + 4 : -1000;
	}
	return -1000;
}

TRACED int cx_run(void)
{
	Counter c(40);
	int caught = cx_catch();
	int bumped = c.bump();

	return caught == 7 && bumped == 42 && guards_alive == 0 && guards_destroyed == 1 ? 0 : -1000;
}

}
