// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The remote-call ports (arch/remote.h) this host's ptrace can drive: a
 * family's file defines its list when it is built for a host of that
 * family, since a tracer can only use its own kernel's register sets.
 */
#include <stddef.h>
#include "arch/remote.h"

#if defined(__x86_64__) || defined(__i386__)
extern const struct remote_port *const remote_x86_ports[];
#define HOST_PORTS remote_x86_ports
#else
static const struct remote_port *const no_ports[] = { NULL };
#define HOST_PORTS no_ports
#endif

const struct remote_port *remote_port_for(uint16_t machine, uint8_t elfclass)
{
	for (size_t i = 0; HOST_PORTS[i]; i++)
		if (HOST_PORTS[i]->machine == machine && HOST_PORTS[i]->elfclass == elfclass)
			return HOST_PORTS[i];
	return NULL;
}
