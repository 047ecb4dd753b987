// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions whose DWARF describes them without a code range, at gcc -O2
 * (-fipa-icf): free_b's code is folded with free_a's, and gcc describes it
 * by a DIE without DW_AT_low_pc; enter_b is folded with enter_a and inlined
 * into user(), so it has only its abstract instance (DW_AT_inline) and no
 * concrete DIE for its out-of-line copy.  Both keep a symbol and a call to
 * the profiling hook of their own.
 */
struct ctx {
	int a;
};

int counter;

void free_a(struct ctx *c)
{
	if (c)
		c->a = 0;
}

void free_b(struct ctx *c)
{
	if (c)
		c->a = 0;
}

void enter_a(void)
{
	counter++;
}

void enter_b(void)
{
	counter++;
}

int user(void)
{
	enter_b();
	return counter;
}
