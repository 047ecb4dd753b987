// SPDX-License-Identifier: GPL-2.0-only
/*
 * ppc64le and ppc64 (t/95-rt-ppc64le.t, t/95-rt-ppc64.t): a function's
 * return-address slot is the LR save word in its CALLER's frame, 16 bytes
 * above its own entry stack pointer.  When a catch re-hooks the frames that survived, the frames it
 * drops as unwound are those whose slots lie at or below the catching
 * function's stack pointer plus that distance (slot_above_sp): the frame
 * of the function the catching one called directly has its slot there.
 * Left behind, that dead frame would adopt the traced calls the catcher
 * makes next through untraced code (untraced_helper, filtered out):
 * grandchild must be catcher's child, not thrower's.  Prints
 * "ok - ..."/"not ok - ..." and "done"; exits 0 when every check passed.
 */
#include <cstdio>
#include "traced.h"

extern "C" {

int thrower(int x);
int grandchild(int x);
int untraced_helper(int x);
int catcher(int x);

TRACED int thrower(int x)
{
	if (x > 0)
		throw x;
	return x - 1;
}

TRACED int grandchild(int x)
{
	OPAQUE();
	return x + 1;
}

/* Run with this one filtered out: grandchild's traced caller is catcher. */
TRACED int untraced_helper(int x)
{
	int r = grandchild(x);

	KEEP(r);
	return r;
}

TRACED int catcher(int x)
{
	int r;

	try {
		r = thrower(x);
	} catch (int v) {
		r = v;
	}
	KEEP(r);
	return r + untraced_helper(x);
}
}

int main()
{
	int r = catcher(5);

	std::printf("%s - the exception was caught and the calls after it returned\n", r == 11 ? "ok" : "not ok");
	std::printf("done\n");
	return r == 11 ? 0 : 1;
}
