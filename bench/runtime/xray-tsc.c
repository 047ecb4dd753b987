// SPDX-License-Identifier: GPL-2.0-only
/*
 * XRay on a machine that does not tell it the TSC's frequency
 * (bench/xray.sh).  XRay's runtime (compiler-rt, xray_x86_64.cpp) reads the
 * TSC with rdtscp only when it can read the frequency from
 * /sys/devices/system/cpu/cpu0/tsc_freq_khz or .../cpufreq/cpuinfo_max_freq;
 * when neither exists (a typical VM), it "emulates" the TSC with
 * clock_gettime(CLOCK_REALTIME) at every entry and exit.  To measure XRay
 * at its best, beside the way it runs here as it is:
 *
 *   LD_PRELOAD=xray-tsc.so XRAY_TSC_KHZ=N PROG...
 *                 answers XRay's open() of tsc_freq_khz with "N\n"; every
 *                 other open() is glibc's
 *   xray-tsc-khz  (built with -DXRAY_TSC_MAIN) prints the TSC's frequency
 *                 in kHz, timed against CLOCK_MONOTONIC over 200 ms
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#ifdef XRAY_TSC_MAIN
static long long mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
	long long t0 = mono_ns(), t1;
	unsigned long long c0 = __rdtsc(), c1;

	do
		t1 = mono_ns();
	while (t1 - t0 < 200000000LL);
	c1 = __rdtsc();
	printf("%.0f\n", (double)(c1 - c0) * 1e6 / (double)(t1 - t0));
	return 0;
}
#else
#define TSC_FILE "/sys/devices/system/cpu/cpu0/tsc_freq_khz"

static int real_open(const char *path, int flags, mode_t mode)
{
	static int (*next)(const char *, int, ...);

	if (!next)
		next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return next(path, flags, mode);
}

/* The frequency, in a memory file that reads like sysfs's. */
static int tsc_file(void)
{
	const char *khz = getenv("XRAY_TSC_KHZ");
	char line[32];
	int fd, n;

	if (!khz || !*khz)
		return -1;
	n = snprintf(line, sizeof(line), "%s\n", khz);
	fd = memfd_create("tsc_freq_khz", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, line, (size_t)n) != n || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (strcmp(path, TSC_FILE) == 0 && (fd = tsc_file()) >= 0)
		return fd;
	return real_open(path, flags, mode);
}
#endif
