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
#include <linux/error-injection.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/isolation.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/dma-mapping.h>

#include "ixmod.h"
#include "net/arp.h"
#include "net/call.h"
#include "net/loop.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

DEFINE_MUTEX(ixm_cfg_lock);

/*
 * What lockdep sees of the run-to-completion loop: each iteration of a
 * dataplane thread "holds" this map, and a process that waits for a
 * thread (ixm_core_request()) takes it for a moment first, as flush_work()
 * does.  The waiters hold ixm_cfg_lock, so a thread that took
 * ixm_cfg_lock, or any lock held across a request, inside its loop would
 * be reported as the deadlock it is.
 */
#ifdef CONFIG_LOCKDEP
static struct lockdep_map ixm_dp_iter_map =
	STATIC_LOCKDEP_MAP_INIT("ixmod_dp_iteration", &ixm_dp_iter_map);
#endif
unsigned int ixm_idle_us = IXM_IDLE_US_DEFAULT;
unsigned int ixm_rx_batch = IXM_RX_BATCH_DEFAULT;
unsigned int ixm_idle_looks = IXM_IDLE_LOOKS_DEFAULT;

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

/* Tracepoint hook of the portable protocol code (net/net.h). */
void ixm_net_trace_drop(const struct ixm_net_port *port, unsigned int reason,
			unsigned int len)
{
	trace_ixm_drop(raw_smp_processor_id(), reason, len);
}

void ixm_tcp_trace_state(const struct ixm_tcp_conn *c, unsigned int old,
			 unsigned int state)
{
	trace_ixm_tcp_state(raw_smp_processor_id(), ixm_tcp_idx(c), c->raddr,
			    ntohs(c->rport), ntohs(c->lport), old, state);
}

void ixm_tcp_trace_retrans(const struct ixm_tcp_conn *c, u32 seq, u32 len,
			   bool timeout)
{
	trace_ixm_tcp_retrans(raw_smp_processor_id(), ixm_tcp_idx(c), seq, len,
			      timeout, c->cwnd, c->rto_us);
}

void ixm_tcp_trace_stall(const struct ixm_tcp_conn *c, u32 asked)
{
	trace_ixm_tcp_stall(raw_smp_processor_id(), ixm_tcp_idx(c), asked,
			    c->snd_wnd, c->cwnd, c->snd_max - c->snd_una);
}

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
	get_random_bytes(secret, sizeof(secret));
	core->stack.tcp = core->tcp;
	core->stack.now_ns = ktime_get_ns();
	ixm_tcp_table_init(core->tcp, &core->stack, &cfg, secret);
	memzero_explicit(secret, sizeof(secret));
}

void ixm_net_trace_rx_batch(const struct ixm_net_port *port, unsigned int n)
{
	const struct ixm_qpair *qp = container_of(port, struct ixm_qpair, net);

	trace_ixm_rx_batch(qp->cpu, qp->q->idx, n);
}

void ixm_net_trace_tx_batch(const struct ixm_net_port *port, unsigned int sent,
			    unsigned int dropped)
{
	const struct ixm_qpair *qp = container_of(port, struct ixm_qpair, net);

	trace_ixm_tx_batch(qp->cpu, qp->q->idx, sent, dropped);
}

/*
 * What the kernel refreshes before an iteration: the configuration each
 * queue pair's protocols read (RCU) and a pending ARP announcement.
 */
static void ixm_dp_begin_qpair(struct ixm_qpair *qp)
{
	struct ixm_net_port *np = &qp->net;

	np->cfg = rcu_dereference(qp->port->cfg);
	if (unlikely(qp->q->idx == 0 && test_bit(0, &qp->port->announce) &&
		     test_and_clear_bit(0, &qp->port->announce))) {
		np->now_ns = qp->core->stack.now_ns;
		if (np->cfg->ip)
			ixm_arp_announce(np);
	}
}

/*
 * A new owner must not read what the core received for the last one:
 * zero every buffer page.  Transmissions are reaped first (bounded), so
 * that no frame is zeroed while the NIC still reads it.
 */
static void ixm_dp_scrub(struct ixm_core_work *work)
{
	unsigned int i, j, spins;

	for (i = 0; work && i < work->nr; i++) {
		struct ixm_qpair *qp = work->qp[i];
		struct ixm_queue *q = qp->q;

		for (spins = 0; spins < 100000; spins++) {
			struct ixm_queue_stats qs;

			q->ops->tx_reap(q);
			q->ops->get_stats(q, &qs);
			if (!qs.tx_pending)
				break;
			cpu_relax();
		}
		for (j = 0; j < qp->npages; j++)
			memset(page_address(qp->pages[j]), 0, PAGE_SIZE);
	}
}

/*
 * ixm_dp_check_alive() - retire contexts whose receive region went away
 * @core: the core
 * @work: its current work
 *
 * A port that vanished under its contexts (PCI removal) rebuilt @work; the
 * contexts set up before that are marked dead: IXMOD_RING_DEAD in both
 * rings, EPOLLERR, no more calls or events.
 *
 * Context: @core's thread.
 */
static void ixm_dp_check_alive(struct ixm_core *core, struct ixm_core_work *work)
{
	struct ixm_app *app;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "ixmod: contexts walked outside RCU");

	ixm_stack_for_each_app(app, &core->stack) {
		struct ixm_ctx *ctx = container_of(app, struct ixm_ctx, app);

		if (ctx->app.dead || (work && work->gen == ctx->work_gen))
			continue;
		ctx->app.dead = true;
		ixm_ring_set_flag(&ctx->app.calls, IXMOD_RING_DEAD);
		ixm_ring_set_flag(&ctx->app.events, IXMOD_RING_DEAD);
		wake_up_all(&ctx->wq);
	}
}

/*
 * ixm_dp_set_need_wakeup() - tell applications whether the thread sleeps
 * @core: the core
 * @on: set IXMOD_RING_NEED_WAKEUP before sleeping, clear it after
 *
 * Setting is followed by a full barrier (E) so that the caller's last look
 * at the call rings cannot be ordered before it (net/ring.h).
 *
 * Context: @core's thread.
 */
static void ixm_dp_set_need_wakeup(struct ixm_core *core, bool on)
{
	struct ixm_app *app;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "ixmod: contexts walked outside RCU");

	ixm_stack_for_each_app(app, &core->stack) {
		if (on)
			ixm_ring_set_flag(&app->calls, IXMOD_RING_NEED_WAKEUP);
		else
			ixm_ring_clear_flag(&app->calls, IXMOD_RING_NEED_WAKEUP);
	}
	if (on)
		smp_mb();	/* (E), pairs with (E) in ixu_call_submit() */
}

/* Carry out a request a process is waiting for (ixm_core_request()). */
static void ixm_dp_handle_request(struct ixm_core *core, struct ixm_core_work *work)
{
	int req = smp_load_acquire(&core->req);	/* pairs with ixm_core_request() */

	if (likely(req == IXM_REQ_NONE))
		return;
	if (req == IXM_REQ_PURGE) {
		ixm_app_release_all(&core->req_ctx->app);
		ixm_app_stats_fold(&core->app_closed, &core->req_ctx->app.stats);
	} else if (req == IXM_REQ_SCRUB) {
		ixm_dp_scrub(work);
	} else if (req == IXM_REQ_POOL_GONE) {
		/* the contexts that lost the port are dead before TCP looks */
		ixm_dp_check_alive(core, work);
		ixm_stack_pool_gone(&core->stack, core->req_pool);
	}
	WRITE_ONCE(core->req, IXM_REQ_NONE);
	complete(&core->req_done);
}

/*
 * Run one iteration of the run-to-completion loop (net/loop.c) and return
 * how much work it found; before it, the kernel's part: the queue pairs
 * this iteration serves (RCU), a request a process waits for, contexts
 * that lost their ports, the configuration the protocols read.
 */
unsigned int ixm_dp_iterate(struct ixm_core *core)
{
	unsigned int batch = READ_ONCE(ixm_rx_batch);
	struct ixm_core_work *work;
	unsigned int i, done;

	lock_map_acquire(&ixm_dp_iter_map);
	rcu_read_lock();
	work = rcu_dereference(core->work);
	core->stack.ports = work ? work->net : NULL;
	core->stack.nports = work ? work->nr : 0;
	core->stack.now_ns = ktime_get_ns();
	ixm_dp_handle_request(core, work);
	/* contexts die only when @work changes under them: look then */
	if (unlikely((work ? work->gen : 0) != core->alive_gen)) {
		ixm_dp_check_alive(core, work);
		core->alive_gen = work ? work->gen : 0;
	}
	for (i = 0; work && i < work->nr; i++)
		ixm_dp_begin_qpair(work->qp[i]);
	done = ixm_loop_iterate(&core->stack, batch, IXM_CALL_BATCH);
	rcu_read_unlock();
	lock_map_release(&ixm_dp_iter_map);
	return done;
}

/* Unmask the queue interrupts that will wake this core from its sleep. */
static void ixm_dp_arm_irqs(struct ixm_core *core)
{
	struct ixm_core_work *work;
	unsigned int i;

	rcu_read_lock();
	work = rcu_dereference(core->work);
	for (i = 0; work && i < work->nr; i++)
		work->qp[i]->q->ops->arm(work->qp[i]->q);
	rcu_read_unlock();
}

/*
 * Has @core found no work since @idle_since for idle_us?  Against the
 * iteration's own time (&struct ixm_stack.now_ns): an idle iteration
 * reads the clock once, in ixm_dp_iterate().
 */
bool ixm_dp_idle_expired(struct ixm_core *core, u64 idle_since)
{
	unsigned int idle_us = READ_ONCE(ixm_idle_us);

	/*
	 * idle_us == 0: never sleep, poll forever.  @now_ns is the last whole
	 * iteration's: after looks (ixm_dp_look_idle()) it may predate
	 * @idle_since, which is then not expired.
	 */
	return idle_us && (s64)(core->stack.now_ns - idle_since) >=
			  (s64)idle_us * NSEC_PER_USEC;
}

/*
 * Jiffies a sleeping core may wait for its next TCP timer: at least one,
 * at most a second (a bound, not a need: waking early is harmless).
 */
static long ixm_dp_timer_wait(struct ixm_core *core)
{
	u64 next = ixm_timer_next_ns(&core->tcp->wheel), now = ktime_get_ns();

	if (next <= now)
		return 1;
	return clamp_t(long, nsecs_to_jiffies(next - now), 1, HZ);
}

/* What ends a sleep: a wake, and for the thread a stop, for an application a signal */
static bool ixm_dp_sleep_over(struct ixm_core *core)
{
	if (READ_ONCE(core->wake))
		return true;
	if (current == core->task)
		return kthread_should_stop();
	return signal_pending(current);
}

/**
 * ixm_dp_sleep() - sleep until a queue interrupt, a wake or a TCP timer
 * @core: the core; the caller runs its loop (@core->loop_lock)
 * @timeout: jiffies at most (MAX_SCHEDULE_TIMEOUT: no bound but the timers)
 *
 * The thread (TASK_IDLE: not in the load average) and a co-located
 * application thread (interruptible: a signal ends it) sleep the same way.
 *
 * Return: false if one last look found work and no sleep happened.
 */
bool ixm_dp_sleep(struct ixm_core *core, long timeout)
{
	/*
	 * Arm the queue interrupts, then look once more: a frame that
	 * arrived before the interrupt was armed raised none.
	 */
	ixm_dp_arm_irqs(core);
	rcu_read_lock();
	ixm_dp_set_need_wakeup(core, true);
	rcu_read_unlock();
	if (ixm_dp_iterate(core)) {
		rcu_read_lock();
		ixm_dp_set_need_wakeup(core, false);
		rcu_read_unlock();
		core->stats.busy++;
		return false;
	}
	trace_ixm_core_sleep(core->cpu, core->stats.iterations);
	WRITE_ONCE(core->sleeping, true);
	core->stats.sleeps++;
	if (core->tcp->wheel.pending)	/* TCP timers run even when idle */
		timeout = min(timeout, ixm_dp_timer_wait(core));
	/*
	 * The condition is checked after the task is queued on @wq, so a
	 * wake-up between the caller's last poll and here is not lost.
	 */
	if (current == core->task)
		wait_event_idle_timeout(core->wq, ixm_dp_sleep_over(core), timeout);
	else
		wait_event_interruptible_timeout(core->wq, ixm_dp_sleep_over(core), timeout);
	WRITE_ONCE(core->sleeping, false);
	core->looks = 0;	/* something woke it: a whole iteration first */
	if (READ_ONCE(core->wake)) {
		WRITE_ONCE(core->wake, false);
		core->stats.wakeups++;
	}
	rcu_read_lock();
	ixm_dp_set_need_wakeup(core, false);
	rcu_read_unlock();
	trace_ixm_core_wake(core->cpu, core->stats.iterations);
	return true;
}

/*
 * An idle core's cheap iteration.  After a whole iteration that found
 * nothing, the next idle_looks iterations only look (ixm_loop_busy(): no
 * clock read, no ring or descriptor written, no lock) and the first that
 * sees something runs a whole one; a request, a context that may have
 * died and every idle_looks-th idle iteration (TCP's timers, the clock
 * that idle_us and the co-located call's deadline read) do too.
 *
 * Return: true if this iteration only looked and found nothing.
 */
static bool ixm_dp_look_idle(struct ixm_core *core)
{
	struct ixm_core_work *work;
	bool busy;

	if (!core->looks || core->looks > READ_ONCE(ixm_idle_looks) ||
	    READ_ONCE(core->req) != IXM_REQ_NONE)
		return false;
	rcu_read_lock();
	work = rcu_dereference(core->work);
	core->stack.ports = work ? work->net : NULL;
	core->stack.nports = work ? work->nr : 0;
	busy = (work ? work->gen : 0) != core->alive_gen || ixm_loop_busy(&core->stack);
	rcu_read_unlock();
	if (busy)
		return false;
	core->looks++;
	return true;
}

/**
 * ixm_dp_run_once() - one counted iteration, for whoever runs the loop
 * @core: the core (@core->loop_lock held)
 * @idle_since: the time (&struct ixm_stack.now_ns, ktime_get_ns()) of
 *	the last iteration that found work; updated
 *
 * An idle core mostly only looks for work (ixm_dp_look_idle()).
 *
 * Return: the work found (ixm_dp_iterate()); 0 for a look.
 */
unsigned int ixm_dp_run_once(struct ixm_core *core, u64 *idle_since)
{
	unsigned int work;

	core->stats.iterations++;
	if (ixm_dp_look_idle(core)) {
		core->stats.idle++;
		core->stats.looks++;
		return 0;
	}
	work = ixm_dp_iterate(core);
	if (work) {
		core->stats.busy++;
		*idle_since = core->stack.now_ns;
		core->looks = 0;
	} else {
		core->stats.idle++;
		core->looks = 1;
	}
	return work;
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
		work = ixm_dp_run_once(core, &idle_since);
		if (!work) {
			if (ixm_dp_idle_expired(core, idle_since)) {
				ixm_dp_sleep(core, MAX_SCHEDULE_TIMEOUT);
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

/* The request itself; @pool is IXM_REQ_POOL_GONE's. */
static void __ixm_core_request(struct ixm_core *core, int req, struct ixm_ctx *ctx,
			       struct ixm_mbuf_pool *pool)
{
	might_sleep();
	/* the thread's iteration completes the request (see ixm_dp_iter_map) */
	lock_map_acquire(&ixm_dp_iter_map);
	lock_map_release(&ixm_dp_iter_map);
	mutex_lock(&core->req_lock);
	reinit_completion(&core->req_done);
	core->req_ctx = ctx;
	core->req_pool = pool;
	smp_store_release(&core->req, req);	/* pairs with ixm_dp_handle_request() */
	ixm_core_wake(core);
	/* a parked thread serves a request when no application is inside */
	wake_up(&core->park_wq);
	wait_for_completion(&core->req_done);
	core->req_ctx = NULL;
	core->req_pool = NULL;
	mutex_unlock(&core->req_lock);
}

/**
 * ixm_core_request() - have a core's thread do something and wait for it
 * @core: the core (its thread is running: cores do not change while
 *	contexts are attached)
 * @req: IXM_REQ_PURGE or IXM_REQ_SCRUB
 * @ctx: the context a purge is for
 *
 * The thread carries the request out at the start of its next iteration,
 * where it holds no queue pair or context state half-way.
 *
 * Context: process; sleeps.
 */
void ixm_core_request(struct ixm_core *core, int req, struct ixm_ctx *ctx)
{
	__ixm_core_request(core, req, ctx, NULL);
}

/**
 * ixm_core_pool_gone() - have a core's thread let go of a pool
 * @core: the core of the pool (its thread is running: cores do not
 *	change while a port is up)
 * @pool: a queue pair's pool, already out of @core's work (unpublished,
 *	and a grace period has passed), not yet freed
 *
 * When it returns, nothing on @core points into @pool any more
 * (ixm_stack_pool_gone()): @pool may be freed.
 *
 * Context: process; sleeps.
 */
void ixm_core_pool_gone(struct ixm_core *core, struct ixm_mbuf_pool *pool)
{
	__ixm_core_request(core, IXM_REQ_POOL_GONE, NULL, pool);
}

/**
 * ixm_core_wake() - wake a sleeping dataplane thread
 * @core: the core
 *
 * Whoever sleeps in the loop: the kernel thread, or a co-located
 * application thread inside IXMOD_IOC_RUN.  A kernel thread parked beside
 * that application stays parked (colo.c): a queue interrupt is the
 * application's to serve, and waking the parked thread would cost two
 * context switches a request for nothing.
 *
 * Context: any; cheap when the thread is not sleeping.
 */
void ixm_core_wake(struct ixm_core *core)
{
	WRITE_ONCE(core->wake, true);
	wake_up(&core->wq);
}

/**
 * ixm_core_wake_loop() - wake a core's loop if it sleeps idle, nothing more
 * @core: the core
 *
 * For IXMOD_IOC_RUN's entry: a kernel thread asleep inside the loop (it
 * holds the loop) must wake to park; a parked one stays parked, since
 * waking it costs two context switches and it would only park again.
 */
void ixm_core_wake_loop(struct ixm_core *core)
{
	WRITE_ONCE(core->wake, true);
	if (wq_has_sleeper(&core->wq))
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
