// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_open.c - opening and closing a connection
 *
 * Passive and active opens, simultaneous open and close, TIME_WAIT, half
 * close, abort, SYN cookies, the ISN, and data for a connection not yet
 * accepted (RFC 9293 §3.5, §3.6; RFC 4987).
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

TEST(tcp_state_passive_open)
{
	struct ixmod_call c;
	const struct ixmod_event *ev;
	const struct tcp_seg *s;
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	ev = tc_call(t, &c) == 0 ? tc_ev(t, IXMOD_EV_CALL) : NULL;
	ASSERT_NE(NULL, ev);
	ASSERT_TRUE(ixm_handle_gen(ev->handle));
	EXPECT_EQ(0x11, ev->user_data) TH_LOG("passive: LISTEN answers res 0 with a handle");
	t->lh = ev ? ev->handle : 0;
	EXPECT_EQ(-EADDRINUSE, tc_call(t, &c)) {
		TH_LOG("passive: a second LISTEN of the port: -EADDRINUSE");
	}

	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_ALL);
	t->snd++;
	s = &t->seg[0];
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ((TH_SYN | TH_ACK), s->flags);
	EXPECT_EQ(P_ISS + 1, s->ack);
	EXPECT_EQ(H_PORT, s->sport);
	EXPECT_EQ(P_PORT, s->dport);
	EXPECT_EQ(H_IP, s->src);
	EXPECT_EQ(P_IP, s->dst);
	EXPECT_EQ(0, memcmp(s->dmac, peer_mac, 6));
	EXPECT_FALSE(s->dlen) {
		TH_LOG("passive: SYN -> SYN-ACK, ack = ISN + 1, to the SYN's addresses and MAC");
	}
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(s->mss);
	EXPECT_LE(s->mss, 1460);
	EXPECT_GE(s->wscale, 0);
	EXPECT_LE(s->wscale, 14);
	ASSERT_TRUE(s->has_ts);
	EXPECT_EQ(t->tsval - 1, s->tsecr) {
		TH_LOG("passive: the SYN-ACK has MSS (%u), window scale (%d) and timestamps echoing TSval",
		       s->mss, s->wscale);
	}
	EXPECT_EQ(1, t->nseg);
	EXPECT_TRUE(s->sack_ok) TH_LOG("passive: SACK-permitted is answered (RFC 2018 §2)");
	t->hiss = s->seq;
	t->rcv = s->seq + 1;
	t->hws = s->wscale;
	t->ts = true;
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_FALSE(stats(t)->established) {
		TH_LOG("passive: no event yet; one connection, not established");
	}

	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_KNOCK);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(0x11, ev->user_data);
	EXPECT_EQ(be32_of(P_IP), ev->addr);
	EXPECT_EQ(ixm_htons(P_PORT), ev->port);
	EXPECT_EQ(ixm_htons(H_PORT), ev->lport);
	EXPECT_TRUE(ixm_handle_gen(ev->handle)) {
		TH_LOG("passive: the ACK -> KNOCK with the listener's cookie, addresses, a handle");
	}
	h = ev ? ev->handle : 0;
	t->ch = h;
	EXPECT_EQ(1, stats(t)->established);
	EXPECT_EQ(1, stats(t)->passive_opens);
	EXPECT_STREQ("ESTABLISHED", state(t)) {
		TH_LOG("passive: ESTABLISHED, counted in established and passive_opens");
	}
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	EXPECT_FALSE(t->nev) TH_LOG("passive: ACCEPT: no event");
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("passive: a second ACCEPT: -EINVAL");
	c = tn_call_accept(ixm_handle(IXMOD_HANDLE_TCP, ixm_handle_idx(h), ixm_handle_gen(h) + 1),
			   1);
	EXPECT_EQ(-EBADF, tc_call(t, &c)) TH_LOG("passive: ACCEPT of a stale generation: -EBADF");

	tc_send(t, TH_ACK | TH_PSH, data, 10);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 10));
	EXPECT_EQ(0xc0, tc_ev(t, IXMOD_EV_TCP_RECV)->user_data) {
		TH_LOG("passive: data -> TCP_RECV with the accept's cookie");
	}
	EXPECT_EQ(-EINVAL, tc_recv_done(t, 11)) {
		TH_LOG("passive: RECV_DONE of more than given: -EINVAL");
	}
	EXPECT_EQ(0, tc_recv_done(t, 10)) TH_LOG("passive: RECV_DONE of what was given: 0");
	tc_fini(t);
}

/* a SYN without options: the SYN-ACK offers no option but MSS */
TEST(tcp_state_passive_no_options)
{
	struct tc *t = &T;

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, 0));
	EXPECT_FALSE(t->ts);
	EXPECT_FALSE(t->hws) TH_LOG("passive: SYN without options: connected");
	tc_fini(t);
}

TEST(tcp_state_passive_synack_mss_only)
{
	struct ixmod_call c;
	const struct tcp_seg *s;
	struct tc *t = &T;

	tc_init(t);
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	tc_call(t, &c);
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, 0);
	s = &t->seg[0];
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(s->mss);
	EXPECT_LT(s->wscale, 0);
	EXPECT_FALSE(s->has_ts) {
		TH_LOG("passive: to a SYN without options the SYN-ACK has MSS only (RFC 7323 §1.3)");
	}
	tc_fini(t);
}

TEST(tcp_state_active_open)
{
	struct ixmod_call c;
	const struct ixmod_event *ev;
	const struct tcp_seg *s;
	struct tc *t = &T;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc0);
	ev = tc_call(t, &c) == 0 ? tc_ev(t, IXMOD_EV_CALL) : NULL;
	ASSERT_NE(NULL, ev);
	ASSERT_TRUE(ixm_handle_gen(ev->handle));
	EXPECT_EQ(0xc0, ev->user_data) TH_LOG("active: CONNECT answers res 0 with a handle");
	t->ch = ev ? ev->handle : 0;
	s = &t->seg[0];
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(TH_SYN, s->flags);
	EXPECT_EQ(P_PORT, s->dport);
	EXPECT_GE(s->sport, 32768);
	EXPECT_LE(s->sport, 60999);
	ASSERT_TRUE(s->mss);
	EXPECT_GE(s->wscale, 0);
	ASSERT_TRUE(s->has_ts);
	EXPECT_FALSE(s->dlen);
	EXPECT_EQ(0, memcmp(s->dmac, peer_mac, 6)) {
		TH_LOG("active: a SYN from an ephemeral port, with MSS, window scale, timestamps");
	}
	t->hport = s->sport;
	t->hiss = s->seq;
	t->rcv = s->seq + 1;
	t->hws = s->wscale;
	EXPECT_EQ(1, stats(t)->active_opens);
	EXPECT_FALSE(stats(t)->established);
	EXPECT_EQ(1, t->nev) TH_LOG("active: counted in active_opens, no other event");
	t->snd = P_ISS;
	tc_seg(t, TH_SYN | TH_ACK, t->snd, t->rcv, NULL, 0, O_ALL);
	t->snd++;
	t->ts = true;
	ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	ASSERT_TRUE(is_ack(t));
	ASSERT_TRUE(t->seg[0].has_ts);
	EXPECT_EQ(t->tsval - 1, t->seg[0].tsecr) {
		TH_LOG("active: SYN-ACK -> ACK of its ISN + 1, echoing its TSval");
	}
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(0xc0, ev->user_data);
	EXPECT_EQ(t->ch, ev->handle);
	EXPECT_EQ(ixm_htons(t->hport), ev->lport);
	EXPECT_EQ(ixm_htons(t->pport), ev->port);
	EXPECT_EQ(1, t->nev);
	EXPECT_EQ(1, stats(t)->established) {
		TH_LOG("active: CONNECTED res 0 with the handle, cookie, ports; established");
	}
	EXPECT_EQ(100, tc_sendv(t, 0, 100));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 100));
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena, 100)) {
		TH_LOG("active: SENDV 100 bytes: res 100, one segment with the arena's bytes");
	}
	tc_fini(t);
}

/* refused */
TEST(tcp_state_active_refused)
{
	struct ixmod_call c;
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc1);
	tc_call(t, &c);
	h = t->nev ? t->ev[0].handle : 0;
	t->ch = h;
	t->hport = t->seg[0].sport;
	t->rcv = t->seg[0].seq + 1;
	tc_seg(t, TH_RST, 0, 0, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("active: RST without ACK in SYN-SENT: ignored (RFC 9293 §3.10.7.3)");
	}
	tc_seg(t, TH_RST | TH_ACK, 0, t->rcv + 1, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("active: RST,ACK with a wrong ack: dropped, no reply (RFC 9293 §3.10.7.3)");
	}
	tc_seg(t, TH_RST | TH_ACK, 0, t->rcv, NULL, 0, 0);
	EXPECT_EQ(2, t->nev);
	EXPECT_EQ(IXMOD_EV_TCP_CONNECTED, t->ev[0].type);
	EXPECT_EQ(-ECONNREFUSED, t->ev[0].res);
	EXPECT_EQ(IXMOD_EV_TCP_DEAD, t->ev[1].type);
	EXPECT_EQ(-ECONNREFUSED, t->ev[1].res);
	EXPECT_EQ(h, t->ev[1].handle);
	EXPECT_EQ(0xc1, t->ev[1].user_data) {
		TH_LOG("active: RST,ACK of the SYN -> CONNECTED -ECONNREFUSED, then DEAD -ECONNREFUSED");
	}
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(1, stats(t)->attempt_fails);
	EXPECT_EQ(1, stats(t)->resets_in) {
		TH_LOG("active: nothing sent back; attempt_fails and resets_in count it");
	}
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("active: refused");
	tc_fini(t);
}

/* a SYN-ACK that acknowledges something else */
TEST(tcp_state_active_synack_bad_ack)
{
	struct ixmod_call c;
	const struct ixmod_event *ev;
	struct tc *t = &T;

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc2);
	tc_call(t, &c);
	t->hport = t->seg[0].sport;
	t->rcv = t->seg[0].seq + 1;
	tc_seg(t, TH_SYN | TH_ACK, P_ISS, t->rcv + 1000, NULL, 0, O_ALL);
	EXPECT_FALSE(t->nev);
	EXPECT_TRUE(one_seg(t, TH_RST, t->rcv + 1000, 0, 0)) {
		TH_LOG("active: SYN-ACK with a bad ACK -> <SEQ=SEG.ACK><RST>, no event");
	}
	tc_seg(t, TH_SYN | TH_ACK, P_ISS, t->rcv, NULL, 0, O_ALL);
	ASSERT_NE(NULL, ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED));
	EXPECT_FALSE(ev->res) TH_LOG("active: the right SYN-ACK afterwards still connects");
	tc_fini(t);
}

/* errors of CONNECT */
TEST(tcp_state_active_connect_errors)
{
	struct ixmod_call c;
	struct tc *t = &T;

	tc_init(t);
	c = tn_call_connect(TN_IP(1) + 0x100, P_PORT, 1);
	EXPECT_EQ(-ENETUNREACH, tc_call(t, &c)) {
		TH_LOG("active: CONNECT off the subnet: -ENETUNREACH");
	}
	c = tn_call_connect(H_IP, P_PORT, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("active: CONNECT to our own address: -EINVAL");
	c = tn_call_connect(P_IP, 0, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("active: CONNECT to port 0: -EINVAL");
	tc_fini(t);
}

/* RFC 9293 Figure 8: both send a SYN; each answers the other's with a SYN-ACK. */
TEST(tcp_state_simultaneous_open)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0x51);
	const struct ixmod_event *ev;
	struct tc *t = &T;

	tc_init(t);
	tc_call(t, &c);
	t->ch = t->nev ? t->ev[0].handle : 0;
	t->hport = t->seg[0].sport;
	t->hiss = t->seg[0].seq;
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd, 0, NULL, 0, O_MSS);
	t->snd++;
	t->rcv = t->hiss + 1;
	ASSERT_TRUE(one_seg(t, TH_SYN | TH_ACK, t->hiss, P_ISS + 1, 0));
	EXPECT_FALSE(t->nev) {
		TH_LOG("simultaneous open: the peer's SYN in SYN-SENT -> SYN-ACK with our ISN");
	}
	EXPECT_STREQ("SYN_RECV", state(t)) TH_LOG("simultaneous open: SYN-RECEIVED (%s)", state(t));
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(t->ch, ev->handle);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("simultaneous open: the peer's ACK of our SYN -> CONNECTED res 0");
	}
	EXPECT_EQ(50, tc_sendv(t, 0, 50));
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 50)) {
		TH_LOG("simultaneous open: data flows");
	}
	tc_fini(t);
}

/* Both close at once: FIN crosses FIN, CLOSING, then TIME_WAIT (RFC 9293 Figure 13). */
TEST_F(tcp_state_established, simultaneous_close)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;
	u32 fin;

	EXPECT_EQ(0, tc_close(t, false));
	ASSERT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0));
	EXPECT_FALSE(t->nev) TH_LOG("simultaneous close: CLOSE -> FIN, no event");
	fin = t->rcv++;
	tc_seg(t, TH_FIN | TH_ACK, t->snd, fin, NULL, 0, 0);
	t->snd++;
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) {
		TH_LOG("simultaneous close: the peer's FIN (not acking ours) -> ACK of it, no event");
	}
	EXPECT_STREQ("CLOSING", state(t)) TH_LOG("simultaneous close: CLOSING (%s)", state(t));
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	EXPECT_FALSE(t->nseg);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(0xc0, ev->user_data);
	EXPECT_EQ(t->ch, ev->handle) {
		TH_LOG("simultaneous close: the ACK of our FIN -> DEAD res 0, nothing sent");
	}
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_FALSE(stats(t)->established) {
		TH_LOG("simultaneous close: the slot stays in TIME_WAIT (%s)", state(t));
	}
	tc_advance(t, t->h->tcp_cfg.tw_ns + MS);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("simultaneous close: gone after TIME_WAIT, without another event");
	}
}

/*
 * The active closer (of an actively opened connection, with timestamps):
 * FIN-WAIT-1, FIN-WAIT-2, TIME_WAIT for tw_ns, then nothing.
 */
TEST(tcp_state_time_wait)
{
	struct ixm_tcp_config cfg;
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u32 fin, peer_fin;

	ixm_tcp_config_default(&cfg);
	cfg.tw_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_active(t, O_ALL)) TH_LOG("the handshake");
	tc_close(t, false);
	ASSERT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0));
	EXPECT_TRUE(t->seg[0].has_ts) TH_LOG("TIME_WAIT: CLOSE -> FIN with timestamps");
	fin = t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(t->nev);
	EXPECT_STREQ("FIN_WAIT2", state(t)) {
		TH_LOG("TIME_WAIT: the ACK of our FIN: nothing sent, no event (%s)", state(t));
	}
	peer_fin = t->snd;
	tc_send(t, TH_FIN | TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_TRUE(is_ack(t));
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(ev->res) {
		TH_LOG("TIME_WAIT: the peer's FIN -> ACK and DEAD res 0 (no RECV after CLOSE)");
	}
	EXPECT_EQ(1, stats(t)->conns);
	EXPECT_FALSE(stats(t)->established);
	EXPECT_STREQ("TIME_WAIT", state(t)) {
		TH_LOG("TIME_WAIT: one slot, not established (%s)", state(t));
	}
	EXPECT_EQ(-EBADF, tc_sendv(t, 0, 1)) TH_LOG("TIME_WAIT: the handle is stale: -EBADF");
	tc_advance(t, 5000 * MS);
	tc_seg(t, TH_FIN | TH_ACK, peer_fin, fin + 1, NULL, 0, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("TIME_WAIT: the peer's FIN again -> ACK again");
	tc_advance(t, cfg.tw_ns - MS);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("TIME_WAIT: still there tw_ns - 1 ms after that FIN");
	tc_advance(t, 2 * MS);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(t->nev);
	EXPECT_FALSE(t->nseg) TH_LOG("TIME_WAIT: gone at tw_ns, silently");
	tc_seg(t, TH_ACK, t->snd, fin + 1, NULL, 0, 0);
	EXPECT_TRUE(one_seg(t, TH_RST, fin + 1, 0, 0)) {
		TH_LOG("TIME_WAIT: afterwards a segment of the old pair gets RST <SEQ=SEG.ACK>");
	}
	tc_fini(t);
}

/* The peer closes first; we read its FIN and keep sending, then close (LAST-ACK). */
TEST_F(tcp_state_established, half_close)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;

	memcpy(data, "hello", 5);
	tc_send(t, TH_ACK | TH_PSH | TH_FIN, data, 5);
	EXPECT_EQ(2, t->nev);
	ASSERT_TRUE(recv_is(t, &t->ev[0], data, 5));
	EXPECT_EQ(IXMOD_EV_TCP_RECV, t->ev[1].type);
	EXPECT_FALSE(t->ev[1].res);
	EXPECT_FALSE(t->ev[1].off);
	EXPECT_EQ(0xc0, t->ev[1].user_data) {
		TH_LOG("half-close: data and FIN -> RECV 5, then RECV res 0 (end of stream)");
	}
	EXPECT_TRUE(is_ack(t)) TH_LOG("half-close: the FIN is acknowledged at once");
	EXPECT_STREQ("CLOSE_WAIT", state(t));
	EXPECT_EQ(1, stats(t)->established) {
		TH_LOG("half-close: CLOSE-WAIT, still counted as established");
	}
	EXPECT_EQ(1000, tc_sendv(t, 100, 1000));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 1000));
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena + 100, 1000)) {
		TH_LOG("half-close: we still send: SENDV 1000 -> res 1000, one segment");
	}
	t->rcv += 1000;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1000, ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg) TH_LOG("half-close: the peer's ACK -> SENT 1000");
	tc_seg(t, TH_ACK | TH_FIN, t->snd - 1, t->rcv, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_TRUE(is_ack(t)) {
		TH_LOG("half-close: a retransmitted FIN: ACK, no second end of stream");
	}
	EXPECT_EQ(0, tc_recv_done(t, 5));
	EXPECT_EQ(0, tc_close(t, false));
	EXPECT_TRUE(one_seg(t, TH_FIN | TH_ACK, t->rcv, t->snd, 0)) {
		TH_LOG("half-close: CLOSE -> FIN (LAST-ACK)");
	}
	t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(t->nseg);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_FALSE(stats(t)->established) {
		TH_LOG("half-close: the ACK of our FIN -> DEAD res 0; no TIME_WAIT for the passive closer");
	}
}

/* After CLOSE, a copy of data we already had is acknowledged, not reset. */
TEST_F(tcp_state_established, close_duplicate)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;
	u32 seq;

	seq = t->snd;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	tc_close(t, false);
	t->rcv++;
	tc_seg(t, TH_ACK | TH_PSH, seq, t->rcv - 1, data, 100, 0);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) {
		TH_LOG("close: an old duplicate after CLOSE -> ACK, not RST (RFC 9293 §3.10.7.4)");
	}
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_TRUE(is_ack(t)) TH_LOG("close: then the FIN exchange ends it: DEAD 0");
}

TEST_F(tcp_state_established, close_new_data_resets)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;

	tc_close(t, false);
	t->rcv++;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(t->seg[0].flags & TH_RST);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ECONNRESET, ev->res) {
		TH_LOG("close: new data after CLOSE -> RST and DEAD -ECONNRESET (RFC 2525 §2.17)");
	}
}

TEST_F(tcp_state_established, abort)
{
	const struct ixmod_event *ev;
	struct tc *t = self->t;

	tc_send(t, TH_ACK | TH_PSH, data, 100);
	EXPECT_EQ(0, tc_close(t, true));
	EXPECT_TRUE(one_seg(t, TH_RST | TH_ACK, t->rcv, t->snd, 0)) {
		TH_LOG("abort: CLOSE with ABORT -> RST <SEQ=SND.NXT>");
	}
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ECONNABORTED, ev->res);
	EXPECT_EQ(1, t->nev);
	EXPECT_FALSE(stats(t)->conns);
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("abort: DEAD -ECONNABORTED; slot and buffers freed");
	}
}

/* RFC 4987 §3.6: a SYN beyond the backlog is answered from a cookie. */
TEST(tcp_state_syncookies)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 1, 0x11);
	const struct ixmod_event *ev;
	struct tc *t = &T;
	unsigned int i;
	u32 cookie;
	bool ok;

	tc_init(t);
	EXPECT_EQ(1, t->h->tcp_cfg.syncookies) {
		TH_LOG("cookies: the default is 1 (when the backlog is full)");
	}
	t->hport = H_PORT;
	tc_call(t, &c);
	t->pport = 40000;
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_ALL);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ((TH_SYN | TH_ACK), t->seg[0].flags);
	ASSERT_TRUE(t->seg[0].has_ts);
	EXPECT_FALSE(stats(t)->syncookies_sent);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: the first SYN (backlog 1) gets a stateful SYN-ACK");
	}
	t->pport = 40001;
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_ALL);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ((TH_SYN | TH_ACK), t->seg[0].flags);
	EXPECT_EQ(P_ISS + 1, t->seg[0].ack);
	ASSERT_TRUE(t->seg[0].mss);
	EXPECT_LT(t->seg[0].wscale, 0);
	EXPECT_FALSE(t->seg[0].has_ts);
	EXPECT_EQ(1, stats(t)->syncookies_sent);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: the second gets a SYN-ACK with MSS only, and no slot");
	}
	cookie = t->seg[0].seq;
	t->pport = 40002;
	tc_seg(t, TH_SYN, P_ISS, 0, NULL, 0, O_MSS);
	t->ts = false;
	tc_seg(t, TH_ACK, P_ISS + 1, t->seg[0].seq + 1 + 0x100, NULL, 0, 0);
	EXPECT_EQ(1, t->nseg);
	ASSERT_TRUE(t->seg[0].flags & TH_RST);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->syncookies_bad);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: an ACK with a wrong cookie: RST, syncookies_bad, no connection");
	}
	t->pport = 40003;
	tc_seg(t, TH_ACK, P_ISS + 1, cookie + 1, NULL, 0, 0);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(2, stats(t)->syncookies_bad);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("cookies: another pair's cookie does not validate");
	t->pport = 40001;
	for (i = 1, ok = true; i < 8; i++) {
		tc_seg(t, TH_ACK, P_ISS + 1, (cookie ^ i << 24) + 1, NULL, 0, 0);
		ok &= t->nseg == 1 && (t->seg[0].flags & TH_RST) && !t->nev;
	}
	ASSERT_TRUE(ok);
	EXPECT_EQ(2 + 7, stats(t)->syncookies_bad);
	EXPECT_EQ(1, stats(t)->conns) {
		TH_LOG("cookies: the MSS index (bits 24-26) is under the hash: each of its 7 changes fails");
	}
	t->rcv = cookie + 1;
	t->snd = P_ISS + 1;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_KNOCK);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(ixm_htons(40001), ev->port);
	EXPECT_FALSE(t->nseg);
	EXPECT_EQ(1, stats(t)->syncookies_ok);
	EXPECT_EQ(2, stats(t)->conns) {
		TH_LOG("cookies: the ACK of the cookie opens the connection: KNOCK, syncookies_ok");
	}
	t->ch = ev ? ev->handle : 0;
	c = tn_call_accept(t->ch, 0xc0);
	tc_call(t, &c);
	tc_send(t, TH_ACK | TH_PSH, data, 300);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300)) {
		TH_LOG("cookies: data on it arrives");
	}
	EXPECT_GT(tc_sendv(t, 0, 3000), 0);
	EXPECT_GE(t->nseg, 1);
	EXPECT_EQ(cookie + 1, t->seg[0].seq);
	EXPECT_LE(t->seg[0].dlen, 1460) {
		TH_LOG("cookies: it sends from the cookie's ISN + 1, within the cookie's MSS");
	}
	/* each of the eight MSS values: it comes back, and no other index validates */
	for (i = 0, ok = true; i < 8; i++) {
		static const u16 mss[8] = { 536, 1000, 1200, 1300, 1360, 1400, 1440, 1460 };
		struct ixm_tcp_table *tt = t->h->tcp;
		__be32 la = be32_of(H_IP), ra = be32_of(P_IP);
		struct ixm_tcp_addrs a = { &la, &ra, 4 };
		__be16 lp = ixm_htons(H_PORT), rp = ixm_htons(40009);
		u32 ck = ixm_tcp_cookie_make(tt, &a, lp, rp, 1234, mss[i], T0);
		unsigned int x;

		ok &= ixm_tcp_cookie_check(tt, &a, lp, rp, 1234, ck, T0) == mss[i];
		for (x = 1; x < 8; x++)
			ok &= !ixm_tcp_cookie_check(tt, &a, lp, rp, 1234, ck ^ x << 24, T0);
	}
	EXPECT_TRUE(ok) {
		TH_LOG("cookies: for each of the 8 MSS values the cookie gives it back; 56 index changes fail");
	}
	/*
	 * Over IPv6 the whole addresses count: a peer whose address has the
	 * same words in another order (the same XOR, as the table's bucket
	 * folds it) does not get the cookie of another.
	 */
	{
		struct ixm_in6_addr l6 = { .s6 = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
		struct ixm_in6_addr r6 = { .s6 = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1,
						   0, 0, 0, 0, 0, 0, 0, 2 } };
		struct ixm_in6_addr r6x = { .s6 = { 0, 0, 0, 1, 0x20, 0x01, 0x0d, 0xb8,
						    0, 0, 0, 2, 0, 0, 0, 0 } };
		struct ixm_tcp_addrs a = { &l6, &r6, 16 }, ax = { &l6, &r6x, 16 };
		__be16 lp = ixm_htons(H_PORT), rp = ixm_htons(40009);
		u32 ck = ixm_tcp_cookie_make(t->h->tcp, &a, lp, rp, 1234, 1440, T0);

		EXPECT_EQ(1440, ixm_tcp_cookie_check(t->h->tcp, &a, lp, rp, 1234, ck, T0));
		EXPECT_EQ(0, ixm_tcp_cookie_check(t->h->tcp, &ax, lp, rp, 1234, ck, T0)) {
			TH_LOG("cookies: an IPv6 cookie is the 4-tuple's alone");
		}
	}
	tc_fini(t);
}

/*
 * A peer ISN in the upper half of the sequence space (0x90000000): the
 * window is still the buffer's, and data far past it is not taken.
 */
TEST(tcp_state_isn_upper_half)
{
	static const char * const how[2] = { "passive", "active" };
	struct tc *t = &T;
	unsigned int k, i;
	u64 ow, ooo;
	u32 nfree;

	for (k = 0; k < 2; k++) {
		tc_init(t);
		t->piss = 0x90000000u;
		if (!(k ? tc_active(t, O_ALL) : tc_passive(t, O_ALL))) {
			EXPECT_TRUE(false) TH_LOG("ISN 0x90000000, %s: connected", how[k]);
			EXPECT_TRUE(false) TH_LOG("ISN 0x90000000, %s: (skipped)", how[k]);
			tc_fini(t);
			continue;
		}
		ow = stats(t)->out_of_window;
		ooo = stats(t)->ooo;
		nfree = t->h->pool.nfree;
		tc_seg(t, TH_ACK | TH_PSH, t->snd + 1000000, t->rcv, data, 100, 0);
		ASSERT_TRUE(is_ack(t));
		EXPECT_EQ(ow + 1, stats(t)->out_of_window);
		EXPECT_EQ(ooo, stats(t)->ooo);
		EXPECT_EQ(nfree, t->h->pool.nfree) {
			TH_LOG("ISN 0x90000000, %s: data 1 MB past the window: ACK, dropped, out_of_window",
			       how[k]);
		}
		for (i = 0; i < 20; i++)
			tc_send(t, TH_ACK, data, 1460);
		EXPECT_EQ(1, t->nseg);
		EXPECT_LE(host_win(t, &t->seg[0]), 131072 - 20 * 1460 + (1u << t->hws)) {
			TH_LOG("ISN 0x90000000, %s: 20 segments held: the window shrank to %u (buffer 131072)",
			       how[k], t->nseg ? host_win(t, &t->seg[0]) : 0);
		}
		tc_fini(t);
	}
}

/* Data before ACCEPT waits for it; a connection that dies before ACCEPT gets a DEAD. */
TEST(tcp_state_before_accept)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	tc_call(t, &c);
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd++, 0, NULL, 0, O_MSS);
	t->rcv = t->seg[0].seq + 1;
	tc_send(t, TH_ACK, NULL, 0);
	h = tc_ev(t, IXMOD_EV_TCP_KNOCK) ? tc_ev(t, IXMOD_EV_TCP_KNOCK)->handle : 0;
	tc_send(t, TH_ACK | TH_PSH, data, 300);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(t->nev) TH_LOG("before accept: data is acknowledged, no event yet");
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300));
	EXPECT_EQ(0xc0, tc_ev(t, IXMOD_EV_TCP_RECV)->user_data) {
		TH_LOG("before accept: ACCEPT -> the data's TCP_RECV, with the accept's cookie");
	}
	tc_fini(t);
}

/*
 * Data for a connection not yet accepted waits for the application, so it
 * is refused once the pool is below a quarter free (a listener's backlog
 * of such connections could hold the whole pool); accepted, the same
 * connection takes it down to the eighth in-order data keeps.
 */
TEST(tcp_state_before_accept_pool)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	struct ixm_mbuf **taken;
	struct tc *t = &T;
	u32 i, n;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	tc_call(t, &c);
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd++, 0, NULL, 0, O_MSS);
	t->rcv = t->seg[0].seq + 1;
	tc_send(t, TH_ACK, NULL, 0);
	h = tc_ev(t, IXMOD_EV_TCP_KNOCK) ? tc_ev(t, IXMOD_EV_TCP_KNOCK)->handle : 0;
	/* the rest of the core holds all but a quarter, less one */
	n = t->h->pool.nfree - t->h->pool.count / 4 + 1;
	taken = calloc(n, sizeof(*taken));
	ASSERT_NE(NULL, taken);
	for (i = 0; i < n; i++)
		taken[i] = ixm_mbuf_alloc(&t->h->pool);
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data, 300, 0);
	EXPECT_EQ(1, stats(t)->rcv_drops);
	EXPECT_EQ(0, t->nseg) {
		TH_LOG("before accept, the pool below a quarter free: the data is dropped, no ACK");
	}
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	tc_send(t, TH_ACK | TH_PSH, data, 300);
	ASSERT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 300)) {
		TH_LOG("accepted, the same data is taken (the pool is above an eighth)");
	}
	for (i = 0; i < n; i++)
		ixm_mbuf_free(taken[i]);
	free(taken);
	tc_fini(t);
}

TEST(tcp_state_before_accept_reset)
{
	struct ixmod_call c = tn_call_listen(H_PORT, 16, 0x11);
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u64 h;

	tc_init(t);
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	tc_call(t, &c);
	t->snd = P_ISS;
	tc_seg(t, TH_SYN, t->snd++, 0, NULL, 0, O_MSS);
	t->rcv = t->seg[0].seq + 1;
	tc_send(t, TH_ACK, NULL, 0);
	h = tc_ev(t, IXMOD_EV_TCP_KNOCK) ? tc_ev(t, IXMOD_EV_TCP_KNOCK)->handle : 0;
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(h, ev->handle);
	EXPECT_EQ(0x11, ev->user_data);
	EXPECT_EQ(-ECONNRESET, ev->res) {
		TH_LOG("before accept: reset -> DEAD -ECONNRESET with the listener's cookie");
	}
	c = tn_call_accept(h, 0xc0);
	EXPECT_EQ(-EBADF, tc_call(t, &c));
	EXPECT_FALSE(stats(t)->conns) {
		TH_LOG("before accept: then ACCEPT of it -> -EBADF; the slot is free");
	}
	tc_fini(t);
}

TEST_HARNESS_MAIN
