// SPDX-License-Identifier: GPL-2.0
/*
 * core_sysfs.c - /sys/kernel/ixmod/dataplane/cpuN: a dataplane core's
 * directory (its thread, mode and owner, and its counters in stats/)
 *
 * The directory is the core's kobject: dp.c creates it with the core, and
 * its release frees the core.  Counters are read locklessly (READ_ONCE)
 * while whoever runs the core's loop writes them.  Documented in
 * Documentation/ABI/testing/sysfs-ixmod.
 */
#include <linux/kobject.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include "ixmod.h"

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

static struct ixm_core *to_core(struct kobject *kobj)
{
	return container_of(kobj, struct ixm_core, kobj);
}

static ssize_t pid_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", task_pid_nr(to_core(kobj)->task));
}
static struct kobj_attribute pid_attr = __ATTR_RO(pid);

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(to_core(kobj)->sleeping) ? "sleeping" : "polling");
}
static struct kobj_attribute state_attr = __ATTR_RO(state);

static ssize_t isolated_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", ixm_cpu_is_isolated(to_core(kobj)->cpu));
}
static struct kobj_attribute isolated_attr = __ATTR_RO(isolated);

static ssize_t owner_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_core(kobj)->owner_nr));
}
static struct kobj_attribute owner_attr = __ATTR_RO(owner);

static ssize_t contexts_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_core(kobj)->nctx));
}
static struct kobj_attribute contexts_attr = __ATTR_RO(contexts);

static ssize_t mode_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return ixm_colo_mode(to_core(kobj), buf);
}
static struct kobj_attribute mode_attr = __ATTR_RO(mode);

static struct attribute *ixm_core_attrs[] = {
	&pid_attr.attr,
	&state_attr.attr,
	&isolated_attr.attr,
	&owner_attr.attr,
	&contexts_attr.attr,
	&mode_attr.attr,
	NULL,
};

static const struct attribute_group ixm_core_group = {
	.attrs = ixm_core_attrs,
};

static u64 ixm_stat_at(const void *p, size_t off)
{
	return READ_ONCE(*(const u64 *)((const u8 *)p + off));
}

static ssize_t rx_batch_hist_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	struct ixm_core *core = to_core(kobj);
	ssize_t len = 0;
	unsigned int b;

	for (b = 0; b < IXM_BATCH_HIST; b++)
		len += sysfs_emit_at(buf, len, "%s%llu", b ? " " : "",
				     READ_ONCE(core->stack.rx_batch_hist[b]));
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}
static struct kobj_attribute rx_batch_hist_attr = __ATTR_RO(rx_batch_hist);

/* The loop's own counters (struct ixm_core_stats), written by its thread. */
#define IXM_LOOP_STAT(_name)	{ #_name, offsetof(struct ixm_core_stats, _name) }

static const struct ixm_stat_desc ixm_loop_stat_descs[] = {
	IXM_LOOP_STAT(iterations),
	IXM_LOOP_STAT(busy),
	IXM_LOOP_STAT(idle),
	IXM_LOOP_STAT(looks),
	IXM_LOOP_STAT(sleeps),
	IXM_LOOP_STAT(wakeups),
	IXM_LOOP_STAT(runs),
	IXM_LOOP_STAT(takeovers),
};
static_assert(ARRAY_SIZE(ixm_loop_stat_descs) == sizeof(struct ixm_core_stats) / sizeof(u64),
	      "a file for every loop counter");

static u64 ixm_loop_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	return ixm_stat_at(&to_core(kobj)->stats, d->off);
}

/* Traffic of this core over the queue pairs it owns now. */
#define IXM_TRAFFIC_STAT(_name)	{ #_name, offsetof(struct ixm_net_stats, _name) }

static const struct ixm_stat_desc ixm_traffic_stat_descs[] = {
	IXM_TRAFFIC_STAT(rx_packets),
	IXM_TRAFFIC_STAT(rx_bytes),
	IXM_TRAFFIC_STAT(tx_packets),
	IXM_TRAFFIC_STAT(tx_bytes),
};

static u64 ixm_traffic_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	struct ixm_core_work *work;
	unsigned int i;
	u64 sum = 0;

	rcu_read_lock();
	work = rcu_dereference(to_core(kobj)->work);
	for (i = 0; work && i < work->nr; i++)
		sum += ixm_stat_at(&work->qp[i]->stats, d->off);
	rcu_read_unlock();
	return sum;
}

/*
 * Application counters of this core: contexts closed so far plus those
 * attached now.  A context's counts move to the first term when the
 * thread purges it, so a read racing a close may miss them once.
 */
#define IXM_APP_STAT(_name)	{ "app_" #_name, offsetof(struct ixm_app_stats, _name) }

static const struct ixm_stat_desc ixm_app_stat_descs[] = {
	IXM_APP_STAT(calls),
	IXM_APP_STAT(call_errors),
	IXM_APP_STAT(events),
	{ "app_events_held", offsetof(struct ixm_app_stats, held) },
	IXM_APP_STAT(rx_dropped),
	IXM_APP_STAT(ring_corrupt),
	IXM_APP_STAT(rx_bufs),
};
static_assert(ARRAY_SIZE(ixm_app_stat_descs) == sizeof(struct ixm_app_stats) / sizeof(u64),
	      "a file for every application counter");

static u64 ixm_app_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	struct ixm_core *core = to_core(kobj);
	struct ixm_app *app;
	u64 sum;

	sum = ixm_stat_at(&core->app_closed, d->off);
	rcu_read_lock();
	ixm_stack_for_each_app(app, &core->stack)
		sum += ixm_stat_at(&app->stats, d->off);
	rcu_read_unlock();
	return sum;
}

/* TCP counters of this core (struct ixm_tcp_stats), written by its thread. */
#define IXM_TCP_STAT(_name)	{ "tcp_" #_name, offsetof(struct ixm_tcp_stats, _name) }

static const struct ixm_stat_desc ixm_tcp_stat_descs[] = {
	IXM_TCP_STAT(active_opens),
	IXM_TCP_STAT(passive_opens),
	IXM_TCP_STAT(established),
	IXM_TCP_STAT(conns),
	IXM_TCP_STAT(attempt_fails),
	IXM_TCP_STAT(resets_in),
	IXM_TCP_STAT(resets_out),
	IXM_TCP_STAT(segs_in),
	IXM_TCP_STAT(segs_out),
	IXM_TCP_STAT(retrans),
	IXM_TCP_STAT(timeouts),
	IXM_TCP_STAT(fast_retrans),
	IXM_TCP_STAT(ooo),
	IXM_TCP_STAT(dup_data),
	IXM_TCP_STAT(bad_csum),
	IXM_TCP_STAT(bad_hdr),
	IXM_TCP_STAT(no_conn),
	IXM_TCP_STAT(paws_drops),
	IXM_TCP_STAT(challenge_acks),
	IXM_TCP_STAT(out_of_window),
	IXM_TCP_STAT(syncookies_sent),
	IXM_TCP_STAT(syncookies_ok),
	IXM_TCP_STAT(syncookies_bad),
	IXM_TCP_STAT(backlog_drops),
	IXM_TCP_STAT(rcv_drops),
	IXM_TCP_STAT(zero_window_probes),
	IXM_TCP_STAT(window_stalls),
	IXM_TCP_STAT(pos_refused),
	IXM_TCP_STAT(sent_held),
	IXM_TCP_STAT(delayed_acks),
	IXM_TCP_STAT(tw_recycled),
	IXM_TCP_STAT(conn_full),
	IXM_TCP_STAT(tx_zerocopy),
	IXM_TCP_STAT(tx_copied),
	IXM_TCP_STAT(zc_waits),
	IXM_TCP_STAT(tx_oversize),
	IXM_TCP_STAT(ack_ratelimited),
	IXM_TCP_STAT(fast_path),
	IXM_TCP_STAT(ooo_coalesced),
	IXM_TCP_STAT(ooo_drops),
	IXM_TCP_STAT(ooo_pruned),
	IXM_TCP_STAT(ooo_purged),
	IXM_TCP_STAT(sacks_sent),
	IXM_TCP_STAT(dsacks_sent),
	IXM_TCP_STAT(sacks_rcvd),
	IXM_TCP_STAT(dsacks_rcvd),
	IXM_TCP_STAT(sack_recoveries),
	IXM_TCP_STAT(rack_losses),
	IXM_TCP_STAT(tlp_probes),
	IXM_TCP_STAT(spurious_retrans),
	IXM_TCP_STAT(reordering),
	IXM_TCP_STAT(ecn_conns),
	IXM_TCP_STAT(ce_rcvd),
	IXM_TCP_STAT(ece_cuts),
	IXM_TCP_STAT(icmp_unreach),
	IXM_TCP_STAT(icmp_ptb),
	IXM_TCP_STAT(icmp_ignored),
	IXM_TCP_STAT(icmp_handed),
	IXM_TCP_STAT(icmp_hand_full),
};
static_assert(ARRAY_SIZE(ixm_tcp_stat_descs) == sizeof(struct ixm_tcp_stats) / sizeof(u64),
	      "a file for every TCP counter");

static u64 ixm_tcp_stat(struct kobject *kobj, const struct ixm_stat_desc *d)
{
	return ixm_stat_at(&to_core(kobj)->tcp->stats, d->off);
}

/* A core's stats/ directory: the histogram, then these sets' files. */
static struct ixm_stat_attr ixm_traffic_stat_attrs[ARRAY_SIZE(ixm_traffic_stat_descs)];
static struct ixm_stat_attr ixm_loop_stat_attrs[ARRAY_SIZE(ixm_loop_stat_descs)];
static struct ixm_stat_attr ixm_app_stat_attrs[ARRAY_SIZE(ixm_app_stat_descs)];
static struct ixm_stat_attr ixm_tcp_stat_attrs[ARRAY_SIZE(ixm_tcp_stat_descs)];

static const struct ixm_stat_set ixm_core_stat_sets[] = {
	IXM_STAT_SET(ixm_traffic_stat_descs, ixm_traffic_stat, ixm_traffic_stat_attrs),
	IXM_STAT_SET(ixm_loop_stat_descs, ixm_loop_stat, ixm_loop_stat_attrs),
	IXM_STAT_SET(ixm_app_stat_descs, ixm_app_stat, ixm_app_stat_attrs),
	IXM_STAT_SET(ixm_tcp_stat_descs, ixm_tcp_stat, ixm_tcp_stat_attrs),
};

static struct attribute *ixm_core_stat_attrs[1 + ARRAY_SIZE(ixm_traffic_stat_descs) +
					     ARRAY_SIZE(ixm_loop_stat_descs) +
					     ARRAY_SIZE(ixm_app_stat_descs) +
					     ARRAY_SIZE(ixm_tcp_stat_descs) + 1];

static const struct attribute_group ixm_core_stat_group = {
	.name = "stats",
	.attrs = ixm_core_stat_attrs,
};

static const struct attribute_group *ixm_core_groups[] = {
	&ixm_core_group,
	&ixm_core_stat_group,
	NULL,
};

static void ixm_core_release(struct kobject *kobj)
{
	struct ixm_core *core = to_core(kobj);

	timer_shutdown_sync(&core->away_timer);
	put_pid(core->owner);
	vfree(core->udp);
	vfree(core->tcp);
	kfree(core);
}

const struct kobj_type ixm_core_ktype = {
	.release	= ixm_core_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= ixm_core_groups,
};

/**
 * ixm_core_sysfs_init() - make the files of a core's stats/ directory
 *
 * Context: module init, before any core exists.
 */
void ixm_core_sysfs_init(void)
{
	unsigned int i, n = 0;

	ixm_core_stat_attrs[n++] = &rx_batch_hist_attr.attr;
	for (i = 0; i < ARRAY_SIZE(ixm_core_stat_sets); i++)
		n += ixm_stat_set_init(&ixm_core_stat_sets[i], &ixm_core_stat_attrs[n]);
}
