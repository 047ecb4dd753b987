// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs the "subsystems", then walks the call-site table the linker script
 * gathered between the kernel's symbols __start_mcount_loc and
 * __stop_mcount_loc, as ftrace_init() does, and checks that every entry is a
 * call to the hook: the table is usable at run time.  Zero entries are
 * skipped, as ftrace_process_locs() skips them (`recordmcount --check --fix`
 * zeroes the stale entry of an overridden weak function).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "example.h"

extern const unsigned long __start_mcount_loc[];
extern const unsigned long __stop_mcount_loc[];

#if defined(__x86_64__)
#define HOOK __fentry__
#else
#define HOOK _mcount
#endif
extern void HOOK(void);

/* Whether the instruction at SITE is a direct call to the hook. */
static int calls_hook(unsigned long site)
{
	uintptr_t hook = (uintptr_t)HOOK;
#if defined(__x86_64__)
	const unsigned char *p = (const unsigned char *)site;
	int32_t rel;

	if (p[0] != 0xe8)
		return 0;
	memcpy(&rel, p + 1, sizeof(rel));
	return site + 5 + (intptr_t)rel == hook;
#elif defined(__aarch64__)
	uint32_t insn;
	int64_t off;

	memcpy(&insn, (const void *)site, sizeof(insn));
	if ((insn & 0xfc000000u) != 0x94000000u)	/* bl */
		return 0;
	off = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;
	return site + off == hook;
#endif
}

int main(int argc, char **argv)
{
	const unsigned long *p;
	size_t entries = (size_t)(__stop_mcount_loc - __start_mcount_loc), calls = 0, zero = 0;
	int work;

	(void)argv;
	work = sched_init() + irq_init() + handle_irq(argc) + handle_irq(argc + 1) +
	       sock_create(argc) + str_count("a,b,c", ',');
	for (p = __start_mcount_loc; p < __stop_mcount_loc; p++) {
		if (*p)
			calls += calls_hook(*p);
		else
			zero++;
	}
	printf("work %d\n", work);
	printf("entries %zu\n", entries);
	printf("calls %zu\n", calls);
	printf("zero %zu\n", zero);
	return entries > 0 && calls + zero == entries ? 0 : 1;
}
