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

#endif
