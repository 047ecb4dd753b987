/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a trace's words mean on the machine that recorded them: how its
 * runtime port captures return values and where its sites lie, and its
 * ABI's conventions for printing values.  The runtime describes itself
 * from its port (objpatch/lib); a tool reading a recording looks the
 * recording's machine up here, so that it reads any machine's recording
 * without linking that machine's port.
 */
#ifndef TRACE_MACHINE_H
#define TRACE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/arch.h"
#include "arch/port.h"
#include "trace/format.h"

struct trace_machine {
	/* Its descriptor: how its captures and sites lie (values, pads, ra_span). */
	const struct arch *arch;
	struct format_target values;	/* its big_endian is the machine's byte order */
};

/*
 * The machine of a recording: e_machine, class and byte order, as its
 * header says.  False for a machine that has no runtime port.
 */
bool trace_machine_for(uint16_t machine, uint8_t elfclass, bool big_endian, struct trace_machine *out);
/* The machine the runtime runs on, from its port's descriptor. */
void trace_machine_native(const struct arch *a, struct trace_machine *out);

/* How far past a recorded site the hook's return address can lie. */
static inline unsigned trace_ra_span(const struct trace_machine *m)
{
	return m->arch->ra_span ? m->arch->ra_span : RT_MAX_SITE;
}

/*
 * A function's return value from the words an exit event keeps for
 * `capture` (in the reader's byte order), as format_return() reads it:
 * `ret` is the function's return type (TC_UNKNOWN when not known).
 */
void trace_value(const struct trace_machine *m, const uint64_t *w, enum capture c, const struct sig_type *ret,
		 struct raw_value *v);

/* The characters an exit event captured for a string, where format_opts' read_mem finds them. */
struct trace_captured {
	uint64_t addr;		/* the string's address in the traced process */
	const uint8_t *bytes;
	size_t n;
};

/* A read_mem_fn over a struct trace_captured: the captured bytes, nothing else. */
size_t trace_read_captured(void *ctx, uint64_t addr, void *buf, size_t n);

/*
 * The value of the exit event `ev` (its header word, then its words) for
 * return type `ret` (NULL: not known), and in *cap its captured string's
 * characters, if it has them.
 */
void trace_exit_value(const struct trace_machine *m, const uint64_t *ev, const struct sig_type *ret,
		      struct raw_value *v, struct trace_captured *cap);

#endif
