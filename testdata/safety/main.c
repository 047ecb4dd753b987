// SPDX-License-Identifier: GPL-2.0-only
/* Completes calls.c into a program (for ET_EXEC / ET_DYN inputs). */
int rmc_one(int x);
int rmc_two(int x);

int rmc_ext(int x)
{
	return x - 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return rmc_two(argc) == rmc_one(argc) ? 1 : 0;
}
