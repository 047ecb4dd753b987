// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stack walkers meet the return trampoline where a return address should
 * be, and C++'s unwinder would find no frame description there and
 * terminate.  So the unwinder's entry points are interposed: the real
 * return addresses go back on the stack before the walk, and the first
 * catch (or the end of a walk that unwinds nothing) hooks the frames that
 * survived again.  Interposition works for LD_PRELOAD and for programs
 * linking libobjpatch.a dynamically; a fully static C++ program would get
 * two definitions, so these live in an object of their own.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "objpatch/lib/rt.h"

#define API __attribute__((visibility("default")))

struct _Unwind_Exception;
struct _Unwind_Context;
typedef int (*unwind_trace_fn)(struct _Unwind_Context *, void *);

API int _Unwind_RaiseException(struct _Unwind_Exception *e);
API int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);
API int _Unwind_ForcedUnwind(struct _Unwind_Exception *e, void *stop, void *arg);
API int _Unwind_Backtrace(unwind_trace_fn fn, void *arg);
API void *__cxa_begin_catch(void *e);

static void *next_symbol(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "objpatch: %s not found after the tracing runtime\n", name);
		abort();
	}
	return p;
}

#define FORWARD(ret, name, params, args)                                              \
	API ret name params                                                               \
	{                                                                             \
		static ret(*real) params;                                             \
		if (!real)                                                            \
			real = (ret(*) params)next_symbol(#name);                     \
		if (rt_current() && rt_current()->depth)                                              \
			rt_restore_slots(rt_current());                                          \
		return real args;                                                     \
	}

FORWARD(int, _Unwind_RaiseException, (struct _Unwind_Exception *e), (e))
FORWARD(int, _Unwind_Resume_or_Rethrow, (struct _Unwind_Exception *e), (e))
FORWARD(int, _Unwind_ForcedUnwind, (struct _Unwind_Exception *e, void *stop, void *arg), (e, stop, arg))

/* A walk that does not unwind (backtrace()): every frame survives it. */
API int _Unwind_Backtrace(unwind_trace_fn fn, void *arg)
{
	static int (*real)(unwind_trace_fn, void *);
	int rc;

	if (!real)
		real = (int (*)(unwind_trace_fn, void *))next_symbol("_Unwind_Backtrace");
	if (!rt_current() || !rt_current()->depth)
		return real(fn, arg);
	rt_restore_slots(rt_current());
	rc = real(fn, arg);
	rt_rehook_slots(rt_current(), 0);
	return rc;
}

API void *__cxa_begin_catch(void *e)
{
	static void *(*real)(void *);

	if (!real)
		real = (void *(*)(void *))next_symbol("__cxa_begin_catch");
	/*
	 * The catching function's stack pointer: frames below it were unwound
	 * (on ppc64 their slots lie up to slot_above_sp above it, in its frame).
	 */
	if (rt_current() && rt_current()->depth)
		rt_rehook_slots(rt_current(), (uintptr_t)__builtin_dwarf_cfa() + rt_arch_host.slot_above_sp);
	return real(e);
}

