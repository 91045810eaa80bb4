// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_validate.c - the acceptability of an arriving segment
 *
 * RFC 9293 §3.10.7.4's first to fourth checks, as ixm_tcp_rcv_validate()
 * runs them: the sequence number (out of window, duplicates), RST (RFC 5961
 * §3.2), SYN in a synchronized state (§4.2), PAWS (RFC 7323 §5), and the
 * rate limit on the ACKs that answer rejected segments (RFC 5961 §7).
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

TEST_F(tcp_state_established, rst)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;
	u64 ooo;

	tc_seg(t, TH_RST, t->snd + 1, 0, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->challenge_acks) {
		TH_LOG("RST: in the window but not at RCV.NXT -> challenge ACK (RFC 5961 §3.2)");
	}
	tc_seg(t, TH_RST | TH_ACK, t->snd + 60000, t->rcv, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("RST,ACK at the window's far end: challenge ACK too");
	ooo = stats(t)->out_of_window;
	tc_seg(t, TH_RST, t->snd + 200000, 0, NULL, 0, 0);
	tc_seg(t, TH_RST, t->snd - 1, 0, NULL, 0, 0);
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(ooo + 2, stats(t)->out_of_window) {
		TH_LOG("RST: outside the window (after it, or before RCV.NXT): dropped silently");
	}
	EXPECT_STREQ("ESTABLISHED", state(t)) TH_LOG("RST: none of them touched the connection");
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ECONNRESET, ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(t->ch, ev->handle) {
		TH_LOG("RST at exactly RCV.NXT -> DEAD -ECONNRESET, nothing sent");
	}
	EXPECT_FALSE(stats(t)->established);
	EXPECT_EQ(1, stats(t)->resets_in) TH_LOG("RST: resets_in counted");
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("RST");
}

/*
 * The handle ends with the application's close, not with the connection:
 * a second close or a send right after it is -EBADF, before the FIN is
 * even acknowledged; the connection still closes and DEAD still comes.
 */
TEST_F(tcp_state_established, close_ends_the_handle)
{
	struct tc *t = self->t;

	ASSERT_EQ(0, tc_close(t, false));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_FIN, t->rcv, t->snd, 0));
	EXPECT_EQ(-EBADF, tc_close(t, false));
	EXPECT_EQ(-EBADF, tc_close(t, true));
	EXPECT_EQ(-EBADF, tc_sendv(t, 0, 10)) {
		TH_LOG("after the close, in FIN-WAIT-1: close, abort and send are -EBADF");
	}
	t->rcv++;
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_STREQ("TIME_WAIT", state(t));
	EXPECT_EQ(0, tc_ev(t, IXMOD_EV_TCP_DEAD) ? tc_ev(t, IXMOD_EV_TCP_DEAD)->res : -1) {
		TH_LOG("the peer's FIN: TIME_WAIT, and DEAD 0 for the closed handle");
	}
	EXPECT_EQ(-EBADF, tc_close(t, false)) TH_LOG("in TIME_WAIT: -EBADF too");
	tc_wait_any(t, 300 * 1000 * MS, 100 * MS);	/* nothing comes: TIME_WAIT ends */
	EXPECT_EQ(0, stats(t)->conns) TH_LOG("the slot goes with TIME_WAIT's timer");
}

TEST_F(tcp_state_established, syn_challenge)
{
	struct tc *t = self->t;
	u64 ch;

	ch = stats(t)->challenge_acks;
	tc_seg(t, TH_SYN, t->snd + 100, 0, NULL, 0, O_MSS);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(ch + 1, stats(t)->challenge_acks) {
		TH_LOG("SYN in ESTABLISHED, in window -> challenge ACK (RFC 5961 §4.2)");
	}
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_MSS);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("SYN at exactly RCV.NXT -> challenge ACK, no reset");
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_MSS);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("the original SYN again -> ACK");
	tc_seg(t, TH_ACK, t->snd, t->rcv + 10, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) {
		TH_LOG("an ACK of bytes never sent -> challenge ACK, dropped (RFC 5961 §5.2)");
	}
	tc_send(t, TH_ACK | TH_PSH, data, 20);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 20));
	EXPECT_STREQ("ESTABLISHED", state(t)) {
		TH_LOG("challenges: the connection is unharmed, data flows");
	}
}

TEST_F(tcp_state_established, out_of_window)
{
	struct tc *t = self->t;
	u32 seq;
	u64 ow;

	ow = stats(t)->out_of_window;
	tc_seg(t, TH_ACK | TH_PSH, t->snd + 70000, t->rcv, data, 100, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(ow + 1, stats(t)->out_of_window) {
		TH_LOG("data beyond the window -> ACK, dropped, out_of_window counted");
	}
	seq = t->snd;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	tc_recv_done(t, 100);
	tc_seg(t, TH_ACK | TH_PSH, seq, t->rcv, data, 100, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->dup_data) {
		TH_LOG("an exact duplicate -> ACK, dropped, counted in dup_data (%llu)",
		       stats(t)->dup_data);
	}
	tc_seg(t, TH_ACK | TH_PSH, seq - 50, t->rcv, data, 50, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("data all before RCV.NXT -> ACK, dropped");
	tc_seg(t, TH_ACK | TH_PSH, seq + 50, t->rcv, data + 50, 100, 0);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data + 100, 50)) {
		TH_LOG("a segment overlapping RCV.NXT: only its new bytes are delivered");
	}
	EXPECT_EQ(t->h->pool.count - 1, t->h->pool.nfree) {
		TH_LOG("dropped segments' buffers are back in the pool");
	}
}

TEST(tcp_state_paws)
{
	struct tc *t = &T;

	tc_init(t);
	t->tsval = 1000;
	ASSERT_TRUE(tc_passive(t, O_MSS | O_TS)) TH_LOG("the handshake");
	t->tsval = 2000;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 10)) {
		TH_LOG("PAWS: TSval 2000 accepted");
	}
	t->tsval = 1500;
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data + 10, 10, 0);
	EXPECT_FALSE(t->nev);
	ASSERT_TRUE(is_ack(t));
	EXPECT_EQ(1, stats(t)->paws_drops) {
		TH_LOG("PAWS: new data with an older TSval (1500) -> ACK, dropped (RFC 7323 §5.3)");
	}
	t->tsval = 2001;
	tc_send(t, TH_ACK | TH_PSH, data + 10, 10);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data + 10, 10));
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(2001, t->seg[0].tsecr) {
		TH_LOG("PAWS: the same data with TSval 2001 is taken, and 2001 echoed");
	}
	tc_fini(t);
}

/* RFC 9293 §3.10.7.1: the RST for a segment that belongs to no connection. */
TEST(tcp_state_no_connection)
{
	struct ixmod_call c;
	struct tc *t = &T;
	u64 out;

	tc_init(t);
	t->hport = 81;
	tc_seg(t, TH_ACK, 1000, 5000, NULL, 0, 0);
	ASSERT_TRUE(one_seg(t, TH_RST, 5000, 0, 0));
	EXPECT_EQ(81, t->seg[0].sport);
	EXPECT_EQ(P_PORT, t->seg[0].dport);
	EXPECT_EQ(P_IP, t->seg[0].dst);
	EXPECT_EQ(0, memcmp(t->seg[0].dmac, peer_mac, 6)) {
		TH_LOG("no connection: an ACK -> <SEQ=SEG.ACK><CTL=RST> back to its sender");
	}
	tc_seg(t, TH_SYN, 7000, 0, NULL, 0, O_MSS);
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, 0, 7001, 0)) {
		TH_LOG("no connection: a SYN -> <SEQ=0><ACK=SEG.SEQ+1><CTL=RST,ACK>");
	}
	tc_seg(t, TH_PSH | TH_FIN, 9000, 0, data, 10, 0);
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, 0, 9011, 0)) {
		TH_LOG("no connection: 10 bytes and FIN without ACK -> ack = SEG.SEQ + 11");
	}
	out = stats(t)->resets_out;
	tc_seg(t, TH_RST, 1000, 0, NULL, 0, 0);
	tc_seg(t, TH_RST | TH_ACK, 1000, 5000, NULL, 0, 0);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(out, stats(t)->resets_out) TH_LOG("no connection: an RST is not answered");
	EXPECT_GE(stats(t)->no_conn, 3);
	EXPECT_GE(t->h->stats.drops[IXM_DROP_TCP_NO_SOCK], 3);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("no connection: counted (no_conn, tcp_no_sock); buffers back");
	}
	c = tn_call_listen(81, 4, 1);
	tc_call(t, &c);
	tc_seg(t, TH_ACK, 1000, 5000, NULL, 0, 0);
	ASSERT_TRUE(one_seg(t, TH_RST, 5000, 0, 0));
	EXPECT_FALSE(t->nev) TH_LOG("LISTEN: an ACK that opens nothing -> <SEQ=SEG.ACK><CTL=RST>");
	tc_seg(t, TH_ACK | TH_SYN, 1000, 5000, NULL, 0, O_MSS);
	ASSERT_TRUE(one_seg(t, TH_RST, 5000, 0, 0));
	EXPECT_FALSE(t->nev) TH_LOG("LISTEN: a SYN-ACK -> <SEQ=SEG.ACK><CTL=RST>");
	tc_fini(t);
}

/* Segments the host sends for @n copies of a peer segment; ACKs only. */
static unsigned int oow_burst(struct tc *t, unsigned int n, u32 seq, const u8 *d, size_t dlen)
{
	unsigned int i, acks = 0;

	for (i = 0; i < n; i++) {
		tc_seg(t, TH_ACK | (dlen ? TH_PSH : 0), seq, t->rcv, d, dlen, 0);
		acks += t->nseg;
		if (t->nseg && !is_ack(t))
			acks += 1000;	/* something else than the ACK */
	}
	return acks;
}

/*
 * Issue 15: the ACKs owed to out-of-window and PAWS-rejected segments
 * are limited per connection to one per 500 ms (Linux's
 * tcp_invalid_ratelimit); segments with data are always answered.
 */
TEST(tcp_state_ack_ratelimit)
{
	struct tc *t = &T;
	unsigned int n;
	u64 ow, rl;

	tc_init(t);
	EXPECT_EQ(500 * MS, t->h->tcp_cfg.invalid_ratelimit_ns) {
		TH_LOG("ratelimit: the default is 500 ms");
	}
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	ow = stats(t)->out_of_window;
	rl = stats(t)->ack_ratelimited;
	n = oow_burst(t, 100, t->snd + 70000, NULL, 0);
	EXPECT_EQ(1, n);
	EXPECT_EQ(ow + 100, stats(t)->out_of_window);
	EXPECT_EQ(rl + 99, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 100 ACKs beyond the window -> 1 ACK, 99 in ack_ratelimited (%u)",
		       n);
	}
	tc_advance(t, 400 * MS);
	n = oow_burst(t, 1, t->snd - 5000, NULL, 0);
	tc_advance(t, 100 * MS);
	n = n * 10 + oow_burst(t, 3, t->snd + 70000, NULL, 0);
	EXPECT_EQ(1, n);
	EXPECT_EQ(rl + 99 + 1 + 2, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 400 ms later still none; 500 ms after the first ACK, one more (%u)",
		       n);
	}
	tc_advance(t, 100 * MS);
	n = oow_burst(t, 10, t->snd + 70000, data, 100);
	EXPECT_EQ(10, n);
	EXPECT_EQ(rl + 99 + 1 + 2, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 10 data segments beyond the window: 10 ACKs, none limited (%u)",
		       n);
	}
	tc_fini(t);
}

TEST(tcp_state_ack_ratelimit_paws)
{
	struct tc *t = &T;
	unsigned int n;
	u64 ow, rl;

	tc_init(t);
	t->tsval = 1000;
	ASSERT_TRUE(tc_passive(t, O_MSS | O_TS)) TH_LOG("the handshake");
	t->tsval = 2000;
	tc_send(t, TH_ACK, NULL, 0);
	rl = stats(t)->ack_ratelimited;
	for (n = 0, ow = 0; ow < 100; ow++) {
		t->tsval = 1500;
		tc_seg(t, TH_ACK, t->snd, t->rcv, NULL, 0, 0);
		n += t->nseg;
	}
	EXPECT_EQ(1, n);
	EXPECT_EQ(100, stats(t)->paws_drops);
	EXPECT_EQ(rl + 99, stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 100 ACKs with an old TSval (PAWS) -> 1 ACK, 99 limited (%u)", n);
	}
	tc_fini(t);
}

TEST(tcp_state_ack_ratelimit_off)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	unsigned int n;

	ixm_tcp_config_default(&cfg);
	cfg.invalid_ratelimit_ns = 0;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	n = oow_burst(t, 20, t->snd + 70000, NULL, 0);
	EXPECT_EQ(20, n);
	EXPECT_FALSE(stats(t)->ack_ratelimited) {
		TH_LOG("ratelimit: 0 turns it off: 20 ACKs beyond the window, 20 ACKs (%u)", n);
	}
	tc_fini(t);
}

TEST_HARNESS_MAIN
