// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_shutdown.c - the half-close, IXMOD_OP_TCP_SHUTDOWN
 *
 * The application's FIN after its data (RFC 9293 §3.10.4 CLOSE, for the
 * sending half), while it goes on receiving: the peer's data and FIN as
 * TCP_RECV events in FIN-WAIT-1 and FIN-WAIT-2, TCP_DEAD once both
 * directions are over, the handle kept until TCP_CLOSE; the errors of
 * the call, its positional form, and a close after it.
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

static int tc_shutdown(struct tc *t, u8 flags, u32 pos)
{
	struct ixmod_call c = tn_call_shutdown(t->ch, 0x5d);

	c.flags = flags;
	c.pos = pos;
	return tc_call(t, &c);
}

/* The last segment of the last run carries our FIN at @fin_seq (its end). */
static bool fin_at(const struct tc *t, u32 fin_seq)
{
	const struct tcp_seg *s;

	if (!t->nseg) {
		ixm_diag("no segment sent, want the FIN at %u", fin_seq);
		return false;
	}
	s = &t->seg[t->nseg - 1];
	if (!(s->flags & TH_FIN) || (s->flags & TH_RST) || s->seq + s->dlen != fin_seq) {
		ixm_diag("last segment: flags %#x seq %u len %zu; want a FIN at %u",
			 s->flags, s->seq, s->dlen, fin_seq);
		return false;
	}
	return true;
}

static unsigned int fins_sent(const struct tc *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nseg; i++)
		n += !!(t->seg[i].flags & TH_FIN);
	return n;
}

/*
 * The whole half-close of the active closer: data queued, SHUTDOWN, the
 * FIN after the data; sends fail, a second shutdown does nothing; the
 * peer's data in FIN-WAIT-1 and FIN-WAIT-2 comes as TCP_RECV, however
 * long FIN-WAIT-2 lasts; its FIN as TCP_RECV 0, then TCP_DEAD 0 (TIME_WAIT);
 * after TIME_WAIT the connection waits, CLOSED, for the application's
 * close, which frees it.
 */
TEST_F(tcp_state_established, shutdown)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 fin;

	EXPECT_EQ(1000, tc_sendv(t, 100, 1000));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 1000));
	EXPECT_EQ(0, tc_shutdown(t, 0, 0));
	EXPECT_FALSE(t->nev) TH_LOG("shutdown: no event on success");
	fin = t->rcv + 1000;
	EXPECT_TRUE(fin_at(t, fin)) TH_LOG("shutdown: a FIN after the 1000 bytes queued");
	EXPECT_STREQ("FIN_WAIT1", state(t));
	EXPECT_FALSE(stats(t)->established);

	EXPECT_EQ(-EPIPE, tc_sendv(t, 0, 10)) TH_LOG("shutdown: TCP_SENDV after it: -EPIPE");
	c = tn_call_send(t->ch, 0, 10, 7);
	EXPECT_EQ(-EPIPE, tc_call(t, &c)) TH_LOG("shutdown: TCP_SEND after it: -EPIPE");
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(0, tc_shutdown(t, 0, 0));
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(fins_sent(t)) TH_LOG("shutdown: a second one: 0, no event, no second FIN");

	/* FIN-WAIT-1: the peer's data, our data and FIN not yet acknowledged */
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data, 300, 0);
	t->snd += 300;
	ASSERT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300));
	EXPECT_EQ(0xc0, tc_ev(t, IXMOD_EV_TCP_RECV)->user_data);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD)) {
		TH_LOG("shutdown: FIN-WAIT-1: the peer's data -> TCP_RECV 300");
	}
	EXPECT_EQ(0, t->nseg ? t->seg[0].flags & TH_RST : 0) TH_LOG("and no RST");

	/* the ACK of everything: TCP_SENT, FIN-WAIT-2 */
	t->rcv = fin + 1;
	tc_send(t, TH_ACK, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT));
	EXPECT_EQ(1000, tc_ev(t, IXMOD_EV_TCP_SENT)->res);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_STREQ("FIN_WAIT2", state(t)) TH_LOG("shutdown: the ACK of the FIN -> SENT 1000");

	/* FIN-WAIT-2 has no limit while the application reads */
	tc_advance(t, t->h->tcp_cfg.tw_ns + 1000 * MS);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_STREQ("FIN_WAIT2", state(t)) {
		TH_LOG("shutdown: FIN-WAIT-2 outlives tw_ns (the limit of a closed one)");
	}
	tc_send(t, TH_ACK | TH_PSH, data + 300, 200);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data + 300, 200)) {
		TH_LOG("shutdown: FIN-WAIT-2: the peer's data -> TCP_RECV 200");
	}

	/* the peer's FIN: end of stream, then DEAD (TIME_WAIT) */
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	ASSERT_TRUE(is_ack(t));
	ASSERT_EQ(2, t->nev);
	EXPECT_EQ(IXMOD_EV_TCP_RECV, t->ev[0].type);
	EXPECT_EQ(0, t->ev[0].res);
	EXPECT_EQ(IXMOD_EV_TCP_DEAD, t->ev[1].type);
	EXPECT_EQ(0, t->ev[1].res);
	EXPECT_EQ(t->ch, t->ev[1].handle) {
		TH_LOG("shutdown: the peer's FIN -> ACK, TCP_RECV 0, then TCP_DEAD 0");
	}
	EXPECT_STREQ("TIME_WAIT", state(t));
	EXPECT_EQ(0, tc_recv_done(t, 300));
	EXPECT_FALSE(t->nseg) TH_LOG("shutdown: recv_done in TIME_WAIT: 0, no window update");

	/* TIME_WAIT over: the slot waits for the close, its 200 bytes kept */
	tc_advance(t, t->h->tcp_cfg.tw_ns + MS);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_STREQ("CLOSED", state(t));
	EXPECT_EQ(1, t->a->app.stats.rx_bufs) {
		TH_LOG("shutdown: after TIME_WAIT, CLOSED, silent, the bytes not returned held");
	}
	EXPECT_EQ(0, tc_shutdown(t, 0, 0)) TH_LOG("shutdown: of a dead connection it shut down: 0");
	EXPECT_TRUE(dead_handle_lives_until_close(t));
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree);
	EXPECT_FALSE(t->a->app.stats.rx_bufs) TH_LOG("shutdown: the close frees slot and buffers");
}

/* The passive closer: CLOSE-WAIT, SHUTDOWN -> LAST-ACK, the ACK -> DEAD. */
TEST_F(tcp_state_established, shutdown_close_wait)
{
	struct tc *t = self->t;

	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	ASSERT_EQ(1, t->nev);
	EXPECT_EQ(0, t->ev[0].res) TH_LOG("the peer's FIN: TCP_RECV 0");
	EXPECT_EQ(0, tc_shutdown(t, 0, 0));
	EXPECT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0));
	EXPECT_STREQ("LAST_ACK", state(t)) TH_LOG("shutdown in CLOSE-WAIT: FIN, LAST-ACK");
	t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(0, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_FALSE(t->nseg) TH_LOG("shutdown in CLOSE-WAIT: the ACK of the FIN -> DEAD 0");
	EXPECT_TRUE(dead_handle_lives_until_close(t));
}

/* The FIN crosses the peer's: CLOSING, then TIME_WAIT and DEAD. */
TEST_F(tcp_state_established, shutdown_simultaneous)
{
	struct tc *t = self->t;
	u32 fin;

	EXPECT_EQ(0, tc_shutdown(t, 0, 0));
	ASSERT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0));
	fin = t->rcv++;
	tc_seg(t, TH_ACK | TH_PSH | TH_FIN, t->snd, fin, data, 100, 0);
	t->snd += 101;
	ASSERT_EQ(2, t->nev);
	EXPECT_TRUE(recv_is(t, &t->ev[0], data, 100));
	EXPECT_EQ(IXMOD_EV_TCP_RECV, t->ev[1].type);
	EXPECT_EQ(0, t->ev[1].res);
	EXPECT_STREQ("CLOSING", state(t)) {
		TH_LOG("shutdown: data and FIN in FIN-WAIT-1 -> TCP_RECV 100, TCP_RECV 0, CLOSING");
	}
	tc_send(t, TH_ACK, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(0, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_STREQ("TIME_WAIT", state(t)) TH_LOG("shutdown: the ACK of our FIN -> DEAD 0");
	/* closed in TIME_WAIT: the slot goes with the timer */
	EXPECT_EQ(0, tc_close(t, false));
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("shutdown: a close in TIME_WAIT takes the bytes back, the slot stays");
	}
	tc_advance(t, t->h->tcp_cfg.tw_ns + MS);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(t->nev) TH_LOG("shutdown: then gone with TIME_WAIT, no second DEAD");
}

/* A close after the shutdown: the receive half goes, FIN-WAIT-2 times out again. */
TEST(tcp_state_shutdown_then_close)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;

	ixm_tcp_config_default(&cfg);
	cfg.tw_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	EXPECT_EQ(0, tc_shutdown(t, 0, 0));
	t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_STREQ("FIN_WAIT2", state(t));
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 100));
	tc_advance(t, 5000 * MS);
	EXPECT_EQ(0, tc_close(t, false));
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("shutdown, then close: 0, nothing sent, the held bytes taken back");
	}
	EXPECT_EQ(-EBADF, tc_shutdown(t, 0, 0)) TH_LOG("shutdown after the close: -EBADF");
	tc_advance(t, cfg.tw_ns - MS);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("FIN-WAIT-2: tw_ns from the close, not before");
	tc_advance(t, 2 * MS);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(0, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_FALSE(stats(t)->conns) TH_LOG("then DEAD 0 and the slot freed, as a plain close");
	tc_fini(t);
}

/* An abort after the shutdown: RST, DEAD -ECONNABORTED, everything freed. */
TEST_F(tcp_state_established, shutdown_then_abort)
{
	struct tc *t = self->t;

	EXPECT_EQ(0, tc_shutdown(t, 0, 0));
	t->rcv++;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	EXPECT_EQ(0, tc_close(t, true));
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, t->rcv, t->snd, 0));
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(-ECONNABORTED, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("shutdown, then abort: RST, DEAD -ECONNABORTED, slot and buffers freed");
	}
}

/* The call's errors; the handle's connection unchanged by each. */
TEST(tcp_state_shutdown_errors)
{
	struct ixmod_call c;
	struct tc *t = &T;
	u64 ch;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc1);
	ASSERT_EQ(0, tc_call(t, &c));
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_CALL));
	t->ch = tc_ev(t, IXMOD_EV_CALL)->handle;
	EXPECT_EQ(-ENOTCONN, tc_shutdown(t, 0, 0));
	EXPECT_FALSE(t->nseg);
	EXPECT_STREQ("SYN_SENT", state(t)) TH_LOG("shutdown in SYN-SENT: -ENOTCONN, nothing sent");
	tc_close(t, true);
	EXPECT_EQ(-EBADF, tc_shutdown(t, 0, 0)) TH_LOG("shutdown of a closed handle: -EBADF");
	tc_fini(t);

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	ch = t->ch;
	t->ch = t->lh;
	EXPECT_EQ(-EINVAL, tc_shutdown(t, 0, 0)) TH_LOG("shutdown of a listener: -EINVAL");
	t->ch = ch + (1ULL << 32);	/* another generation */
	EXPECT_EQ(-EBADF, tc_shutdown(t, 0, 0)) TH_LOG("shutdown of a stale handle: -EBADF");
	t->ch = ch;
	EXPECT_EQ(-EINVAL, tc_shutdown(t, IXMOD_CALL_F_ABORT, 0)) {
		TH_LOG("shutdown with IXMOD_CALL_F_ABORT: -EINVAL");
	}
	EXPECT_FALSE(t->nseg);
	EXPECT_STREQ("ESTABLISHED", state(t)) TH_LOG("none of them changed the connection");
	EXPECT_EQ(0, tc_shutdown(t, IXMOD_CALL_F_NOTIFY, 0));
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_CALL));
	EXPECT_EQ(IXMOD_OP_TCP_SHUTDOWN, tc_ev(t, IXMOD_EV_CALL)->op);
	EXPECT_EQ(0x5d, tc_ev(t, IXMOD_EV_CALL)->user_data);
	EXPECT_EQ(1, fins_sent(t)) TH_LOG("IXMOD_CALL_F_NOTIFY: EV_CALL res 0, and the FIN");

	/* reset while shut down: dead without an orderly end */
	t->rcv++;
	tc_send(t, TH_RST, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(-ECONNRESET, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_EQ(0, tc_shutdown(t, 0, 0)) TH_LOG("reset after a shutdown: shutdown again is 0");
	EXPECT_TRUE(dead_handle_lives_until_close(t));
	tc_fini(t);
}

/* A reset connection never shut down: -ENOTCONN, as shutdown(2). */
TEST_F(tcp_state_established, shutdown_after_reset)
{
	struct tc *t = self->t;

	tc_send(t, TH_RST, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(-ENOTCONN, tc_shutdown(t, 0, 0));
	EXPECT_FALSE(t->nseg) TH_LOG("shutdown of a reset connection: -ENOTCONN, nothing sent");
}

/*
 * A connection reset while its application still holds the handle is no
 * connection to the 4-tuple (RFC 9293 §3.3.2's CLOSED): the peer's new
 * SYN from the same port reaches the listener and gets a SYN-ACK, not
 * the RST a dead connection found in the table gave it; a segment of
 * the old connection gets the RST of no connection.
 */
TEST_F(tcp_state_established, syn_after_reset_while_held)
{
	struct tc *t = self->t;
	u64 no_conn = stats(t)->no_conn;
	u32 iss2 = t->snd + 100000;

	tc_send(t, TH_RST, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(-ECONNRESET, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	tc_seg(t, TH_ACK, t->snd, t->rcv, data, 10, 0);
	EXPECT_TRUE(one_seg(t, TH_RST, t->rcv, 0, 0)) TH_LOG("the old connection's data: RST");
	EXPECT_EQ(no_conn + 1, stats(t)->no_conn) TH_LOG("... as to no connection");
	tc_seg(t, TH_SYN, iss2, 0, NULL, 0, O_MSS);
	ASSERT_EQ(1, t->nseg);
	EXPECT_EQ(TH_SYN | TH_ACK, t->seg[0].flags);
	EXPECT_EQ(iss2 + 1, t->seg[0].ack) TH_LOG("the same 4-tuple's new SYN: a SYN-ACK");
	EXPECT_EQ(2, t->h->tcp->stats.conns) TH_LOG("the held connection and the new one");
	EXPECT_EQ(-EPIPE, tc_sendv(t, 0, 10)) TH_LOG("the old handle is still the dead one");
	EXPECT_EQ(0, tc_close(t, false));
	EXPECT_EQ(1, t->h->tcp->stats.conns) TH_LOG("its close frees it, not the new one");
}

/*
 * IXMOD_CALL_F_POS: the FIN must follow the offset the call names; at
 * another, -EAGAIN with the right one in @off and nothing done; at the
 * right one, no event and the FIN after the data.
 */
TEST_F(tcp_state_established, shutdown_at_pos)
{
	struct tc *t = self->t;
	u32 refused = stats(t)->pos_refused;

	EXPECT_EQ(500, tc_sendv(t, 0, 500));
	EXPECT_EQ(-EAGAIN, tc_shutdown(t, IXMOD_CALL_F_POS, 400));
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_CALL));
	EXPECT_EQ(IXMOD_OP_TCP_SHUTDOWN, tc_ev(t, IXMOD_EV_CALL)->op);
	EXPECT_EQ(500, tc_ev(t, IXMOD_EV_CALL)->off);
	EXPECT_EQ(refused + 1, stats(t)->pos_refused);
	EXPECT_FALSE(t->nseg);
	EXPECT_STREQ("ESTABLISHED", state(t)) {
		TH_LOG("shutdown at 400 after 500 bytes: -EAGAIN, @off 500, nothing sent");
	}
	EXPECT_EQ(-EINVAL, tc_shutdown(t, 0, 500)) TH_LOG("pos without IXMOD_CALL_F_POS: -EINVAL");
	EXPECT_EQ(0, tc_shutdown(t, IXMOD_CALL_F_POS, 500));
	EXPECT_FALSE(t->nev);
	EXPECT_TRUE(fin_at(t, t->rcv + 500)) TH_LOG("shutdown at 500: FIN, no event");
	EXPECT_EQ(0, tc_shutdown(t, IXMOD_CALL_F_POS, 123));
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) TH_LOG("once the FIN is queued, a positional shutdown is 0 too");
}

TEST_HARNESS_MAIN
