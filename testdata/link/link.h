/* SPDX-License-Identifier: GPL-2.0-only */
/* The final-link test program: three traced units and an untraced start. */
#ifndef LINK_H
#define LINK_H

extern int link_counter;
extern int link_table[4];

int a_first(int x);
int a_second(int x);
int b_first(int x);
int b_second(int x);
int c_third(int x);
int c_weak(int x);

#endif
