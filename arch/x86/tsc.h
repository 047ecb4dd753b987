/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * x86's timestamps, for x86_64.c and i386.c (each build includes it once).
 *
 * The TSC when the kernel's own clock is the TSC, or is kvm-clock on a CPU
 * whose TSC is invariant (CPUID 0x80000007 EDX bit 8: a constant rate in
 * every power state): kvm-clock is the TSC scaled, and the kernel reads it
 * in the vDSO only when the host says it is stable across vCPUs.  Firecracker
 * guests boot with tsc=unstable and kvm-clock, where the vDSO clock costs
 * 30 to 40 ns and was half the cost of a traced call; rdtsc costs about 10.
 * CLOCK_MONOTONIC otherwise.  The writer turns ticks into time from two
 * samples of both clocks (rt_output.c), so any constant rate will do.
 * Under qemu-user rdtsc is the host's counter scaled by qemu
 * (cpu_get_host_ticks), as cheap as a helper call.
 *
 * A plain rdtsc, no fence: the CPU may read the counter before earlier
 * instructions have finished (or later ones have started), so a
 * timestamp can be off by what is in flight around it, at most the
 * out-of-order window (some tens of cycles, 10 to 20 ns at 2.6 GHz);
 * durations are differences of two such reads taken alike, and a
 * thread's timestamps still only grow.  rdtscp (or lfence; rdtsc) would
 * order the read, at twice the cost here (bench/runtime/clock.c: 18.7
 * against 9.6 ns a read), on every entry and exit.  The recording's
 * entry path (rt_enter_quick, rt_record.c) reads the TSC itself when
 * rt_tsc says so.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cpuid.h>
#include <x86intrin.h>

bool rt_tsc;

static bool invariant_tsc(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8));
}

void rt_timestamp_init(void)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	rt_tsc = strncmp(buf, "tsc", 3) == 0 || (strncmp(buf, "kvm-clock", 9) == 0 && invariant_tsc());
}

uint64_t rt_timestamp(void)
{
	struct timespec t;

	if (__builtin_expect(rt_tsc, 1))
		return __rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
