// SPDX-License-Identifier: GPL-2.0-only
/*
 * A service-like process for objpatch attach to trace again and again
 * (t/99-attach-stress.t): whatever an attach disturbs shows up as a wrong
 * result, a lost signal, a child gone wrong or a changed environment.
 *
 *  - 8 workers loop through small functions of five families (hash_*,
 *    sort_*, parse_*, matrix_*, list_*), each checked against what the
 *    program knows independently: known answers and values computed
 *    before "ready" (no attach yet), a second algorithm, an inverse, an
 *    algebraic identity.  Workers 0-3 also churn the allocator.
 *  - SIGUSR1's handler counts; SIGTERM stops the service as "quit" does.
 *  - Worker 7 forks a child every CHILD_EVERY rounds, inside a function of
 *    its own: the child redoes some checked work and exits with a status
 *    the parent expects, or (every fourth) execs /bin/true.
 *  - A reader thread is blocked in read() on standard input; lines:
 *      stats   prints "stats SIGNALS CHILDREN ROUNDS0 ... ROUNDS7"
 *      quit    stops the service
 *
 * It prints "ready" once every thread runs.  At the end: one line
 *   summary: iterations=N mismatches=M signals=S children=C bad-children=B
 * and exit status 0 when every check passed, 3 when a result was wrong
 * (or the environment changed), 4 when only a child went wrong, 6 when
 * the program could not start.  Each mismatch also prints one line
 * "mismatch: ..." (the first 20).
 *
 * Usage: service [PAUSE_US [CHILD_EVERY]]: the pause between a worker's
 * rounds (default 2000), which keeps traces of every function small, and
 * how many rounds of worker 7 between children (default 64).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every traced function stays a function of its own name: never inlined, never cloned (.isra, .constprop). */
#define FN __attribute__((noinline, noclone))

#define WORKERS 8
#define CHILD_WAIT_S 30		/* a child not done by then hangs: counted bad, killed */
#define GOLDEN 16		/* hashes' fixed inputs */
#define MAX_SHOWN 20

extern char **environ;

static atomic_bool stop;
static atomic_int running;
static atomic_long mismatches, signals_seen, children, bad_children;
static atomic_long rounds[WORKERS];
static sem_t quit;
static long pause_us = 2000, child_every = 64;

static void mismatch(int worker, long round, const char *what, long long got, long long want)
{
	if (atomic_fetch_add(&mismatches, 1) < MAX_SHOWN) {
		printf("mismatch: worker %d round %ld: %s: %lld, expected %lld\n", worker, round, what, got, want);
		fflush(stdout);
	}
}

#define CHECK(w, r, what, got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ != w_) \
		mismatch(w, r, what, g_, w_); \
} while (0)

/* A worker's own numbers: each round's inputs differ, and are the same in every run. */
struct rng {
	uint64_t s;
};

/* Inlined, as parse_digit: called so often that traces of every function would be mostly them. */
static inline __attribute__((always_inline)) uint64_t rng_next(struct rng *r)
{
	r->s = r->s * 6364136223846793005u + 1442695040888963407u;
	return r->s >> 17;
}

/* ---------------------------------------------------------------- hash_ */

FN uint64_t hash_fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 14695981039346656037u;

	while (n--)
		h = (h ^ *p++) * 1099511628211u;
	return h;
}

FN uint32_t hash_djb2(const unsigned char *p, size_t n)
{
	uint32_t h = 5381;

	while (n--)
		h = h * 33 + *p++;
	return h;
}

FN uint32_t hash_sdbm(const unsigned char *p, size_t n)
{
	uint32_t h = 0;

	while (n--)
		h = *p++ + (h << 6) + (h << 16) - h;
	return h;
}

FN uint32_t hash_adler32(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;

	while (n--) {
		a = (a + *p++) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

/* CRC-32 (the reflected 0xEDB88320 polynomial) bit by bit, and by a table: two ways to one value. */
FN uint32_t hash_crc32_bits(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffff;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320 : c >> 1;
	}
	return ~c;
}

static uint32_t crc_table[256];

FN void hash_crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320 : c >> 1;
		crc_table[i] = c;
	}
}

FN uint32_t hash_crc32_table(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffff;

	while (n--)
		c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}

/* A 64-bit mixer (xor-shifts and odd multipliers) and its exact inverse. */
FN uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53u;
	x ^= x >> 33;
	return x;
}

/* The inverse of x * m modulo 2^64 for an odd m, by Newton's iteration. */
FN uint64_t hash_inverse_odd(uint64_t m)
{
	uint64_t y = m;

	for (int i = 0; i < 5; i++)
		y *= 2 - m * y;
	return y;
}

FN uint64_t hash_unmix64(uint64_t x)
{
	/* x ^ (x >> 33) is its own inverse for shifts of 32 and more. */
	x ^= x >> 33;
	x *= hash_inverse_odd(0xc4ceb9fe1a85ec53u);
	x ^= x >> 33;
	x *= hash_inverse_odd(0xff51afd7ed558ccdu);
	x ^= x >> 33;
	return x;
}

static unsigned char golden_in[GOLDEN][97];
static uint64_t golden_fnv[GOLDEN];
static uint32_t golden_djb2[GOLDEN], golden_sdbm[GOLDEN], golden_adler[GOLDEN], golden_crc[GOLDEN];

static size_t golden_len(int i)
{
	return 1 + (size_t)(i * 37) % sizeof(golden_in[0]);
}

/* Before "ready": the known answers of the algorithms, then the fixed inputs' values. */
static bool hash_golden(void)
{
	const unsigned char *nine = (const unsigned char *)"123456789";

	hash_crc32_init();
	if (hash_crc32_bits(nine, 9) != 0xcbf43926 || hash_crc32_table(nine, 9) != 0xcbf43926 ||
	    hash_adler32((const unsigned char *)"Wikipedia", 9) != 0x11e60398 ||
	    hash_fnv1a((const unsigned char *)"a", 1) != 0xaf63dc4c8601ec8cu || hash_unmix64(hash_mix64(42)) != 42)
		return false;
	for (int i = 0; i < GOLDEN; i++) {
		size_t n = golden_len(i);

		for (size_t k = 0; k < n; k++)
			golden_in[i][k] = (unsigned char)(k * 131 + (size_t)i * 7 + (k >> 3));
		golden_fnv[i] = hash_fnv1a(golden_in[i], n);
		golden_djb2[i] = hash_djb2(golden_in[i], n);
		golden_sdbm[i] = hash_sdbm(golden_in[i], n);
		golden_adler[i] = hash_adler32(golden_in[i], n);
		golden_crc[i] = hash_crc32_bits(golden_in[i], n);
	}
	return true;
}

FN void hash_round(int w, long r, struct rng *g)
{
	int i = (int)(r % GOLDEN);
	const unsigned char *in = golden_in[i];
	size_t n = golden_len(i);
	unsigned char buf[64];
	uint64_t x = rng_next(g) << 20 ^ rng_next(g);

	CHECK(w, r, "hash_fnv1a", hash_fnv1a(in, n), golden_fnv[i]);
	CHECK(w, r, "hash_djb2", hash_djb2(in, n), golden_djb2[i]);
	CHECK(w, r, "hash_sdbm", hash_sdbm(in, n), golden_sdbm[i]);
	CHECK(w, r, "hash_adler32", hash_adler32(in, n), golden_adler[i]);
	CHECK(w, r, "hash_crc32_table", hash_crc32_table(in, n), golden_crc[i]);
	for (size_t k = 0; k < sizeof(buf); k++)
		buf[k] = (unsigned char)rng_next(g);
	CHECK(w, r, "hash_crc32_bits = hash_crc32_table", hash_crc32_bits(buf, sizeof(buf)),
	      hash_crc32_table(buf, sizeof(buf)));
	CHECK(w, r, "hash_unmix64(hash_mix64(x))", hash_unmix64(hash_mix64(x)), x);
}

/* ---------------------------------------------------------------- sort_ */

#define SORT_MAX 24

FN void sort_insertion(int *a, int n)
{
	for (int i = 1; i < n; i++) {
		int v = a[i], j = i;

		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

FN void sort_shell(int *a, int n)
{
	for (int gap = n / 2; gap > 0; gap /= 2)
		for (int i = gap; i < n; i++) {
			int v = a[i], j = i;

			for (; j >= gap && a[j - gap] > v; j -= gap)
				a[j] = a[j - gap];
			a[j] = v;
		}
}

FN void sort_sift_down(int *a, int root, int n)
{
	for (int child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		int t = a[root];

		a[root] = a[child];
		a[child] = t;
	}
}

FN void sort_heap(int *a, int n)
{
	for (int i = n / 2 - 1; i >= 0; i--)
		sort_sift_down(a, i, n);
	for (int end = n - 1; end > 0; end--) {
		int t = a[0];

		a[0] = a[end];
		a[end] = t;
		sort_sift_down(a, 0, end);
	}
}

FN void sort_merge_run(int *a, int *tmp, int lo, int hi)
{
	if (hi - lo < 2)
		return;
	int mid = lo + (hi - lo) / 2, i = lo, j = mid, k = lo;

	sort_merge_run(a, tmp, lo, mid);
	sort_merge_run(a, tmp, mid, hi);
	while (i < mid || j < hi)
		tmp[k++] = j >= hi || (i < mid && a[i] <= a[j]) ? a[i++] : a[j++];
	memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof(*a));
}

/* Returns false when its buffer cannot be had. */
FN bool sort_merge(int *a, int n)
{
	int *tmp = malloc((size_t)n * sizeof(*a));

	if (!tmp)
		return false;
	sort_merge_run(a, tmp, 0, n);
	free(tmp);
	return true;
}

FN int sort_partition(int *a, int lo, int hi)
{
	int p = a[lo + (hi - lo) / 2], i = lo - 1, j = hi + 1;

	for (;;) {
		do
			i++;
		while (a[i] < p);
		do
			j--;
		while (a[j] > p);
		if (i >= j)
			return j;
		int t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

FN void sort_quick(int *a, int lo, int hi)
{
	if (lo >= hi)
		return;
	int p = sort_partition(a, lo, hi);

	sort_quick(a, lo, p);
	sort_quick(a, p + 1, hi);
}

FN bool sort_is_sorted(const int *a, int n)
{
	for (int i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return false;
	return true;
}

/* The same for any order of the same values: a permutation keeps it. */
FN uint64_t sort_fingerprint(const int *a, int n)
{
	uint64_t sum = 0, x = 0;

	for (int i = 0; i < n; i++) {
		/* A multiplicative hash inline: hash_mix64 per value would fill traces. */
		uint64_t h = ((uint64_t)(uint32_t)a[i] + 1) * 0x9e3779b97f4a7c15u;

		h ^= h >> 29;
		sum += h;
		x ^= h * 3;
	}
	return sum ^ (x << 1);
}

FN void sort_round(int w, long r, struct rng *g)
{
	int n = 2 + (int)(rng_next(g) % (SORT_MAX - 1)), orig[SORT_MAX], a[5][SORT_MAX];
	static const char *const names[] = { "sort_insertion", "sort_shell", "sort_heap", "sort_merge", "sort_quick" };

	for (int i = 0; i < n; i++)
		orig[i] = (int)(rng_next(g) % 200) - 100;
	for (int k = 0; k < 5; k++)
		memcpy(a[k], orig, (size_t)n * sizeof(int));
	sort_insertion(a[0], n);
	sort_shell(a[1], n);
	sort_heap(a[2], n);
	CHECK(w, r, "sort_merge's buffer", sort_merge(a[3], n), true);
	sort_quick(a[4], 0, n - 1);
	for (int k = 0; k < 5; k++) {
		CHECK(w, r, names[k], sort_is_sorted(a[k], n), true);
		CHECK(w, r, names[k], sort_fingerprint(a[k], n), sort_fingerprint(orig, n));
		CHECK(w, r, names[k], memcmp(a[k], a[0], (size_t)n * sizeof(int)), 0);
	}
}

/* ---------------------------------------------------------------- parse_ */

/* Writes v in decimal at s; returns the length. */
FN int parse_format_dec(long long v, char *s)
{
	char tmp[24];
	int n = 0, len = 0;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	do
		tmp[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		s[len++] = '-';
	while (n)
		s[len++] = tmp[--n];
	s[len] = 0;
	return len;
}

FN int parse_format_hex(unsigned long long v, char *s)
{
	static const char digits[] = "0123456789abcdef";
	int len = 0, shift = 60;

	s[len++] = '0';
	s[len++] = 'x';
	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		s[len++] = digits[(v >> shift) & 15];
	s[len] = 0;
	return len;
}

FN const char *parse_skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static inline __attribute__((always_inline)) int parse_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

FN long long parse_dec(const char *s, const char **end)
{
	bool neg = *s == '-';
	unsigned long long u = 0;
	int d;

	s += neg;
	while ((d = parse_digit(*s)) >= 0 && d < 10) {
		u = u * 10 + (unsigned)d;
		s++;
	}
	*end = s;
	return neg ? (long long)(0ull - u) : (long long)u;
}

FN unsigned long long parse_hex(const char *s, const char **end)
{
	unsigned long long u = 0;
	int d;

	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	while ((d = parse_digit(*s)) >= 0) {
		u = u << 4 | (unsigned)d;
		s++;
	}
	*end = s;
	return u;
}

/* The sum of a line of comma-separated decimals, spaces allowed around them. */
FN long long parse_csv_sum(const char *s, int *fields)
{
	long long sum = 0;
	const char *end;

	*fields = 0;
	for (;;) {
		s = parse_skip_space(s);
		sum += parse_dec(s, &end);
		++*fields;
		s = parse_skip_space(end);
		if (*s != ',')
			return sum;
		s++;
	}
}

/* The value of KEY in "k1=v1;k2=v2;...", or -1. */
FN long long parse_kv(const char *s, const char *key)
{
	size_t klen = strlen(key);
	const char *end;

	while (*s) {
		if (!strncmp(s, key, klen) && s[klen] == '=')
			return parse_dec(s + klen + 1, &end);
		s = strchr(s, ';');
		if (!s)
			return -1;
		s++;
	}
	return -1;
}

FN void parse_round(int w, long r, struct rng *g)
{
	char line[512], s[32], key[8];
	const char *end;
	long long v = (long long)((rng_next(g) << 16 ^ rng_next(g)) >> 1) * (rng_next(g) % 2 ? -1 : 1), sum = 0;
	unsigned long long u = rng_next(g) << 30 ^ rng_next(g);
	int len = 0, fields, n = 1 + (int)(rng_next(g) % 12);
	long long vals[12];

	parse_format_dec(v, s);
	CHECK(w, r, "parse_dec(parse_format_dec(v))", parse_dec(s, &end), v);
	CHECK(w, r, "parse_dec's end", *end, 0);
	parse_format_hex(u, s);
	CHECK(w, r, "parse_hex(parse_format_hex(u))", parse_hex(s, &end), u);
	for (int i = 0; i < n; i++) {
		vals[i] = (long long)(rng_next(g) % 2000000) - 1000000;
		sum += vals[i];
		len += sprintf(line + len, "%s%*lld", i ? " ," : "", (int)(i % 3), vals[i]);
	}
	CHECK(w, r, "parse_csv_sum", parse_csv_sum(line, &fields), sum);
	CHECK(w, r, "parse_csv_sum's fields", fields, n);
	len = 0;
	for (int i = 0; i < n; i++)
		len += sprintf(line + len, "%sk%d=%lld", i ? ";" : "", i, vals[i] < 0 ? -vals[i] : vals[i]);
	for (int i = 0; i < n; i++) {
		sprintf(key, "k%d", i);
		CHECK(w, r, "parse_kv", parse_kv(line, key), vals[i] < 0 ? -vals[i] : vals[i]);
	}
	CHECK(w, r, "parse_kv of a missing key", parse_kv(line, "k99"), -1);
}

/* ---------------------------------------------------------------- matrix_ */

#define M 4
typedef long long mat[M][M];

FN void matrix_mul(mat a, mat b, mat c)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++) {
			long long s = 0;

			for (int k = 0; k < M; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

FN void matrix_transpose(mat a, mat t)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++)
			t[j][i] = a[i][j];
}

FN long long matrix_trace(mat a)
{
	long long s = 0;

	for (int i = 0; i < M; i++)
		s += a[i][i];
	return s;
}

FN bool matrix_equal(mat a, mat b)
{
	return !memcmp(a, b, sizeof(mat));
}

/* The determinant of integers, exactly: Bareiss's fraction-free elimination. */
FN long long matrix_det(mat in)
{
	mat a;
	long long prev = 1, sign = 1;

	memcpy(a, in, sizeof(mat));
	for (int k = 0; k < M - 1; k++) {
		if (!a[k][k]) {
			int p = k + 1;

			while (p < M && !a[p][k])
				p++;
			if (p == M)
				return 0;
			for (int j = 0; j < M; j++) {
				long long t = a[k][j];

				a[k][j] = a[p][j];
				a[p][j] = t;
			}
			sign = -sign;
		}
		for (int i = k + 1; i < M; i++)
			for (int j = k + 1; j < M; j++)
				a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) / prev;
		prev = a[k][k];
	}
	return sign * a[M - 1][M - 1];
}

/* Lower triangular with ones on the diagonal, or upper triangular, of small random integers. */
FN void matrix_triangular(mat a, bool upper, struct rng *g)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++)
			a[i][j] = (upper ? j >= i : j < i) ? (long long)(rng_next(g) % 19) - 9 : 0;
	if (!upper)
		for (int i = 0; i < M; i++)
			a[i][i] = 1;
}

FN void matrix_random(mat a, struct rng *g)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < M; j++)
			a[i][j] = (long long)(rng_next(g) % 19) - 9;
}

FN void matrix_round(int w, long r, struct rng *g)
{
	mat a, b, ab, ba, t1, at, bt, t2, l, u, lu;
	long long diag = 1;

	matrix_random(a, g);
	matrix_random(b, g);
	matrix_mul(a, b, ab);
	matrix_mul(b, a, ba);
	CHECK(w, r, "matrix_trace(AB) = matrix_trace(BA)", matrix_trace(ab), matrix_trace(ba));
	matrix_transpose(ab, t1);
	matrix_transpose(a, at);
	matrix_transpose(b, bt);
	matrix_mul(bt, at, t2);
	CHECK(w, r, "(AB)^T = B^T A^T", matrix_equal(t1, t2), true);
	CHECK(w, r, "det(AB) = det(A) det(B)", matrix_det(ab), matrix_det(a) * matrix_det(b));
	matrix_triangular(l, false, g);
	matrix_triangular(u, true, g);
	matrix_mul(l, u, lu);
	for (int i = 0; i < M; i++)
		diag *= u[i][i];
	CHECK(w, r, "det(LU) = the product of U's diagonal", matrix_det(lu), diag);
}

/* ---------------------------------------------------------------- list_ */

struct node {
	struct node *next;
	long value;
	char pad[40];
};

FN struct node *list_build(long first, int n)
{
	struct node *head = NULL;

	for (int i = n - 1; i >= 0; i--) {
		struct node *e = malloc(sizeof(*e));

		if (!e)
			return head;	/* short: the sums say so */
		e->next = head;
		e->value = first + i;
		memset(e->pad, (int)(e->value & 0x7f), sizeof(e->pad));
		head = e;
	}
	return head;
}

FN struct node *list_reverse(struct node *l)
{
	struct node *r = NULL;

	while (l) {
		struct node *next = l->next;

		l->next = r;
		r = l;
		l = next;
	}
	return r;
}

FN long list_sum(const struct node *l)
{
	long s = 0;

	for (; l; l = l->next)
		s += l->value + (l->pad[39] != (char)(l->value & 0x7f)) * 1000000007L;
	return s;
}

FN void list_free(struct node *l)
{
	while (l) {
		struct node *next = l->next;

		free(l);
		l = next;
	}
}

/* Blocks of many sizes kept in a ring, each checked when it is freed: the allocator busy all the time. */
struct ring {
	unsigned char *block[64];
	size_t size[64];
	unsigned next;
};

static inline bool list_churn_check(const unsigned char *p, size_t size)
{
	for (size_t k = 0; k < size; k += 61)
		if (p[k] != (unsigned char)(size + k))
			return false;
	return true;
}

FN int list_churn(struct ring *ring, struct rng *g, int n)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		unsigned s = ring->next++ % 64;

		if (ring->block[s]) {
			bad += !list_churn_check(ring->block[s], ring->size[s]);
			free(ring->block[s]);
		}
		ring->size[s] = 1 + rng_next(g) % (rng_next(g) % 8 ? 512 : 65536);
		ring->block[s] = malloc(ring->size[s]);
		if (!ring->block[s]) {
			bad++;
			continue;
		}
		for (size_t k = 0; k < ring->size[s]; k++)
			ring->block[s][k] = (unsigned char)(ring->size[s] + k);
	}
	return bad;
}

FN void list_round(int w, long r, struct rng *g, struct ring *ring)
{
	int n = 1 + (int)(rng_next(g) % 200);
	long first = (long)(rng_next(g) % 100000);
	struct node *l = list_build(first, n);

	CHECK(w, r, "list_sum(list_build)", list_sum(l), first * n + (long)n * (n - 1) / 2);
	l = list_reverse(l);
	CHECK(w, r, "list_reverse's head", l ? l->value : -1, first + n - 1);
	CHECK(w, r, "list_sum(list_reverse)", list_sum(l), first * n + (long)n * (n - 1) / 2);
	list_free(l);
	if (ring)
		CHECK(w, r, "list_churn's blocks", list_churn(ring, g, 32), 0);
}

/* ---------------------------------------------------------------- children */

/* In the child: some of the work again, checked; its status says how it went. */
FN int proc_child_work(long n)
{
	struct rng g = { (uint64_t)n };
	int a[SORT_MAX], b[SORT_MAX], i = (int)(n % GOLDEN);

	if (hash_fnv1a(golden_in[i], golden_len(i)) != golden_fnv[i] ||
	    hash_crc32_table(golden_in[i], golden_len(i)) != golden_crc[i])
		return 1;
	for (int k = 0; k < SORT_MAX; k++)
		a[k] = b[k] = (int)(rng_next(&g) % 1000);
	if (!sort_merge(a, SORT_MAX))
		return 1;
	sort_heap(b, SORT_MAX);
	return memcmp(a, b, sizeof(a)) ? 1 : 0;
}

static int child_status(long n)
{
	return n % 4 == 3 ? 0 : 40 + (int)(n % 8);
}

/* Forks child number N and waits for it: false when it went wrong (said in one line). */
FN bool proc_spawn(long n)
{
	int st = 0;
	pid_t pid = fork(), got = 0;

	if (pid < 0)
		return false;
	if (pid == 0) {
		if (proc_child_work(n))
			_exit(1);
		if (n % 4 == 3) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		_exit(child_status(n));
	}
	for (long waited_ms = 0; waited_ms < CHILD_WAIT_S * 1000L; waited_ms++) {
		got = waitpid(pid, &st, WNOHANG);
		if (got != 0 && !(got < 0 && errno == EINTR))
			break;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		printf("child %ld (pid %d): not done after %d s, killed\n", n, (int)pid, CHILD_WAIT_S);
		fflush(stdout);
		return false;
	}
	if (got != pid || !WIFEXITED(st) || WEXITSTATUS(st) != child_status(n)) {
		printf("child %ld (pid %d): wait status 0x%x, expected exit %d\n", n, (int)pid, st, child_status(n));
		fflush(stdout);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- threads */

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&signals_seen, 1);
}

static void on_term(int sig)
{
	(void)sig;
	atomic_store(&stop, true);
	sem_post(&quit);
}

FN void worker_round(int w, long r, struct rng *g, struct ring *ring)
{
	/* Each worker its own order of the families. */
	switch ((r + w) % 4) {
	case 0:
		hash_round(w, r, g);
		sort_round(w, r, g);
		break;
	case 1:
		parse_round(w, r, g);
		matrix_round(w, r, g);
		break;
	case 2:
		matrix_round(w, r, g);
		hash_round(w, r, g);
		break;
	default:
		sort_round(w, r, g);
		parse_round(w, r, g);
	}
	list_round(w, r, g, ring);
}

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	struct rng g = { 0x9e3779b97f4a7c15u * (uint64_t)(w + 1) };
	struct ring ring = { 0 };
	char name[16];
	long r;

	snprintf(name, sizeof(name), "worker%d", w);
	pthread_setname_np(pthread_self(), name);
	atomic_fetch_add(&running, 1);
	for (r = 0; !atomic_load(&stop); r++) {
		worker_round(w, r, &g, w < 4 ? &ring : NULL);
		if (w == WORKERS - 1 && r % child_every == child_every - 1) {
			long n = atomic_fetch_add(&children, 1);

			if (!proc_spawn(n))
				atomic_fetch_add(&bad_children, 1);
		}
		atomic_store(&rounds[w], r + 1);
		if (pause_us)
			nanosleep(&(struct timespec){ pause_us / 1000000, pause_us % 1000000 * 1000 }, NULL);
	}
	for (int s = 0; s < 64; s++) {
		if (ring.block[s] && !list_churn_check(ring.block[s], ring.size[s]))
			mismatch(w, r, "list_churn's last blocks", 0, 1);
		free(ring.block[s]);
	}
	return NULL;
}

static void print_stats(void)
{
	printf("stats %ld %ld", atomic_load(&signals_seen), atomic_load(&children));
	for (int w = 0; w < WORKERS; w++)
		printf(" %ld", atomic_load(&rounds[w]));
	printf("\n");
	fflush(stdout);
}

/* Blocked in read() on standard input most of the time. */
static void *reader(void *arg)
{
	char line[256];
	size_t have = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "reader");
	atomic_fetch_add(&running, 1);
	for (;;) {
		ssize_t n = read(0, line + have, sizeof(line) - 1 - have);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* end of input: as "quit" */
		have += (size_t)n;
		line[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			if (!strcmp(line, "quit")) {
				atomic_store(&stop, true);
				sem_post(&quit);
				return NULL;
			}
			if (!strcmp(line, "stats"))
				print_stats();
			else
				printf("unknown command: %s\n", line);
			have -= (size_t)(nl + 1 - line);
			memmove(line, nl + 1, have + 1);
		}
		if (have == sizeof(line) - 1)
			have = 0;	/* a line too long: dropped */
	}
	atomic_store(&stop, true);
	sem_post(&quit);
	return NULL;
}

/* The environment at the start, to compare at the end: an attach must leave it as it was. */
static char **env_at_start, **env_copy;

static bool env_save(void)
{
	size_t n = 0;

	env_at_start = environ;
	while (environ[n])
		n++;
	env_copy = calloc(n + 1, sizeof(*env_copy));
	for (size_t i = 0; env_copy && i < n; i++)
		if (!(env_copy[i] = strdup(environ[i])))
			return false;
	return env_copy != NULL;
}

static bool env_same(void)
{
	size_t i = 0;

	if (environ != env_at_start)
		return false;
	for (; env_copy[i] && environ[i]; i++)
		if (strcmp(env_copy[i], environ[i]))
			return false;
	return !env_copy[i] && !environ[i];
}

int main(int argc, char **argv)
{
	pthread_t workers[WORKERS], rd;
	struct sigaction sa = { .sa_flags = SA_RESTART };
	long total = 0;

	if (argc > 1)
		pause_us = atol(argv[1]);
	if (argc > 2 && atol(argv[2]) > 0)
		child_every = atol(argv[2]);
	if (!hash_golden() || !env_save() || sem_init(&quit, 0, 0)) {
		printf("cannot start: known answers wrong or no memory\n");
		return 6;
	}
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	for (long w = 0; w < WORKERS; w++)
		if (pthread_create(&workers[w], NULL, worker, (void *)w)) {
			printf("cannot start: no thread\n");
			return 6;
		}
	if (pthread_create(&rd, NULL, reader, NULL)) {
		printf("cannot start: no thread\n");
		return 6;
	}
	while (atomic_load(&running) < WORKERS + 1)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	printf("ready\n");
	fflush(stdout);
	while (sem_wait(&quit) && errno == EINTR)
		;
	for (int w = 0; w < WORKERS; w++) {
		pthread_join(workers[w], NULL);
		total += atomic_load(&rounds[w]);
	}
	if (!env_same())
		mismatch(-1, -1, "the environment changed", 0, 1);
	printf("summary: iterations=%ld mismatches=%ld signals=%ld children=%ld bad-children=%ld\n", total,
	       atomic_load(&mismatches), atomic_load(&signals_seen), atomic_load(&children),
	       atomic_load(&bad_children));
	fflush(stdout);
	/* exit(), not _exit(): the runtime, loaded, takes part in the exit as every library does. */
	exit(atomic_load(&mismatches) ? 3 : atomic_load(&bad_children) ? 4 : 0);
}
