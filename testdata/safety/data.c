// SPDX-License-Identifier: GPL-2.0-only
/* No code at all: nothing to record even when compiled with -pg. */
int rmc_table[4] = { 1, 2, 3, 4 };
const char rmc_name[] = "data";
