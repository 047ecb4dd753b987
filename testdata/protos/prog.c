// SPDX-License-Identifier: GPL-2.0-only
/*
 * The main unit of the linked programs of t/60-protos.t: it calls the
 * init_*.c units and some of types.c; unused_* are only there for
 * --gc-sections to collect (with -ffunction-sections).
 */
#define noinline __attribute__((noinline))

int init_a(void);
int init_b(void);
long init_c(void);
int f_s32(int a, unsigned int b);
const char *f_str(char *s, const char *cs);

volatile long sunk;

void sink(long v)
{
	sunk += v;
}

noinline double unused_scale(double x, float k)
{
	return x * k;
}

noinline const char *unused_name(int which)
{
	return which ? "one" : "other";
}

int main(int argc, char **argv)
{
	(void)argv;
	return (int)(init_a() + init_b() + init_c() + f_s32(argc, 2) - 14 - argc) +
	       (*f_str("", "") != 0);
}
