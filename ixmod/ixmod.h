/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ixmod.h - kernel-side types shared by the files of ixmod.ko
 *
 * Only the kernel glue in ixmod/ includes this; the portable code in
 * ixmod/net/ and ixmod/nic/ must not (it sees only net/platform.h).
 *
 * Ownership: a struct ixm_core is created and destroyed by the control
 * plane (sysfs writes, module exit) under ixm_cfg_lock.  Its stats are
 * written only by the core's own dataplane thread and read locklessly by
 * sysfs; everything else in it is written under ixm_cfg_lock.
 */
#ifndef _IXMOD_IXMOD_H
#define _IXMOD_IXMOD_H

#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

struct task_struct;

#define IXM_IDLE_US_DEFAULT	1000		/* poll this long, then sleep */
#define IXM_IDLE_US_MAX		(10 * USEC_PER_SEC)

/**
 * struct ixm_core_stats - per-core loop counters
 * @iterations: loop iterations run
 * @busy: iterations that found work
 * @idle: iterations that found no work
 * @sleeps: times the thread went to sleep after @idle_us of idleness
 * @wakeups: times the thread was woken from that sleep
 *
 * Written only by the owning dataplane thread (plain increments, no
 * atomics); read by sysfs with READ_ONCE.  64-bit loads are single-copy
 * atomic on the 64-bit architectures ixmod supports.
 */
struct ixm_core_stats {
	u64	iterations;
	u64	busy;
	u64	idle;
	u64	sleeps;
	u64	wakeups;
};

/**
 * struct ixm_core - one dataplane core and its pinned kernel thread
 * @kobj: /sys/kernel/ixmod/dataplane/cpuN; its release frees the core
 * @cpu: the CPU the thread is bound to
 * @task: the dataplane thread, "ixmod/N"
 * @wq: where the thread sleeps when idle
 * @wake: set by ixm_core_wake(), cleared by the thread
 * @sleeping: true while the thread sleeps in @wq (written by the thread)
 * @stats: loop counters, on their own cache line (written by the thread)
 */
struct ixm_core {
	struct kobject		kobj;
	unsigned int		cpu;
	struct task_struct	*task;
	wait_queue_head_t	wq;
	bool			wake;
	bool			sleeping;

	struct ixm_core_stats	stats ____cacheline_aligned_in_smp;
};

/* Configuration shared with the dataplane; written under ixm_cfg_lock. */
extern struct mutex ixm_cfg_lock;
extern unsigned int ixm_idle_us;

/* dp.c: dataplane cores */
int ixm_dp_init(void);
void ixm_dp_exit(void);
int ixm_dp_set_cores(const struct cpumask *want, struct kobject *parent);
void ixm_dp_stop_all(void);
void ixm_dp_get_cores(struct cpumask *out);
unsigned int ixm_dp_nr_cores(void);
void ixm_dp_wake_all(void);
void ixm_core_wake(struct ixm_core *core);
bool ixm_cpu_is_isolated(unsigned int cpu);

/* sysfs.c: /sys/kernel/ixmod */
int ixm_sysfs_init(void);
void ixm_sysfs_exit(void);
extern const struct kobj_type ixm_core_ktype;

/* cdev.c: /dev/ixmod */
int ixm_cdev_init(void);
void ixm_cdev_exit(void);

#endif /* _IXMOD_IXMOD_H */
