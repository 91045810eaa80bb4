// SPDX-License-Identifier: GPL-2.0
/*
 * timer.c - the timer wheel against a plain array model
 *
 * Every timer fires exactly once per arming, never before its time and at
 * the first run whose time reaches its tick; cancelled and moved timers
 * never fire at their old time; callbacks may re-arm and cancel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timer.h"
#include "harness.h"

#define N	2048
#define TICK	IXM_TIMER_TICK_NS
#define SEC	1000000000ULL

struct tt {
	struct ixm_timer t;
	bool armed;		/* the model: armed and not yet fired */
	u64 due;		/* the model: the first run time that fires it */
	unsigned int fires;
};

static struct tt tt[N];
static struct ixm_timer_wheel w;
static u64 run_now;
static unsigned int bad;
static unsigned int next_bad, next_checks;

static u64 rnd(void)
{
	return (u64)random() << 31 ^ (u64)random();
}

static void on_fire(struct ixm_timer *t, u64 now_ns)
{
	struct tt *x = (struct tt *)t;

	x->fires++;
	if (!x->armed || now_ns < x->due) {
		if (bad++ < IXM_DIAG_MAX)
			ixm_diag("timer %ld fired at %llu, due %llu, armed %d", (long)(x - tt),
				 (unsigned long long)now_ns, (unsigned long long)x->due, x->armed);
	}
	x->armed = false;
}

/* The model's due time: the start of the tick holding @ns, not before now's next tick. */
static u64 due_of(u64 ns, u64 wheel_now_tick)
{
	u64 tick = (ns + TICK - 1) / TICK;

	if (tick < wheel_now_tick)
		tick = wheel_now_tick;
	if (tick - wheel_now_tick > IXM_TIMER_MAX_TICKS)
		tick = wheel_now_tick + IXM_TIMER_MAX_TICKS;
	return tick * TICK;
}

/*
 * What ixm_timer_next_ns() gave when it read every slot of the higher
 * levels (before their bitmaps): the bitmaps must give the same.
 */
static u64 ref_next_ns(const struct ixm_timer_wheel *wh)
{
	u64 best = U64_MAX;
	unsigned int level, k;

	if (!wh->pending)
		return U64_MAX;
	for (k = 0; k < IXM_TIMER_SLOTS; k++) {
		const struct ixm_timer *t;

		for (t = wh->slot[0][k]; t; t = t->next)
			if (t->armed && t->expires < best)
				best = t->expires;
	}
	for (level = 1; level < IXM_TIMER_LEVELS; level++) {
		unsigned int shift = IXM_TIMER_SLOT_BITS * level;
		u64 base = wh->now >> shift;

		for (k = 0; k < IXM_TIMER_SLOTS; k++) {
			u64 tick;

			if (!wh->slot[level][(base + k) & (IXM_TIMER_SLOTS - 1)])
				continue;
			if (k)
				tick = (base + k) << shift;
			else if (!(wh->now & ((1ULL << shift) - 1)))
				tick = wh->now;
			else
				tick = (base + IXM_TIMER_SLOTS) << shift;
			if (tick < best)
				best = tick;
		}
	}
	return best > U64_MAX >> IXM_TIMER_TICK_SHIFT ? U64_MAX : best << IXM_TIMER_TICK_SHIFT;
}

/* Each level's bitmap says exactly which of its slots hold a timer. */
static bool busy_bits_ok(const struct ixm_timer_wheel *wh)
{
	unsigned int level, k;

	for (level = 0; level < IXM_TIMER_LEVELS; level++)
		for (k = 0; k < IXM_TIMER_SLOTS; k++)
			if (!!(wh->busy[level] & (1ULL << k)) != !!wh->slot[level][k])
				return false;
	return true;
}

TEST(timer_model)
{
	unsigned int i, op, late = 0, fired_total = 0;
	u64 t0 = 5 * SEC;

	srandom(1);
	ixm_timer_wheel_init(&w, t0);
	run_now = t0;
	for (i = 0; i < N; i++)
		ixm_timer_init(&tt[i].t, on_fire);
	for (op = 0; op < 400000; op++) {
		unsigned int r = (unsigned int)random() % 100;
		struct tt *x = &tt[random() % N];

		if (r < 45) {		/* arm or move: mostly soon, some far */
			u64 span = r < 30 ? 200 * TICK : r < 40 ? 100000 * TICK : 400 * SEC;
			u64 at = run_now + rnd() % span - (r < 3 ? 50 * TICK : 0);

			ixm_timer_arm(&w, &x->t, at);
			x->armed = true;
			x->due = due_of(at, w.now);
		} else if (r < 80) {	/* cancel: the common fate */
			bool was = ixm_timer_cancel(&w, &x->t);

			if (was != x->armed && bad++ < IXM_DIAG_MAX)
				TH_LOG("cancel of timer %ld said %d, model %d", (long)(x - tt),
				       was, x->armed);
			x->armed = false;
		} else {		/* time passes */
			u64 step = r < 95 ? rnd() % (8 * TICK) : rnd() % (SEC / 2);
			u64 next = ixm_timer_next_ns(&w), first = U64_MAX;

			if (next != ref_next_ns(&w) && next_bad++ < IXM_DIAG_MAX)
				TH_LOG("next %llu, reading every slot gives %llu",
				       (unsigned long long)next,
				       (unsigned long long)ref_next_ns(&w));
			if (!busy_bits_ok(&w) && next_bad++ < IXM_DIAG_MAX)
				TH_LOG("a level's bitmap disagrees with its slots at tick %llu",
				       (unsigned long long)w.now);

			/* a core may sleep until next: no timer is due before it */
			for (i = 0; i < N; i++)
				if (tt[i].armed && tt[i].due < first)
					first = tt[i].due;
			if (next > first && next_bad++ < IXM_DIAG_MAX)
				TH_LOG("next %llu after the first due timer %llu",
				       (unsigned long long)next, (unsigned long long)first);
			/* and not much before it: a core would wake for nothing */
			if (first - w.now * TICK < 64 * TICK && first - next >= 64 * TICK &&
			    next_bad++ < IXM_DIAG_MAX)
				TH_LOG("next %llu, 64+ ticks before the first due timer %llu",
				       (unsigned long long)next, (unsigned long long)first);
			next_checks++;

			run_now += step;
			fired_total += ixm_timer_run(&w, run_now);
			for (i = 0; i < N; i++) {
				if (tt[i].armed && tt[i].due <= run_now) {
					if (late++ < IXM_DIAG_MAX)
						TH_LOG("timer %u due %llu still pending at %llu", i,
						       (unsigned long long)tt[i].due,
						       (unsigned long long)run_now);
				}
			}
		}
	}
	EXPECT_FALSE(bad) {
		TH_LOG("400000 random arms, moves, cancels and runs: nothing fires early, late, twice or after a cancel");
	}
	EXPECT_FALSE(late) TH_LOG("every timer fires at the first run that reaches its tick");
	EXPECT_FALSE(next_bad);
	EXPECT_GT(next_checks, 50000) {
		TH_LOG("next_ns: never late, not 64 ticks early, = a full scan (%u checks)",
		       next_checks);
	}
	for (i = 0, op = 0; i < N; i++)
		op += tt[i].armed;
	EXPECT_EQ(op, w.pending);
	EXPECT_GE(w.linked, w.pending) TH_LOG("every pending timer is in a slot");
	EXPECT_GT(fired_total, 10000) {
		TH_LOG("pending count matches the model (%u), %u fired", op, fired_total);
	}
}

static struct ixm_timer periodic, victim;
static unsigned int periodic_fires, victim_fires;

static void on_periodic(struct ixm_timer *t, u64 now_ns)
{
	periodic_fires++;
	if (periodic_fires < 10)
		ixm_timer_arm(&w, t, now_ns + 100 * TICK);
	ixm_timer_cancel(&w, &victim);
}

static void on_victim(struct ixm_timer *t, u64 now_ns)
{
	victim_fires++;
}

TEST(timer_callbacks)
{
	u64 now = 1000 * SEC;
	unsigned int i;

	ixm_timer_wheel_init(&w, now);
	ixm_timer_init(&periodic, on_periodic);
	ixm_timer_init(&victim, on_victim);
	ixm_timer_arm(&w, &periodic, now + 10 * TICK);
	ixm_timer_arm(&w, &victim, now + 10 * TICK);
	for (i = 0; i < 2000; i++) {
		now += TICK;
		ixm_timer_run(&w, now);
	}
	EXPECT_EQ(10, periodic_fires);
	EXPECT_FALSE(ixm_timer_pending(&periodic)) {
		TH_LOG("a callback re-arms itself: fires 10 times, then stops (%u)",
		       periodic_fires);
	}
	EXPECT_LE(victim_fires, 1);
	EXPECT_FALSE(ixm_timer_pending(&victim));
	EXPECT_EQ(0, w.pending) {
		TH_LOG("a callback cancels a timer due in the same tick: it fires at most once, nothing stays pending");
	}

	ixm_timer_arm(&w, &victim, now - 5 * SEC);
	victim_fires = 0;
	ixm_timer_run(&w, now);
	EXPECT_EQ(0, victim_fires) {
		TH_LOG("armed in the past: not in a run of the tick already processed");
	}
	ixm_timer_run(&w, now + TICK);
	EXPECT_EQ(1, victim_fires) TH_LOG("armed in the past: fires in the next tick's run");

	ixm_timer_arm(&w, &victim, now + 100000 * SEC);
	EXPECT_EQ(IXM_TIMER_MAX_TICKS, victim.expires - w.now) {
		TH_LOG("armed past the wheel's reach: clamped to IXM_TIMER_MAX_TICKS (%.0f s)",
		       (double)IXM_TIMER_MAX_TICKS * TICK / SEC);
	}
	ixm_timer_cancel(&w, &victim);
	EXPECT_FALSE(ixm_timer_cancel(&w, &victim));
	EXPECT_EQ(0, w.pending) TH_LOG("a second cancel is a no-op");
}

/*
 * Lazy cancel and move (timer.h): a timer moved later or cancelled stays
 * in its slot, touching no list, until that slot comes up; it must then
 * fire at its new time, or not at all, and leave the wheel.
 */
TEST(timer_lazy)
{
	u64 now = 2000 * SEC / TICK * TICK;	/* on a tick: the arithmetic below is exact */

	ixm_timer_wheel_init(&w, now);
	ixm_timer_init(&victim, on_victim);
	victim_fires = 0;
	ixm_timer_arm(&w, &victim, now + 10 * TICK);
	ixm_timer_arm(&w, &victim, now + 40 * TICK);
	EXPECT_EQ(10, victim.at - w.now) TH_LOG("moved later: still in the slot of its first time");
	EXPECT_EQ(now + 40 * TICK, ixm_timer_next_ns(&w)) {
		TH_LOG("ixm_timer_next_ns() gives the time it was moved to, not its slot's");
	}
	ixm_timer_run(&w, now + 20 * TICK);
	EXPECT_EQ(0, victim_fires);
	EXPECT_TRUE(ixm_timer_pending(&victim));
	EXPECT_EQ(40, victim.at - now / TICK) {
		TH_LOG("its old slot came up: put in the slot of its new time");
	}
	ixm_timer_run(&w, now + 39 * TICK);
	EXPECT_EQ(0, victim_fires) TH_LOG("not a tick early");
	ixm_timer_run(&w, now + 40 * TICK);
	EXPECT_EQ(1, victim_fires) TH_LOG("moved later: fires once, at the new time");
	EXPECT_EQ(0, w.pending);
	EXPECT_EQ(0, w.linked);

	ixm_timer_arm(&w, &victim, now + 100 * TICK);
	ixm_timer_cancel(&w, &victim);
	EXPECT_EQ(0, w.pending);
	EXPECT_EQ(1, w.linked) TH_LOG("cancelled: left in its slot");
	EXPECT_EQ(U64_MAX, ixm_timer_next_ns(&w)) TH_LOG("nothing pending: no wake for it");
	ixm_timer_arm(&w, &victim, now + 300 * TICK);
	EXPECT_EQ(1, w.linked) TH_LOG("armed again later: the same slot entry");
	ixm_timer_arm(&w, &victim, now + 50 * TICK);
	EXPECT_EQ(50, victim.at - now / TICK) TH_LOG("moved earlier: moved at once");
	ixm_timer_cancel(&w, &victim);
	ixm_timer_run(&w, now + 200 * TICK);
	EXPECT_EQ(1, victim_fires) TH_LOG("cancelled: never fires");
	EXPECT_EQ(0, w.linked) TH_LOG("its slot came up: off the wheel");

	ixm_timer_arm(&w, &victim, now + 1000 * TICK);
	ixm_timer_cancel(&w, &victim);
	ixm_timer_del(&w, &victim);
	EXPECT_EQ(0, w.linked);
	EXPECT_EQ(NULL, victim.pprev) TH_LOG("ixm_timer_del(): no slot points at it any more");
}

TEST_HARNESS_MAIN
