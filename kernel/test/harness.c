// SPDX-License-Identifier: GPL-2.0-only
//
// The series' formatter (kernel/trace/fgraph_types.c and fgraph_retval.c of
// a patched tree) built for user space against the stand-in headers of
// include/, on a real vmlinux's prototype table (table.S puts its
// __mcount_proto or __mcount_ret and __mcount_str where the linker script
// would).  The compact table's records hold their function's address
// relative to themselves: with MOCK_RET_AT, the address the first record
// had in vmlinux (hex), every function is at its vmlinux address plus the
// distance the table moved, and kallsyms_lookup_size_offset() answers from
// the functions of the System.map named by MOCK_SYSTEM_MAP.  Reads
// "L|C ADDRESS RAW NAME" lines (a leaf or a closing return of the function
// at ADDRESS, in hex, with the raw register RAW) and prints the line the
// kernel prints for each; "-" when the kernel would leave it to the
// unpatched code (no table), as 6.12's print_graph_retval() builds it from
// fgraph_retval_typed() and fgraph_put_retval().  With an argument:
// funcgraph-retval-hex.
//
#define pr_fmt(fmt) "fgraph_types: " fmt
#include "fgraph_types.c"
#undef pr_fmt
#include "fgraph_retval.c"

#include <stdlib.h>

const char *mock_symbol;
unsigned long mock_swaps;

/* How far the table moved from vmlinux: 0 for the full form. */
static unsigned long mock_bias;
/* The functions of System.map, sorted. */
static unsigned long *mock_funcs;
static size_t mock_nfuncs;

static int mock_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void mock_load_map(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long a;
	char kind, name[512];
	size_t cap = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fscanf(f, "%lx %c %511s", &a, &kind, name) == 3) {
		if (!strchr("tTwW", kind))
			continue;
		if (mock_nfuncs == cap) {
			cap = cap ? 2 * cap : 4096;
			mock_funcs = realloc(mock_funcs, cap * sizeof(*mock_funcs));
			if (!mock_funcs)
				exit(2);
		}
		mock_funcs[mock_nfuncs++] = a;
	}
	fclose(f);
	qsort(mock_funcs, mock_nfuncs, sizeof(*mock_funcs), mock_cmp_ulong);
}

/* The kernel's answer: the function (by System.map) that holds addr. */
int kallsyms_lookup_size_offset(unsigned long addr, unsigned long *symbolsize,
				unsigned long *offset)
{
	unsigned long a = addr - mock_bias;
	size_t lo = 0, hi = mock_nfuncs, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mock_funcs[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	*offset = a - mock_funcs[lo - 1];
	for (i = lo; i < mock_nfuncs && mock_funcs[i] == mock_funcs[lo - 1]; i++)
		;
	*symbolsize = i < mock_nfuncs ? mock_funcs[i] - mock_funcs[lo - 1] : *offset + 1;
	return 1;
}

/* The line of a return, as the 6.12 patch prints it; false: no table. */
static bool print_line(struct trace_seq *s, unsigned long raw, bool leaf, void *func, bool hex)
{
	bool none;

	if (!fgraph_retval_typed(func, &none))
		return false;
	if (none) {
		trace_seq_printf(s, leaf ? "%ps();\n" : "} /* %ps */\n", func);
		return true;
	}
	trace_seq_printf(s, leaf ? "%ps(); /* = " : "} /* %ps = ", func);
	fgraph_put_retval(s, func, raw, 0, hex);
	trace_seq_puts(s, " */\n");
	return true;
}

int main(int argc, char **argv)
{
	char kind[8], name[256];
	unsigned long addr, raw;

	if (getenv("MOCK_RET_AT"))
		mock_bias = (unsigned long)__start_mcount_ret - strtoul(getenv("MOCK_RET_AT"), NULL, 16);
	if (getenv("MOCK_SYSTEM_MAP"))
		mock_load_map(getenv("MOCK_SYSTEM_MAP"));
	mock_initcall();
	if (fgraph_vmlinux.compact)
		fprintf(stderr, "harness: compact table, %zu records, %lu moves by the swap function\n",
			fgraph_vmlinux.nr, mock_swaps);
	(void)argv;
	while (scanf("%7s %lx %lx %255s", kind, &addr, &raw, name) == 4) {
		struct trace_seq s = { .len = 0 };

		mock_symbol = name;
		if (print_line(&s, raw, kind[0] == 'L', (void *)(addr + mock_bias), argc > 1))
			fputs(s.buf, stdout);
		else
			puts("-");
	}
	return 0;
}
