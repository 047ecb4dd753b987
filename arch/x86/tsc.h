/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * x86's timestamps, for x86_64.c and i386.c (each build includes it once).
 *
 * The TSC when the kernel says it ticks at a constant rate across sleep
 * states (and the kernel's own clock uses it); CLOCK_MONOTONIC otherwise.
 * rdtsc costs about 10 ns here, the vDSO clock about 23.  Under qemu-user
 * rdtsc is the host's counter scaled by qemu (cpu_get_host_ticks), as
 * cheap as a helper call.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static bool use_tsc;

void rt_timestamp_init(void)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	use_tsc = strncmp(buf, "tsc", 3) == 0;
}

uint64_t rt_timestamp(void)
{
	struct timespec t;

	if (__builtin_expect(use_tsc, 1))
		return __rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
