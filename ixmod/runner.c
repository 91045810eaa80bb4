// SPDX-License-Identifier: GPL-2.0
/*
 * runner.c - the per-core runner: one iteration of a dataplane core's
 * loop, the idle sleep, and requests to whoever runs the loop
 *
 * A core's loop has two runners: its kernel thread (dp.c) and, in the
 * co-located mode, an application thread inside IXMOD_IOC_RUN (colo.c).
 * Both run it through this file only, with the core's loop_lock held:
 *
 *   ixm_core_run_once()      one counted iteration (a cheap look when idle)
 *   ixm_core_iterate()       one whole iteration: the kernel's part, then
 *                            ixm_loop_iterate() (net/loop.c)
 *   ixm_core_idle_expired()  idle for idle_us: time to sleep
 *   ixm_core_sleep()         sleep until a queue interrupt, a wake or a
 *                            TCP timer
 *
 * Processes reach the runner through ixm_core_request() and
 * ixm_core_pool_gone() (carried out at the start of an iteration, waited
 * for) and ixm_core_wake()/ixm_core_wake_loop().  The file calls neither
 * runner back (as io_uring's sqpoll.c serves the core behind
 * io_sq_thread_*()): which of them runs the loop is dp.c's and colo.c's
 * business.  It also defines the hook the loop calls when it has
 * published events (ixm_app_notify()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/wait.h>

#include "ixmod.h"
#include "net/arp.h"
#include "net/nd.h"
#include "net/call.h"
#include "net/icmp6_relay.h"
#include "net/loop.h"
#include "trace.h"

/*
 * What lockdep sees of the run-to-completion loop: each iteration of a
 * dataplane thread "holds" this map, and a process that waits for a
 * thread (ixm_core_request()) takes it for a moment first, as flush_work()
 * does.  The waiters hold ixm_cfg_lock, so a thread that took
 * ixm_cfg_lock, or any lock held across a request, inside its loop would
 * be reported as the deadlock it is.
 */
#ifdef CONFIG_LOCKDEP
static struct lockdep_map ixm_core_iter_map =
	STATIC_LOCKDEP_MAP_INIT("ixmod_dp_iteration", &ixm_core_iter_map);
#endif

/* The runner's knobs: sysfs.c writes them, the runner reads them (READ_ONCE) */
unsigned int ixm_idle_us = IXM_IDLE_US_DEFAULT;
unsigned int ixm_rx_batch = IXM_RX_BATCH_DEFAULT;
unsigned int ixm_idle_looks = IXM_IDLE_LOOKS_DEFAULT;

/*
 * What the kernel refreshes before an iteration: the configuration each
 * queue pair's protocols read (RCU) and pending ARP and ND announcements;
 * and the ICMPv6 errors the port's other cores handed this one (one load
 * when there are none; net/icmp6_relay.h).  Returns the work done.
 */
static unsigned int ixm_core_begin_qpair(struct ixm_qpair *qp)
{
	struct ixm_net_port *np = &qp->net;

	np->cfg = rcu_dereference(qp->port->cfg);
	if (unlikely(qp->q->idx == 0 && test_bit(0, &qp->port->announce) &&
		     test_and_clear_bit(0, &qp->port->announce))) {
		np->now_ns = qp->core->stack.now_ns;
		if (np->cfg->ip)
			ixm_arp_announce(np);
		ixm_nd_announce(np);	/* nothing without IPv6 */
	}
	if (unlikely(ixm_icmp6_relay_pending(np)))
		return ixm_tcp_icmp6_relay_drain(np);
	return 0;
}

/*
 * A new owner must not read what the core received for the last one:
 * zero every buffer page.  Frames still waiting for the ring are dropped
 * and transmissions are reaped first (bounded), so that no frame is zeroed
 * while the NIC still reads it or goes out zeroed later.
 */
static void ixm_core_scrub(struct ixm_core_work *work)
{
	unsigned int i, j, spins;

	for (i = 0; work && i < work->nr; i++) {
		struct ixm_qpair *qp = work->qp[i];
		struct ixm_queue *q = qp->q;

		ixm_loop_tx_discard(&qp->net);
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
 * ixm_core_check_alive() - retire contexts whose receive region went away
 * @core: the core
 * @work: its current work
 *
 * A port that vanished under its contexts (PCI removal) rebuilt @work; the
 * contexts set up before that are marked dead: IXMOD_RING_DEAD in both
 * rings, EPOLLERR, no more calls or events.
 *
 * Context: @core's thread.
 */
static void ixm_core_check_alive(struct ixm_core *core, struct ixm_core_work *work)
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
 * ixm_core_set_need_wakeup() - tell applications whether the thread sleeps
 * @core: the core
 * @on: set IXMOD_RING_NEED_WAKEUP before sleeping, clear it after
 *
 * Setting is followed by a full barrier (E) so that the caller's last look
 * at the call rings cannot be ordered before it (net/ring.h).
 *
 * Context: @core's thread.
 */
static void ixm_core_set_need_wakeup(struct ixm_core *core, bool on)
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
static void ixm_core_handle_request(struct ixm_core *core, struct ixm_core_work *work)
{
	int req = smp_load_acquire(&core->req);	/* pairs with ixm_core_request() */

	if (likely(req == IXM_REQ_NONE))
		return;
	if (req == IXM_REQ_PURGE) {
		ixm_app_release_all(&core->req_ctx->app);
		ixm_app_stats_fold(&core->app_closed, &core->req_ctx->app.stats);
	} else if (req == IXM_REQ_SCRUB) {
		ixm_core_scrub(work);
	} else if (req == IXM_REQ_POOL_GONE) {
		/* the contexts that lost the port are dead before TCP looks */
		ixm_core_check_alive(core, work);
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
unsigned int ixm_core_iterate(struct ixm_core *core)
{
	unsigned int batch = READ_ONCE(ixm_rx_batch);
	struct ixm_core_work *work;
	unsigned int i, done = 0;

	lock_map_acquire(&ixm_core_iter_map);
	rcu_read_lock();
	work = rcu_dereference(core->work);
	core->stack.ports = work ? work->net : NULL;
	core->stack.nports = work ? work->nr : 0;
	core->stack.now_ns = ktime_get_ns();
	ixm_core_handle_request(core, work);
	/* contexts die only when @work changes under them: look then */
	if (unlikely((work ? work->gen : 0) != core->alive_gen)) {
		ixm_core_check_alive(core, work);
		core->alive_gen = work ? work->gen : 0;
	}
	for (i = 0; work && i < work->nr; i++)
		done += ixm_core_begin_qpair(work->qp[i]);
	done += ixm_loop_iterate(&core->stack, batch, IXM_CALL_BATCH);
	rcu_read_unlock();
	lock_map_release(&ixm_core_iter_map);
	return done;
}

/*
 * Unmask the queue interrupts that will wake this core from its sleep.
 * Returns false if a queue could not arm because a frame already waits
 * there (&struct ixm_queue_ops.arm): every queue is still asked.
 */
static bool ixm_core_arm_irqs(struct ixm_core *core)
{
	struct ixm_core_work *work;
	bool armed = true;
	unsigned int i;

	rcu_read_lock();
	work = rcu_dereference(core->work);
	for (i = 0; work && i < work->nr; i++)
		armed &= work->qp[i]->q->ops->arm(work->qp[i]->q);
	rcu_read_unlock();
	return armed;
}

/*
 * The idle policy.  Polling pays when work comes back sooner than a
 * sleep and a wake-up would cost; at light load it only burns the CPU
 * (and, on a shared host, the time of whoever else needs it).  So a core
 * polls for idle_us only while its idle periods (from the last iteration
 * that found work to the next, when at least one found nothing between)
 * average at most IXM_IDLE_GAP_DIV times less; otherwise it sleeps after
 * its first idle iteration, and wakes per frame as a Linux NIC's
 * interrupt does.  The average moves an eighth of the way to each new
 * period, a period counted at most four times the bound: a burst after a
 * long sleep brings polling back within a dozen idle periods, and at
 * light load the short periods (a kernel thread woken by its
 * application's calls) do not pull it under the bound.
 */
#define IXM_IDLE_GAP_DIV	8
#define IXM_IDLE_GAP_SHIFT	3

static void ixm_core_note_work(struct ixm_core *core)
{
	u64 gap, cap = (u64)READ_ONCE(ixm_idle_us) * (4 * NSEC_PER_USEC / IXM_IDLE_GAP_DIV);

	if (core->idled) {
		gap = min(core->stack.now_ns - core->work_ns, cap);
		core->gap_ns = core->gap_ns - (core->gap_ns >> IXM_IDLE_GAP_SHIFT) +
			       (gap >> IXM_IDLE_GAP_SHIFT);
		core->idled = false;
	}
	core->work_ns = core->stack.now_ns;
}

/**
 * ixm_core_idle_expired() - time for an idle core to sleep?
 * @core: the core
 * @idle_since: the time of the last iteration that found work, or of the
 *	runner's last wake-up or entry
 *
 * Against the iteration's own time (&struct ixm_stack.now_ns): an idle
 * iteration reads the clock once, in ixm_core_iterate().  Yes at once
 * when the core's idle periods are long (above) and, for the kernel
 * thread, when another task waits for its CPU (the application in the
 * kernel-thread mode: polling would only delay the calls it is about to
 * make, as KVM's halt polling stops for a runnable task); else after
 * idle_us of polling.
 *
 * Return: true when the core should sleep now; never with idle_us 0
 * (poll forever).
 */
bool ixm_core_idle_expired(struct ixm_core *core, u64 idle_since)
{
	unsigned int idle_us = READ_ONCE(ixm_idle_us);

	if (!idle_us)
		return false;
	if (core->gap_ns > (u64)idle_us * (NSEC_PER_USEC / IXM_IDLE_GAP_DIV))
		return true;
	if (current == core->task && !single_task_running())
		return true;
	/*
	 * @now_ns is the last whole iteration's: after looks
	 * (ixm_core_look_idle()) it may predate @idle_since, which is then
	 * not expired.
	 */
	return (s64)(core->stack.now_ns - idle_since) >= (s64)idle_us * NSEC_PER_USEC;
}

/*
 * Jiffies a sleeping core may wait for its next TCP timer: at least one,
 * at most a second (a bound, not a need: waking early is harmless).
 */
static long ixm_core_timer_wait(struct ixm_core *core)
{
	u64 next = ixm_timer_next_ns(&core->tcp->wheel), now = ktime_get_ns();

	if (next <= now)
		return 1;
	return clamp_t(long, nsecs_to_jiffies(next - now), 1, HZ);
}

/* What ends a sleep: a wake, and for the thread a stop, for an application a signal */
static bool ixm_core_sleep_over(struct ixm_core *core)
{
	if (READ_ONCE(core->wake))
		return true;
	if (current == core->task)
		return kthread_should_stop();
	return signal_pending(current);
}

/**
 * ixm_core_sleep() - sleep until a queue interrupt, a wake or a TCP timer
 * @core: the core; the caller runs its loop (@core->loop_lock)
 * @timeout: jiffies at most (MAX_SCHEDULE_TIMEOUT: no bound but the timers)
 *
 * The thread (TASK_IDLE: not in the load average) and a co-located
 * application thread (interruptible: a signal ends it) sleep the same way.
 *
 * Return: false if one last look found work, or a queue could not arm,
 * and no sleep happened.
 */
bool ixm_core_sleep(struct ixm_core *core, long timeout)
{
	bool armed;

	/*
	 * Arm the queue interrupts, then look once more: a frame that
	 * arrived before the interrupt was armed raised none.  A queue that
	 * found a frame already there did not arm, and interrupts for no
	 * later one: that look may count no work (a frame it steered to
	 * another core is none of this core's), but the core stays awake,
	 * and arms again before its next sleep.
	 */
	armed = ixm_core_arm_irqs(core);
	rcu_read_lock();
	ixm_core_set_need_wakeup(core, true);
	rcu_read_unlock();
	if (ixm_core_iterate(core) || !armed) {
		ixm_core_note_work(core);
		rcu_read_lock();
		ixm_core_set_need_wakeup(core, false);
		rcu_read_unlock();
		core->stats.busy++;
		return false;
	}
	trace_ixm_core_sleep(core->cpu, core->stats.iterations);
	WRITE_ONCE(core->sleeping, true);
	core->stats.sleeps++;
	if (core->tcp->wheel.pending)	/* TCP timers run even when idle */
		timeout = min(timeout, ixm_core_timer_wait(core));
	/*
	 * The condition is checked after the task is queued on @wq, so a
	 * wake-up between the caller's last poll and here is not lost.
	 */
	if (current == core->task)
		wait_event_idle_timeout(core->wq, ixm_core_sleep_over(core), timeout);
	else
		wait_event_interruptible_timeout(core->wq, ixm_core_sleep_over(core), timeout);
	WRITE_ONCE(core->sleeping, false);
	core->looks = 0;	/* something woke it: a whole iteration first */
	if (READ_ONCE(core->wake)) {
		WRITE_ONCE(core->wake, false);
		core->stats.wakeups++;
	}
	rcu_read_lock();
	ixm_core_set_need_wakeup(core, false);
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
static bool ixm_core_look_idle(struct ixm_core *core)
{
	struct ixm_core_work *work;
	unsigned int i;
	bool busy;

	if (!core->looks || core->looks > READ_ONCE(ixm_idle_looks) ||
	    READ_ONCE(core->req) != IXM_REQ_NONE)
		return false;
	rcu_read_lock();
	work = rcu_dereference(core->work);
	core->stack.ports = work ? work->net : NULL;
	core->stack.nports = work ? work->nr : 0;
	busy = (work ? work->gen : 0) != core->alive_gen || ixm_loop_busy(&core->stack);
	/* errors other cores handed this one (net/icmp6_relay.h) */
	for (i = 0; !busy && work && i < work->nr; i++)
		busy = ixm_icmp6_relay_pending(&work->qp[i]->net);
	rcu_read_unlock();
	if (busy)
		return false;
	core->looks++;
	return true;
}

/**
 * ixm_core_run_once() - one counted iteration, for whoever runs the loop
 * @core: the core (@core->loop_lock held)
 * @idle_since: the time (&struct ixm_stack.now_ns, ktime_get_ns()) of
 *	the last iteration that found work; updated
 *
 * An idle core mostly only looks for work (ixm_core_look_idle()).
 *
 * Return: the work found (ixm_core_iterate()); 0 for a look.
 */
unsigned int ixm_core_run_once(struct ixm_core *core, u64 *idle_since)
{
	unsigned int work;

	core->stats.iterations++;
	if (ixm_core_look_idle(core)) {
		core->stats.idle++;
		core->stats.looks++;
		return 0;
	}
	work = ixm_core_iterate(core);
	if (work) {
		core->stats.busy++;
		ixm_core_note_work(core);
		*idle_since = core->stack.now_ns;
		core->looks = 0;
	} else {
		core->stats.idle++;
		core->idled = true;
		core->looks = 1;
	}
	return work;
}

/* The request itself; @pool is IXM_REQ_POOL_GONE's. */
static void __ixm_core_request(struct ixm_core *core, int req, struct ixm_ctx *ctx,
			       struct ixm_mbuf_pool *pool)
{
	might_sleep();
	/* the thread's iteration completes the request (see ixm_core_iter_map) */
	lock_map_acquire(&ixm_core_iter_map);
	lock_map_release(&ixm_core_iter_map);
	mutex_lock(&core->req_lock);
	reinit_completion(&core->req_done);
	core->req_ctx = ctx;
	core->req_pool = pool;
	smp_store_release(&core->req, req);	/* pairs with ixm_core_handle_request() */
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
 * ixm_app_notify() - events were published: wake whoever waits for them
 * @app: the context (net/loop.c calls this hook)
 *
 * Context: the core's loop.
 */
void ixm_app_notify(struct ixm_app *app)
{
	struct ixm_ctx *ctx = container_of(app, struct ixm_ctx, app);

	if (wq_has_sleeper(&ctx->wq))
		wake_up(&ctx->wq);
}
