/* SPDX-License-Identifier: GPL-2.0-only */
/* The program t/33-check.t links: two traced units and an untraced start. */
#ifndef CHECK_H
#define CHECK_H

extern int chk_counter;
extern int chk_table[4];

int chk_weak(int x);
int a_one(int x);
int a_two(int x);
int b_one(int x);

#endif
