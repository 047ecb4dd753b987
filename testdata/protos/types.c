// SPDX-License-Identifier: GPL-2.0-only
/*
 * One function per type class of man/mcount-tables.5, freestanding so that
 * every cross compiler and clang build it.  t/60-protos.t knows what each
 * declares (testdata/protos/check.py holds the expectations).
 *
 * The test passes the sizes it expects for this arch (PTR, LONG, LDBL) and
 * the compiler confirms them here, so the per-arch table in the test cannot
 * drift from what the ABI really is.
 */
#define noinline __attribute__((noinline))

#if defined(PTR) && defined(LONG) && defined(LDBL)
_Static_assert(sizeof(void *) == PTR, "pointer size of this arch");
_Static_assert(sizeof(long) == LONG, "long size of this arch");
_Static_assert(sizeof(long double) == LDBL, "long double size of this arch");
#endif

extern void sink(long v);

enum state { ST_NEG = -5, ST_IDLE = 0, ST_RUN = 7, ST_MAX = 0x7fffffff };

/* Values beyond 32 bits make it an 8-byte enum (a GNU extension). */
enum wide { W_NEG = -0x123456789LL, W_ZERO = 0, W_POS = 0x123456789LL };

/* Unsigned enums: values with the top bit set are not negative. */
enum flags { FL_LOW = 1, FL_TOP = 0x80000000u };
enum huge { H_ONE = 1, H_TOP = 0xfedcba9876543210ull };

struct pair {
	int a;
	long b;
};

union word {
	int i;
	float f;
	char c[8];
};

typedef unsigned int u32;
typedef struct pair pair_t;
typedef enum state state_t;
typedef char *str_t;
typedef u32 counter_t;	/* a typedef of a typedef */

/* A store to a member of a global: SPARC64's R_SPARC_OLO10 carries the offset. */
struct pair last_pair;

noinline void f_void(void)
{
	last_pair.b = 0;
	sink(0);
}

noinline _Bool f_bool(_Bool b)
{
	return !b;
}

noinline signed char f_s8(signed char a, unsigned char b)
{
	return (signed char)(a + b);
}

noinline short f_s16(short a, unsigned short b)
{
	return (short)(a + b);
}

noinline int f_s32(int a, unsigned int b)
{
	return a + (int)b;
}

noinline long long f_s64(long long a, unsigned long long b)
{
	return a + (long long)b;
}

noinline unsigned long f_long(long a, unsigned long b)
{
	return (unsigned long)a + b;
}

noinline char f_char(char c)
{
	return (char)(c + 1);
}

noinline enum state f_enum(enum state s)
{
	return s == ST_RUN ? ST_IDLE : ST_NEG;
}

noinline enum wide f_wide(enum wide w)
{
	return w == W_POS ? W_NEG : W_ZERO;
}

noinline enum flags f_flags(enum flags f, enum huge h)
{
	return h == H_TOP ? FL_TOP : f;
}

noinline int *f_ptr(int *p, void *v, const void *cv, signed char *sc, unsigned char *uc, char **pp)
{
	sink((long)v + (long)cv + *sc + *uc + **pp);
	return p + 1;
}

noinline const char *f_str(char *s, const char *cs)
{
	return *s ? s : cs;
}

noinline float f_float(float f, double d)
{
	return f + (float)d;
}

noinline long double f_ldouble(long double x)
{
	return x * 2;
}

noinline struct pair f_struct(struct pair p)
{
	p.a++;
	return p;
}

noinline union word f_union(union word w)
{
	w.i++;
	return w;
}

noinline int f_fnptr(int (*cb)(int, const char *), void (*done)(void))
{
	int r = cb(1, "x");

	done();
	return r;
}

noinline int f_varargs(const char *fmt, ...)
{
	__builtin_va_list ap;
	int r;

	__builtin_va_start(ap, fmt);
	r = __builtin_va_arg(ap, int) + *fmt;
	__builtin_va_end(ap);
	return r;
}

noinline u32 f_typedef(u32 x, pair_t *pp, state_t s, str_t str, counter_t c)
{
	return x + (u32)pp->a + (u32)s + (u32)*str + c;
}

noinline int f_qual(const int ci, volatile long vl, const volatile unsigned short cvs,
		    char *const cp, const char *volatile vcp)
{
	return ci + (int)vl + cvs + *cp + *vcp;
}
