// SPDX-License-Identifier: GPL-2.0-only
//
// The series' formatter (kernel/trace/fgraph_types.c and fgraph_retval.c of
// a patched tree) built for user space against the stand-in headers of
// include/, on a real vmlinux's prototype table (table.S puts its
// __mcount_proto and __mcount_str where the linker script would).  Reads
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

const char *mock_symbol;

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

	mock_initcall();
	(void)argv;
	while (scanf("%7s %lx %lx %255s", kind, &addr, &raw, name) == 4) {
		struct trace_seq s = { .len = 0 };

		mock_symbol = name;
		if (print_line(&s, raw, kind[0] == 'L', (void *)addr, argc > 1))
			fputs(s.buf, stdout);
		else
			puts("-");
	}
	return 0;
}
