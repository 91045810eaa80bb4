// SPDX-License-Identifier: MIT
/*
 * ixev_timer.c - ixev's timers: a binary min-heap on when_ns
 *
 * ixev_dispatch() runs the expired timers once a pass (ixev_run_timers());
 * ixev_run_once() sleeps no longer than until the first
 * (ixev_timer_wait_ms()).  IX's libix keeps its timers apart likewise.
 */
#include <errno.h>
#include <time.h>

#include "internal.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void heap_set(struct ixev *ev, unsigned int i, struct ixev_timer *t)
{
	ev->timers[i] = t;
	t->idx = i;
}

static void heap_up(struct ixev *ev, unsigned int i)
{
	struct ixev_timer *t = ev->timers[i];

	while (i > 1 && ev->timers[i / 2]->when_ns > t->when_ns) {
		heap_set(ev, i, ev->timers[i / 2]);
		i /= 2;
	}
	heap_set(ev, i, t);
}

static void heap_down(struct ixev *ev, unsigned int i)
{
	struct ixev_timer *t = ev->timers[i];

	for (;;) {
		unsigned int k = 2 * i;

		if (k > ev->ntimers)
			break;
		if (k < ev->ntimers && ev->timers[k + 1]->when_ns < ev->timers[k]->when_ns)
			k++;
		if (ev->timers[k]->when_ns >= t->when_ns)
			break;
		heap_set(ev, i, ev->timers[k]);
		i = k;
	}
	heap_set(ev, i, t);
}

/*
 * ixev_timer_arm - call a function after a delay
 *
 * SYNOPSIS
 *	int ixev_timer_arm(struct ixev *ev, struct ixev_timer *t,
 *			   unsigned long long usec);
 *	void ixev_timer_cancel(struct ixev *ev, struct ixev_timer *t);
 *
 * DESCRIPTION
 *	ixev_timer_arm() calls t->fn(t) from the thread's loop once @usec
 *	microseconds passed (CLOCK_MONOTONIC), once; arming an armed timer
 *	moves it.  Zero-initialise @t and set t->fn before the first use.
 *	ixev_timer_cancel() disarms it (nothing if it is not armed).  A
 *	timer's function may arm it again.
 *
 * RETURN VALUE
 *	ixev_timer_arm(): 0, -EINVAL (no t->fn), -ENOMEM.
 */
int ixev_timer_arm(struct ixev *ev, struct ixev_timer *t, unsigned long long usec)
{
	if (!t->fn)
		return -EINVAL;
	if (t->idx)
		ixev_timer_cancel(ev, t);
	if (ixev_grow((void **)&ev->timers, &ev->timer_cap, ev->ntimers + 2, sizeof(*ev->timers)))
		return -ENOMEM;
	t->when_ns = now_ns() + usec * 1000ULL;
	heap_set(ev, ++ev->ntimers, t);
	heap_up(ev, ev->ntimers);
	return 0;
}

void ixev_timer_cancel(struct ixev *ev, struct ixev_timer *t)
{
	unsigned int i = t->idx;
	struct ixev_timer *last;

	if (!i || i > ev->ntimers || ev->timers[i] != t)
		return;
	t->idx = 0;
	last = ev->timers[ev->ntimers--];
	if (last == t)
		return;
	heap_set(ev, i, last);
	heap_up(ev, i);
	heap_down(ev, last->idx);
}

void ixev_run_timers(struct ixev *ev)
{
	unsigned long long now;

	if (!ev->ntimers)
		return;
	now = now_ns();
	while (ev->ntimers && ev->timers[1]->when_ns <= now) {
		struct ixev_timer *t = ev->timers[1];

		ixev_timer_cancel(ev, t);
		t->fn(t);
	}
}

/* Milliseconds until the first timer, at most @limit (-1: none). */
int ixev_timer_wait_ms(struct ixev *ev, int limit)
{
	unsigned long long now, ms;

	if (!ev->ntimers)
		return limit;
	now = now_ns();
	if (ev->timers[1]->when_ns <= now)
		return 0;
	ms = (ev->timers[1]->when_ns - now + 999999) / 1000000;
	return limit >= 0 && (unsigned long long)limit < ms ? limit : (int)ms;
}
