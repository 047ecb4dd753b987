// SPDX-License-Identifier: GPL-2.0-only
/*
 * The functions of console.trace, a real trace: Linux 6.12 (Debian's
 * linux-source-6.12) for x86_64 booted under qemu by
 * scripts/kernel-retval-test.sh, its function_graph buffer dumped on the
 * serial console by ftrace_dump_on_oops.  Each has the prototype of the
 * kernel function of its name; the bodies only need to exist (t/71 compiles
 * this with -g -pg -mfentry, records it in kernel mode and annotates the
 * trace with its prototype table).
 */
#define noinline __attribute__((__noinline__, __noclone__))

typedef _Bool bool;
typedef unsigned short umode_t;
typedef int (*initcall_t)(void);

enum irqreturn {
	IRQ_NONE = 0,
	IRQ_HANDLED = 1 << 0,
	IRQ_WAKE_THREAD = 1 << 1,
};
typedef enum irqreturn irqreturn_t;

struct clock_event_device { int irq; };
struct workqueue_struct { int id; };
struct work_struct { long data; };
struct irq_desc { int irq; int depth; };
struct wait_queue_head { int lock; };
struct file { long f_count; };

static struct file a_file;
volatile int sink;

noinline void tick_handle_periodic(struct clock_event_device *dev)
{
	sink = dev->irq;
}

noinline bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	return cpu + wq->id + work->data > 0;
}

noinline bool is_vmalloc_addr(const void *x)
{
	return (unsigned long)x >= 0xffffc90000000000UL;
}

noinline irqreturn_t __handle_irq_event_percpu(struct irq_desc *desc)
{
	return desc->irq ? IRQ_HANDLED : IRQ_NONE;
}

noinline irqreturn_t handle_irq_event(struct irq_desc *desc)
{
	desc->depth++;
	return __handle_irq_event_percpu(desc);
}

noinline int __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive, void *key)
{
	return wq_head->lock + (int)mode + nr_exclusive + (key != 0);
}

noinline int do_one_initcall(initcall_t fn)
{
	return fn();
}

noinline int kernel_execve(const char *kernel_filename, const char *const *argv, const char *const *envp)
{
	return kernel_filename[0] && argv && envp ? -2 : -14;
}

noinline int init_eaccess(const char *filename)
{
	return filename[0] == '/' ? -2 : -22;
}

noinline unsigned char rtc_cmos_read(unsigned char addr)
{
	return (unsigned char)(addr + sink);
}

noinline struct file *filp_open(const char *filename, int flags, umode_t mode)
{
	return filename[0] + flags + mode ? &a_file : 0;
}
