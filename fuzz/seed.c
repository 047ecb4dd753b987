// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small unit for the fuzz corpora (fuzz/make-corpus.sh): a function per
 * class of value the prototype tables describe, in few DWARF bytes.
 */
#include <stdbool.h>

enum state { ST_IDLE, ST_RUN = 5 };
struct point { int x; float y; };
union word { long l; double d; };
typedef unsigned long ulong;

extern void sink(long v);

bool f_bool(int a) { sink(a); return a > 1; }
enum state f_enum(enum state s) { sink(s); return s; }
struct point f_struct(struct point p, ulong n) { sink((long)n); return p; }
const char *f_str(const char *s, union word *w) { sink(w->l); return s; }
double f_float(float f, ...) { sink(0); return f * 2; }
static __attribute__((noinline)) void f_void(void) { sink(0); }
void f_call(void) { f_void(); }
