/* SPDX-License-Identifier: GPL-2.0-only */
/* The functions the "subsystems" export to each other and to main. */
#ifndef EXAMPLE_H
#define EXAMPLE_H

/* Like the kernel's __init: a traced section other than .text. */
#define __init __attribute__((section(".init.text"), __noinline__))
#define __weak __attribute__((weak))
#define noinline __attribute__((noinline))

/* core/sched.c */
int sched_init(void);
int schedule(int ticks);
int arch_setup(void);		/* weak default, overridden in net/proto.c */
int arch_idle(void);		/* weak default, not overridden */

/* core/irq.c */
int irq_init(void);
int handle_irq(int irq);

/* net/sock.c */
int sock_create(int family);
int sock_sendmsg(int fd, int len);

/* net/proto.c */
int proto_register(int proto);

/* lib/string.c */
unsigned long str_hash(const char *s);
int str_count(const char *s, char c);

/* lib/notrace.c: compiled without -pg (CFLAGS_REMOVE_notrace.o) */
int notrace_checksum(const char *s);
int notrace_min(int a, int b);

#endif
