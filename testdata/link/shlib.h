/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SHLIB_H
#define SHLIB_H

int shlib_inner(int x);
int shlib_outer(int x);

#endif
