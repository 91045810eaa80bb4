// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_data.c - the text and FIN of arriving segments
 *
 * RFC 9293 §3.10.7.4's seventh and eighth checks (ixm_tcp_rcv_data(),
 * ixm_tcp_rcv_fin()): delayed ACKs (RFC 5681 §4.2), a duplicate ACK per
 * out-of-order segment, the out-of-order queue and its bounds, and a FIN
 * that arrives out of order.
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

/* RFC 9293 §3.8.6.3, RFC 5681 §4.2: an ACK for every second full segment, else a timer. */
TEST_F(tcp_state_established, delayed_ack)
{
	struct tc *t = self->t;
	unsigned int quick;
	u64 wait;

	for (quick = 0; quick < 40; quick++) {
		tc_send(t, TH_ACK, data, 1460);
		if (!t->nseg)
			break;
	}
	EXPECT_LT(quick, 40) {
		TH_LOG("delayed ACK: after %u quick ACKs a full segment is not ACKed at once",
		       quick);
	}
	tc_send(t, TH_ACK, data, 1460);
	EXPECT_TRUE(is_ack(t)) TH_LOG("delayed ACK: the second full segment is ACKed at once");
	tc_send(t, TH_ACK, data, 1460);
	EXPECT_FALSE(t->nseg) TH_LOG("delayed ACK: one more is not");
	wait = tc_wait_seg(t, 100 * MS, 100000);
	EXPECT_GE(wait, 3900000);
	EXPECT_LE(wait, 4200000);
	ASSERT_TRUE(is_ack(t));
	EXPECT_EQ(1, stats(t)->delayed_acks) {
		TH_LOG("delayed ACK: it is ACKed after delack_us (4 ms): %llu us", wait / 1000);
	}
}

/*
 * Request and response, the application answering each 64-byte request
 * after @think_ns: the segments the host sends on its own before each
 * answer (pure ACKs), over @n requests.  Every answer must carry the
 * request's ACK.
 */
static unsigned int tc_pingpong(struct tc *t, unsigned int n, u64 think_ns)
{
	unsigned int i, pure = 0;

	for (i = 0; i < n; i++) {
		tc_send(t, TH_ACK | TH_PSH, data, 64);
		pure += t->nseg;
		if (think_ns) {
			tc_advance(t, think_ns);
			pure += t->nseg;
		}
		if (tc_recv_done(t, 64) || tc_sendv(t, 0, 64) != 64 || t->nseg != 1 ||
		    t->seg[0].dlen != 64 || t->seg[0].ack != t->snd) {
			ixm_diag("request %u: no answer of 64 bytes acknowledging it", i);
			return ~0u;
		}
		t->rcv += 64;
	}
	return pure;
}

/*
 * An interactive connection (it answers within delack_us) leaves the
 * quick ACKs of its start: its answers carry the ACKs, and a quick ACK
 * before each would double the segments per request.
 */
TEST_F(tcp_state_established, interactive_answers_carry_the_acks)
{
	struct tc *t = self->t;

	EXPECT_EQ(1, tc_pingpong(t, 20, 0)) {
		TH_LOG("interactive: only the first request is ACKed before its answer");
	}
	EXPECT_EQ(0, stats(t)->delayed_acks) TH_LOG("interactive: no delayed ACK fired");
}

/* One that answers later than delack_us keeps them: the peer is not kept waiting. */
TEST_F(tcp_state_established, slow_answers_keep_the_quick_acks)
{
	struct tc *t = self->t;

	EXPECT_EQ(8, tc_pingpong(t, 8, 5 * MS)) {
		TH_LOG("slow answers: each of the first requests is ACKed at once");
	}
}

/* RFC 5681 §4.2: a receiver SHOULD send a duplicate ACK for every out-of-order segment. */
TEST_F(tcp_state_established, dupack_per_segment)
{
	static u8 f[3][IXM_MBUF_SIZE];
	size_t len[3];
	struct tc *t = self->t;
	unsigned int i, dups = 0;

	for (i = 0; i < 3; i++) {
		struct tcp_args a = {
			.src = P_IP, .dst = H_IP, .sport = t->pport, .dport = t->hport,
			.seq = t->snd + 1000 * (i + 1), .ack = t->rcv, .flags = TH_ACK,
			.win = t->pwin, .data = data, .dlen = 1000,
		};

		len[i] = tcp_frame(f[i], our_mac, peer_mac, &a);
	}
	for (i = 0; i < 3; i++)
		tn_input(t->h, f[i], len[i], 0);
	tc_run(t);
	for (i = 0; i < t->nseg; i++)
		dups += t->seg[i].flags == TH_ACK && t->seg[i].ack == t->snd && !t->seg[i].dlen;
	EXPECT_EQ(3, dups);
	EXPECT_EQ(3, stats(t)->ooo) {
		TH_LOG("dup ACKs: 3 out-of-order segments in one batch -> 3 duplicate ACKs (%u)",
		       dups);
	}
	tc_send(t, TH_ACK, data, 1000);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->snd + 3000, t->seg[0].ack);
	EXPECT_EQ(4, tc_nev(t, IXMOD_EV_TCP_RECV)) {
		TH_LOG("dup ACKs: the hole filled -> one ACK of all 4000 bytes, 4 TCP_RECV");
	}
}

/*
 * A FIN on an out-of-order segment waits with it and takes effect once the
 * data before it arrives (RFC 9293 §3.10.7.4, eighth check: the FIN is
 * processed in sequence).  Data past a queued FIN cancels it.
 */
TEST_F(tcp_state_established, ooo_fin)
{
	struct tc *t = self->t;
	u32 seq;

	seq = t->snd;
	tc_seg(t, TH_ACK | TH_FIN, seq + 1000, t->rcv, data + 1000, 500, 0);
	EXPECT_FALSE(t->nev);
	ASSERT_TRUE(is_ack(t));
	EXPECT_STREQ("ESTABLISHED", state(t));
	EXPECT_EQ(1, stats(t)->ooo) {
		TH_LOG("ooo FIN: data and FIN past a hole -> queued, duplicate ACK, still ESTABLISHED");
	}
	t->snd += 1500 + 1;
	tc_seg(t, TH_ACK, seq, t->rcv, data, 1000, 0);
	EXPECT_EQ(3, t->nev);
	ASSERT_TRUE(recv_is(t, &t->ev[0], data, 1000));
	ASSERT_TRUE(recv_is(t, &t->ev[1], data + 1000, 500));
	EXPECT_EQ(IXMOD_EV_TCP_RECV, t->ev[2].type);
	EXPECT_FALSE(t->ev[2].res);
	EXPECT_FALSE(t->ev[2].off) {
		TH_LOG("ooo FIN: the hole filled -> RECV 1000, RECV 500, end of stream");
	}
	ASSERT_TRUE(is_ack(t));
	EXPECT_STREQ("CLOSE_WAIT", state(t)) {
		TH_LOG("ooo FIN: one ACK covers the data and the FIN; CLOSE-WAIT");
	}
}

TEST_F(tcp_state_established, ooo_fin_cancelled)
{
	struct tc *t = self->t;
	u32 seq;

	seq = t->snd;
	tc_seg(t, TH_ACK | TH_FIN, seq + 1000, t->rcv, data, 100, 0);
	tc_seg(t, TH_ACK, seq, t->rcv, data, 1200, 0);
	EXPECT_STREQ("ESTABLISHED", state(t));
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(seq + 1200, t->seg[0].ack) {
		TH_LOG("ooo FIN: data past the queued FIN cancels it (ACK %u, ESTABLISHED)",
		       seq + 1200);
	}
	t->snd = seq + 1200;
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	tc_wait_seg(t, 100 * MS, 100000);	/* a bare FIN's ACK is delayed */
	ASSERT_TRUE(is_ack(t));
	EXPECT_STREQ("CLOSE_WAIT", state(t)) {
		TH_LOG("ooo FIN: the FIN sent again in order closes it");
	}
}

/*
 * The peer's FIN in ESTABLISHED: its ACK waits for the application, as
 * Linux's does (tcp_fin(): pingpong mode), so a close within the
 * delayed-ACK time answers with one FIN+ACK segment instead of an ACK
 * and a FIN; without a close the ACK goes when the timer fires.
 */
TEST_F(tcp_state_established, fin_ack_rides_the_close)
{
	struct tc *t = self->t;

	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_STREQ("CLOSE_WAIT", state(t));
	EXPECT_EQ(0, t->nseg) TH_LOG("the peer's FIN is not ACKed at once");
	tc_advance(t, 1 * MS);
	EXPECT_EQ(0, t->nseg) TH_LOG("nor a millisecond later");
	ASSERT_EQ(0, tc_close(t, false));
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_FIN, t->rcv, t->snd, 0)) {
		TH_LOG("the close sends one FIN that acknowledges the peer's FIN");
	}
	EXPECT_STREQ("LAST_ACK", state(t));
	EXPECT_EQ(0, stats(t)->delayed_acks);
	EXPECT_EQ(0, tc_wait_seg(t, 20 * MS, 100000)) TH_LOG("and no ACK follows alone");
}

TEST_F(tcp_state_established, fin_ack_delayed)
{
	struct tc *t = self->t;
	u64 wait;

	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_EQ(0, t->nseg);
	wait = tc_wait_seg(t, 100 * MS, 100000);
	EXPECT_GE(wait, 3900000);
	EXPECT_LE(wait, 4200000);
	ASSERT_TRUE(is_ack(t));
	EXPECT_EQ(1, stats(t)->delayed_acks) {
		TH_LOG("no close: the FIN is ACKed after delack_us (4 ms): %llu us",
		       wait / 1000);
	}
	EXPECT_STREQ("CLOSE_WAIT", state(t));
}

/*
 * At most IXM_TCP_OOO_MAX out-of-order segments wait; the next, past them
 * all, is dropped (tcp_ooo_drops, not tcp_rcv_drops: the pool has room).
 */
TEST_F(tcp_state_established, ooo_bound)
{
	struct tc *t = self->t;
	unsigned int i;

	for (i = 0; i <= IXM_TCP_OOO_MAX; i++)
		tc_seg(t, TH_ACK, t->snd + 200 * (i + 1), t->rcv, data, 100, 0);
	EXPECT_EQ(IXM_TCP_OOO_MAX, stats(t)->ooo);
	EXPECT_EQ(1, stats(t)->ooo_drops) {
		TH_LOG("out of order: %u segments wait, the next is dropped (ooo %llu, ooo_drops %llu)",
		       IXM_TCP_OOO_MAX, (unsigned long long)stats(t)->ooo,
		       (unsigned long long)stats(t)->ooo_drops);
	}
	EXPECT_EQ(0, stats(t)->rcv_drops);
	tc_send(t, TH_ACK, data, 200);
	EXPECT_GE(tc_nev(t, IXMOD_EV_TCP_RECV), 1);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("out of order: the hole filled, the connection goes on");
	}
}

/*
 * Small segments that continue one another past a hole share a buffer:
 * the second and third are copied into the first one's tail (tcp_ofo.c),
 * and the hole filled delivers all of them, byte for byte.
 */
TEST_F(tcp_state_established, ooo_coalesce)
{
	struct tc *t = self->t;
	u32 nfree = t->h->pool.nfree;
	unsigned int i, n = 0;

	for (i = 0; i < 3; i++)
		tc_seg(t, TH_ACK, t->snd + 100 + 10 * i, t->rcv, data + 100 + 10 * i, 10, 0);
	EXPECT_EQ(1, conn(t)->ooo_count);
	EXPECT_EQ(2, stats(t)->ooo_coalesced);
	EXPECT_EQ(nfree - 1, t->h->pool.nfree) {
		TH_LOG("3 touching 10-byte segments past a hole: one buffer, 2 copied (ooo_count %u, pool %u free, was %u)",
		       conn(t)->ooo_count, t->h->pool.nfree, nfree);
	}
	tc_send(t, TH_ACK, data, 100);
	t->snd += 30;
	EXPECT_EQ(t->snd, t->seg[0].ack) TH_LOG("the hole filled: all 130 bytes acknowledged");
	for (i = 0; i < t->nev; i++) {
		if (t->ev[i].type != IXMOD_EV_TCP_RECV)
			continue;
		EXPECT_TRUE(recv_is(t, &t->ev[i], data + n, (u32)t->ev[i].res));
		n += (u32)t->ev[i].res;
	}
	EXPECT_EQ(130, n) TH_LOG("the hole filled: 130 bytes announced in order");
	EXPECT_EQ(0, conn(t)->ooo_count);
	EXPECT_EQ(0, t->h->tcp->ooo_bufs);
}

/*
 * A connection keeps out-of-order data worth at most its receive buffer,
 * charged a whole buffer per segment: with tcp_rcv_buf 16 KiB, 8 one-byte
 * segments.  A ninth past them is dropped; one before the newest takes
 * the newest's place (Linux's tcp_prune_ofo_queue(): the newest goes).
 */
TEST(tcp_state_ooo_truesize)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	unsigned int i;

	ixm_tcp_config_default(&cfg);
	cfg.rcv_buf = 16 * 1024;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	for (i = 0; i < 9; i++)
		tc_seg(t, TH_ACK, t->snd + 100 + 2 * i, t->rcv, data, 1, 0);
	EXPECT_EQ(8, conn(t)->ooo_count);
	EXPECT_EQ(1, stats(t)->ooo_drops) {
		TH_LOG("16 KiB of receive buffer: 8 one-byte segments kept, the ninth dropped (%u kept, %llu dropped)",
		       conn(t)->ooo_count, (unsigned long long)stats(t)->ooo_drops);
	}
	tc_seg(t, TH_ACK, t->snd + 50, t->rcv, data, 1, 0);
	EXPECT_EQ(8, conn(t)->ooo_count);
	EXPECT_EQ(1, stats(t)->ooo_pruned);
	EXPECT_EQ(t->snd + 50, conn(t)->ooo->seq) {
		TH_LOG("one before them: queued first, the newest pruned (pruned %llu)",
		       (unsigned long long)stats(t)->ooo_pruned);
	}
	EXPECT_EQ(0, stats(t)->rcv_drops);
	tc_fini(t);
}

/*
 * A connection that dies frees its out-of-order buffers at once, not when
 * the application closes its handle; the data it delivered stays.
 */
TEST_F(tcp_state_established, ooo_freed_at_dead)
{
	struct tc *t = self->t;
	u32 nfree = t->h->pool.nfree;
	unsigned int i;

	tc_send(t, TH_ACK, data, 100);
	for (i = 0; i < 5; i++)
		tc_seg(t, TH_ACK, t->snd + 100 + 200 * i, t->rcv, data, 100, 0);
	EXPECT_EQ(5, conn(t)->ooo_count);
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(0, conn(t)->ooo_count);
	EXPECT_EQ(5, stats(t)->ooo_purged);
	EXPECT_EQ(nfree - 1, t->h->pool.nfree) {
		TH_LOG("reset: 5 out-of-order buffers freed before the close, the delivered one kept (pool %u free, was %u)",
		       t->h->pool.nfree, nfree);
	}
	EXPECT_EQ(0, tc_recv_done(t, 100));
	EXPECT_EQ(nfree, t->h->pool.nfree);
	EXPECT_EQ(0, tc_close(t, false));
}

TEST_HARNESS_MAIN
