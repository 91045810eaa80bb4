// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - /sys/kernel/ixmod: the operator's control plane
 *
 *   /sys/kernel/ixmod/cores             rw  cpulist of dataplane cores
 *   /sys/kernel/ixmod/idle_us           rw  idle polling time before sleep
 *   /sys/kernel/ixmod/idle_looks        rw  cheap looks between whole idle iterations
 *   /sys/kernel/ixmod/away_us           rw  a co-located thread's time out
 *   /sys/kernel/ixmod/rx_batch          rw  frames per queue per iteration
 *   /sys/kernel/ixmod/dataplane/cpuN/   one directory per dataplane core:
 *       pid, state, isolated, stats/{iterations,busy,idle,looks,sleeps,wakeups}
 *
 * Documented in Documentation/ABI/testing/sysfs-ixmod.  Every store
 * follows one shape: parse and validate all of the input (each failure
 * returns an errno with one dmesg line naming the attribute, the bad value
 * and the fix), then take ixm_cfg_lock and act; a failed write changes
 * nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ixmod.h"

struct kobject *ixm_top_kobj;
static struct kobject *ixm_dp_kobj;

/* Length of @buf up to its first newline, capped for log messages. */
static int ixm_input_len(const char *buf)
{
	return min_t(size_t, strcspn(buf, "\n"), 64);
}

/* ---- /sys/kernel/ixmod/cores ---- */

static ssize_t cores_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	cpumask_var_t mask;
	ssize_t ret;

	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	mutex_lock(&ixm_cfg_lock);
	ixm_dp_get_cores(mask);
	mutex_unlock(&ixm_cfg_lock);
	ret = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(mask));
	free_cpumask_var(mask);
	return ret;
}

/*
 * Check that every CPU of @req exists and is online.  Called with the CPU
 * hotplug lock held, so the answer holds until the threads are bound.
 */
static int ixm_cores_check_online(const struct cpumask *req)
{
	unsigned int cpu;

	for_each_cpu(cpu, req) {
		if (cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
			pr_err("cores: cpu %u does not exist; this machine has cpus %*pbl\n",
			       cpu, cpumask_pr_args(cpu_possible_mask));
			return -EINVAL;
		}
		if (!cpu_online(cpu)) {
			pr_err("cores: cpu %u is offline; bring it online (/sys/devices/system/cpu/cpu%u/online) or leave it out\n",
			       cpu, cpu);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Compute the new set from the current one.  The input is a cpulist
 * ("2-5,7": the whole set), "+LIST" (add cores, none of them already a
 * dataplane core) or "-LIST" (remove cores, all of them dataplane cores).
 */
static int ixm_cores_compute(char op, const struct cpumask *req,
			     const struct cpumask *cur, struct cpumask *want)
{
	unsigned int cpu;

	switch (op) {
	case '+':
		for_each_cpu(cpu, req) {
			if (cpumask_test_cpu(cpu, cur)) {
				pr_err("cores: cpu %u is already a dataplane core; +LIST adds only new cores\n",
				       cpu);
				return -EBUSY;
			}
		}
		cpumask_or(want, cur, req);
		return 0;
	case '-':
		for_each_cpu(cpu, req) {
			if (!cpumask_test_cpu(cpu, cur)) {
				pr_err("cores: cpu %u is not a dataplane core; -LIST removes only assigned cores\n",
				       cpu);
				return -EINVAL;
			}
		}
		cpumask_andnot(want, cur, req);
		return 0;
	default:
		cpumask_copy(want, req);
		return 0;
	}
}

static void ixm_cores_warn_isolation(const struct cpumask *want,
				     const struct cpumask *cur)
{
	unsigned int cpu;

	for_each_cpu(cpu, want) {
		if (cpumask_test_cpu(cpu, cur) || ixm_cpu_is_isolated(cpu))
			continue;
		pr_warn("cores: cpu %u is not isolated; boot with isolcpus=%u nohz_full=%u so Linux leaves it to the dataplane\n",
			cpu, cpu, cpu);
	}
}

static ssize_t cores_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	cpumask_var_t req, cur, want;
	const char *list = buf;
	char op = 0;
	int err;

	if (*buf == '+' || *buf == '-')
		op = *list++;

	if (!alloc_cpumask_var(&req, GFP_KERNEL))
		goto out_nomem;
	if (!alloc_cpumask_var(&cur, GFP_KERNEL)) {
		free_cpumask_var(req);
		goto out_nomem;
	}
	if (!alloc_cpumask_var(&want, GFP_KERNEL)) {
		free_cpumask_var(cur);
		free_cpumask_var(req);
		goto out_nomem;
	}

	err = cpulist_parse(list, req);
	if (err) {
		pr_err("cores: cannot parse '%.*s'; write a cpulist such as 2-5 or 2,4, optionally prefixed by + or -\n",
		       ixm_input_len(buf), buf);
		err = -EINVAL;
		goto out_free_want;
	}
	if (op && cpumask_empty(req)) {
		pr_err("cores: '%.*s' names no cpu; write +LIST or -LIST with at least one cpu\n",
		       ixm_input_len(buf), buf);
		err = -EINVAL;
		goto out_free_want;
	}

	mutex_lock(&ixm_cfg_lock);
	cpus_read_lock();
	err = ixm_cores_check_online(req);
	if (err)
		goto out_unlock;
	ixm_dp_get_cores(cur);
	err = ixm_cores_compute(op, req, cur, want);
	if (err)
		goto out_unlock;
	if (!cpumask_empty(want) && cpumask_subset(cpu_online_mask, want)) {
		pr_err("cores: '%.*s' would leave no online cpu for Linux; keep at least one cpu out of the list\n",
		       ixm_input_len(buf), buf);
		err = -EINVAL;
		goto out_unlock;
	}
	if (cpumask_equal(want, cur))
		goto out_unlock;
	if (ixm_ports_any_up()) {
		pr_err("cores: a port is up and its queues are bound to the cores; write 0 to ports/*/up first\n");
		err = -EBUSY;
		goto out_unlock;
	}
	if (ixm_ctx_count) {
		pr_err("cores: %u application contexts are attached to the cores; close them first\n",
		       ixm_ctx_count);
		err = -EBUSY;
		goto out_unlock;
	}

	err = ixm_dp_set_cores(want, ixm_dp_kobj);
	if (!err) {
		/* only about what took effect: a failure says one thing */
		ixm_cores_warn_isolation(want, cur);
		pr_info("cores: dataplane cores are now '%*pbl'\n",
			cpumask_pr_args(want));
	}
out_unlock:
	cpus_read_unlock();
	mutex_unlock(&ixm_cfg_lock);
out_free_want:
	free_cpumask_var(want);
	free_cpumask_var(cur);
	free_cpumask_var(req);
	return err ? err : count;

out_nomem:
	pr_err("cores: out of memory for the cpu masks; nothing changed\n");
	return -ENOMEM;
}
static struct kobj_attribute cores_attr = __ATTR_RW(cores);

/*
 * A decimal number in [@min, @max] for attribute @name; else one line
 * that names the attribute, the input and what to write (@what, then the
 * range, then @hint), and -EINVAL.
 */
static int ixm_parse_uint(const char *name, const char *buf, unsigned int min,
			  unsigned int max, const char *what, const char *hint,
			  unsigned int *val)
{
	if (!kstrtouint(buf, 10, val) && *val >= min && *val <= max)
		return 0;
	pr_err("%s: '%.*s' is not %s %u-%u%s\n", name, ixm_input_len(buf), buf, what,
	       min, max, hint);
	return -EINVAL;
}

/*
 * The loop's tunables: each a number the cores read with READ_ONCE at
 * their next iteration (or, asleep, when woken: @wake).
 */
struct ixm_tunable {
	struct kobj_attribute	attr;
	unsigned int		*val;
	unsigned int		min;
	unsigned int		max;
	const char		*what;
	const char		*hint;
	bool			wake;
};

static ssize_t ixm_tunable_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	const struct ixm_tunable *t = container_of(attr, struct ixm_tunable, attr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*t->val));
}

static ssize_t ixm_tunable_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	const struct ixm_tunable *t = container_of(attr, struct ixm_tunable, attr);
	unsigned int val;
	int err;

	err = ixm_parse_uint(attr->attr.name, buf, t->min, t->max, t->what, t->hint, &val);
	if (err)
		return err;
	if (!t->wake) {
		WRITE_ONCE(*t->val, val);
		return count;
	}
	mutex_lock(&ixm_cfg_lock);
	WRITE_ONCE(*t->val, val);
	ixm_dp_wake_all();	/* sleeping threads re-read it */
	mutex_unlock(&ixm_cfg_lock);
	return count;
}

#define IXM_TUNABLE(_name, _min, _max, _what, _hint, _wake)			\
	static struct ixm_tunable _name##_attr = {				\
		.attr	= __ATTR(_name, 0644, ixm_tunable_show, ixm_tunable_store), \
		.val	= &ixm_##_name,						\
		.min	= _min,							\
		.max	= _max,							\
		.what	= _what,						\
		.hint	= _hint,						\
		.wake	= _wake,						\
	}

/* /sys/kernel/ixmod/{idle_us,idle_looks,away_us,rx_batch} */
IXM_TUNABLE(idle_us, 0, IXM_IDLE_US_MAX, "a number of microseconds",
	    " (0 polls forever)", true);
IXM_TUNABLE(idle_looks, 0, IXM_IDLE_LOOKS_MAX, "a number of looks",
	    " an idle core takes between whole iterations (0: none)", false);
IXM_TUNABLE(away_us, 1, IXM_AWAY_US_MAX, "a number of microseconds",
	    " (how long a co-located thread may stay out before its core's thread takes over)",
	    true);
IXM_TUNABLE(rx_batch, 1, IXM_RX_BATCH_MAX, "a number of frames",
	    " a queue may deliver per iteration", false);

/* ---- /sys/kernel/ixmod/arenas_kept ---- */

static ssize_t arenas_kept_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	unsigned int n;

	mutex_lock(&ixm_cfg_lock);
	n = ixm_arenas_kept;
	mutex_unlock(&ixm_cfg_lock);
	return sysfs_emit(buf, "%u\n", n);
}
static struct kobj_attribute arenas_kept_attr = __ATTR_RO(arenas_kept);

static struct attribute *ixm_top_attrs[] = {
	&cores_attr.attr,
	&idle_us_attr.attr.attr,
	&idle_looks_attr.attr.attr,
	&away_us_attr.attr.attr,
	&rx_batch_attr.attr.attr,
	&arenas_kept_attr.attr,
	NULL,
};

static const struct attribute_group ixm_top_group = {
	.attrs = ixm_top_attrs,
};

/**
 * ixm_sysfs_init() - create /sys/kernel/ixmod
 *
 * Return: 0 or -errno.
 */
int ixm_sysfs_init(void)
{
	int err;

	ixm_core_sysfs_init();
	ixm_top_kobj = kobject_create_and_add("ixmod", kernel_kobj);
	if (!ixm_top_kobj)
		return -ENOMEM;
	ixm_dp_kobj = kobject_create_and_add("dataplane", ixm_top_kobj);
	if (!ixm_dp_kobj) {
		err = -ENOMEM;
		goto err_put_top;
	}
	err = ixm_ports_init(ixm_top_kobj);
	if (err)
		goto err_put_dp;
	err = sysfs_create_group(ixm_top_kobj, &ixm_top_group);
	if (err)
		goto err_ports_exit;
	return 0;

err_ports_exit:
	ixm_ports_exit();
err_put_dp:
	kobject_put(ixm_dp_kobj);
err_put_top:
	kobject_put(ixm_top_kobj);
	return err;
}

/**
 * ixm_sysfs_exit() - stop every dataplane core and remove /sys/kernel/ixmod
 *
 * The attributes go first: removing them waits for writers in flight, so
 * no store can start a core after the cores are stopped.
 */
void ixm_sysfs_exit(void)
{
	sysfs_remove_group(ixm_top_kobj, &ixm_top_group);

	mutex_lock(&ixm_cfg_lock);
	cpus_read_lock();
	ixm_dp_stop_all();
	cpus_read_unlock();
	mutex_unlock(&ixm_cfg_lock);

	ixm_ports_exit();
	kobject_put(ixm_dp_kobj);
	kobject_put(ixm_top_kobj);
}
