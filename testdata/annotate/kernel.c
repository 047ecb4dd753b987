// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "vmlinux" of t/71-annotate.t: functions with the prototypes of those in
 * the function_graph traces beside this file.  Where a name is Linux's, so is
 * the prototype (seed 003's snippet, the funcgraph-retval example of
 * Documentation/trace/ftrace.rst, the example of the BTF retval series);
 * the others give one function per return type class.  The bodies only need
 * to exist: the test compiles this with -g -pg, records it in kernel mode and
 * annotates hand-written traces with its prototype table.
 */
#define noinline __attribute__((__noinline__, __noclone__))

typedef _Bool bool;
typedef unsigned char u8;
typedef unsigned short u16;
typedef short s16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long s64;
typedef unsigned int gfp_t;
typedef unsigned long size_t;

struct mutex {
	long owner;
};
struct task_struct {
	int pid;
	struct task_struct *next;
};
struct cgroup_taskset {
	struct task_struct *first;
};
struct cgroup_mgctx {
	struct cgroup_taskset tset;
};
struct inode {
	long i_atime;
};
struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};
/* Linux wraps ids in one-member structs: returned in a register where the ABI allows. */
typedef struct {
	u32 val;
} vfsuid_t;
struct device {
	const char *init_name;
};
struct file;
struct cgroup_subsys_state;
struct task_group;
struct path;
struct mnt_idmap;
struct user_namespace;
struct hrtimer;

enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };

extern volatile long sink;

/* seed 003: rcu_all_qs() and mutex_unlock() return nothing */
noinline void rcu_all_qs(void)
{
	sink++;
}

noinline int _cond_resched(void)
{
	rcu_all_qs();
	return (int)(sink & 1);
}

noinline void mutex_lock(struct mutex *lock)
{
	_cond_resched();
	lock->owner = sink;
}

noinline void mutex_unlock(struct mutex *lock)
{
	lock->owner = 0;
}

noinline long kvm_vm_ioctl(struct file *filp, unsigned int ioctl, unsigned long arg)
{
	static struct mutex lock;

	mutex_lock(&lock);
	sink = (long)filp + ioctl;
	mutex_unlock(&lock);
	return arg ? -25 : 0;
}

/* Documentation/trace/ftrace.rst, funcgraph-retval */
noinline void cgroup_migrate_add_task(struct task_struct *task, struct cgroup_mgctx *mgctx)
{
	task->next = mgctx->tset.first;
	mgctx->tset.first = task;
}

noinline struct task_struct *cgroup_taskset_next(struct cgroup_taskset *tset,
						 struct cgroup_subsys_state **dst_cssp)
{
	*dst_cssp = 0;
	return tset->first ? tset->first->next : 0;
}

noinline struct task_struct *cgroup_taskset_first(struct cgroup_taskset *tset,
						  struct cgroup_subsys_state **dst_cssp)
{
	return cgroup_taskset_next(tset, dst_cssp);
}

noinline int sched_rt_can_attach(struct task_group *tg, struct task_struct *tsk)
{
	return tg && tsk->pid < 0;
}

/* static in Linux */
noinline int cpu_cgroup_can_attach(struct cgroup_taskset *tset)
{
	struct cgroup_subsys_state *css;
	struct task_struct *t = cgroup_taskset_first(tset, &css);

	return t && sched_rt_can_attach(0, t) ? -22 : 0;
}

noinline int cgroup_migrate_execute(struct cgroup_mgctx *mgctx)
{
	return cpu_cgroup_can_attach(&mgctx->tset);
}

noinline int cgroup_migrate(struct task_struct *leader, bool threadgroup, struct cgroup_mgctx *mgctx)
{
	cgroup_migrate_add_task(leader, mgctx);
	return threadgroup ? cgroup_migrate_execute(mgctx) : 0;
}

/* the BTF series' example: a struct in a register, a struct in two, bool, void */
noinline vfsuid_t make_vfsuid(struct mnt_idmap *idmap, struct user_namespace *fs_userns, u32 kuid)
{
	return (vfsuid_t){ kuid + (idmap != 0) + (fs_userns != 0) };
}

noinline void ktime_get_coarse_real_ts64_mg(struct timespec64 *ts)
{
	ts->tv_sec = sink;
	ts->tv_nsec = 0;
}

noinline struct timespec64 current_time(struct inode *inode)
{
	struct timespec64 now;

	ktime_get_coarse_real_ts64_mg(&now);
	inode->i_atime = now.tv_sec;
	return now;
}

noinline bool atime_needs_update(const struct path *path, struct inode *inode)
{
	return path && current_time(inode).tv_sec != inode->i_atime;
}

noinline void touch_atime(const struct path *path)
{
	static struct inode inode;

	if (atime_needs_update(path, &inode))
		sink++;
}

/* one function per class and width */
noinline u8 crc8(const u8 table[256], const u8 *pdata, size_t nbytes, u8 crc)
{
	while (nbytes--)
		crc = table[(crc ^ *pdata++) & 0xff];
	return crc;
}

noinline u16 crc16(u16 crc, const u8 *buffer, size_t len)
{
	while (len--)
		crc = (u16)((crc >> 8) ^ *buffer++);
	return crc;
}

noinline s16 tmp_read_offset(int channel)
{
	return (s16)(channel * -5);
}

noinline unsigned long __get_free_pages(gfp_t gfp_mask, unsigned int order)
{
	return (unsigned long)sink << (order + (gfp_mask & 1));
}

noinline long strncpy_from_user(char *dst, const char *src, long count)
{
	long n = 0;

	while (n < count && (dst[n] = src[n]))
		n++;
	return src ? n : -14;
}

noinline enum hrtimer_restart tick_sched_timer(struct hrtimer *timer)
{
	return timer ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

noinline char kdb_getchar(void)
{
	return (char)sink;
}

noinline u64 ktime_get_mono_fast_ns(void)
{
	return (u64)sink * 1000;
}

noinline bool capable(int cap)
{
	return cap == (int)sink;
}

noinline const char *dev_name(const struct device *dev)
{
	return dev->init_name;
}

noinline int security_file_permission(struct file *file, int mask)
{
	return file && mask ? -13 : 0;
}

/* Only ever called with k == 3: gcc makes scale_load.constprop.0 of it. */
static __attribute__((__noinline__)) long scale_load(long v, int k)
{
	for (int i = 0; i < k; i++)
		v = v * 3 + (long)sink;
	return v;
}

noinline long sched_group_load(long a, long b)
{
	return scale_load(a, 3) + scale_load(b, 3);
}

/* Also in module.c: there with another return type, ... */
static noinline int probe_one(int x)
{
	return x - (int)sink;
}

/* ... and there with the same. */
static noinline int helper_same(int x)
{
	return x + (int)sink;
}

noinline int kernel_init_probes(int x)
{
	return probe_one(x) + helper_same(x);
}

/*
 * funcgraph-args (6.15): parameters of every class the kernel prints, a
 * struct by value in one register and one in two, more than six.  Where the
 * name is Linux's, so is the prototype (ktime_t is an s64, pgd_t, pfn_t and
 * kuid_t one-member structs).
 */
enum hrtimer_mode {
	HRTIMER_MODE_ABS = 0x00,
	HRTIMER_MODE_REL = 0x01,
	HRTIMER_MODE_PINNED = 0x02,
	HRTIMER_MODE_SOFT = 0x04,
};

typedef struct {
	unsigned long pgd;
} pgd_t;
typedef struct {
	u64 val;
} pfn_t;
typedef struct {
	u32 val;
} kuid_t;
struct vm_fault {
	unsigned long address;
};

noinline void hrtimer_start_range_ns(struct hrtimer *timer, s64 tim, u64 delta_ns, const enum hrtimer_mode mode)
{
	sink = (long)timer + tim + (long)delta_ns + mode;
}

noinline pgd_t __pti_set_user_pgtbl(pgd_t *pgdp, pgd_t pgd)
{
	*pgdp = pgd;
	return pgd;
}

noinline int vmf_insert_pfn_pmd(struct vm_fault *vmf, pfn_t pfn, bool write)
{
	return write ? (int)(pfn.val + vmf->address) : 0;
}

noinline u32 from_kuid(struct user_namespace *targ, kuid_t kuid)
{
	return targ ? kuid.val : (u32)-1;
}

/* not Linux's: a struct in two registers before an int */
noinline s64 timespec64_to_ns_shift(struct timespec64 ts, int shift)
{
	return (ts.tv_sec * 1000000000 + ts.tv_nsec) >> shift;
}

noinline long do_futex(u32 *uaddr, int op, u32 val, s64 *timeout, u32 *uaddr2, u32 val2, u32 val3)
{
	return *uaddr == val ? (long)op + val2 + val3 + (timeout ? *timeout : 0) + (uaddr2 ? 1 : 0) : -11;
}

noinline int _printk(const char *fmt, ...)
{
	return fmt ? (int)sink : 0;
}

/* not Linux's: a plain char parameter (t/71's char.trace) */
noinline void kdb_putchar(char c)
{
	sink = c;
}

/* not Linux's: a struct returned through a hidden pointer, which takes the first argument register */
struct tk_offsets {
	s64 real, boot, tai;
};

noinline struct tk_offsets tk_get_offsets(int clock, bool raw)
{
	struct tk_offsets o = { sink, clock, raw };

	return o;
}
