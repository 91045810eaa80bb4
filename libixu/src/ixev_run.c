// SPDX-License-Identifier: MIT
/*
 * ixev_run.c - running ixev: ixev_run(), and a thread per core
 *
 * ixev_run_once() sleeps in ixu_wait() until events or the first timer,
 * then runs one pass (ixev_dispatch()); ixev_run() repeats it.
 * ixev_run_cores() starts one thread and one ixev per core of a cpulist
 * (ixu_cpulist_parse(), cpulist.c).
 */
#include <errno.h>
#include <pthread.h>

#include "internal.h"

static int stop_all;

/*
 * ixev_run_once - one pass, sleeping first if there is nothing to do
 *
 * SYNOPSIS
 *	int ixev_run_once(struct ixev *ev, int timeout_ms);
 *	int ixev_run(struct ixev *ev);
 *	void ixev_stop(struct ixev *ev);
 *
 * DESCRIPTION
 *	ixev_run_once() waits for events (ixu_wait(): in the co-located mode
 *	it runs the core's loop meanwhile) for at most @timeout_ms (-1: no
 *	limit) or until the next timer, then does what ixev_dispatch() does.
 *	ixev_run() repeats it until ixev_stop() (from a callback or a timer
 *	of this ixev) or ixev_stop_all() (from any thread or a signal
 *	handler) or until the context dies.
 *
 * RETURN VALUE
 *	ixev_run_once(): as ixev_dispatch(), or another negative errno of
 *	ixu_wait() (-EINTR, -EBUSY).  ixev_run(): 0 after a stop, -ENETDOWN
 *	when the context lost its port.
 */
int ixev_run_once(struct ixev *ev, int timeout_ms)
{
	int ret;

	if (ev->err)
		return ev->err;
	if (ev->ndirty || ev->norphans || ev->nrx_done)
		timeout_ms = 0;		/* calls wait for ring room */
	ret = ixu_wait(&ev->ixu, ixev_timer_wait_ms(ev, timeout_ms));
	if (ret == -ENETDOWN)
		return ev->err = ret;
	if (ret && ret != -ETIME && ret != -EINTR)
		return ret;
	return ixev_dispatch(ev);
}

int ixev_run(struct ixev *ev)
{
	int ret;

	ev->stop = false;
	while (!ev->stop && !__atomic_load_n(&stop_all, __ATOMIC_RELAXED)) {
		ret = ixev_run_once(ev, 100);
		if (ret == -ENETDOWN)
			return ret;
	}
	return 0;
}

void ixev_stop(struct ixev *ev)
{
	ev->stop = true;
}

/* Wait for the answer to a bind or listen: *status leaves 1. */
int ixev_wait_answer(struct ixev *ev, int *status)
{
	int ret, rounds = 0;

	while (*status == 1) {
		ret = ixev_run_once(ev, 100);
		if (ret == -ENETDOWN)
			return ret;
		if (++rounds > 600)	/* a minute: the kernel always answers */
			return -ETIMEDOUT;
	}
	return *status;
}

/* ---- several cores ---- */

#define RUN_MAX_CORES	256

struct runner_core {
	const struct ixev_runner	*r;
	pthread_t			tid;
	unsigned int			cpu;
	unsigned int			ncores;
	bool				first;
	int				err;
	pthread_barrier_t		*ready;
	int				*failed;
};

static void *run_core(void *arg)
{
	struct runner_core *rc = arg;
	const struct ixev_runner *r = rc->r;
	struct ixev *ev = NULL;

	rc->err = ixev_create(&ev, rc->cpu, r->params);
	if (!rc->err && r->init)
		rc->err = r->init(ev, r->arg);
	if (rc->err)
		__atomic_store_n(rc->failed, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(rc->ready);
	if (!__atomic_load_n(rc->failed, __ATOMIC_RELAXED)) {
		if (rc->first && r->ready)
			r->ready(rc->ncores, r->arg);
		rc->err = ixev_run(ev);
	}
	if (r->fini)
		r->fini(ev, rc->cpu, rc->err, r->arg);
	ixev_destroy(ev);
	return NULL;
}

/*
 * ixev_run_cores - serve on several cores, a thread and an ixev each
 *
 * SYNOPSIS
 *	int ixev_run_cores(const struct ixev_runner *r);
 *	void ixev_stop_all(void);
 *
 * DESCRIPTION
 *	Starts one thread per core of r->cpulist; each creates its ixev with
 *	r->params, calls r->init (listen there: RSS spreads flows over the
 *	cores), and once all succeeded runs ixev_run() until ixev_stop_all()
 *	or until its context dies, then calls r->fini.  ixev_stop_all() is
 *	async-signal-safe: call it from a SIGINT handler.  In the co-located
 *	mode each thread is bound to its core.
 *
 * RETURN VALUE
 *	ixev_run_cores(): 0 when every core stopped after ixev_stop_all();
 *	else the first core's error (creation, r->init, or -ENETDOWN when it
 *	lost its port); -EINVAL for a bad cpulist, -ENOENT when no cpulist
 *	is given and /sys/kernel/ixmod/cores cannot be read, -ENOMEM.
 */
int ixev_run_cores(const struct ixev_runner *r)
{
	static struct runner_core rc[RUN_MAX_CORES];
	unsigned int cpus[RUN_MAX_CORES];
	pthread_barrier_t ready;
	int n, i, failed = 0, ret = 0;

	if (!r)
		return -EINVAL;
	n = ixu_cpulist_parse(r->cpulist, cpus, RUN_MAX_CORES);
	if (n == 0)
		return -EINVAL;		/* no core to run on */
	if (n < 0)
		return n;
	__atomic_store_n(&stop_all, 0, __ATOMIC_RELAXED);
	if (pthread_barrier_init(&ready, NULL, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rc[i] = (struct runner_core){ .r = r, .cpu = cpus[i], .ncores = n,
					      .first = i == 0, .ready = &ready,
					      .failed = &failed };
		if (pthread_create(&rc[i].tid, NULL, run_core, &rc[i]))
			return -ENOMEM;	/* cannot happen after the first */
	}
	for (i = 0; i < n; i++) {
		pthread_join(rc[i].tid, NULL);
		if (rc[i].err && !ret)
			ret = rc[i].err;
	}
	pthread_barrier_destroy(&ready);
	return ret;
}

void ixev_stop_all(void)
{
	__atomic_store_n(&stop_all, 1, __ATOMIC_RELAXED);
}
