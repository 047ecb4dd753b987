// SPDX-License-Identifier: GPL-2.0-only
/*
 * util/ on its own (t/09-util.t builds it under ASan/UBSan): every key
 * found again after the tables grew many times, misses missed, a hash that
 * sends every key to the same slot still correct, strings built whole.
 * Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/strbuf.h"
#include "util/u64map.h"

static int n_tests, n_failed;

static void ok(int good, const char *what)
{
	n_tests++;
	n_failed += !good;
	printf("%s %d - %s\n", good ? "ok" : "not ok", n_tests, what);
}

/* Keys that differ in their middle bits, as code addresses do. */
static uint64_t key_of(uint32_t i)
{
	return 0x555555554000ull + (uint64_t)i * 16;
}

static void u64map_many(void)
{
	struct u64map m = { 0 };
	int all_added = 1, all_found = 1, misses = 1;
	const uint32_t n = 100000;

	for (uint32_t i = 0; i < n; i++) {
		struct u64map_entry *e = u64map_find(&m, key_of(i));

		if (!e || e->key) {
			all_added = 0;
			break;
		}
		u64map_add(&m, e, key_of(i), i * 3);
	}
	for (uint32_t i = 0; i < n && all_found; i++) {
		struct u64map_entry *e = u64map_find(&m, key_of(i));

		all_found = e && e->key == key_of(i) && e->value == i * 3;
	}
	for (uint32_t i = n; i < n + 1000 && misses; i++) {
		struct u64map_entry *e = u64map_find(&m, key_of(i));

		misses = e && !e->key;
	}
	ok(all_added, "u64map: 100000 keys added, none found before it was");
	ok(all_found, "u64map: each found again with its value after the map grew");
	ok(misses, "u64map: keys never added are not found");
	u64map_free(&m);
}

/* A table whose every item hashes alike: probing alone must tell them apart. */
struct words {
	const char **v;
	size_t n;
	const char *want;
	size_t same_hash;
};

static size_t word_hash(const void *ctx, uint32_t item)
{
	const struct words *w = ctx;

	(void)item;
	return w->same_hash;
}

static bool word_eq(const void *ctx, uint32_t item)
{
	const struct words *w = ctx;

	return !strcmp(w->v[item], w->want);
}

static void hashtab_collisions(void)
{
	static const char *names[] = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
				       "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho" };
	struct words w = { names, 0, NULL, 12345 };
	struct hashtab t = { 0 };
	int good = 1;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint32_t *slot;

		w.want = names[i];
		if (!hashtab_room(&t, word_hash, &w)) {
			good = 0;
			break;
		}
		slot = hashtab_slot(&t, w.same_hash, word_eq, &w);
		good &= !*slot;
		hashtab_put(&t, slot, (uint32_t)w.n++);
	}
	for (size_t i = 0; i < w.n && good; i++) {
		w.want = names[i];
		good = *hashtab_slot(&t, w.same_hash, word_eq, &w) == i + 1;
	}
	w.want = "sigma";
	ok(good && !*hashtab_slot(&t, w.same_hash, word_eq, &w),
	   "hashtab: 17 names of one hash each found at its own number, a new name not found");
	hashtab_free(&t);
}

static void strbuf_pieces(void)
{
	struct strbuf b = { 0 };
	char *s, want[4096 * 2 + 64];
	size_t n = 0;

	for (int i = 0; i < 4096; i++) {
		strbuf_put(&b, "ab", 2);
		memcpy(want + n, "ab", 2);
		n += 2;
	}
	strbuf_printf(&b, "=%d:%s", 42, "x");
	memcpy(want + n, "=42:x", 6);
	s = strbuf_take(&b);
	ok(s && !strcmp(s, want) && !b.s && !b.len, "strbuf: 4096 pieces and a number, whole; the buffer empty again");
	free(s);
	s = strbuf_take(&b);
	ok(s && !*s, "strbuf: an empty buffer gives \"\"");
	free(s);
}

static void arrays_and_hashes(void)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	int good = 1;

	for (int i = 0; i < 10000 && good; i++) {
		good = grow_array(&v, n, &cap, sizeof(*v)) && cap > n;
		if (good)
			v[n++] = i;
	}
	for (size_t i = 0; i < n && good; i++)
		good = v[i] == (int)i;
	ok(good && n == 10000, "grow_array: 10000 appends, each element kept");
	free(v);
	/* The published FNV-1a values of "a" (64 and 32 bits). */
	ok(hash_fnv1a64("a") == 0xaf63dc4c8601ec8cull && hash_fnv1a32("a", NULL) == 0xe40c292cu,
	   "hash: FNV-1a of \"a\" as published");
	ok(hash_mix64(1) == 0x9e3779b97f4a7c15ull, "hash: the Fibonacci multiplier");
}

int main(void)
{
	u64map_many();
	hashtab_collisions();
	strbuf_pieces();
	arrays_and_hashes();
	printf("1..%d\n", n_tests);
	return n_failed != 0;
}
