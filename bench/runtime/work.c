// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime benchmark's realistic mix: functions that do some real work
 * per call (tens to a couple of hundred nanoseconds), for the cost of NOP'd
 * sites in a program that is not all call overhead.  bench/runtime/calls.c,
 * whose functions are empty, is the worst case next to it.
 *
 *   work N     runs N iterations; prints main_ns=..., then a result line
 *              with traced_calls=..., the exact number of calls to functions
 *              of this file (main included), which is what a tracer that
 *              traces every function records, and void_calls=... (none
 *              here: every traced function returns a value).
 *
 * Every iteration looks up keys in a string hash table (hits and misses),
 * updates one key, sorts a dozen records with qsort and a case-insensitive
 * comparator, runs a small bytecode program and serialises four records
 * with a checksum.  The comparator's calls depend on qsort's algorithm, so
 * they are counted rather than computed; everything else is fixed per
 * iteration.  Traced functions are noipa (gcc), so that every counted call
 * is made; the set-up helpers are not instrumented, so that they add none.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__clang__)
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noipa, used))
#endif
#define HELPER __attribute__((no_instrument_function))

#define NKEYS 256		/* keys in the table; as many again are looked up and missing */
#define TABLE_SIZE 1024		/* a power of two, load factor 1/4 */
#define LOOKUPS_PER_ITER 6
#define NRECS 64
#define SORTED 10		/* records sorted per iteration */
#define PACKED 4		/* records serialised per iteration */
#define REC_BYTES 52
/* Traced calls per iteration besides the comparator's: a lookup and an
 * insert call hash_str each. */
#define CALLS_PER_ITER (2 * LOOKUPS_PER_ITER + 2 + 1 + PACKED)

struct slot {
	const char *key;
	int val;
};

struct table {
	struct slot s[TABLE_SIZE];
};

struct rec {
	char name[32];
	uint32_t id;
	int32_t qty;
	double price;
};

/* Global, so that they keep their names; declared for -Wmissing-prototypes. */
uint32_t hash_str(const char *s);
int ht_insert(struct table *t, const char *key, int val);
int ht_lookup(const struct table *t, const char *key);
int cmp_rec(const void *pa, const void *pb);
long vm_run(const unsigned char *code, long x);
size_t pack_rec(unsigned char *buf, const struct rec *r);

static unsigned long cmp_calls;
static char keys[2 * NKEYS][48];
static struct table table;
static struct rec pool[NRECS];

/* FNV-1a: a byte at a time, the multiply in the dependency chain. */
TRACED uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Returns the key's previous value, or -1 when it is new. */
TRACED int ht_insert(struct table *t, const char *key, int val)
{
	uint32_t i = hash_str(key) & (TABLE_SIZE - 1);
	int old = -1;

	while (t->s[i].key && strcmp(t->s[i].key, key) != 0)
		i = (i + 1) & (TABLE_SIZE - 1);
	if (t->s[i].key)
		old = t->s[i].val;
	t->s[i].key = key;
	t->s[i].val = val;
	return old;
}

TRACED int ht_lookup(const struct table *t, const char *key)
{
	uint32_t i = hash_str(key) & (TABLE_SIZE - 1);

	for (; t->s[i].key; i = (i + 1) & (TABLE_SIZE - 1))
		if (strcmp(t->s[i].key, key) == 0)
			return t->s[i].val;
	return -1;
}

static inline HELPER int fold(char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : (unsigned char)c;
}

/* By name ignoring case, then by id: names share a long prefix, as real keys do. */
TRACED int cmp_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;

	cmp_calls++;
	for (size_t k = 0; k < sizeof(a->name); k++) {
		int ca = fold(a->name[k]), cb = fold(b->name[k]);

		if (ca != cb)
			return ca - cb;
		if (!ca)
			break;
	}
	return (a->id > b->id) - (a->id < b->id);
}

enum { OP_MOVI, OP_ADD, OP_MUL, OP_XOR, OP_SHR, OP_DECJNZ, OP_RET };

/*
 * A register machine: 4-byte instructions (op, dst, src, operand); r0
 * starts as x.  The switch dispatch is the interpreter's real cost.
 */
TRACED long vm_run(const unsigned char *code, long x)
{
	long r[4] = { x, 0, 0, 0 };

	for (const unsigned char *pc = code;; pc += 4) {
		switch (pc[0]) {
		case OP_MOVI: r[pc[1] & 3] = pc[3]; break;
		case OP_ADD: r[pc[1] & 3] += r[pc[2] & 3]; break;
		case OP_MUL: r[pc[1] & 3] *= r[pc[2] & 3]; break;
		case OP_XOR: r[pc[1] & 3] ^= r[pc[2] & 3]; break;
		case OP_SHR: r[pc[1] & 3] = (long)((unsigned long)r[pc[2] & 3] >> (pc[3] & 63)); break;
		case OP_DECJNZ:
			if (--r[pc[1] & 3])
				pc -= 4 * (long)pc[3] + 4;
			break;
		default: return r[0];
		}
	}
}

/* r0 = x; ten rounds of r0 = r0 * 31 + counter, r0 ^= r0 >> 7: 53 instructions run. */
static const unsigned char program[] = {
	OP_MOVI, 1, 0, 10,
	OP_MOVI, 2, 0, 31,
	OP_MUL, 0, 2, 0,
	OP_ADD, 0, 1, 0,
	OP_SHR, 3, 0, 7,
	OP_XOR, 0, 3, 0,
	OP_DECJNZ, 1, 0, 4,
	OP_RET, 0, 0, 0,
};

/* Little-endian fields, then an Adler-32 of them: REC_BYTES bytes. */
TRACED size_t pack_rec(unsigned char *buf, const struct rec *r)
{
	uint32_t a = 1, b = 0;

	memcpy(buf, r->name, sizeof(r->name));
	for (int k = 0; k < 4; k++) {
		buf[32 + k] = (unsigned char)(r->id >> (8 * k));
		buf[36 + k] = (unsigned char)((uint32_t)r->qty >> (8 * k));
	}
	memcpy(buf + 40, &r->price, sizeof(r->price));
	for (int k = 0; k < REC_BYTES - 4; k++) {
		a = (a + buf[k]) % 65521;
		b = (b + a) % 65521;
	}
	for (int k = 0; k < 4; k++)
		buf[REC_BYTES - 4 + k] = (unsigned char)(((b << 16) | a) >> (8 * k));
	return REC_BYTES;
}

static HELPER uint32_t next_rand(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Keys like URL paths; the second half is never inserted. */
static HELPER void make_data(void)
{
	uint32_t seed = 42;

	for (int k = 0; k < 2 * NKEYS; k++)
		snprintf(keys[k], sizeof(keys[k]), "/api/v2/%s/%05u/profile/settings", k < NKEYS ? "users" : "groups",
			 (unsigned)next_rand(&seed) % 100000);
	for (int k = 0; k < NRECS; k++) {
		uint32_t v = next_rand(&seed);

		snprintf(pool[k].name, sizeof(pool[k].name), "%cUSTOMER-Account-%c%c%05u", v & 1 ? 'C' : 'c',
			 'a' + (int)(v >> 3) % 3, 'A' + (int)(v >> 5) % 4, (unsigned)(v >> 9) % 1000);
		pool[k].id = next_rand(&seed);
		pool[k].qty = (int32_t)(next_rand(&seed) % 1000) - 100;
		pool[k].price = (double)(next_rand(&seed) % 100000) / 100.0;
	}
}

/* A window of the pool, rotated each iteration, so that every sort has work to do. */
static HELPER void take_records(struct rec *dst, long i)
{
	for (int k = 0; k < SORTED; k++)
		dst[k] = pool[(i * 7 + k * 5) % NRECS];
}

/*
 * Start-up time is measured to here: the launcher compares it with its own
 * clock.  Not instrumented, so that it adds no traced call at any -O level.
 */
static HELPER void print_main_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("main_ns=%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

int main(int argc, char **argv)
{
	unsigned char buf[PACKED * REC_BYTES];
	struct rec recs[SORTED];
	long long acc = 0;
	long n, i;

	print_main_ns();
	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) < 0) {
		fprintf(stderr, "usage: work N\n");
		return 2;
	}
	make_data();
	for (int k = 0; k < NKEYS; k++)
		ht_insert(&table, keys[k], k);
	for (i = 0; i < n; i++) {
		for (int k = 0; k < LOOKUPS_PER_ITER; k++)
			acc += ht_lookup(&table, keys[(i * LOOKUPS_PER_ITER + k) % (2 * NKEYS)]);
		acc += ht_insert(&table, keys[(i * 3) % NKEYS], (int)i);
		take_records(recs, i);
		qsort(recs, SORTED, sizeof(recs[0]), cmp_rec);
		acc += vm_run(program, i);
		for (int k = 0; k < PACKED; k++)
			acc += (long long)pack_rec(buf + k * REC_BYTES, &recs[k]) + buf[(k + 1) * REC_BYTES - 4];
	}
	/* main, the set-up inserts (each with its hash_str) and the comparator. */
	printf("iterations=%ld traced_calls=%lld void_calls=0 checksum=%lld\n", n,
	       (long long)n * CALLS_PER_ITER + 1 + 2 * NKEYS + (long long)cmp_calls, acc);
	return 0;
}
