/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the runtime's test programs (rt_test.c, rt_cxx.cc, rt_toggle.c,
 * rt_stress.c) need so that every traced function stays a real call with a
 * real return, whatever the optimizer knows.
 */
#ifndef RT_TRACED_H
#define RT_TRACED_H

#ifdef __clang__
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noinline, noipa, used))
#endif
/* Opaque to the optimizer: a call's result must not become a sibling call or a loop. */
#define KEEP(x) __asm__ volatile("" : "+r"(x))
/*
 * In traced functions without side effects: clang has no noipa, and drops
 * a call to a pure function when it can predict the result.
 */
#define OPAQUE() __asm__ volatile("")

#endif
