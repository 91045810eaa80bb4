// SPDX-License-Identifier: GPL-2.0
/*
 * dp.c - dataplane cores: one pinned, polling kernel thread per core
 *
 * Each assigned CPU runs "ixmod/N", bound to N with kthread_bind() (so
 * user space cannot move it: PF_NO_SETAFFINITY).  The thread runs the
 * run-to-completion loop: each iteration polls every work source once
 * with a bounded batch, counts itself busy or idle, and after idle_us of
 * continuous idleness sleeps until ixm_core_wake() or a stop request.
 * With nothing to do it polls politely (cpu_relax) and yields to anything
 * else runnable on its CPU (cond_resched), so an unisolated core still
 * makes progress for Linux.
 *
 * The set of cores changes only under ixm_cfg_lock, from sysfs or module
 * exit.  A change first creates the new threads, then stops the removed
 * ones, so a failure part-way leaves the old set exactly as it was.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/isolation.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "ixmod.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

DEFINE_MUTEX(ixm_cfg_lock);
unsigned int ixm_idle_us = IXM_IDLE_US_DEFAULT;

/*
 * Indexed by CPU.  Written under ixm_cfg_lock *and* the CPU hotplug read
 * lock, so the hotplug callback (which runs under the write lock) may read
 * them without ixm_cfg_lock.
 */
static struct ixm_core **ixm_cores;
static cpumask_var_t ixm_dp_mask;
static unsigned int ixm_dp_count;
static enum cpuhp_state ixm_dp_hp_state;

/**
 * ixm_cpu_is_isolated() - is @cpu out of Linux's way?
 * @cpu: CPU number
 *
 * A dataplane core should be removed from the scheduler's load balancing
 * (isolcpus=) and from the periodic tick (nohz_full=).
 *
 * Return: true if both apply to @cpu.
 */
bool ixm_cpu_is_isolated(unsigned int cpu)
{
	return !housekeeping_cpu(cpu, HK_TYPE_DOMAIN) &&
	       !housekeeping_cpu(cpu, HK_TYPE_TICK);
}

/*
 * Run one iteration of the run-to-completion loop and return how much work
 * it found.  The phases, in order (Documentation/design/ixmod.rst): poll
 * RX on each port queue of this core (at most one batch), run the
 * protocols, post events, consume the applications' calls, run expired
 * timers, post TX and reap completions.  Ports, application contexts and
 * timers register their phase here as they arrive; with none registered
 * an iteration finds no work, and the thread idles and sleeps.
 */
static unsigned int ixm_dp_iterate(struct ixm_core *core)
{
	return 0;
}

static bool ixm_dp_idle_expired(u64 idle_since)
{
	unsigned int idle_us = READ_ONCE(ixm_idle_us);

	/* idle_us == 0: never sleep, poll forever */
	return idle_us && local_clock() - idle_since >= (u64)idle_us * NSEC_PER_USEC;
}

static void ixm_dp_sleep(struct ixm_core *core)
{
	trace_ixm_core_sleep(core->cpu, core->stats.iterations);
	WRITE_ONCE(core->sleeping, true);
	core->stats.sleeps++;
	/*
	 * TASK_IDLE: not counted in the load average.  The condition is
	 * checked after the task is queued on @wq, so a wake-up between the
	 * caller's last poll and here is not lost.
	 */
	wait_event_idle(core->wq, READ_ONCE(core->wake) || kthread_should_stop());
	WRITE_ONCE(core->sleeping, false);
	if (READ_ONCE(core->wake)) {
		WRITE_ONCE(core->wake, false);
		core->stats.wakeups++;
	}
	trace_ixm_core_wake(core->cpu, core->stats.iterations);
}

static int ixm_dp_thread(void *arg)
{
	struct ixm_core *core = arg;
	u64 idle_since = local_clock();

	while (!kthread_should_stop()) {
		unsigned int work = ixm_dp_iterate(core);

		core->stats.iterations++;
		if (work) {
			core->stats.busy++;
			idle_since = local_clock();
		} else {
			core->stats.idle++;
			if (ixm_dp_idle_expired(idle_since)) {
				ixm_dp_sleep(core);
				idle_since = local_clock();
			} else {
				cpu_relax();
			}
		}
		cond_resched();
	}
	return 0;
}

/**
 * ixm_core_wake() - wake a sleeping dataplane thread
 * @core: the core
 *
 * Context: any; cheap when the thread is not sleeping.
 */
void ixm_core_wake(struct ixm_core *core)
{
	WRITE_ONCE(core->wake, true);
	wake_up(&core->wq);
}

/**
 * ixm_dp_wake_all() - wake every dataplane thread
 *
 * Used after a configuration change the threads must re-read.
 *
 * Context: process; takes ixm_cfg_lock's protection from the caller.
 */
void ixm_dp_wake_all(void)
{
	unsigned int cpu;

	lockdep_assert_held(&ixm_cfg_lock);
	for_each_cpu(cpu, ixm_dp_mask)
		ixm_core_wake(ixm_cores[cpu]);
}

static struct ixm_core *ixm_core_create(unsigned int cpu, struct kobject *parent)
{
	struct task_struct *task;
	struct ixm_core *core;
	int err;

	core = kzalloc_node(sizeof(*core), GFP_KERNEL, cpu_to_node(cpu));
	if (!core)
		return ERR_PTR(-ENOMEM);
	core->cpu = cpu;
	init_waitqueue_head(&core->wq);
	kobject_init(&core->kobj, &ixm_core_ktype);	/* from here kobject_put() frees */

	task = kthread_create_on_node(ixm_dp_thread, core, cpu_to_node(cpu),
				      "ixmod/%u", cpu);
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		goto err_put_core;
	}
	kthread_bind(task, cpu);
	get_task_struct(task);
	core->task = task;

	err = kobject_add(&core->kobj, parent, "cpu%u", cpu);
	if (err)
		goto err_stop_thread;

	wake_up_process(task);
	trace_ixm_core_start(cpu, 0);
	return core;

err_stop_thread:
	kthread_stop(task);	/* never woken: threadfn does not run */
	put_task_struct(task);
err_put_core:
	kobject_put(&core->kobj);
	return ERR_PTR(err);
}

static void ixm_core_destroy(struct ixm_core *core)
{
	/* sysfs first: kobject_del() waits for readers that use core->task */
	kobject_del(&core->kobj);
	kthread_stop(core->task);
	put_task_struct(core->task);
	trace_ixm_core_stop(core->cpu, core->stats.iterations);
	kobject_put(&core->kobj);
}

/**
 * ixm_dp_set_cores() - make the set of dataplane cores equal @want
 * @want: validated mask of online CPUs
 * @parent: sysfs directory for the per-core kobjects
 *
 * Starts a thread on each CPU of @want that has none, then stops the
 * threads on CPUs not in @want.  On failure nothing has changed.
 *
 * Context: process, ixm_cfg_lock and the CPU hotplug read lock held.
 * Return: 0 or -errno (-ENOMEM, or what kthread creation returned).
 */
int ixm_dp_set_cores(const struct cpumask *want, struct kobject *parent)
{
	unsigned int cpu;
	int err;

	lockdep_assert_held(&ixm_cfg_lock);

	for_each_cpu(cpu, want) {
		struct ixm_core *core;

		if (cpumask_test_cpu(cpu, ixm_dp_mask))
			continue;
		core = ixm_core_create(cpu, parent);
		if (IS_ERR(core)) {
			err = PTR_ERR(core);
			pr_err("cores: cannot start the thread for cpu %u (%d); nothing changed\n",
			       cpu, err);
			goto err_stop_added;
		}
		ixm_cores[cpu] = core;
	}

	for_each_cpu(cpu, ixm_dp_mask) {
		if (cpumask_test_cpu(cpu, want))
			continue;
		ixm_core_destroy(ixm_cores[cpu]);
		ixm_cores[cpu] = NULL;
	}
	cpumask_copy(ixm_dp_mask, want);
	WRITE_ONCE(ixm_dp_count, cpumask_weight(want));
	return 0;

err_stop_added:
	/* the cores started above: in @want, not yet in ixm_dp_mask */
	for_each_cpu(cpu, want) {
		if (cpumask_test_cpu(cpu, ixm_dp_mask) || !ixm_cores[cpu])
			continue;
		ixm_core_destroy(ixm_cores[cpu]);
		ixm_cores[cpu] = NULL;
	}
	return err;
}

/**
 * ixm_dp_stop_all() - stop every dataplane core; cannot fail
 *
 * Context: process, ixm_cfg_lock and the CPU hotplug read lock held.
 */
void ixm_dp_stop_all(void)
{
	unsigned int cpu;

	lockdep_assert_held(&ixm_cfg_lock);
	for_each_cpu(cpu, ixm_dp_mask) {
		ixm_core_destroy(ixm_cores[cpu]);
		ixm_cores[cpu] = NULL;
	}
	cpumask_clear(ixm_dp_mask);
	WRITE_ONCE(ixm_dp_count, 0);
}

/**
 * ixm_dp_get_cores() - copy the current set of dataplane cores
 * @out: filled with the set
 *
 * Context: process, ixm_cfg_lock held.
 */
void ixm_dp_get_cores(struct cpumask *out)
{
	lockdep_assert_held(&ixm_cfg_lock);
	cpumask_copy(out, ixm_dp_mask);
}

/**
 * ixm_dp_nr_cores() - number of dataplane cores
 *
 * Context: any; the answer may be stale as soon as it is returned.
 * Return: the number of assigned cores.
 */
unsigned int ixm_dp_nr_cores(void)
{
	return READ_ONCE(ixm_dp_count);
}

/*
 * CPU hotplug teardown: a dataplane core may not go offline under its
 * thread (the scheduler would move the thread and break its placement).
 * Returning an error makes the hotplug core roll back, and the operator's
 * write to .../cpuN/online fails with -EBUSY.
 */
static int ixm_dp_cpu_offline(unsigned int cpu)
{
	if (!cpumask_test_cpu(cpu, ixm_dp_mask))
		return 0;
	pr_warn("cpu %u is a dataplane core and stays online; remove it from /sys/kernel/ixmod/cores first\n",
		cpu);
	return -EBUSY;
}

/**
 * ixm_dp_init() - allocate the per-CPU core table, watch CPU hotplug
 *
 * Return: 0 or -errno.
 */
int ixm_dp_init(void)
{
	int ret;

	ixm_cores = kcalloc(nr_cpu_ids, sizeof(*ixm_cores), GFP_KERNEL);
	if (!ixm_cores)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&ixm_dp_mask, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_free_cores;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "ixmod:online",
					NULL, ixm_dp_cpu_offline);
	if (ret < 0)
		goto err_free_mask;
	ixm_dp_hp_state = ret;
	return 0;

err_free_mask:
	free_cpumask_var(ixm_dp_mask);
err_free_cores:
	kfree(ixm_cores);
	return ret;
}

/**
 * ixm_dp_exit() - free the core table; every core must be stopped already
 */
void ixm_dp_exit(void)
{
	WARN_ON_ONCE(!cpumask_empty(ixm_dp_mask));
	cpuhp_remove_state_nocalls(ixm_dp_hp_state);
	free_cpumask_var(ixm_dp_mask);
	kfree(ixm_cores);
}
