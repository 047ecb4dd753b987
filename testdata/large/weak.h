/* SPDX-License-Identifier: GPL-2.0-only */
int rmc_weak(int x);
int rmc_weak_kept(int x);
int rmc_calls_weak(int x);
