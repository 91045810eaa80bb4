// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_sack.c - SACK (RFC 2018), D-SACK (RFC 2883) and RACK-TLP
 * (RFC 8985), one crafted segment at a time (tcp_state.h)
 *
 * As a receiver: the blocks each ACK carries for out-of-order data, in
 * RFC 2018 §4's order, and D-SACKs for duplicates.  As a sender: a hole
 * the peer's SACKs show is sent again once RACK's reordering window
 * passed, and only the hole; a lost tail is probed two round trips on,
 * not after an RTO; a D-SACK for the probe is counted as needless; a
 * timeout forgets what was SACKed.  And none of it without both ends
 * agreeing, or with the tcp_sack knob off.
 */
#include <stdarg.h>

#include "tcp_state.h"

#define SEG	1448	/* the host's MSS with timestamps (1460 - 12) */

/* The SACK-permitted answer and offer, and none where either end says no. */
TEST(sack_negotiation)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_ALL));
	EXPECT_TRUE(conn(t)->flags & IXM_TCPF_SACK) TH_LOG("passive, SACK offered: agreed");
	tc_fini(t);

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS | O_WS | O_TS));
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_SACK) TH_LOG("passive, not offered: not agreed");
	tc_fini(t);

	tc_init(t);
	{
		struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0xc0);

		EXPECT_EQ(0, tc_call(t, &c));
		ASSERT_EQ(1, t->nseg);
		EXPECT_TRUE(t->seg[0].sack_ok) TH_LOG("active: the SYN offers SACK");
		EXPECT_TRUE(t->seg[0].has_ts && t->seg[0].mss && t->seg[0].wscale >= 0) {
			TH_LOG("active: beside MSS, window scale and timestamps");
		}
	}
	tc_fini(t);

	ixm_tcp_config_default(&cfg);
	cfg.sack = 0;
	tc_init_cfg(t, &cfg);
	{
		struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0xc0);

		EXPECT_EQ(0, tc_call(t, &c));
		ASSERT_EQ(1, t->nseg);
		EXPECT_FALSE(t->seg[0].sack_ok) TH_LOG("tcp_sack 0: the SYN does not offer it");
	}
	tc_fini(t);

	tc_init_cfg(t, &cfg);
	t->hport = H_PORT;
	{
		struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);

		EXPECT_EQ(0, tc_call(t, &c));
		t->snd = t->piss;
		tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_ALL);
		ASSERT_EQ(1, t->nseg);
		EXPECT_FALSE(t->seg[0].sack_ok) {
			TH_LOG("tcp_sack 0: the SYN-ACK does not answer it");
		}
	}
	tc_fini(t);
}

FIXTURE(sack) {
	struct tc *t;
	u32 base;	/* the peer's next byte when the test starts */
};

FIXTURE_SETUP(sack)
{
	self->t = &T;
	tc_init(self->t);
	ASSERT_TRUE(tc_passive(self->t, O_ALL)) TH_LOG("the handshake");
	ASSERT_TRUE(self->t->ts);
	self->base = self->t->snd;
}

FIXTURE_TEARDOWN(sack)
{
	tc_fini(self->t);
}

/* The peer's bytes [@lo, @hi) past @base, whatever the host expects. */
static void peer_data(struct tc *t, u32 base, u32 lo, u32 hi)
{
	tc_seg(t, TH_ACK, base + lo, t->rcv, data + lo, hi - lo, 0);
}

/*
 * The host's one segment is a pure ACK of @ack with @n blocks, in this
 * order: their edges follow, left and right of each.
 */
static bool acks_with(struct tc *t, u32 ack, unsigned int n, ...)
{
	const struct tcp_seg *s = &t->seg[0];
	u32 blk[4][2];
	unsigned int i;
	va_list ap;

	va_start(ap, n);
	for (i = 0; i < n && i < 4; i++) {
		blk[i][0] = va_arg(ap, u32);
		blk[i][1] = va_arg(ap, u32);
	}
	va_end(ap);

	if (t->nseg != 1 || s->dlen || s->ack != ack || s->nsack != n) {
		ixm_diag("%u segments; ack %u (want %u), %u blocks (want %u)", t->nseg,
			 t->nseg ? s->ack : 0, ack, t->nseg ? s->nsack : 0, n);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (s->sack[i][0] != blk[i][0] || s->sack[i][1] != blk[i][1]) {
			ixm_diag("block %u: [%u, %u), want [%u, %u)", i, s->sack[i][0],
				 s->sack[i][1], blk[i][0], blk[i][1]);
			return false;
		}
	}
	return true;
}

/*
 * RFC 2018 §4: the block holding the segment that arrived last first,
 * then the others most recent first; three at most beside timestamps;
 * blocks go once the hole before them is filled.
 */
TEST_F(sack, receiver_blocks)
{
	struct tc *t = self->t;
	u32 b = self->base;

	peer_data(t, b, 100, 200);
	EXPECT_TRUE(acks_with(t, b, 1, b + 100, b + 200)) {
		TH_LOG("a segment past a hole: an ACK at once, its block");
	}
	peer_data(t, b, 300, 400);
	EXPECT_TRUE(acks_with(t, b, 2, b + 300, b + 400, b + 100, b + 200)) {
		TH_LOG("a second: its block first");
	}
	peer_data(t, b, 500, 600);
	peer_data(t, b, 700, 800);
	EXPECT_TRUE(acks_with(t, b, 3, b + 700, b + 800, b + 500, b + 600, b + 300, b + 400)) {
		TH_LOG("four runs: three blocks fit beside timestamps, the newest three");
	}
	peer_data(t, b, 150, 300);
	EXPECT_TRUE(acks_with(t, b, 3, b + 100, b + 400, b + 700, b + 800, b + 500, b + 600)) {
		TH_LOG("a segment that joins two runs: the joined run first");
	}
	EXPECT_EQ(5, stats(t)->sacks_sent);
	peer_data(t, b, 0, 100);
	EXPECT_TRUE(acks_with(t, b + 400, 2, b + 700, b + 800, b + 500, b + 600)) {
		TH_LOG("the hole filled: the ACK moves, the runs it passed go");
	}
	peer_data(t, b, 400, 500);
	peer_data(t, b, 600, 700);
	EXPECT_TRUE(acks_with(t, b + 800, 0)) {
		TH_LOG("every hole filled: no block left");
	}
}

/* RFC 2883 §4: a duplicate is reported first, below the ACK or inside a block. */
TEST_F(sack, receiver_dsack)
{
	struct tc *t = self->t;
	u32 b = self->base;

	peer_data(t, b, 0, 100);
	tc_advance(t, 50 * MS);		/* the delayed ACK */
	peer_data(t, b, 0, 100);
	EXPECT_TRUE(acks_with(t, b + 100, 1, b, b + 100)) {
		TH_LOG("bytes had already: an ACK with them as a D-SACK");
	}
	peer_data(t, b, 200, 300);
	peer_data(t, b, 200, 300);
	EXPECT_TRUE(acks_with(t, b + 100, 2, b + 200, b + 300, b + 200, b + 300)) {
		TH_LOG("out-of-order bytes had already: the D-SACK, then the block holding them");
	}
	peer_data(t, b, 50, 150);
	EXPECT_TRUE(acks_with(t, b + 150, 2, b + 50, b + 100, b + 200, b + 300)) {
		TH_LOG("in part had already: that part as the D-SACK");
	}
	EXPECT_EQ(3, stats(t)->dsacks_sent);
}

/* The peer acknowledges @ack and SACKs [@lo, @hi) in a pure ACK. */
static void ack_sacking(struct tc *t, u32 ack, u32 lo, u32 hi)
{
	t->psack[0][0] = lo;
	t->psack[0][1] = hi;
	t->npsack = 1;
	tc_seg(t, TH_ACK, t->snd, ack, NULL, 0, 0);
	t->npsack = 0;
}

/* The host's data: @n bytes, sent at once (the initial window allowing). */
static u32 host_sends(struct __test_metadata *_metadata, struct tc *t, u32 n)
{
	u32 before = t->rcv;

	EXPECT_EQ((int)n, tc_sendv(t, t->rcv - t->hiss - 1, n));
	return before;
}

/* Warm up: 100 bytes, acknowledged @rtt_ns later, so that SRTT is @rtt_ns. */
static void rtt_sample(struct __test_metadata *_metadata, struct tc *t, u64 rtt_ns)
{
	host_sends(_metadata, t, 100);
	tc_advance(t, rtt_ns);
	t->rcv += 100;
	t->tsecr = t->seg[0].tsval;
	tc_seg(t, TH_ACK, t->snd, t->rcv, NULL, 0, 0);
	EXPECT_TRUE(conn(t)->srtt_us) TH_LOG("an RTT sample");
}

/*
 * RFC 8985 §6.2: the first segment is lost, the two after it SACKed; it
 * goes again once RACK's reordering window (a quarter of the least RTT)
 * has passed, with no duplicate ACK counting, no timeout, and only it.
 */
TEST_F(sack, rack_repairs_the_hole)
{
	struct tc *t = self->t;
	u32 una, i;
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 3 * SEG);
	ASSERT_EQ(3, t->nseg);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(SEG, t->seg[i].dlen);
	tc_advance(t, 4 * MS);
	t->psack[0][0] = una + SEG;
	t->psack[0][1] = una + 3 * SEG;
	t->npsack = 1;
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	EXPECT_FALSE(t->nseg) TH_LOG("two segments SACKed: the first may yet come, wait");
	EXPECT_EQ(1, stats(t)->sacks_rcvd);
	t->npsack = 0;
	waited = tc_wait_seg(t, 100 * MS, 100000);
	EXPECT_TRUE(waited && waited <= 2 * MS) {
		TH_LOG("RACK: the hole goes again after about RTT/4 (%llu us)", waited / 1000);
	}
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, SEG)) {
		TH_LOG("only the hole, not what was SACKed");
	}
	EXPECT_EQ(1, stats(t)->rack_losses);
	EXPECT_EQ(1, stats(t)->sack_recoveries);
	EXPECT_EQ(1, stats(t)->retrans);
	EXPECT_FALSE(stats(t)->fast_retrans);
	EXPECT_FALSE(stats(t)->timeouts);
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, una + 3 * SEG, NULL, 0, 0);
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_IN_RECOVERY) {
		TH_LOG("all acknowledged: recovery over");
	}
	EXPECT_EQ(0, conn(t)->seg_count);
	EXPECT_EQ(0, conn(t)->sacked_bytes + conn(t)->lost_bytes + conn(t)->rxt_bytes);
}

/*
 * What the peer SACKed has left the network (RFC 6675 §4's pipe): with
 * the first segment of a full window lost and the others SACKed, data
 * queued behind the full window goes out at once though the hole is not
 * repaired yet, without the application (its sendv took the bytes when
 * cwnd was full: they waited in the queue, whole, not cut to the odd
 * bytes of room the initial RTT sample's ACK left).  (Before, the bytes
 * behind a hole held the window shut through recovery: nothing new went
 * behind a retransmission, and RACK could not see that one lost too.)
 */
TEST_F(sack, sacked_bytes_free_the_window)
{
	struct tc *t = self->t;
	u32 off, una, k;

	rtt_sample(_metadata, t, 4 * MS);
	off = t->rcv - t->hiss - 1;
	k = conn(t)->cwnd / SEG;	/* the initial window's whole segments */
	una = host_sends(_metadata, t, k * SEG);
	ASSERT_EQ(k, t->nseg);
	ASSERT_TRUE(conn(t)->cwnd > k * SEG) TH_LOG("some room left, less than a segment");
	EXPECT_EQ(2 * SEG, (u32)tc_sendv(t, off + k * SEG, 2 * SEG)) {
		TH_LOG("the peer's window takes both segments");
	}
	EXPECT_EQ(0, t->nseg) TH_LOG("cwnd full: they wait, no piece cut to the room");
	tc_advance(t, 4 * MS);
	/* all but the first SACKed, two of them first */
	ack_sacking(t, una, una + SEG, una + 3 * SEG);
	EXPECT_EQ(0, tc_nev(t, IXMOD_EV_TCP_SENT)) TH_LOG("nothing for the application to do");
	EXPECT_EQ(2, t->nseg) TH_LOG("two SACKed: the two queued go at once, the hole still open");
	EXPECT_TRUE(t->nseg && seg_is(&t->seg[0], TH_ACK, una + k * SEG, t->snd, SEG)) {
		TH_LOG("new data, not the hole");
	}
	EXPECT_FALSE(stats(t)->retrans);
}

/*
 * RFC 6675 §5 step (4.3): entering recovery, the first segment deemed
 * lost goes again at once, whatever pipe says; only the later ones wait
 * for room (4.4).  Ten in flight, the first lost, three after it SACKed:
 * ssthresh is five segments and pipe six, yet the hole is repaired now,
 * not half a round trip later when pipe has drained below cwnd.
 */
TEST_F(sack, first_retransmission_at_once)
{
	struct tc *t = self->t;
	u32 una, k;

	rtt_sample(_metadata, t, 4 * MS);
	k = conn(t)->cwnd / SEG;
	ASSERT_GE(k, 10) TH_LOG("an initial window of ten segments at least");
	una = host_sends(_metadata, t, 10 * SEG);
	ASSERT_EQ(10, t->nseg);
	tc_advance(t, 4 * MS);
	ack_sacking(t, una, una + SEG, una + 4 * SEG);
	EXPECT_TRUE(conn(t)->flags & IXM_TCPF_IN_RECOVERY) TH_LOG("three SACKed: recovery");
	EXPECT_TRUE(ixm_tcp_sack_pipe(conn(t)) + SEG > conn(t)->cwnd) {
		TH_LOG("pipe %u, cwnd %u: no room", ixm_tcp_sack_pipe(conn(t)), conn(t)->cwnd);
	}
	EXPECT_TRUE(t->nseg >= 1 && seg_is(&t->seg[0], TH_ACK | TH_PSH, una, t->snd, SEG)) {
		TH_LOG("the hole goes at once all the same (%u segments sent)", t->nseg);
	}
	EXPECT_EQ(1, stats(t)->retrans) TH_LOG("and only it");
}

/*
 * In recovery new data waits for a segment's room (RFC 6675 §5 step C),
 * but the last bytes of a transfer need only their own: a window full,
 * the first segment lost, six SACKed, and the application's last 500
 * bytes go though cwnd - pipe is less than an MSS.  They are what lets
 * RACK see the hole's copy lost too; kept back, only the RTO would.
 */
TEST_F(sack, recovery_sends_a_short_tail)
{
	struct tc *t = self->t;
	u32 off, una, room, k;

	rtt_sample(_metadata, t, 4 * MS);
	off = t->rcv - t->hiss - 1;
	k = conn(t)->cwnd;
	ASSERT_EQ(10 * SEG + 100, k) TH_LOG("IW and the sample's 100 bytes");
	una = host_sends(_metadata, t, k);
	ASSERT_EQ(11, t->nseg);
	EXPECT_EQ(500, tc_sendv(t, off + k, 500));
	EXPECT_EQ(0, t->nseg) TH_LOG("cwnd full: they wait");
	tc_advance(t, 4 * MS);
	ack_sacking(t, una, una + SEG, una + 7 * SEG);
	ASSERT_TRUE(conn(t)->flags & IXM_TCPF_IN_RECOVERY);
	ASSERT_TRUE(t->nseg >= 1 && seg_is(&t->seg[0], TH_ACK | TH_PSH, una, t->snd, SEG)) {
		TH_LOG("the hole at once (%u segments)", t->nseg);
	}
	EXPECT_TRUE(t->nseg == 2 && seg_is(&t->seg[1], TH_ACK | TH_PSH, una + k, t->snd, 500)) {
		TH_LOG("the last 500 bytes go with it (%u segments)", t->nseg);
	}
	room = conn(t)->cwnd - ixm_tcp_sack_pipe(conn(t));
	EXPECT_TRUE(room + 500 < SEG) TH_LOG("cwnd - pipe %u + 500: less than a segment", room);
}

/* Three segments' worth SACKed and no reordering seen: no wait at all. */
TEST_F(sack, rack_no_wait_past_three)
{
	struct tc *t = self->t;
	u32 una;

	rtt_sample(_metadata, t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, t->rcv, NULL, 0, 0);
	/* grow cwnd: acknowledge a first flight */
	una = host_sends(_metadata, t, 3 * SEG);
	tc_advance(t, 4 * MS);
	t->rcv = una + 3 * SEG;
	tc_seg(t, TH_ACK, t->snd, t->rcv, NULL, 0, 0);
	una = host_sends(_metadata, t, 4 * SEG);
	ASSERT_EQ(4, t->nseg);
	tc_advance(t, 4 * MS);
	t->psack[0][0] = una + SEG;
	t->psack[0][1] = una + 4 * SEG;
	t->npsack = 1;
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	EXPECT_TRUE(t->nseg >= 1 && seg_is(&t->seg[0], TH_ACK | TH_PSH, una, t->snd, SEG)) {
		TH_LOG("three SACKed past it: the hole goes at once");
	}
	EXPECT_EQ(1, stats(t)->rack_losses);
	EXPECT_EQ(0, stats(t)->reordering) TH_LOG("a loss is not reordering");
}

/*
 * RFC 8985 §6.2 step 4: the first segment arrives after the two behind
 * it were SACKed, never sent again: the path reorders.  RACK's window
 * holds from then on, even past three segments SACKed, and the
 * connection is counted once.
 */
TEST_F(sack, reordering_seen_and_counted)
{
	struct tc *t = self->t;
	u32 una;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 3 * SEG);
	tc_advance(t, 1 * MS);
	ack_sacking(t, una, una + SEG, una + 3 * SEG);
	EXPECT_FALSE(t->nseg) TH_LOG("RACK waits its window");
	tc_advance(t, 100000);
	tc_seg(t, TH_ACK, t->snd, una + 3 * SEG, NULL, 0, 0);
	EXPECT_EQ(0, stats(t)->rack_losses);
	EXPECT_EQ(0, stats(t)->retrans);
	EXPECT_EQ(1, stats(t)->reordering) TH_LOG("the first came late: reordering");
	EXPECT_TRUE(conn(t)->flags & IXM_TCPF_REORDER);

	t->rcv = una + 3 * SEG;
	tc_advance(t, 4 * MS);
	una = host_sends(_metadata, t, 5 * SEG);
	tc_advance(t, 4 * MS);
	ack_sacking(t, una, una + SEG, una + 5 * SEG);
	EXPECT_FALSE(t->nseg) TH_LOG("reordering seen: four SACKed past it, still RACK's window");
	tc_advance(t, 100000);
	ack_sacking(t, una + 2 * SEG, una + 3 * SEG, una + 5 * SEG);
	tc_seg(t, TH_ACK, t->snd, una + 5 * SEG, NULL, 0, 0);
	EXPECT_EQ(1, stats(t)->reordering) TH_LOG("once a connection");
}

/*
 * Two losses in a flight, the ACK that SACKed what came between them
 * lost on the way back: the next ACK's blocks list the newest first,
 * then that older one.  Nothing was reordered (RACK.fack is the highest
 * SACKed before the ACK), and a D-SACK of a needless retransmission
 * widens RACK's window (RFC 8985 §6.2 step 4) without saying reordering.
 */
TEST_F(sack, older_block_and_dsack_are_not_reordering)
{
	struct tc *t = self->t;
	u32 una;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 5 * SEG);
	ASSERT_EQ(5, t->nseg);
	tc_advance(t, 4 * MS);
	t->psack[0][0] = una + 4 * SEG;
	t->psack[0][1] = una + 5 * SEG;
	t->psack[1][0] = una + SEG;
	t->psack[1][1] = una + 3 * SEG;
	t->npsack = 2;
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	t->npsack = 0;
	EXPECT_EQ(3 * SEG, conn(t)->sacked_bytes);
	EXPECT_EQ(0, stats(t)->reordering) TH_LOG("blocks newest first: not reordering");
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_REORDER);
	ASSERT_TRUE(t->nseg || tc_wait_seg(t, 100 * MS, 100000)) TH_LOG("the holes go again");
	tc_advance(t, 4 * MS);
	/* all acknowledged, and the first hole's copy reported twice */
	ack_sacking(t, una + 5 * SEG, una, una + SEG);
	EXPECT_EQ(1, stats(t)->dsacks_rcvd);
	EXPECT_EQ(2, conn(t)->reo_mult) TH_LOG("a D-SACK widens RACK's window");
	EXPECT_EQ(0, stats(t)->reordering) TH_LOG("a D-SACK is not reordering_seen");
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_REORDER);
}

/*
 * RFC 8985 §7: the last segment of a flight is lost, the one before it
 * acknowledged: two round trips after it was sent it goes again as a
 * probe (that ACK does not put it off), long before the RTO
 * (tcp_rto_min_ms, 200 ms).
 */
TEST_F(sack, tail_loss_probe)
{
	struct tc *t = self->t;
	u32 una, end, cwnd;
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 2 * SEG);
	end = una + 2 * SEG;
	ASSERT_EQ(2, t->nseg);
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, una + SEG, NULL, 0, 0);
	EXPECT_FALSE(t->nseg);
	waited = tc_wait_seg(t, 300 * MS, 250000);
	EXPECT_TRUE(waited >= 3 * MS && waited <= 6 * MS) {
		TH_LOG("the probe: 2 SRTT after the last send, not put off by the ACK (%llu us on)",
		       waited / 1000);
	}
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una + SEG, t->snd, SEG)) {
		TH_LOG("nothing new to send: the last segment again");
	}
	EXPECT_EQ(1, stats(t)->tlp_probes);
	EXPECT_FALSE(stats(t)->timeouts);
	/* the original had arrived after all: the peer D-SACKs the probe */
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, end, NULL, 0, 0);
	cwnd = conn(t)->cwnd;
	ack_sacking(t, end, una + SEG, end);
	EXPECT_EQ(1, stats(t)->dsacks_rcvd);
	EXPECT_EQ(1, stats(t)->spurious_retrans) TH_LOG("a D-SACK of the probe: it was needless");
	EXPECT_EQ(cwnd, conn(t)->cwnd) TH_LOG("and no loss to answer: cwnd stays");
	EXPECT_FALSE(conn(t)->flags & IXM_TCPF_TLP_OUT);
}

/*
 * RFC 8985 §7.4.2: the D-SACK of a needless tail loss probe says the
 * tail was not lost, not that the network reorders: RACK's window stays
 * as it was, and a later hole with three segments' worth SACKed past it
 * still goes at once.
 */
TEST_F(sack, dsack_of_a_probe_is_not_reordering)
{
	struct tc *t = self->t;
	u32 una, end;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 2 * SEG);
	end = una + 2 * SEG;
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, una + SEG, NULL, 0, 0);
	ASSERT_TRUE(tc_wait_seg(t, 300 * MS, 250000)) TH_LOG("the probe");
	ASSERT_EQ(1, stats(t)->tlp_probes);
	tc_advance(t, 4 * MS);
	ack_sacking(t, end, una + SEG, end);
	ASSERT_EQ(1, stats(t)->dsacks_rcvd);
	EXPECT_EQ(1, conn(t)->reo_mult) TH_LOG("the window's multiplier as it was");
	t->rcv = end;
	una = host_sends(_metadata, t, 4 * SEG);
	ASSERT_EQ(4, t->nseg);
	tc_advance(t, 4 * MS);
	ack_sacking(t, una, una + SEG, una + 4 * SEG);
	EXPECT_TRUE(t->nseg >= 1 && seg_is(&t->seg[0], TH_ACK | TH_PSH, una, t->snd, SEG)) {
		TH_LOG("three SACKed past the hole: it goes at once (%u segments)", t->nseg);
	}
	EXPECT_EQ(1, stats(t)->rack_losses);
}

/*
 * While acknowledgments keep coming less than an SRTT apart, the tail is
 * not lost: no probe.  Four segments in flight, no more data, an ACK of
 * one of them every 3 ms (SRTT 4 ms, as after an ECE cut or a window
 * that stopped the sender): the probe, due 2 SRTT after the send, is put
 * off to an SRTT after each ACK, and the last ACK ends the flight before
 * it comes (RFC 8985 §7.2 restarts it on every ACK of new data).
 */
TEST_F(sack, acks_keep_the_probe_off)
{
	struct tc *t = self->t;
	u32 una, i;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 4 * SEG);
	ASSERT_EQ(4, t->nseg);
	t->tsecr = t->seg[0].tsval;
	for (i = 1; i <= 4; i++) {
		tc_advance(t, 3 * MS);
		tc_seg(t, TH_ACK, t->snd, una + i * SEG, NULL, 0, 0);
		EXPECT_FALSE(t->nseg) TH_LOG("ACK %u: nothing sent (%u segments)", i, t->nseg);
	}
	EXPECT_EQ(0, stats(t)->tlp_probes) TH_LOG("no probe while the ACK clock ran");
	EXPECT_EQ(una + 4 * SEG, conn(t)->snd_una);
	EXPECT_FALSE(stats(t)->retrans);
}

/*
 * The last segment of a run that filled the peer's window, the one before
 * it acknowledged: a receiver that did not read has no second segment to
 * ACK at once and no window update to send, so this one's ACK may wait
 * for its delayed-ACK timer, as a lone segment's does: the probe comes at
 * the RTO's time, not two SRTTs on (where a slow reader made it needless,
 * tcp_pair's slow_reader_loss_1pct).  The same tail with the window open
 * is probed two SRTTs on (tail_loss_probe).
 */
TEST_F(sack, window_filling_tail_waits_for_the_delayed_ack)
{
	struct tc *t = self->t;
	u32 una, last = 11 << 7;	/* eleven of the peer's 128-byte window units */
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, SEG + last);
	ASSERT_EQ(2, t->nseg);
	tc_advance(t, 4 * MS);
	t->pwin = 11;		/* the window's right edge at the last byte sent */
	tc_seg(t, TH_ACK, t->snd, una + SEG, NULL, 0, 0);
	ASSERT_EQ(conn(t)->snd_max - conn(t)->snd_una, conn(t)->snd_wnd);
	EXPECT_FALSE(t->nseg);
	waited = tc_wait_seg(t, 1000 * MS, MS);
	EXPECT_TRUE(waited >= 200 * MS && waited <= 215 * MS) {
		TH_LOG("probed at the RTO's time, not 2 SRTT on (%llu ms)", waited / MS);
	}
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una + SEG, t->snd, last));
	EXPECT_EQ(1, stats(t)->tlp_probes);
	EXPECT_EQ(0, stats(t)->timeouts);
}

/*
 * A segment sent alone may wait for the peer's delayed ACK (RFC 8985
 * §7.2's WCDelAckT, 200 ms): the probe would come after the RTO, so it
 * is sent at the RTO's time in the RTO's place, and cwnd stays; if that
 * copy is lost too, the RTO proper follows one RTO later.
 */
TEST_F(sack, lone_segment_probed_at_the_rto)
{
	struct tc *t = self->t;
	u32 una, cwnd;
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	cwnd = conn(t)->cwnd;
	una = host_sends(_metadata, t, 100);
	waited = tc_wait_seg(t, 1000 * MS, MS);
	EXPECT_TRUE(waited >= 200 * MS && waited <= 210 * MS) {
		TH_LOG("a lone segment: probed at the RTO's time (%llu ms)", waited / MS);
	}
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, 100));
	EXPECT_EQ(1, stats(t)->tlp_probes);
	EXPECT_EQ(0, stats(t)->timeouts);
	EXPECT_EQ(cwnd, conn(t)->cwnd) TH_LOG("a probe, not a timeout: cwnd stays");
	waited = tc_wait_seg(t, 1000 * MS, MS);
	EXPECT_TRUE(waited >= 200 * MS) TH_LOG("the probe lost: the RTO (%llu ms)", waited / MS);
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, 100));
	EXPECT_EQ(1, stats(t)->tlp_probes) TH_LOG("one probe a tail");
	EXPECT_EQ(1, stats(t)->timeouts);
	EXPECT_EQ(conn(t)->mss, conn(t)->cwnd) TH_LOG("the timeout: cwnd one segment");
}

/*
 * RFC 8985 §6.2 for a FIN: three segments, then the FIN alone; the first
 * segment and the FIN are lost.  The hole goes again by RACK; when that
 * copy's ACK covers every data byte but not the FIN, sent before it, the
 * FIN is lost as a segment would be and goes again at once, not at the
 * RTO (200 ms: what a FIN lost in a recovery cost before).
 */
TEST_F(sack, fin_lost_in_recovery_goes_by_rack)
{
	struct tc *t = self->t;
	u32 una, end;
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 3 * SEG);
	end = una + 3 * SEG;
	ASSERT_EQ(3, t->nseg);
	tc_advance(t, MS);
	ASSERT_EQ(0, tc_close(t, false));
	ASSERT_EQ(1, t->nseg);
	ASSERT_TRUE(seg_is(&t->seg[0], TH_ACK | TH_FIN, end, t->snd, 0)) TH_LOG("the FIN alone");
	tc_advance(t, 3 * MS);
	ack_sacking(t, una, una + SEG, end);
	waited = tc_wait_seg(t, 100 * MS, 100000);
	ASSERT_TRUE(waited && waited <= 2 * MS) TH_LOG("RACK: the hole (%llu us)", waited / 1000);
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, SEG));
	EXPECT_TRUE(conn(t)->flags & IXM_TCPF_IN_RECOVERY);
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, end, NULL, 0, 0);
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_FIN, end, t->snd, 0)) {
		TH_LOG("data acked, the FIN sent before the copy not: it goes at once (%u)",
		       t->nseg);
	}
	EXPECT_EQ(2, stats(t)->rack_losses);
	EXPECT_EQ(2, stats(t)->retrans);
	EXPECT_FALSE(stats(t)->timeouts);
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, end + 1, NULL, 0, 0);
	EXPECT_EQ(IXM_TCP_FIN_WAIT_2, conn(t)->state);
	EXPECT_FALSE(stats(t)->timeouts);
}

/*
 * A FIN alone, lost with every data byte acknowledged, goes again at the
 * RTO (RFC 8985 §7.2: no probe for it) and is counted in tcp_retrans as
 * a segment sent again is; it was not, where RACK's was.
 */
TEST_F(sack, fin_alone_again_at_the_rto_is_counted)
{
	struct tc *t = self->t;
	u32 una, end;
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, SEG);
	end = una + SEG;
	tc_advance(t, 4 * MS);
	tc_seg(t, TH_ACK, t->snd, end, NULL, 0, 0);
	ASSERT_EQ(0, tc_close(t, false));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_FIN, end, t->snd, 0)) TH_LOG("the FIN alone");
	waited = tc_wait_seg(t, 2000 * MS, MS);
	ASSERT_TRUE(waited) TH_LOG("the FIN lost: it goes again");
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_FIN, end, t->snd, 0));
	EXPECT_EQ(1, stats(t)->timeouts) TH_LOG("by the RTO (%llu ms)", waited / MS);
	EXPECT_EQ(1, stats(t)->retrans) TH_LOG("and counted");
	tc_seg(t, TH_ACK, t->snd, end + 1, NULL, 0, 0);
	EXPECT_EQ(IXM_TCP_FIN_WAIT_2, conn(t)->state);
}

/*
 * RFC 8985 §6.3, RFC 6675 §5.1: after a timeout the first segment is
 * lost and goes again, one segment (cwnd) at first; what was SACKed stays
 * SACKed and does not go again (it would come back D-SACKed).
 */
TEST_F(sack, timeout_keeps_sacks)
{
	struct tc *t = self->t;
	u32 una;
	u64 waited;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 3 * SEG);
	tc_advance(t, MS);
	t->psack[0][0] = una + 2 * SEG;
	t->psack[0][1] = una + 3 * SEG;
	t->npsack = 1;
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	/* RACK repairs the first two; those are lost again */
	waited = tc_wait_seg(t, 100 * MS, 100000);
	ASSERT_TRUE(waited);
	EXPECT_EQ(2, t->nseg);
	EXPECT_EQ(SEG, conn(t)->sacked_bytes);
	waited = tc_wait_seg(t, 2000 * MS, MS);
	EXPECT_EQ(1, stats(t)->timeouts);
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, SEG)) {
		TH_LOG("the timeout: SND.UNA's segment, one (cwnd 1 MSS)");
	}
	EXPECT_EQ(SEG, conn(t)->sacked_bytes) TH_LOG("the SACKed segment kept");
	tc_seg(t, TH_ACK, t->snd, una + SEG, NULL, 0, 0);
	t->npsack = 0;
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una + SEG, t->snd, SEG)) {
		TH_LOG("slow start: the second segment again, not the SACKed third");
	}
	tc_seg(t, TH_ACK, t->snd, una + 3 * SEG, NULL, 0, 0);
	EXPECT_EQ(0, conn(t)->seg_count);
	EXPECT_EQ(0, stats(t)->spurious_retrans);
}

/*
 * A peer that SACKed SND.UNA's own segment has reneged (RFC 2018 §8):
 * the timeout forgets every SACK and the flight goes again from SND.UNA.
 */
TEST_F(sack, timeout_forgets_sacks_of_a_reneging_peer)
{
	struct tc *t = self->t;
	u32 una;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 3 * SEG);
	tc_advance(t, MS);
	t->psack[0][0] = una;
	t->psack[0][1] = una + SEG;
	t->psack[1][0] = una + 2 * SEG;
	t->psack[1][1] = una + 3 * SEG;
	t->npsack = 2;
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	t->npsack = 0;
	EXPECT_EQ(2 * SEG, conn(t)->sacked_bytes);
	tc_wait_seg(t, 2000 * MS, MS);
	while (!stats(t)->timeouts && tc_wait_seg(t, 2000 * MS, MS))
		;
	EXPECT_EQ(1, stats(t)->timeouts);
	EXPECT_EQ(0, conn(t)->sacked_bytes) TH_LOG("SACKs forgotten: the peer reneged");
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, SEG));
	tc_seg(t, TH_ACK, t->snd, una + SEG, NULL, 0, 0);
	EXPECT_EQ(2, t->nseg) TH_LOG("slow start: two segments next, the SACKed one among them");
}

/* SACK blocks outside what was sent, or reversed, mark nothing. */
TEST_F(sack, bogus_blocks_ignored)
{
	struct tc *t = self->t;
	u32 una;

	rtt_sample(_metadata, t, 4 * MS);
	una = host_sends(_metadata, t, 3 * SEG);
	tc_advance(t, 4 * MS);
	t->psack[0][0] = una + 3 * SEG;
	t->psack[0][1] = una + 9 * SEG;		/* past SND.MAX */
	t->psack[1][0] = una + 2 * SEG;
	t->psack[1][1] = una + SEG;		/* reversed */
	t->psack[2][0] = una - 3 * SEG;
	t->psack[2][1] = una - 2 * SEG;		/* long acknowledged, not a D-SACK: under 2nd */
	t->npsack = 3;
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	t->npsack = 0;
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(0, conn(t)->sacked_bytes);
	EXPECT_FALSE(stats(t)->rack_losses);
	tc_seg(t, TH_ACK, t->snd, una + 3 * SEG, NULL, 0, 0);
	EXPECT_EQ(0, conn(t)->seg_count);
}

/* Without SACK agreed, an out-of-order segment's ACK carries no block. */
TEST(sack_not_agreed_no_blocks)
{
	struct tc *t = &T;
	u32 b;

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS | O_TS));
	b = t->snd;
	tc_seg(t, TH_ACK, b + 100, t->rcv, data, 100, 0);
	EXPECT_TRUE(is_ack(t));
	EXPECT_EQ(0, t->seg[0].nsack);
	EXPECT_FALSE(stats(t)->sacks_sent);
	tc_fini(t);
}

TEST_HARNESS_MAIN
