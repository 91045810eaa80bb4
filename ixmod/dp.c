// SPDX-License-Identifier: GPL-2.0
/*
 * dp.c - dataplane cores: one pinned, polling kernel thread per core
 *
 * Each assigned CPU runs "ixmod/N", bound to N with kthread_bind() (so
 * user space cannot move it: PF_NO_SETAFFINITY).  The thread runs the
 * run-to-completion loop through the runner (runner.c): each iteration
 * polls every work source once with a bounded batch, counts itself busy
 * or idle, and after idle_us of continuous idleness sleeps until
 * ixm_core_wake() or a stop request.  With nothing to do it polls
 * politely (cpu_relax) and yields to anything else runnable on its CPU
 * (cond_resched), so an unisolated core still makes progress for Linux.
 * While a co-located application thread runs the loop, the thread parks
 * (colo.c).
 *
 * The set of cores changes only under ixm_cfg_lock, from sysfs or module
 * exit.  A change first creates the new threads, then stops the removed
 * ones, so a failure part-way leaves the old set exactly as it was.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/error-injection.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/dma-mapping.h>

#include "ixmod.h"
#include "trace.h"

DEFINE_MUTEX(ixm_cfg_lock);

/*
 * Indexed by CPU.  Written under ixm_cfg_lock *and* the CPU hotplug read
 * lock, so the hotplug callback (which runs under the write lock) may read
 * them without ixm_cfg_lock.
 */
static struct ixm_core **ixm_cores;
static cpumask_var_t ixm_dp_mask;
static unsigned int ixm_dp_count;
static enum cpuhp_state ixm_dp_hp_state;

/*
 * TCP knobs, read when a core is created (cores are re-created by writing
 * /sys/kernel/ixmod/cores).  Documented in the admin guide.
 */
static unsigned int tcp_delack_us = 4000;
module_param(tcp_delack_us, uint, 0444);
MODULE_PARM_DESC(tcp_delack_us, "TCP delayed-ACK timeout in us, 0-500000; 0 acknowledges every segment (default 4000)");
static unsigned int tcp_rto_min_ms = 200;
module_param(tcp_rto_min_ms, uint, 0444);
MODULE_PARM_DESC(tcp_rto_min_ms, "TCP minimum retransmission timeout in ms, 1-60000 (default 200)");
static unsigned int tcp_syncookies = 1;
module_param(tcp_syncookies, uint, 0444);
MODULE_PARM_DESC(tcp_syncookies, "TCP SYN cookies: 0 never, 1 when a listener's backlog is full, 2 always (default 1)");
static unsigned int tcp_keepalive_s;
module_param(tcp_keepalive_s, uint, 0444);
MODULE_PARM_DESC(tcp_keepalive_s, "TCP keepalive idle time in s, 0-2147483; 0 disables (default)");
static unsigned int tcp_rcv_buf = 128 * 1024;
module_param(tcp_rcv_buf, uint, 0444);
MODULE_PARM_DESC(tcp_rcv_buf, "TCP receive buffer per connection in bytes, 4096-1048576 (default 131072)");
static unsigned int tcp_sack = 1;
module_param(tcp_sack, uint, 0444);
MODULE_PARM_DESC(tcp_sack, "TCP SACK (RFC 2018) with RACK-TLP loss recovery: 1 offer and accept it, 0 NewReno alone (default 1)");
static unsigned int tcp_init_cwnd = 10;
module_param(tcp_init_cwnd, uint, 0444);
MODULE_PARM_DESC(tcp_init_cwnd, "TCP initial window in segments: N (RFC 6928 for 10) or 0 for RFC 3390's 3 (default 10)");
static unsigned int tcp_ecn = 2;
module_param(tcp_ecn, uint, 0444);
MODULE_PARM_DESC(tcp_ecn, "TCP ECN (RFC 3168) on NewReno and CUBIC ports: 0 never, 1 ask and accept, 2 accept when asked (default 2); DCTCP ports always ask");
static unsigned int tcp_invalid_ratelimit_ms = 500;
module_param(tcp_invalid_ratelimit_ms, uint, 0444);
MODULE_PARM_DESC(tcp_invalid_ratelimit_ms, "Least ms between a TCP connection's ACKs to out-of-window or PAWS-rejected segments, 0-60000; 0: no limit (default 500)");

/*
 * The knobs' ranges, checked when the module loads: a value outside them
 * fails insmod with -EINVAL and names the parameter, rather than running
 * with something the operator did not ask for.
 */
static const struct {
	const char		*name;
	const unsigned int	*val;
	unsigned int		min;
	unsigned int		max;
} ixm_tcp_params[] = {
	/* RFC 9293 §3.8.6.3: an ACK MUST NOT be delayed 0.5 s or more */
	{ "tcp_delack_us", &tcp_delack_us, 0, 500000 },
	{ "tcp_rto_min_ms", &tcp_rto_min_ms, 1, 60000 },
	{ "tcp_syncookies", &tcp_syncookies, 0, 2 },
	{ "tcp_keepalive_s", &tcp_keepalive_s, 0, INT_MAX / 1000 },
	{ "tcp_rcv_buf", &tcp_rcv_buf, 4096, 1048576 },
	{ "tcp_invalid_ratelimit_ms", &tcp_invalid_ratelimit_ms, 0, 60000 },
	{ "tcp_sack", &tcp_sack, 0, 1 },
	{ "tcp_ecn", &tcp_ecn, 0, 2 },
	{ "tcp_init_cwnd", &tcp_init_cwnd, 0, 64 },
};

static int ixm_dp_check_params(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ixm_tcp_params); i++) {
		unsigned int v = *ixm_tcp_params[i].val;

		if (v < ixm_tcp_params[i].min || v > ixm_tcp_params[i].max) {
			pr_err("%s=%u is out of range: give %u to %u\n",
			       ixm_tcp_params[i].name, v, ixm_tcp_params[i].min,
			       ixm_tcp_params[i].max);
			return -EINVAL;
		}
	}
	return 0;
}

static void ixm_dp_tcp_init(struct ixm_core *core)
{
	struct ixm_tcp_config cfg;
	u64 secret[4];

	ixm_tcp_config_default(&cfg);
	cfg.delack_us = tcp_delack_us;
	cfg.rto_min_us = tcp_rto_min_ms * 1000;
	cfg.syncookies = tcp_syncookies;
	cfg.keepalive_ns = (u64)tcp_keepalive_s * NSEC_PER_SEC;
	cfg.rcv_buf = tcp_rcv_buf;
	cfg.invalid_ratelimit_ns = (u64)tcp_invalid_ratelimit_ms * NSEC_PER_MSEC;
	cfg.sack = tcp_sack;
	cfg.ecn = tcp_ecn;
	cfg.init_cwnd = tcp_init_cwnd;
	get_random_bytes(secret, sizeof(secret));
	core->stack.tcp = core->tcp;
	core->stack.now_ns = ktime_get_ns();
	ixm_tcp_table_init(core->tcp, &core->stack, &cfg, secret);
	memzero_explicit(secret, sizeof(secret));
}

static int ixm_dp_thread(void *arg)
{
	struct ixm_core *core = arg;
	u64 idle_since = ktime_get_ns();

	mutex_lock(&core->loop_lock);
	while (!kthread_should_stop()) {
		unsigned int work;

		/* a co-located thread runs the loop: stay out (colo.c) */
		if (unlikely(READ_ONCE(core->colo_task)) && ixm_colo_has_core(core)) {
			ixm_colo_park(core);
			idle_since = ktime_get_ns();
			continue;
		}
		work = ixm_core_run_once(core, &idle_since);
		if (!work) {
			if (ixm_core_idle_expired(core, idle_since)) {
				ixm_core_sleep(core, MAX_SCHEDULE_TIMEOUT);
				idle_since = ktime_get_ns();
			} else {
				cpu_relax();
			}
		}
		cond_resched();
	}
	mutex_unlock(&core->loop_lock);
	return 0;
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
	for_each_cpu(cpu, ixm_dp_mask) {
		ixm_core_wake(ixm_cores[cpu]);
		/* a parked thread waits out the away_us it read */
		wake_up(&ixm_cores[cpu]->park_wq);
	}
}

/*
 * Create @core's thread, bound to its CPU, not yet woken.  Injectable
 * (ERRNO), as is ixm_core_create(): the operator's write to cores fails
 * and nothing changes.
 */
static noinline int ixm_dp_thread_create(struct ixm_core *core)
{
	struct task_struct *task;

	task = kthread_create_on_node(ixm_dp_thread, core, cpu_to_node(core->cpu),
				      "ixmod/%u", core->cpu);
	if (IS_ERR(task))
		return PTR_ERR(task);
	kthread_bind(task, core->cpu);
	get_task_struct(task);
	core->task = task;
	return 0;
}
ALLOW_ERROR_INJECTION(ixm_dp_thread_create, ERRNO);

static noinline struct ixm_core *ixm_core_create(unsigned int cpu, struct kobject *parent)
{
	struct ixm_core *core;
	int err;

	might_sleep();
	core = kzalloc_node(sizeof(*core), GFP_KERNEL, cpu_to_node(cpu));
	if (!core)
		return ERR_PTR(-ENOMEM);
	core->cpu = cpu;
	init_waitqueue_head(&core->wq);
	mutex_init(&core->req_lock);
	mutex_init(&core->attach_lock);
	init_completion(&core->req_done);
	mutex_init(&core->loop_lock);
	init_waitqueue_head(&core->park_wq);
	spin_lock_init(&core->colo_lock);
	timer_setup(&core->away_timer, ixm_colo_away_fn, 0);
	core->udp = vzalloc_node(sizeof(*core->udp), cpu_to_node(cpu));
	if (!core->udp) {
		kfree(core);
		return ERR_PTR(-ENOMEM);
	}
	ixm_udp_table_init(core->udp, get_random_u32());
	core->stack.udp = core->udp;
	core->tcp = vzalloc_node(sizeof(*core->tcp), cpu_to_node(cpu));
	if (!core->tcp) {
		vfree(core->udp);
		kfree(core);
		return ERR_PTR(-ENOMEM);
	}
	ixm_dp_tcp_init(core);
	kobject_init(&core->kobj, &ixm_core_ktype);	/* from here kobject_put() frees */

	err = ixm_dp_thread_create(core);
	if (err)
		goto err_put_core;

	err = kobject_add(&core->kobj, parent, "cpu%u", cpu);
	if (err)
		goto err_stop_thread;

	wake_up_process(core->task);
	trace_ixm_core_start(cpu, 0);
	return core;

err_stop_thread:
	kthread_stop(core->task);	/* never woken: threadfn does not run */
	put_task_struct(core->task);
err_put_core:
	kobject_put(&core->kobj);
	return ERR_PTR(err);
}
ALLOW_ERROR_INJECTION(ixm_core_create, ERRNO);

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
 * ixm_dp_cpus() - list the dataplane cores in ascending order
 * @cpus: filled with CPU numbers
 * @max: room in @cpus
 * @only: list only the cores in this set; NULL for all
 *
 * Context: process, ixm_cfg_lock held.
 * Return: how many cores there are (may exceed @max; only @max are written).
 */
unsigned int ixm_dp_cpus(unsigned int *cpus, unsigned int max, const struct cpumask *only)
{
	unsigned int cpu, n = 0;

	lockdep_assert_held(&ixm_cfg_lock);
	for_each_cpu(cpu, ixm_dp_mask) {
		if (only && !cpumask_test_cpu(cpu, only))
			continue;
		if (n < max)
			cpus[n] = cpu;
		n++;
	}
	return n;
}

/**
 * ixm_dp_core() - the state of dataplane core @cpu
 * @cpu: a CPU in the dataplane set
 *
 * Context: ixm_cfg_lock held, or a port up on @cpu (cores cannot change).
 * Return: the core, NULL if @cpu is not a dataplane core.
 */
struct ixm_core *ixm_dp_core(unsigned int cpu)
{
	return cpu < nr_cpu_ids ? ixm_cores[cpu] : NULL;
}

/**
 * ixm_dp_attach_lock_all() - take or drop every core's attach_lock
 * @lock: take them (true) or drop them (false)
 *
 * For a PCI removal under attached contexts: no context is being attached
 * or released on any core while its port goes away.
 *
 * Context: process, ixm_cfg_lock held (it orders the cores' locks).
 */
void ixm_dp_attach_lock_all(bool lock)
{
	unsigned int cpu;

	lockdep_assert_held(&ixm_cfg_lock);
	for_each_possible_cpu(cpu) {
		struct ixm_core *core = ixm_dp_core(cpu);

		if (!core)
			continue;
		if (lock)
			mutex_lock_nest_lock(&core->attach_lock, &ixm_cfg_lock);
		else
			mutex_unlock(&core->attach_lock);
	}
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

	ret = ixm_dp_check_params();
	if (ret)
		return ret;
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
