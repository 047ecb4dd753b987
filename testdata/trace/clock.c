// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace writer's clock across passes (t/74-trace-output.t): a trace
 * written in two passes, the second with a new rate, as the runtime's
 * writer thread does each time it measures the rate again.  An event of the
 * second pass must not show a time before one the first pass wrote: a rate
 * applied to the whole trace moved later events microseconds back (t/90's
 * rt_toggle, under load).  Writes the JSON trace on standard output.
 */
#include <elf.h>
#include <stdio.h>
#include <unistd.h>
#include "trace/event.h"
#include "trace/writer.h"

static struct sym_func funcs[] = {
	{ .addr = 0x1000, .size = 0x100, .name = "first" },
	{ .addr = 0x2000, .size = 0x100, .name = "second" },
};

/* {ts, word} pairs: first() from tick 1000 to 1500, second() from 2000 to 2500. */
static const uint64_t events[] = {
	1000, EV_ENTRY_WORD(0x1010, 0), 1500, EV_HEADER(EV_EXIT, 0, CAPTURE_NONE, 2),
	2000, EV_ENTRY_WORD(0x2010, 0), 2500, EV_HEADER(EV_EXIT, 0, CAPTURE_NONE, 2),
};

static size_t next, visible;	/* the reader's place; how many words the pass may read */

static const uint64_t *peek(void *ctx)
{
	(void)ctx;
	return next < visible ? &events[next] : NULL;
}

static void consume(void *ctx, size_t words)
{
	(void)ctx;
	next += words;
}

static struct sym_func *symbolize(void *ctx, uint64_t ra)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (ra >= funcs[i].addr && ra < funcs[i].addr + funcs[i].size)
			return &funcs[i];
	return NULL;
}

int main(void)
{
	struct trace_machine machine;
	struct trace_settings s = { .format = TRACE_JSON, .depth = 64, .pid = 1, .process_name = "clock",
				    .fd = STDOUT_FILENO, .machine = &machine, .symbolize = symbolize };
	struct trace_events src = { peek, consume, NULL };
	struct trace_counts none = { 0 };
	struct trace_writer *w;
	struct trace_thread *t;

	if (!trace_machine_for(EM_X86_64, ELFCLASS64, false, &machine)) {
		fprintf(stderr, "clock: no x86_64 machine\n");
		return 1;
	}
	w = trace_writer_new(&s);
	t = w ? trace_thread_new(w, 1, &src) : NULL;
	if (!t) {
		fprintf(stderr, "clock: out of memory\n");
		return 1;
	}
	trace_writer_clock(w, 0, 1.0, 0);
	visible = 4;
	trace_write(w, &t, 1, true);
	/* Half the rate from tick 1600 on: second() starts at 1.8 us, not 1.0. */
	trace_writer_clock(w, 0, 0.5, 1600);
	visible = 8;
	trace_write(w, &t, 1, true);
	trace_write_end(w, &t, 1, 3000, &none);
	trace_writer_free(w);
	return 0;
}
