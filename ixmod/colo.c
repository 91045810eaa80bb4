// SPDX-License-Identifier: GPL-2.0
/*
 * colo.c - the co-located mode: an application thread runs its core's
 * loop itself (IX's run_io, Belay et al., OSDI '14)
 *
 * In the default mode a core's kernel thread runs the loop and the
 * application, on another core or sharing this one, talks to it through
 * the rings; on a shared core every request then costs two scheduler
 * hand-offs.  Here an application thread pinned to the dataplane core
 * calls IXMOD_IOC_RUN instead: the call runs the same iterations
 * through the same runner as the kernel thread (runner.c:
 * ixm_core_run_once(), the calls it published included) in the thread's
 * own kernel context until events wait for it, and sleeps when there is
 * nothing to do exactly as the kernel thread would (ixm_core_sleep():
 * queue interrupts, TCP timers, wakes).  No context switch separates the
 * application from the dataplane.  This file calls only the runner; the
 * kernel thread (dp.c) calls it to park.
 *
 * Exclusion: whoever runs the loop holds @core->loop_lock.  The kernel
 * thread holds it except while it is parked.  The first IXMOD_IOC_RUN of
 * a thread registers it as the core's co-located thread (@colo_task; one
 * per core: another thread gets -EBUSY).  From then on the kernel thread
 * parks at the end of an iteration whenever the registered thread is
 * inside the call or left it less than away_us ago, and takes the core
 * back (serving it, nothing lost) when the thread stays away longer,
 * when a process waits for a request (ixm_core_request()) and no thread
 * is inside, when the thread exits, or when its context is released.
 * A thread that comes back later takes the core again.
 *
 * The parked kernel thread looks at the clock every away_us while the
 * application comes and goes; while the application sleeps in the call,
 * the kernel thread sleeps until a timer that the call's return arms
 * wakes it away_us later (at most one armed; a return does not wake the
 * thread itself, nor does a queue interrupt: either would cost two
 * context switches a request).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include <linux/ixmod.h>

#include "ixmod.h"

unsigned int ixm_away_us = IXM_AWAY_US_DEFAULT;

/* The registered thread, if it is still alive (a reference is held). */
static bool ixm_colo_alive(struct task_struct *t)
{
	return t && !(READ_ONCE(t->flags) & PF_EXITING);
}

/**
 * ixm_colo_has_core() - does the co-located thread keep the core now?
 * @core: the core
 *
 * Context: the core's kernel thread.
 * Return: true while the registered thread is inside IXMOD_IOC_RUN, or
 * left it less than away_us ago and no request waits for the loop.
 */
bool ixm_colo_has_core(struct ixm_core *core)
{
	struct task_struct *t = READ_ONCE(core->colo_task);

	if (!ixm_colo_alive(t))
		return false;
	if (smp_load_acquire(&core->colo_inside))	/* pairs with the call's exit */
		return true;
	if (READ_ONCE(core->req) != IXM_REQ_NONE)
		return false;
	return local_clock() - READ_ONCE(core->colo_left_ns) <
	       (u64)READ_ONCE(ixm_away_us) * NSEC_PER_USEC;
}

/**
 * ixm_colo_park() - the kernel thread stays out while the application runs
 * @core: the core; the caller holds @core->loop_lock and gives it up here
 *
 * Returns holding @core->loop_lock again, when the thread should run the
 * loop (ixm_colo_has_core() is false) or stop.  The lock is only ever
 * tried, never waited for: an application that came back meanwhile may
 * sleep inside the call for hours, and the thread then parks again
 * instead of blocking (a hung task) behind it.
 *
 * Context: the core's kernel thread.
 */
void ixm_colo_park(struct ixm_core *core)
{
	mutex_unlock(&core->loop_lock);
	for (;;) {
		unsigned int away_us = READ_ONCE(ixm_away_us);
		u64 away = (u64)away_us * NSEC_PER_USEC;

		if (kthread_should_stop()) {
			/* no context is left, so no application is inside */
			mutex_lock(&core->loop_lock);
			return;
		}
		if (!ixm_colo_has_core(core) && mutex_trylock(&core->loop_lock)) {
			if (READ_ONCE(core->colo_task)) {
				core->stats.takeovers++;
				WRITE_ONCE(core->colo_taken, true);
			}
			return;
		}
		/*
		 * Inside and asleep: the timer the call's return arms wakes
		 * us (a request is the inside thread's to serve:
		 * ixm_core_wake() wakes it).  Otherwise look again when
		 * away_us could have passed, or at once when the operator
		 * changes it (ixm_dp_wake_all()).
		 */
		if (READ_ONCE(core->colo_inside) && READ_ONCE(core->colo_slept)) {
			/* (F): the call's exit sees this, or we see it left */
			WRITE_ONCE(core->colo_park_untimed, true);
			wait_event_idle(core->park_wq, kthread_should_stop() ||
					!READ_ONCE(core->colo_inside));
			WRITE_ONCE(core->colo_park_untimed, false);
		} else {
			wait_event_idle_timeout(core->park_wq, kthread_should_stop() ||
						!ixm_colo_has_core(core) ||
						READ_ONCE(ixm_away_us) != away_us,
						max(nsecs_to_jiffies(away), 1UL));
		}
	}
}

/**
 * ixm_colo_away_fn() - away_us after a call that slept returned
 * @t: &struct ixm_core.away_timer
 *
 * Wakes the parked thread to look (ixm_colo_has_core()): if the
 * application has not come back, it takes the core.
 *
 * Context: timer (softirq).
 */
void ixm_colo_away_fn(struct timer_list *t)
{
	struct ixm_core *core = from_timer(core, t, away_timer);

	wake_up(&core->park_wq);
}

/* Register current as @core's co-located thread through @ctx, or -EBUSY. */
static int ixm_colo_register(struct ixm_core *core, struct ixm_ctx *ctx)
{
	struct task_struct *old = NULL;
	int err = 0;

	spin_lock(&core->colo_lock);
	if (core->colo_task == current) {
		if (core->colo_ctx != ctx)
			err = -EBUSY;	/* one context per co-located thread */
	} else if (ixm_colo_alive(core->colo_task)) {
		err = -EBUSY;
	} else {
		old = core->colo_task;
		get_task_struct(current);
		WRITE_ONCE(core->colo_task, current);
		core->colo_ctx = ctx;
	}
	spin_unlock(&core->colo_lock);
	if (old)
		put_task_struct(old);
	return err;
}

/**
 * ixm_colo_ctx_gone() - a context is released: its thread lets the core go
 * @ctx: the context, unpublished from its core
 *
 * Context: process (ixm_ctx_release()).
 */
void ixm_colo_ctx_gone(struct ixm_ctx *ctx)
{
	struct ixm_core *core = ctx->core;
	struct task_struct *t = NULL;

	spin_lock(&core->colo_lock);
	if (core->colo_ctx == ctx) {
		t = core->colo_task;
		WRITE_ONCE(core->colo_task, NULL);
		core->colo_ctx = NULL;
	}
	spin_unlock(&core->colo_lock);
	if (t) {
		wake_up(&core->park_wq);
		put_task_struct(t);
	}
}

/* Events published and not yet taken by the application. */
static u32 ixm_colo_events(struct ixm_ctx *ctx)
{
	struct ixm_ring *ev = &ctx->app.events;

	return READ_ONCE(*ev->prod) - READ_ONCE(*ev->cons);
}

/**
 * ixm_colo_run() - IXMOD_IOC_RUN: run the core's loop in this thread
 * @file: an attached file
 * @argp: struct ixmod_run
 *
 * Runs iterations until the context's event ring holds @min_events, a
 * signal arrives, or @timeout_ns pass; with nothing to do it polls for
 * idle_us and then sleeps as the kernel thread would.
 *
 * Context: process; the thread must be bound to the context's core.
 * Return: 0 (the events are there), -ETIME (the time ran out first),
 * -EINTR (a signal; what ran is published), -EBUSY (another thread runs
 * this core), -EINVAL (not attached, not bound to the core's CPU alone,
 * or a nonzero reserved field), -ENETDOWN (the context lost its port),
 * -EFAULT.
 */
long ixm_colo_run(struct file *file, void __user *argp)
{
	struct ixm_ctx *ctx = ixm_file_ctx(file);
	u64 start, deadline, idle_since, iters = 0;
	struct ixmod_run r;
	struct ixm_core *core;
	u32 want;
	long ret;

	if (!ctx)
		return -EINVAL;
	if (copy_from_user(&r, argp, sizeof(r)))
		return -EFAULT;
	if (r.flags || r.iterations || r.resv[0] || r.resv[1])
		return -EINVAL;
	core = ctx->core;
	if (current->nr_cpus_allowed != 1 ||
	    !cpumask_test_cpu(core->cpu, current->cpus_ptr)) {
		pr_warn_ratelimited("run: thread %d is not bound to cpu %u alone; pin it there (sched_setaffinity) to run the core's loop\n",
				    task_pid_nr(current), core->cpu);
		return -EINVAL;
	}
	if (READ_ONCE(ctx->app.dead))
		return -ENETDOWN;
	ret = ixm_colo_register(core, ctx);
	if (ret)
		return ret;

	want = max(r.min_events, 1U);
	/* the kernel thread parks at the end of its iteration */
	WRITE_ONCE(core->colo_slept, false);
	WRITE_ONCE(core->colo_inside, true);
	/* (G): wq_has_sleeper()'s barrier orders @colo_inside before the look */
	ixm_core_wake_loop(core);
	if (mutex_lock_interruptible(&core->loop_lock)) {
		ret = -EINTR;
		goto out_left;
	}
	core->stats.runs++;
	WRITE_ONCE(core->colo_taken, false);
	/* the first iteration whole: the calls just submitted, the clock */
	core->looks = 0;
	/* one clock read a whole iteration: its time, &struct ixm_stack.now_ns */
	start = ktime_get_ns();
	deadline = r.timeout_ns > U64_MAX - start ? U64_MAX : start + r.timeout_ns;
	idle_since = start;
	for (;;) {
		unsigned int work = ixm_core_run_once(core, &idle_since);

		iters++;
		if (ixm_colo_events(ctx) >= want) {
			ret = 0;
			break;
		}
		if (READ_ONCE(ctx->app.dead)) {
			ret = -ENETDOWN;
			break;
		}
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (core->stack.now_ns >= deadline) {
			ret = -ETIME;
			break;
		}
		if (!work && ixm_core_idle_expired(core, idle_since)) {
			u64 left = deadline - core->stack.now_ns;

			WRITE_ONCE(core->colo_slept, true);
			ixm_core_sleep(core, deadline == U64_MAX ? MAX_SCHEDULE_TIMEOUT :
				     (long)min_t(u64, nsecs_to_jiffies(left) + 1,
						 MAX_SCHEDULE_TIMEOUT - 1));
			idle_since = ktime_get_ns();
		}
		cond_resched();
	}
	mutex_unlock(&core->loop_lock);
out_left:
	WRITE_ONCE(core->colo_left_ns, local_clock());
	smp_store_release(&core->colo_inside, false);	/* after @colo_left_ns */
	smp_mb();	/* (F): pairs with the barrier in the thread's wait */
	/*
	 * It waits for us to leave: have it look when we could have been
	 * away long.  timer_reduce(): a timer already due sooner stays (no
	 * lock taken then); one due later, armed under a longer away_us,
	 * is brought forward.
	 */
	if (READ_ONCE(core->colo_park_untimed))
		timer_reduce(&core->away_timer,
			     jiffies + usecs_to_jiffies(READ_ONCE(ixm_away_us)) + 1);
	r.iterations = iters;
	if (copy_to_user(argp, &r, sizeof(r)))
		return -EFAULT;
	return ret;
}

/**
 * ixm_colo_mode() - the core's mode, for sysfs
 * @core: the core
 * @buf: a sysfs page
 *
 * Return: bytes written: "thread", or "application TID inside|away|taken"
 * (inside IXMOD_IOC_RUN; outside it, the kernel thread not yet in the
 * loop; the kernel thread took the core back and runs the loop).
 */
int ixm_colo_mode(struct ixm_core *core, char *buf)
{
	struct task_struct *t;
	const char *where;
	pid_t tid = 0;

	spin_lock(&core->colo_lock);
	t = core->colo_task;
	if (ixm_colo_alive(t))
		tid = task_pid_nr(t);
	spin_unlock(&core->colo_lock);
	if (!tid)
		return sysfs_emit(buf, "thread\n");
	if (READ_ONCE(core->colo_inside))
		where = "inside";
	else if (READ_ONCE(core->colo_taken))
		where = "taken";
	else
		where = "away";
	return sysfs_emit(buf, "application %d %s\n", tid, where);
}
