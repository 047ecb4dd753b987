// SPDX-License-Identifier: GPL-2.0-only
/*
 * XRay's FDR mode for a whole run (bench/xray.sh).  Unlike basic mode, FDR
 * ("flight data recorder") mode does not start on its own when
 * XRAY_OPTIONS selects it: compiler-rt only registers it, and the program
 * must initialise it, patch the sleds, and at the end finalise it and flush
 * its in-memory buffers to a file (compiler-rt's xray_log_interface.h).
 * Linked, uninstrumented, into the XRay builds of the benchmark programs,
 * this does that around main when XRAY_OPTIONS says xray_mode=xray-fdr,
 * and nothing otherwise (unpatched and basic-mode runs are not changed).
 * The FDR settings (func_duration_threshold_us, buffer_size, buffer_max,
 * grace_period_ms) come from XRAY_FDR_OPTIONS, which FDR's initialisation
 * parses itself; the file goes where xray_logfile_base says.
 *
 * compiler-rt's header is C++; the C declarations of the calls used here
 * (the status enums are ints).
 */
#include <stdio.h>
#include <string.h>

const char *__xray_log_get_current_mode(void);
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_patch(void);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);

enum { LOG_INITIALIZED = 2, LOG_FINALIZED = 4, LOG_FLUSHED = 2, PATCHING_SUCCESS = 1 };

static int fdr_on;

__attribute__((constructor)) static void fdr_start(void)
{
	const char *mode = __xray_log_get_current_mode();
	int s;

	if (!mode || strcmp(mode, "xray-fdr") != 0)
		return;
	if ((s = __xray_log_init_mode("xray-fdr", "")) != LOG_INITIALIZED) {
		fprintf(stderr, "xray-fdr: __xray_log_init_mode(\"xray-fdr\") returned %d\n", s);
		return;
	}
	if ((s = __xray_patch()) != PATCHING_SUCCESS)
		fprintf(stderr, "xray-fdr: __xray_patch() returned %d\n", s);
	fdr_on = 1;
}

__attribute__((destructor)) static void fdr_stop(void)
{
	int s;

	if (!fdr_on)
		return;
	if ((s = __xray_log_finalize()) != LOG_FINALIZED)
		fprintf(stderr, "xray-fdr: __xray_log_finalize() returned %d\n", s);
	if ((s = __xray_log_flushLog()) != LOG_FLUSHED)
		fprintf(stderr, "xray-fdr: __xray_log_flushLog() returned %d\n", s);
}
