/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timer.h - a per-core hierarchical timer wheel
 *
 * For protocol timers (retransmission, delayed ACK, TIME_WAIT,
 * keepalive), nearly all of which are cancelled or moved later before
 * they fire: arming and cancelling are O(1), and only timers that survive
 * long enough are moved down a level (cascaded), as in IX §4.3 and the
 * classic Linux timer wheel.  Cancelling and moving later are lazy, as
 * Linux's TCP leaves its retransmission timer armed
 * (inet_csk_clear_xmit_timer()): the timer stays in the slot it was put
 * in, and when that slot comes up a cancelled timer is dropped and a
 * moved one put where it now belongs.  A connection that moves its
 * timer on every segment so touches no list.  The tick is 2^14 ns (16.4 us).
 * Five levels of 64 slots reach 2^30 ticks, about 4.9 hours; a later
 * expiry is clamped to that.  A wheel belongs to one core: no locking.
 */
#ifndef _IXM_NET_TIMER_H
#define _IXM_NET_TIMER_H

#include "platform.h"

#define IXM_TIMER_TICK_SHIFT	14		/* ns per tick: 16384 */
#define IXM_TIMER_TICK_NS	(1ULL << IXM_TIMER_TICK_SHIFT)
#define IXM_TIMER_SLOT_BITS	6
#define IXM_TIMER_SLOTS		(1U << IXM_TIMER_SLOT_BITS)
#define IXM_TIMER_LEVELS	5
/* the furthest a timer can be armed ahead, in ticks */
#define IXM_TIMER_MAX_TICKS	((1ULL << (IXM_TIMER_SLOT_BITS * IXM_TIMER_LEVELS)) - 1)

struct ixm_timer;
typedef void (*ixm_timer_fn)(struct ixm_timer *t, u64 now_ns);

/**
 * struct ixm_timer - one timer, embedded in its owner
 * @next: next timer in the same slot
 * @pprev: the pointer that points at this timer; NULL when in no slot
 * @expires: expiry, in ticks, while @armed
 * @at: the tick of the slot it is in (<= @expires while @armed)
 * @fn: called once when the timer fires (it may re-arm the timer)
 * @armed: armed and not yet fired or cancelled
 */
struct ixm_timer {
	struct ixm_timer	*next;
	struct ixm_timer	**pprev;
	u64			expires;
	u64			at;
	ixm_timer_fn		fn;
	bool			armed;
};

/**
 * struct ixm_timer_wheel - the wheel of one core
 * @now: the next tick to process
 * @pending: timers armed and not yet fired or cancelled
 * @linked: timers in a slot (the armed ones, and those cancelled or moved
 *	later whose slot has not come up yet)
 * @fired: timers fired so far
 * @busy: per level, bit i set: slot i holds a timer
 * @slot: per level, per slot, a list of timers
 */
struct ixm_timer_wheel {
	u64			now;
	unsigned int		pending;
	unsigned int		linked;
	u64			fired;
	u64			busy[IXM_TIMER_LEVELS];
	struct ixm_timer	*slot[IXM_TIMER_LEVELS][IXM_TIMER_SLOTS];
};

static inline void ixm_timer_init(struct ixm_timer *t, ixm_timer_fn fn)
{
	t->next = NULL;
	t->pprev = NULL;
	t->expires = 0;
	t->at = 0;
	t->fn = fn;
	t->armed = false;
}

static inline bool ixm_timer_pending(const struct ixm_timer *t)
{
	return t->armed;
}

void ixm_timer_wheel_init(struct ixm_timer_wheel *w, u64 now_ns);
void ixm_timer_arm(struct ixm_timer_wheel *w, struct ixm_timer *t, u64 expires_ns);
bool ixm_timer_cancel(struct ixm_timer_wheel *w, struct ixm_timer *t);
void ixm_timer_del(struct ixm_timer_wheel *w, struct ixm_timer *t);
unsigned int ixm_timer_run(struct ixm_timer_wheel *w, u64 now_ns);
u64 ixm_timer_next_ns(const struct ixm_timer_wheel *w);

#endif /* _IXM_NET_TIMER_H */
