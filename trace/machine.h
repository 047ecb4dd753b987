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
#include "arch/port.h"
#include "trace/format.h"

struct trace_machine {
	uint16_t machine;	/* e_machine */
	uint8_t elfclass;
	/*
	 * A float's CAPTURE_FP word holds its value as a binary64 (i386's
	 * st(0), ppc64's f1), narrowed when the value is formatted
	 * (struct rt_arch's fp_st0_double).
	 */
	bool float_as_double;
	/*
	 * -fpatchable-function-entry pads are traced as a site this long at
	 * this offset from the function's entry; len 0: pads are not traced
	 * (struct rt_arch's pad_site_len and pad_site_offset).
	 */
	uint8_t pad_site_len, pad_site_offset;
	/* How far past a recorded site the hook's return address can lie. */
	uint8_t ra_span;
	struct format_target values;	/* its big_endian is the machine's byte order */
};

/*
 * The machine of a recording: e_machine, class and byte order, as its
 * header says.  False for a machine that has no runtime port.
 */
bool trace_machine_for(uint16_t machine, uint8_t elfclass, bool big_endian, struct trace_machine *out);

/*
 * A function's return value from the words an exit event keeps for
 * `capture` (in the reader's byte order), as format_return() reads it:
 * `ret` is the function's return type (TC_UNKNOWN when not known).
 */
void trace_value(const struct trace_machine *m, const uint64_t *w, enum capture c, const struct sig_type *ret,
		 struct raw_value *v);

#endif
