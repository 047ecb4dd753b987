/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel/test: a user-space stand-in for <linux/sort.h>, enough for the
 * series' files.  A heapsort that, like the kernel's, moves the elements
 * only through the swap function when there is one: the compact table's
 * records hold addresses relative to themselves and need theirs.
 */
#ifndef MOCK_LINUX_SORT_H
#define MOCK_LINUX_SORT_H
#include <stddef.h>
typedef int (*cmp_func_t)(const void *a, const void *b);
typedef void (*swap_func_t)(void *a, void *b, int size);

extern unsigned long mock_swaps;	/* the swap function's calls */

static inline void mock_swap_bytes(void *a, void *b, int size)
{
	unsigned char *x = a, *y = b, t;

	while (size--) {
		t = *x;
		*x++ = *y;
		*y++ = t;
	}
}

static inline void mock_sift(char *b, size_t root, size_t n, size_t size, cmp_func_t cmp,
			     swap_func_t swap)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && cmp(b + child * size, b + (child + 1) * size) < 0)
			child++;
		if (cmp(b + root * size, b + child * size) >= 0)
			return;
		swap(b + root * size, b + child * size, (int)size);
		if (swap != mock_swap_bytes)
			mock_swaps++;
		root = child;
	}
}

static inline void sort(void *base, size_t num, size_t size, cmp_func_t cmp, swap_func_t swap)
{
	char *b = base;

	if (!swap)
		swap = mock_swap_bytes;
	if (num < 2)
		return;
	for (size_t i = num / 2; i-- > 0;)
		mock_sift(b, i, num, size, cmp, swap);
	for (size_t i = num - 1; i > 0; i--) {
		swap(b, b + i * size, (int)size);
		if (swap != mock_swap_bytes)
			mock_swaps++;
		mock_sift(b, 0, i, size, cmp, swap);
	}
}
#endif
