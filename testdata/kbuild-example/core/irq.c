// SPDX-License-Identifier: GPL-2.0-only
/* Interrupt "handling": a table of static handlers reached through pointers. */
#include "example.h"

static int irq_count[4];

static int timer_irq(int irq)
{
	return schedule(++irq_count[irq & 3]);
}

static int net_irq(int irq)
{
	return sock_sendmsg(irq, irq_count[irq & 3]++);
}

static int (*const handlers[2])(int) = { timer_irq, net_irq };

int handle_irq(int irq)
{
	return handlers[irq & 1](irq);
}

int __init irq_init(void)
{
	return notrace_min(irq_count[0], irq_count[1]);
}
