// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cubic.c - CUBIC congestion control (RFC 9438)
 *
 * The algorithm alone first: a connection of its own whose acknowledgments
 * the test clocks (a window of them a round trip), held against RFC
 * 9438's formulas computed here in floating point: the cut to 0.7 (§4.6),
 * fast convergence (§4.7), the curve's concave climb, plateau and convex
 * growth (§4.2, §4.4, §4.5), the Reno-friendly region at short RTTs
 * (§4.3), no growth and no time while the application leaves cwnd
 * unfilled (§5.8), the stage after a timeout (§4.8).  Then on the wire
 * (tcp_state.h): a port set to cubic gives its connections CUBIC, whose
 * fast retransmit and ECE leave 0.7 of the flight.
 */
#include <math.h>
#include "tcp_state.h"

#define SEG		1000u		/* the MSS of the clocked connection */
#define RTT_US		200000u		/* and its round trip: 200 ms */

static struct ixm_stack cs;
static struct ixm_tcp_table ct;
static struct ixm_tcp_conn cc;

/* A CUBIC connection in congestion avoidance after a loss at @w bytes. */
static struct ixm_tcp_conn *cubic_after_loss(u32 w, u32 rtt_us)
{
	struct ixm_tcp_conn *c = &cc;

	memset(&cs, 0, sizeof(cs));
	memset(&ct, 0, sizeof(ct));
	memset(c, 0, sizeof(*c));
	cs.now_ns = T0;
	ct.stack = &cs;
	ixm_tcp_config_default(&ct.cfg);
	c->table = &ct;
	c->mss = SEG;
	c->srtt_us = rtt_us;
	c->cc = &ixm_tcp_cubic;
	c->cc->init(c);
	c->snd_una = 1;
	c->snd_max = 1 + w;
	c->cwnd = w;
	c->ssthresh = c->cc->ssthresh(c);
	c->cwnd = c->ssthresh;
	return c;
}

/*
 * @ms of acknowledgments, a segment each, a window of them a round trip;
 * @fill: the connection keeps cwnd full, else a tenth of it in flight.
 */
static void clock_acks(struct ixm_tcp_conn *c, u32 rtt_us, u64 ms, bool fill)
{
	u64 end = cs.now_ns + ms * MS;

	while (cs.now_ns < end) {
		u32 flight = fill ? c->cwnd : c->cwnd / 10;

		c->snd_una += SEG;
		c->snd_max = c->snd_una + flight - SEG;
		cs.now_ns += (u64)rtt_us * 1000 * SEG / c->cwnd;
		c->cc->on_ack(c, SEG);
	}
}

/* RFC 9438 Figure 1 in segments, @t seconds into the stage */
static double w_cubic(double wmax, double k, double t)
{
	return 0.4 * pow(t - k, 3) + wmax;
}

/* §4.6: ssthresh and cwnd 0.7 of the flight at the loss; W_max that flight. */
TEST(cubic_cut_is_beta)
{
	struct ixm_tcp_conn *c = cubic_after_loss(100 * SEG, RTT_US);

	EXPECT_EQ(70 * SEG, c->ssthresh) TH_LOG("0.7 of 100 segments in flight");
	EXPECT_EQ(100 * SEG, c->cubic.wmax);
	EXPECT_EQ(100 * SEG, c->cubic.prior);
	/* never below two segments */
	c->snd_max = c->snd_una + SEG;
	EXPECT_EQ(2 * SEG, c->cc->ssthresh(c));
}

/* §4.7: a loss below the last W_max sets W_max to (1 + 0.7) / 2 of the flight. */
TEST(cubic_fast_convergence)
{
	struct ixm_tcp_conn *c = cubic_after_loss(100 * SEG, RTT_US);

	c->snd_max = c->snd_una + 80 * SEG;
	EXPECT_EQ(56 * SEG, c->cc->ssthresh(c));
	EXPECT_EQ(68 * SEG, c->cubic.wmax) TH_LOG("80 segments, below W_max 100: 0.85 of it");
	EXPECT_EQ(80 * SEG, c->cubic.prior) TH_LOG("cwnd_prior is the flight itself");
	c->snd_max = c->snd_una + 90 * SEG;
	c->cc->ssthresh(c);
	EXPECT_EQ(90 * SEG, c->cubic.wmax) TH_LOG("above W_max 68: W_max is the flight");
}

/*
 * §4.2, §4.4, §4.5 at a long RTT (the Reno-friendly estimate stays below):
 * from 70 segments the window climbs back to W_max 100 at K = cbrt(30 /
 * 0.4) = 4.22 s, stays near it, then grows convex, as the formula says
 * give or take the round trip it aims ahead (§4.4's W_cubic(t + RTT)).
 */
TEST(cubic_curve)
{
	struct ixm_tcp_conn *c = cubic_after_loss(100 * SEG, RTT_US);
	double k = cbrt(30 / 0.4), rtt = RTT_US / 1e6;
	static const double at[] = { 1.0, 2.0, 3.5, 4.2, 5.0, 6.5, 8.0 };
	double t = 0, plateau = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		double lo, hi, w;

		clock_acks(c, RTT_US, (u64)((at[i] - t) * 1000), true);
		t = at[i];
		if (!i)
			EXPECT_LT(fabs(k * 1024 - c->cubic.k), 2) TH_LOG("K %u", c->cubic.k);
		w = c->cwnd / (double)SEG;
		lo = w_cubic(100, k, t) - 2;
		hi = w_cubic(100, k, t + rtt) + 1;
		EXPECT_TRUE(w >= lo && w <= hi) {
			TH_LOG("t %.1f s: cwnd %.2f segments, RFC 9438: %.2f-%.2f",
			       t, w, lo, hi);
		}
		if (t == 3.5)
			plateau = w;
		if (t == 5.0)
			EXPECT_LT(w - plateau, 1.5) TH_LOG("the plateau: Reno would add 7.5");
	}
	EXPECT_GT(c->cwnd, 120 * SEG) TH_LOG("convex past W_max");
	EXPECT_LT(c->cubic.west, c->cwnd) TH_LOG("the Reno estimate stayed below");
}

/*
 * §4.3 at a 1 ms RTT, a 20-segment window: the curve would take 2.5 s
 * to climb back, Reno 10 RTTs.  The window follows W_est: from 14
 * segments 0.529 a round trip up to the window before the cut (20), one
 * a round trip after.
 */
TEST(cubic_reno_friendly)
{
	struct ixm_tcp_conn *c = cubic_after_loss(20 * SEG, 1000);
	double w;

	clock_acks(c, 1000, 10, true);
	w = c->cwnd / (double)SEG;
	EXPECT_TRUE(w >= 14 + 5.29 - 1 && w <= 14 + 5.29 + 1) {
		TH_LOG("10 RTTs: cwnd %.2f segments, want 19.3 (Reno's own: 24)", w);
	}
	clock_acks(c, 1000, 90, true);
	w = c->cwnd / (double)SEG;
	/* 11.3 RTTs to 20 segments, then 88.7 at one a round trip: 108.7 */
	EXPECT_TRUE(w >= 104 && w <= 112) {
		TH_LOG("100 RTTs: cwnd %.2f segments, want about 108.7", w);
	}
}

/*
 * §5.8: while less than half of cwnd is in flight (RFC 7661 §4.3), cwnd
 * stays and the time is not the curve's: after 10 s of it, the window
 * grows as if the stage had just begun.  The same after 10 s with
 * nothing in flight at all, but for the round trip of the first data
 * sent after it, which is the curve's.
 */
TEST(cubic_application_limited)
{
	struct ixm_tcp_conn *c = cubic_after_loss(100 * SEG, RTT_US);
	u32 fresh, fresh_rtt, begun;

	clock_acks(c, RTT_US, 1000, true);
	fresh = c->cwnd;
	clock_acks(c, RTT_US, RTT_US / 1000, true);
	fresh_rtt = c->cwnd;
	c = cubic_after_loss(100 * SEG, RTT_US);
	clock_acks(c, RTT_US, 1, true);	/* the stage begins */
	begun = c->cwnd;
	clock_acks(c, RTT_US, 10000, false);
	EXPECT_EQ(begun, c->cwnd) TH_LOG("no growth while cwnd is not filled");
	clock_acks(c, RTT_US, 999, true);
	EXPECT_LE(abs((int)(c->cwnd - fresh)), SEG) {
		TH_LOG("1 s of a full window after 10 s limited: cwnd %u, as 1 s fresh: %u",
		       c->cwnd, fresh);
	}

	c = cubic_after_loss(100 * SEG, RTT_US);
	clock_acks(c, RTT_US, 1, true);
	c->snd_una = c->snd_max;	/* everything acknowledged ... */
	c->cc->on_ack(c, SEG);
	begun = c->cwnd;
	/* ... 10 s pass, a full window goes, its first ACK a round trip later */
	cs.now_ns += 10000 * MS + RTT_US * 1000ULL;
	c->snd_max = c->snd_una + c->cwnd;
	clock_acks(c, RTT_US, 1000, true);
	EXPECT_LE(abs((int)(c->cwnd - fresh_rtt)), SEG) {
		TH_LOG("1 s of a full window after 10 s idle: cwnd %u (%u before), 1.2 s fresh: %u",
		       c->cwnd, begun, fresh_rtt);
	}
}

/*
 * §4.8: after a timeout, slow start to 0.7 of the flight, then a stage
 * whose curve starts there (K 0, W_max the window it begins at).
 */
TEST(cubic_after_timeout)
{
	struct ixm_tcp_conn *c = cubic_after_loss(100 * SEG, RTT_US);

	c->cwnd = 100 * SEG;
	c->ssthresh = c->cc->ssthresh(c);
	c->cc->on_rto(c);
	EXPECT_EQ(SEG, c->cwnd);
	EXPECT_EQ(70 * SEG, c->ssthresh);
	while (c->cwnd < c->ssthresh)
		clock_acks(c, RTT_US, 1, true);
	clock_acks(c, RTT_US, 1, true);	/* congestion avoidance begins */
	EXPECT_EQ(0, c->cubic.k);
	EXPECT_EQ(c->cubic.west, c->cubic.wmax) TH_LOG("W_max is the window the stage began at");
	EXPECT_TRUE(c->cubic.wmax >= 70 * SEG && c->cubic.wmax <= 72 * SEG);
	clock_acks(c, RTT_US, 2000, true);
	/* convex from 70: 70 + 0.4 * 2^3 = 73.2; W_est: 70 + 10 * 0.529 = 75.3 */
	EXPECT_TRUE(c->cwnd >= 74 * SEG && c->cwnd <= 78 * SEG) {
		TH_LOG("2 s after: cwnd %u", c->cwnd);
	}
}

/* A passive open on a port whose congestion is cubic, no SACK (NewReno's recovery). */
static bool cubic_passive(struct tc *t, u8 cc, unsigned int opts)
{
	tc_init(t);
	t->h->cfg.cc = cc;
	return tc_passive(t, opts);
}

/* A port set to cubic: three duplicate ACKs leave 0.7 of the flight. */
TEST(cubic_on_the_wire_fast_retransmit)
{
	struct tc *t = &T;
	u32 una, flight;

	ASSERT_TRUE(cubic_passive(t, IXM_CC_CUBIC, O_MSS));
	EXPECT_STREQ("cubic", conn(t)->cc->name);
	una = t->rcv;
	EXPECT_EQ(8000, tc_sendv(t, 0, 8000));
	flight = conn(t)->snd_max - conn(t)->snd_una;
	ASSERT_EQ(8000, flight) TH_LOG("the initial window takes it all");
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	EXPECT_EQ(1, stats(t)->fast_retrans);
	EXPECT_EQ(flight * 7 / 10, conn(t)->ssthresh) TH_LOG("0.7, not NewReno's half");
	tc_fini(t);

	ASSERT_TRUE(cubic_passive(t, IXM_CC_NEWRENO, O_MSS));
	EXPECT_STREQ("newreno", conn(t)->cc->name) TH_LOG("the default is unchanged");
	tc_fini(t);
}

/* §4.6 for an ECE: the cut is CUBIC's too, once a window. */
TEST(cubic_on_the_wire_ece)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	u32 una, flight;

	ixm_tcp_config_default(&cfg);
	cfg.ecn = 2;
	tc_init_cfg(t, &cfg);
	t->h->cfg.cc = IXM_CC_CUBIC;
	t->hport = H_PORT;
	ASSERT_TRUE(tc_passive_flags(t, O_MSS, TH_ECE | TH_CWR));
	una = t->rcv;
	EXPECT_EQ(10000, tc_sendv(t, 0, 10000));
	flight = conn(t)->snd_max - conn(t)->snd_una;
	tc_seg(t, TH_ACK | TH_ECE, t->snd, una + 1000, NULL, 0, 0);
	EXPECT_EQ(1, stats(t)->ece_cuts);
	EXPECT_EQ((flight - 1000) * 7 / 10, conn(t)->cwnd) {
		TH_LOG("cwnd 0.7 of the %u bytes then in flight", flight - 1000);
	}
	tc_fini(t);
}

TEST_HARNESS_MAIN
