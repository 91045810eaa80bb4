// SPDX-License-Identifier: GPL-2.0
/*
 * timer.c - the per-core hierarchical timer wheel (see timer.h)
 *
 * Level L holds timers due 64^L to 64^(L+1) - 1 ticks after the wheel's
 * current tick, in the slot given by bits 6L..6L+5 of their expiry.  When
 * level 0 wraps, the level-1 slot of the coming 64 ticks is emptied into
 * the levels below, and so on up while a level's index is 0 too.  A bit
 * per level-0 slot says which hold timers, so that a run steps over the
 * empty ticks up to the next such slot or wrap at once, not tick by tick
 * (a busy core runs the wheel every iteration, many ticks apart under
 * emulation).  The other levels keep such bits too, so that a core about
 * to sleep finds its next timer without reading every slot.
 *
 * A timer sits in the slot of its tick @at; its expiry @expires may be
 * later (moved later since) or void (!@armed: cancelled since).  When the
 * slot comes up, or is cascaded, such a timer is dropped or put in the
 * slot of @expires: a slot never holds a timer before the wheel's tick,
 * and every armed timer is in a slot no later than its expiry.
 */
#include "timer.h"

static void ixm_timer_link(struct ixm_timer **head, struct ixm_timer *t)
{
	t->next = *head;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = head;
	*head = t;
}

static void ixm_timer_unlink(struct ixm_timer_wheel *w, struct ixm_timer *t)
{
	struct ixm_timer **slots = &w->slot[0][0];

	*t->pprev = t->next;
	if (t->next) {
		t->next->pprev = t->pprev;
	} else if (t->pprev >= slots && t->pprev < slots + IXM_TIMER_LEVELS * IXM_TIMER_SLOTS) {
		/* it was alone there: the slot is empty now */
		unsigned int i = (unsigned int)(t->pprev - slots);

		w->busy[i / IXM_TIMER_SLOTS] &= ~(1ULL << (i % IXM_TIMER_SLOTS));
	}
	t->next = NULL;
	t->pprev = NULL;
}

/* Put @t (in no slot, @t->at >= @w->now) in the slot of tick @t->at. */
static void ixm_timer_place(struct ixm_timer_wheel *w, struct ixm_timer *t)
{
	u64 delta = t->at - w->now;
	unsigned int level = 0, idx;

	while (level < IXM_TIMER_LEVELS - 1 &&
	       delta >> (IXM_TIMER_SLOT_BITS * (level + 1)))
		level++;
	idx = (t->at >> (IXM_TIMER_SLOT_BITS * level)) & (IXM_TIMER_SLOTS - 1);
	ixm_timer_link(&w->slot[level][idx], t);
	w->busy[level] |= 1ULL << idx;
}

/**
 * ixm_timer_wheel_init() - an empty wheel
 * @w: the wheel
 * @now_ns: the current time (the core's clock, ns)
 */
void ixm_timer_wheel_init(struct ixm_timer_wheel *w, u64 now_ns)
{
	memset(w, 0, sizeof(*w));
	w->now = now_ns >> IXM_TIMER_TICK_SHIFT;
}

/**
 * ixm_timer_arm() - arm or move a timer
 * @w: the wheel of the core that owns @t
 * @t: the timer, pending or not
 * @expires_ns: when it should fire; a time already past fires in the
 *	first run of the wheel's next tick, one past IXM_TIMER_MAX_TICKS is
 *	clamped
 *
 * The timer fires at the first ixm_timer_run() whose time reaches the
 * tick that holds @expires_ns (so up to one tick late, never early).
 * Moving a timer later, or arming one cancelled before its slot came
 * up, only writes its expiry.
 */
void ixm_timer_arm(struct ixm_timer_wheel *w, struct ixm_timer *t, u64 expires_ns)
{
	u64 expires = (expires_ns + IXM_TIMER_TICK_NS - 1) >> IXM_TIMER_TICK_SHIFT;

	if ((s64)(expires - w->now) < 0)
		expires = w->now;
	else if (expires - w->now > IXM_TIMER_MAX_TICKS)
		expires = w->now + IXM_TIMER_MAX_TICKS;
	if (!t->armed) {
		t->armed = true;
		w->pending++;
	}
	t->expires = expires;
	if (t->pprev) {
		if (t->at <= expires)
			return;		/* its slot comes first: moved from there */
		ixm_timer_unlink(w, t);
	} else {
		w->linked++;
	}
	t->at = expires;
	ixm_timer_place(w, t);
}

/**
 * ixm_timer_cancel() - stop a timer
 * @w: the wheel it was armed on
 * @t: the timer
 *
 * It may stay in its slot until that comes up (ixm_timer_del() takes it
 * out: before @t's memory goes).
 *
 * Return: true if it was pending (it will not fire now).
 */
bool ixm_timer_cancel(struct ixm_timer_wheel *w, struct ixm_timer *t)
{
	if (!t->armed)
		return false;
	t->armed = false;
	w->pending--;
	return true;
}

/**
 * ixm_timer_del() - stop a timer and take it off the wheel
 * @w: the wheel it was armed on
 * @t: the timer; the wheel holds no pointer to it afterwards
 */
void ixm_timer_del(struct ixm_timer_wheel *w, struct ixm_timer *t)
{
	ixm_timer_cancel(w, t);
	if (t->pprev) {
		ixm_timer_unlink(w, t);
		w->linked--;
	}
}

/* Move every timer of a level-@level slot to where it belongs now. */
static void ixm_timer_cascade(struct ixm_timer_wheel *w, unsigned int level,
			      unsigned int idx)
{
	struct ixm_timer *t = w->slot[level][idx];

	w->slot[level][idx] = NULL;
	w->busy[level] &= ~(1ULL << idx);
	while (t) {
		struct ixm_timer *next = t->next;

		t->next = NULL;
		t->pprev = NULL;
		if (t->armed) {
			t->at = t->expires;	/* moved later meanwhile: there now */
			ixm_timer_place(w, t);
		} else {
			w->linked--;		/* cancelled meanwhile */
		}
		t = next;
	}
}

/**
 * ixm_timer_run() - fire every timer due up to @now_ns
 * @w: the wheel
 * @now_ns: the current time (the core's clock, ns)
 *
 * A callback may arm or cancel any timer of @w, itself included; a timer
 * armed for now or the past from a callback fires at the next tick's run.
 *
 * Context: the wheel's core.
 * Return: timers fired.
 */
unsigned int ixm_timer_run(struct ixm_timer_wheel *w, u64 now_ns)
{
	u64 target = now_ns >> IXM_TIMER_TICK_SHIFT;
	unsigned int fired = 0;

	while ((s64)(target - w->now) >= 0) {
		unsigned int idx = w->now & (IXM_TIMER_SLOTS - 1);
		struct ixm_timer *head;
		unsigned int level;

		if (idx && !(w->busy[0] & (1ULL << idx))) {
			/* an empty tick before the wrap: on to the next full slot */
			u64 ahead = w->busy[0] & (~0ULL << idx);
			u64 next = w->now - idx + (ahead ? ixm_ffs64(ahead) : IXM_TIMER_SLOTS);

			w->now = (s64)(next - target) > 0 ? target + 1 : next;
			continue;
		}
		for (level = 1; !idx && level < IXM_TIMER_LEVELS; level++) {
			idx = (w->now >> (IXM_TIMER_SLOT_BITS * level)) & (IXM_TIMER_SLOTS - 1);
			ixm_timer_cascade(w, level, idx);
		}
		idx = w->now & (IXM_TIMER_SLOTS - 1);
		head = w->slot[0][idx];
		w->slot[0][idx] = NULL;
		w->busy[0] &= ~(1ULL << idx);
		if (head)
			head->pprev = &head;
		/* callbacks see the next tick as now: what they arm lands there or later */
		w->now++;
		while (head) {
			struct ixm_timer *t = head;

			ixm_timer_unlink(w, t);
			if (!t->armed) {		/* cancelled since */
				w->linked--;
				continue;
			}
			if (t->expires >= w->now) {	/* moved later since */
				t->at = t->expires;
				ixm_timer_place(w, t);
				continue;
			}
			w->linked--;
			t->armed = false;
			w->pending--;
			w->fired++;
			fired++;
			t->fn(t, now_ns);
		}
		/* no timer in any slot: on to the target at once */
		if (!w->linked)
			w->now = target + 1;
	}
	return fired;
}

/**
 * ixm_timer_next_ns() - a time before which no timer of @w fires
 * @w: the wheel
 *
 * For a core about to sleep: with nothing pending, U64_MAX.  Else the
 * earliest expiry of the armed timers in level 0 (due within 64 ticks,
 * or moved later since) and the earliest start of a non-empty slot of
 * the higher levels, which no timer in it precedes: such a slot is
 * cascaded, its timers moved down, at the first tick of its range, and
 * none of them fires before that.  So the result is never late, and
 * early by less than a slot of the level holding the next timer: exact
 * when that timer is within 64 ticks.  Reads the timers of level 0 and
 * a bitmap per higher level, no slot of those.
 *
 * Return: the time, in the core's clock (ns).
 */
u64 ixm_timer_next_ns(const struct ixm_timer_wheel *w)
{
	u64 best = U64_MAX;
	unsigned int level;
	u64 busy = w->busy[0];

	if (!w->pending)
		return U64_MAX;
	while (busy) {
		const struct ixm_timer *t = w->slot[0][ixm_ffs64(busy)];

		busy &= busy - 1;
		for (; t; t = t->next)
			if (t->armed && t->expires < best)
				best = t->expires;
	}
	for (level = 1; level < IXM_TIMER_LEVELS; level++) {
		unsigned int shift = IXM_TIMER_SLOT_BITS * level;
		u64 base = w->now >> shift;
		unsigned int r = base & (IXM_TIMER_SLOTS - 1);
		/* bit k: the slot k after the current one holds a timer */
		u64 ahead = w->busy[level] >> r | w->busy[level] << ((IXM_TIMER_SLOTS - r) & 63);
		u64 tick;

		if (!ahead)
			continue;
		if ((ahead & 1) && !(w->now & ((1ULL << shift) - 1)))
			tick = w->now;		/* the current slot, cascaded in this very tick */
		else if (ahead & ~1ULL)		/* the nearest later slot */
			tick = (base + ixm_ffs64(ahead & ~1ULL)) << shift;
		else
			tick = (base + IXM_TIMER_SLOTS) << shift; /* current slot, next turn */
		if (tick < best)
			best = tick;
	}
	if (best > U64_MAX >> IXM_TIMER_TICK_SHIFT)
		return U64_MAX;
	return best << IXM_TIMER_TICK_SHIFT;
}
