// SPDX-License-Identifier: GPL-2.0-only
/*
 * A program with compressed debug sections (-gz).  The assembly function is
 * weak and alone in its section, with no debug information: the assembler
 * emits no section symbol for it, so the tool has to insert one and renumber
 * the relocations of the compressed debug sections, whose contents must stay
 * as they were.
 */
struct rmc_point {
	int x, y;
};

static __attribute__((noinline)) int rmc_norm(const struct rmc_point *p)
{
	return p->x * p->x + p->y * p->y;
}

int rmc_gz(int a, int b)
{
	struct rmc_point p = { a, b };

	return rmc_norm(&p);
}

#ifdef __x86_64__
__asm__(".section .text.rmc_asm_weak,\"ax\",@progbits\n"
	".weak rmc_asm_weak\n"
	".type rmc_asm_weak, @function\n"
	"rmc_asm_weak:\n"
	"\tcall mcount\n"
	"\tret\n"
	".size rmc_asm_weak, .-rmc_asm_weak\n"
	".previous\n");
#endif

int main(int argc, char **argv)
{
	(void)argv;
	return rmc_gz(argc, argc) == 2 ? 0 : 1;
}
