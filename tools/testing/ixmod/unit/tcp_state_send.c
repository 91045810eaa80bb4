// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_send.c - sending, ACK processing and the windows
 *
 * sendv against the peer's window, header prediction, the SENT events and
 * their buffers, the zero window and its probes, the window update rule
 * (RFC 9293 §3.10.7.4 fifth check; ixm_tcp_rcv_ack()), and the event ring.
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

TEST(tcp_state_sendv_window)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u32 sent, i, win;
	int res;

	tc_init(t);
	t->pwin = 10000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 20000);
	for (sent = 0, i = 0; i < t->nseg; i++)
		sent += t->seg[i].dlen;
	EXPECT_GT(res, 0);
	EXPECT_LE(res, 10000);
	EXPECT_EQ((u32)res, sent) {
		TH_LOG("sendv: 20000 bytes to a window of 10000: res %d, all of it sent now", res);
	}
	ASSERT_TRUE(t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq);
	EXPECT_LE(t->seg[0].dlen, 1460);
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena, t->seg[0].dlen)) {
		TH_LOG("sendv: the segments carry the arena's bytes in MSS-sized pieces");
	}
	t->rcv += (u32)res;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	win = ev ? ev->win : 0;
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(res, ev->res);
	EXPECT_GT(win, 0);
	EXPECT_LE(win, 10000);
	EXPECT_EQ(0xc0, ev->user_data) TH_LOG("sendv: the ACK -> SENT res %d, win %u", res, win);
	res = tc_sendv(t, (u32)res, 20000);
	EXPECT_EQ(win, (u64)res) TH_LOG("sendv: the next SENDV takes exactly SENT's win");
	t->rcv += (u32)res;
	while (res == (int)win && t->rcv - t->hiss - 1 < 10000) {
		tc_send(t, TH_ACK, NULL, 0);
		ev = tc_ev(t, IXMOD_EV_TCP_SENT);
		win = ev ? ev->win : 0;
		res = tc_sendv(t, t->rcv - t->hiss - 1, win + 1);
		t->rcv += (u32)res;
	}
	res = tc_sendv(t, 0, 1000);
	EXPECT_EQ(0, res);
	EXPECT_GE(stats(t)->window_stalls, 1) {
		TH_LOG("sendv: with the window full: res 0, window_stalls counted");
	}
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_GT(ev->res, 0);
	EXPECT_GT(ev->win, 0) TH_LOG("sendv: the ACK that opens it -> SENT with res and win > 0");
	tc_fini(t);
}

/*
 * The initial window (RFC 6928): ten segments of 1460 go in the first
 * round trip, 14600 bytes; with init_cwnd 0, RFC 3390's 4380.  Slow start
 * then grows by two segments for an ACK of two (RFC 3465 §2.2, L = 2).
 * The sendv takes all 30000 bytes (the peer's window allows them): what
 * cwnd holds back waits in the queue, and the ACK sends four segments
 * of it without another call.
 */
TEST(tcp_state_initial_window)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	u32 sent, i;
	int res;

	tc_init(t);
	t->pwin = 65535;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 30000);
	for (sent = 0, i = 0; i < t->nseg; i++)
		sent += t->seg[i].dlen;
	EXPECT_EQ(30000, res) TH_LOG("the peer's window takes it all");
	EXPECT_EQ(14600, sent) TH_LOG("IW 10: ten segments at once (%u in %u)", sent, t->nseg);
	EXPECT_EQ(10, t->nseg);
	t->rcv += 2 * 1460;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(14600 + 2 * 1460, conn(t)->cwnd) TH_LOG("an ACK of two segments: cwnd + 2");
	EXPECT_EQ(4, t->nseg) TH_LOG("two acknowledged, two grown: four queued segments go");
	EXPECT_TRUE(t->nseg && t->seg[0].seq == t->hiss + 1 + 14600 && t->seg[0].dlen == 1460);
	tc_fini(t);

	ixm_tcp_config_default(&cfg);
	cfg.init_cwnd = 0;
	tc_init_cfg(t, &cfg);
	t->pwin = 65535;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	EXPECT_EQ(30000, tc_sendv(t, 0, 30000));
	EXPECT_EQ(3, t->nseg) TH_LOG("init_cwnd 0: RFC 3390's window, 4380 bytes");
	EXPECT_TRUE(t->nseg == 3 && t->seg[2].dlen == 1460);
	tc_fini(t);
}

/*
 * Sender silly window avoidance against cwnd (RFC 9293 §3.8.6.2.1):
 * with more queued than cwnd lets go and data in flight, only whole
 * segments go; the odd bytes of room wait for the next ACK.  An ACK of
 * 1000 bytes in slow start makes 2000 bytes of room: one segment of
 * 1460, not one and a piece of 540.  Once what is queued fits, it goes
 * whatever its size.
 */
TEST(tcp_state_send_whole_segments)
{
	struct tc *t = &T;
	u32 una;

	tc_init(t);
	t->pwin = 65535;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake (no SACK)");
	una = t->hiss + 1;
	EXPECT_EQ(20000, tc_sendv(t, 0, 20000));
	ASSERT_EQ(10, t->nseg);
	t->rcv = una + 1000;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_TRUE(one_seg(t, TH_ACK, una + 14600, t->snd, 1460)) {
		TH_LOG("2000 bytes of room: one whole segment (%u sent)", t->nseg);
	}
	t->rcv = una + 14600;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(3, t->nseg) TH_LOG("the 3940 left go: two whole, one short (%u)", t->nseg);
	EXPECT_TRUE(t->nseg == 3 && t->seg[2].dlen == 20000 - 14600 - 3 * 1460);
	tc_fini(t);
}

/*
 * Header prediction (ixm_tcp_rcv_fast()): the next in-order segment with
 * only ACK or ACK|PSH takes the short path, window changes included; a
 * closed window, a FIN or a segment out of order take the full one.
 */
TEST(tcp_state_header_prediction)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u64 fast;
	int res;

	tc_init(t);
	t->pwin = 1000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	fast = stats(t)->fast_path;
	res = tc_sendv(t, 0, 3000);
	EXPECT_EQ(1000, res) TH_LOG("sendv: a window of 1000 takes 1000 of 3000 bytes");
	/* data that acknowledges nothing new and opens the window */
	t->pwin = 5000;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_EQ(fast + 1, stats(t)->fast_path);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev) TH_LOG("the opened window is announced: sendv wanted more");
	EXPECT_GT(ev->win, 0);
	EXPECT_LE(ev->win, 4000) {
		TH_LOG("header prediction: in-order data, window 1000 -> 5000: SENT win %u",
		       ev->win);
	}
	/* new data and the acknowledgment of ours */
	t->rcv += (u32)res;
	tc_send(t, TH_ACK, data, 10);
	EXPECT_EQ(fast + 2, stats(t)->fast_path);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(1000, ev->res) TH_LOG("header prediction: the ACK of 1000 bytes -> SENT 1000");
	/* the full path: a closed window, a FIN */
	t->pwin = 0;
	tc_send(t, TH_ACK, data, 10);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_RECV));
	t->pwin = 5000;
	tc_send(t, TH_ACK | TH_FIN, data, 10);
	EXPECT_EQ(2, tc_nev(t, IXMOD_EV_TCP_RECV)) TH_LOG("the data, then the end of stream");
	EXPECT_EQ(fast + 2, stats(t)->fast_path) {
		TH_LOG("header prediction: a zero window and a FIN take the full path (%llu)",
		       stats(t)->fast_path - fast);
	}
	tc_fini(t);
}

/* a window that opens with nothing acknowledged */
TEST(tcp_state_sendv_window_update_unacked)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	int res;

	tc_init(t);
	t->pwin = 3000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 3000);
	EXPECT_EQ(3000, res);
	EXPECT_EQ(0, tc_sendv(t, 3000, 3000)) {
		TH_LOG("sendv: a window of 3000 holding 3000 unacknowledged bytes: res 0");
	}
	t->pwin = 6000;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->res);
	EXPECT_GT(ev->win, 0) {
		TH_LOG("sendv: a window update, nothing acknowledged -> SENT res 0, win %u > 0",
		       ev ? ev->win : 0);
	}
	tc_fini(t);
}

/* SENDV of @n pieces (@off[i], @len[i]); the segment must carry them in order. */
static bool tc_sendv_pieces(struct tc *t, const u32 *off, const u32 *len, unsigned int n)
{
	struct ixmod_iov *iov = (struct ixmod_iov *)(t->a->arena + ARENA - 64);
	struct ixmod_call c = tn_call_sendv(t->ch, ARENA - 64, n, 0x5e);
	static u8 want[IXM_MBUF_SIZE];
	u32 total = 0, i;

	for (i = 0; i < n; i++) {
		iov[i].off = off[i];
		iov[i].len = len[i];
		memcpy(want + total, t->a->arena + off[i], len[i]);
		total += len[i];
	}
	if (tc_call(t, &c) != (int)total || !one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, total) ||
	    memcmp(t->seg[0].data, want, total))
		return false;
	t->rcv += total;
	tc_send(t, TH_ACK, NULL, 0);
	return true;
}

/*
 * The NIC reads a segment's data where it lies: one fragment per arena
 * page (testnet maps no two pages side by side), up to IXM_MBUF_FRAGS;
 * more, and the data is copied.  Odd offsets and lengths keep the
 * checksum honest (tc_run() checks every frame's).
 */
TEST_F(tcp_state_established, sendv_gather)
{
	static const u32 off1[] = { 4096 - 701 }, len1[] = { 1400 };
	static const u32 off4[] = { 8192 + 5, 3 * 4096 + 77, 4096 + 1, 7 * 4096 + 4000 },
			 len4[] = { 101, 33, 77, 96 };
	static const u32 off5[] = { 9 * 4096, 11 * 4096 + 1, 13 * 4096, 15 * 4096, 17 * 4096 },
			 len5[] = { 100, 99, 100, 100, 100 };
	/* 6 pieces in a row on one page, then one on the next: 2 fragments */
	static const u32 off6[] = { 20 * 4096 + 3000, 20 * 4096 + 3101, 20 * 4096 + 3200,
				    20 * 4096 + 3333, 20 * 4096 + 3500, 20 * 4096 + 3900,
				    21 * 4096 },
			 len6[] = { 101, 99, 133, 167, 400, 196, 50 };
	const struct ixm_tcp_stats *st;
	struct tc *t = self->t;
	u64 zc, cp;

	st = &t->h->tcp->stats;
	zc = st->tx_zerocopy;
	cp = st->tx_copied;
	ASSERT_TRUE(tc_sendv_pieces(t, off1, len1, 1));
	EXPECT_EQ(zc + 1, st->tx_zerocopy);
	EXPECT_EQ(cp, st->tx_copied) {
		TH_LOG("gather: 1400 bytes across a page boundary go out in place");
	}
	ASSERT_TRUE(tc_sendv_pieces(t, off4, len4, 4));
	EXPECT_EQ(zc + 2, st->tx_zerocopy);
	EXPECT_EQ(cp, st->tx_copied) {
		TH_LOG("gather: 4 pieces of odd lengths on 4 pages go out in place");
	}
	ASSERT_TRUE(tc_sendv_pieces(t, off5, len5, 5));
	EXPECT_EQ(zc + 2, st->tx_zerocopy);
	EXPECT_EQ(cp + 1, st->tx_copied) {
		TH_LOG("gather: 5 pieces on 5 pages need too many fragments: copied");
	}
	ASSERT_TRUE(tc_sendv_pieces(t, off6, len6, 7));
	EXPECT_EQ(zc + 3, st->tx_zerocopy);
	EXPECT_EQ(cp + 1, st->tx_copied) {
		TH_LOG("gather: 7 pieces, 6 of them in a row on one page: 2 fragments, in place");
	}
	tn_app_copy_only(t->a, true);
	ASSERT_TRUE(tc_sendv_pieces(t, off1, len1, 1));
	EXPECT_EQ(zc + 3, st->tx_zerocopy);
	EXPECT_EQ(cp + 2, st->tx_copied) {
		TH_LOG("gather: no mapping of the arena for the port: copied");
	}
	EXPECT_EQ(0, t->a->txmap.inflight) TH_LOG("gather: no frame reads the arena once sent");
}

/* The handle the first event of @type in the last run carried; 0 if none. */
static u64 tc_evh(const struct tc *t, u8 type)
{
	unsigned int i;

	for (i = 0; i < t->nev; i++)
		if (t->ev[i].type == type)
			return t->evh[i];
	return 0;
}

/*
 * With IXMOD_SETUP_EVENT_EXT every event of a connection names it, the
 * ones whose 32 bytes hold no handle (RECV, SENT) too; without it the
 * extension reads as zero.
 */
TEST(tcp_state_event_ext)
{
	struct tc *t = &T;

	tc_init(t);
	tn_app_set_event_ext(t->a, true);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	EXPECT_TRUE(t->ch);
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_RECV)) TH_LOG("RECV names its connection");
	ASSERT_EQ(0, tc_recv_done(t, 100));
	ASSERT_EQ(5, tc_sendv(t, 0, 5));
	t->rcv += 5;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_SENT)) TH_LOG("SENT names its connection");
	tc_send(t, TH_ACK | TH_FIN, NULL, 0);
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_RECV)) TH_LOG("the FIN's RECV 0 too");
	ASSERT_EQ(0, tc_close(t, true));
	EXPECT_EQ(t->ch, tc_evh(t, IXMOD_EV_TCP_DEAD)) TH_LOG("and DEAD");
	tc_fini(t);

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_RECV));
	EXPECT_EQ(0, tc_evh(t, IXMOD_EV_TCP_RECV)) TH_LOG("32-byte events: no extension");
	tc_fini(t);
}

/*
 * IXMOD_SETUP_SENT_IN_RECV: an ACK that comes with data is told on the
 * data's TCP_RECV (IXMOD_EVF_SENT, win the bytes acknowledged), with no
 * TCP_SENT; a bare ACK still gets its TCP_SENT, and so does one the
 * application waits on for send space (a short sendv), which needs its
 * win.  Without the flag every ACK gets its TCP_SENT and no RECV is
 * flagged.
 */
TEST(tcp_state_sent_in_recv)
{
	const struct ixmod_event *ev;
	struct tc *t = &T;
	u64 waited;
	int res;

	tc_init(t);
	t->pwin = 1000;
	tn_app_set_sent_in_recv(t->a, true);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	ASSERT_EQ(5, tc_sendv(t, 0, 5));
	t->rcv += 5;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	ev = tc_ev(t, IXMOD_EV_TCP_RECV);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(100, ev->res);
	EXPECT_EQ(IXMOD_EVF_SENT, ev->flags) TH_LOG("the ACK rides on the data's RECV");
	EXPECT_EQ(5, ev->win) TH_LOG("win: the 5 bytes acknowledged");
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("and no TCP_SENT of its own");
	ASSERT_EQ(0, tc_recv_done(t, 100));

	/*
	 * A bare ACK of everything sent (a client's delayed ACK): its
	 * TCP_SENT is held, for the next RECV or IXM_TCP_SENT_HOLD_NS
	 */
	ASSERT_EQ(7, tc_sendv(t, 5, 7));
	t->rcv += 7;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT));
	EXPECT_EQ(1, stats(t)->sent_held) TH_LOG("a bare ACK of everything: its TCP_SENT held");
	waited = tc_wait_ev(t, IXMOD_EV_TCP_SENT, 3 * IXM_TCP_SENT_HOLD_NS, 1000000);
	EXPECT_GE(waited, IXM_TCP_SENT_HOLD_NS);
	EXPECT_LE(waited, IXM_TCP_SENT_HOLD_NS + 2 * IXM_TIMER_TICK_NS + 1000000);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev) TH_LOG("no other event came: the TCP_SENT %llu ns later",
				   (unsigned long long)waited);
	EXPECT_EQ(7, ev->res);
	ASSERT_EQ(9, tc_sendv(t, 12, 9));
	t->rcv += 9;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("the next bare ACK: held");
	tc_send(t, TH_ACK | TH_PSH, data, 20);
	ev = tc_ev(t, IXMOD_EV_TCP_RECV);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(IXMOD_EVF_SENT, ev->flags);
	EXPECT_EQ(9, ev->win) TH_LOG("then data: the held acknowledgment rides on its RECV");
	ASSERT_EQ(0, tc_recv_done(t, 20));
	EXPECT_EQ(0, tc_wait_ev(t, IXMOD_EV_TCP_SENT, 3 * IXM_TCP_SENT_HOLD_NS, 1000000)) {
		TH_LOG("and no TCP_SENT comes for it later");
	}

	res = tc_sendv(t, 21, 3000);
	ASSERT_GT(res, 0);
	ASSERT_LT(res, 3000) TH_LOG("a window of 1000 takes part: the application waits for space");
	t->rcv += (u32)res;
	tc_send(t, TH_ACK | TH_PSH, data, 50);
	ev = tc_ev(t, IXMOD_EV_TCP_RECV);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->flags) TH_LOG("waiting for space: the RECV carries nothing");
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev) TH_LOG("the TCP_SENT with its win comes instead");
	EXPECT_EQ(res, ev->res);
	EXPECT_GT(ev->win, 0);
	tc_fini(t);

	/*
	 * A short sendv, then an ACK of part of it that leaves no room (a
	 * TCP_SENT with win 0), then data with the ACK that opens the window:
	 * the application still waits for a win above 0, so that ACK gets a
	 * TCP_SENT of its own too (a bulk echo stalled for good without it).
	 */
	tc_init(t);
	t->pwin = 1000;
	tn_app_set_sent_in_recv(t->a, true);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	res = tc_sendv(t, 0, 3000);
	ASSERT_EQ(1000, res);
	t->rcv += 500;
	t->pwin = 500;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(500, ev->res);
	EXPECT_EQ(0, ev->win) TH_LOG("half acknowledged, the window full: win 0");
	t->rcv += 500;
	t->pwin = 4000;
	tc_send(t, TH_ACK | TH_PSH, data, 60);
	ev = tc_ev(t, IXMOD_EV_TCP_RECV);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->flags) TH_LOG("still waiting for room: nothing rides on the RECV");
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev) TH_LOG("the TCP_SENT that says there is room");
	EXPECT_EQ(500, ev->res);
	EXPECT_GT(ev->win, 0);
	ASSERT_EQ(0, tc_recv_done(t, 60));
	ASSERT_EQ(5, tc_sendv(t, 1000, 5));
	t->rcv += 5;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	ev = tc_ev(t, IXMOD_EV_TCP_RECV);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(IXMOD_EVF_SENT, ev->flags) TH_LOG("the wait over: ACKs ride again");
	tc_fini(t);

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS));
	ASSERT_EQ(5, tc_sendv(t, 0, 5));
	t->rcv += 5;
	tc_send(t, TH_ACK | TH_PSH, data, 100);
	ev = tc_ev(t, IXMOD_EV_TCP_RECV);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, ev->flags) TH_LOG("without the flag: no RECV is flagged");
	ev = tc_ev(t, IXMOD_EV_TCP_SENT);
	ASSERT_NE(NULL, ev) TH_LOG("without the flag: the TCP_SENT");
	EXPECT_EQ(5, ev->res);
	tc_fini(t);
}

/*
 * IXMOD_OP_TCP_SEND: one buffer, no array in the arena.  Its bytes go out
 * as sendv's would; a bad length or range, or a handle of another kind,
 * is refused and sends nothing.
 */
TEST_F(tcp_state_established, send_one_buffer)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 off = 3 * 4096 - 333, n = 777, i;
	u64 segs;

	for (i = 0; i < n; i++)
		t->a->arena[off + i] = (u8)(i * 7 + 3);
	c = tn_call_send(t->ch, off, n, 0x5e);
	EXPECT_EQ((int)n, tc_call(t, &c)) TH_LOG("send: res is the bytes accepted");
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, n));
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena + off, n)) {
		TH_LOG("send: one segment with the buffer's bytes");
	}
	t->rcv += n;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(n, (u32)tc_ev(t, IXMOD_EV_TCP_SENT)->res) TH_LOG("send: acknowledged: SENT");

	segs = t->h->tcp->stats.segs_out;
	c = tn_call_send(t->ch, off, 0, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send of 0 bytes: -EINVAL");
	c = tn_call_send(t->ch, ARENA - 10, 11, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send one byte past the arena: -EINVAL");
	c = tn_call_send(t->ch, 0xffffff00u, 0x200, 1);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send whose end overflows: -EINVAL");
	c = tn_call_send(ixm_handle(IXMOD_HANDLE_UDP, ixm_handle_idx(t->ch),
				    ixm_handle_gen(t->ch)), off, n, 1);
	EXPECT_EQ(-EBADF, tc_call(t, &c)) TH_LOG("send on a UDP socket's handle: -EBADF");
	c = tn_call_send(t->ch, ARENA - 10, 10, 1);
	c.addr = 1;
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("send with addr set: -EINVAL");
	EXPECT_EQ(segs, t->h->tcp->stats.segs_out) TH_LOG("no refused send sent a segment");
}

/* The device finishes the frames tc_run() kept (t->hold): they are freed. */
static void tc_release_held(struct tc *t)
{
	while (t->nheld)
		ixm_mbuf_free(t->held[--t->nheld]);
}

/*
 * The NIC reads sent bytes in place from the arena, so a TCP_SENT, which
 * gives them back to the application, waits until no frame that reads
 * them is still queued: else a peer that acknowledges data before the NIC
 * read it (or an acknowledgment that overtakes a queued retransmission)
 * would let the application write other bytes there, another client's
 * reply say, and the queued frame would carry them to this peer.  The
 * same for TCP_DEAD, which gives back every byte.
 */
TEST_F(tcp_state_established, sent_waits_for_the_nic)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 off = 8192, n = 1000;
	u64 zc = stats(t)->tx_zerocopy, waits = stats(t)->zc_waits;

	t->hold = true;
	c = tn_call_send(t->ch, off, n, 0x5e);
	EXPECT_EQ((int)n, tc_call(t, &c));
	ASSERT_TRUE(one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, n));
	ASSERT_EQ(zc + 1, stats(t)->tx_zerocopy) TH_LOG("the segment reads the arena in place");
	ASSERT_EQ(1, t->nheld);
	t->rcv += n;
	tc_send(t, TH_ACK, NULL, 0);	/* acknowledged before the NIC is done */
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) {
		TH_LOG("no TCP_SENT while the frame that reads the bytes is queued");
	}
	EXPECT_LT(waits, stats(t)->zc_waits) TH_LOG("the wait is counted (tcp_zc_waits)");
	tc_advance(t, 1000);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("nor in the next iteration");
	tc_release_held(t);
	tc_advance(t, 1000);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("the NIC is done: TCP_SENT");
	EXPECT_EQ((int)n, tc_ev(t, IXMOD_EV_TCP_SENT)->res);

	/* a reset while a frame is queued: DEAD waits too */
	c = tn_call_send(t->ch, off, n, 0x5f);
	EXPECT_EQ((int)n, tc_call(t, &c));
	ASSERT_EQ(1, t->nheld);
	tc_seg(t, TH_RST, t->snd, 0, NULL, 0, 0);
	EXPECT_EQ(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD)) {
		TH_LOG("no TCP_DEAD while a frame that reads the connection's bytes is queued");
	}
	tc_release_held(t);
	tc_advance(t, 1000);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_DEAD)) TH_LOG("the NIC is done: TCP_DEAD");
	EXPECT_EQ(-ECONNRESET, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	t->hold = false;
}

/*
 * A frame the device never took (its ring was full) is freed at once and
 * does not count: the acknowledgment is not held back by it.
 */
TEST_F(tcp_state_established, sent_needs_no_frame_that_never_left)
{
	struct tc *t = self->t;
	struct ixmod_call c;
	u32 off = 8192, n = 500;

	c = tn_call_send(t->ch, off, n, 0x5e);
	tn_app_submit(t->a, &c);
	tn_host_run(t->h);
	ASSERT_EQ(1, t->h->port.ntx);
	t->h->port.tx[0]->flags &= ~IXM_MBUF_F_TX_TAKEN;	/* as a full ring leaves it */
	tn_tx_flush(t->h);
	while (tn_app_event_ext(t->a, &(struct ixmod_event_ext){ 0 }))
		;
	t->rcv += n;
	tc_send(t, TH_ACK, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT)) TH_LOG("TCP_SENT at once");
	EXPECT_EQ((int)n, tc_ev(t, IXMOD_EV_TCP_SENT)->res);
	EXPECT_EQ(t->h->tcp->conns[ixm_handle_idx(t->ch)].zc.built,
		  t->h->tcp->conns[ixm_handle_idx(t->ch)].zc.done) {
		TH_LOG("the dropped frame left the counts even");
	}
}

TEST(tcp_state_zero_window)
{
	struct tc *t = &T;
	u64 first, second;
	int res;

	tc_init(t);
	t->pwin = 0;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	res = tc_sendv(t, 0, 1000);
	EXPECT_GT(res, 0);
	EXPECT_FALSE(t->nseg) {
		TH_LOG("zero window: SENDV takes a probe's worth (%d) and sends nothing", res);
	}
	first = tc_wait_seg(t, 5000 * MS, MS);
	ASSERT_TRUE(first);
	ASSERT_TRUE(one_seg(t, TH_ACK, t->rcv, t->snd, 1));
	EXPECT_EQ(t->a->arena[0], t->seg[0].data[0]);
	EXPECT_EQ(1, stats(t)->zero_window_probes) {
		TH_LOG("zero window: after %llu ms a probe of one byte at SND.UNA", first / MS);
	}
	second = tc_wait_seg(t, 10000 * MS, MS);
	ASSERT_TRUE(second);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq);
	EXPECT_GE(second, first * 3 / 2) {
		TH_LOG("zero window: the next probe %llu ms later (backed off)", second / MS);
	}
	t->pwin = 65535;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq);
	EXPECT_EQ((u32)res, t->seg[0].dlen) {
		TH_LOG("zero window: it opens (the probe byte not taken) -> all %d bytes from SND.UNA",
		       res);
	}
	if (t->nseg && t->seg[0].seq != t->rcv) {
		u64 hole;

		TH_LOG("sent: seq SND.UNA%+d, %zu bytes", (int)(t->seg[0].seq - t->rcv),
		       t->seg[0].dlen);
		hole = tc_wait_seg(t, 120000 * MS, MS);
		TH_LOG("the byte at SND.UNA went out %llu ms later (seq SND.UNA%+d)", hole / MS,
		       t->nseg ? (int)(t->seg[0].seq - t->rcv) : 0);
	}
	tc_fini(t);
}

/* RFC 9293 §3.8.6.2.2: RECV_DONE reopens the window, and the peer is told. */
TEST(tcp_state_window_update)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	u32 got = 0, n;

	ixm_tcp_config_default(&cfg);
	cfg.rcv_buf = 16384;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS | O_WS)) TH_LOG("the handshake");
	while (got < 16384) {
		n = 16384 - got < 1460 ? 16384 - got : 1460;
		tc_send(t, TH_ACK, data, n);
		got += (u32)tc_nev(t, IXMOD_EV_TCP_RECV) ? n : 0;
		if (!tc_nev(t, IXMOD_EV_TCP_RECV))
			break;
	}
	EXPECT_EQ(16384, got);
	EXPECT_EQ(1, t->nseg);
	EXPECT_FALSE(host_win(t, &t->seg[0])) {
		TH_LOG("window: 16384 bytes fill the buffer; the last ACK offers 0 (%u taken)",
		       got);
	}
	tc_send(t, TH_ACK, data, 100);
	t->snd -= 100;
	EXPECT_FALSE(t->nev);
	ASSERT_TRUE(is_ack(t));
	EXPECT_FALSE(host_win(t, &t->seg[0])) {
		TH_LOG("window: a byte more is not taken: ACK, window still 0");
	}
	EXPECT_EQ(0, tc_recv_done(t, 100));
	EXPECT_FALSE(t->nseg) {
		TH_LOG("window: RECV_DONE of 100 bytes: no update for so little (SWS avoidance)");
	}
	EXPECT_EQ(0, tc_recv_done(t, 16284));
	ASSERT_TRUE(is_ack(t));
	EXPECT_GE(host_win(t, &t->seg[0]), 2920) {
		TH_LOG("window: RECV_DONE of the rest -> a window update (%u)",
		       t->nseg ? host_win(t, &t->seg[0]) : 0);
	}
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree) {
		TH_LOG("window: every buffer is back in the pool");
	}
	tc_send(t, TH_ACK, data, 1000);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 1000)) {
		TH_LOG("window: data flows again");
	}
	tc_fini(t);
}

/*
 * An ACK of new data carries the peer's window whatever its SEQ (Linux's
 * tcp_may_update_window()): a peer that sends again from a hole (its
 * data after the hole already here, so SND.WL1 is past it) and closes
 * its window meanwhile is heard, and nothing goes past its edge.  By
 * RFC 9293's rule alone (SND.WL1 < SEG.SEQ) the zero window was ignored
 * and the whole window sent into it.
 */
TEST(tcp_state_window_from_an_ack_of_new_data)
{
	struct tc *t = &T;
	u32 hole;

	tc_init(t);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	/* the peer's bytes past a hole of 1000: in the window, SND.WL1 goes there */
	hole = t->snd;
	tc_seg(t, TH_ACK, hole + 1000, t->rcv, data, 500, 0);
	ASSERT_TRUE(is_ack(t)) TH_LOG("the out-of-order bytes are acknowledged at the hole");
	EXPECT_EQ(1000, (int)tc_sendv(t, 0, 1000));
	ASSERT_EQ(1, t->nseg);
	/* from the hole: all acknowledged, and the window closed */
	t->pwin = 0;
	tc_seg(t, TH_ACK, hole, t->rcv + 1000, NULL, 0, 0);
	t->rcv += 1000;
	EXPECT_EQ(t->rcv, conn(t)->snd_una);
	EXPECT_EQ(0, conn(t)->snd_wnd) TH_LOG("the window of an ACK of new data is taken");
	EXPECT_GT((int)tc_sendv(t, 1000, 3000), 0);
	EXPECT_FALSE(t->nseg) TH_LOG("nothing sent into the closed window (%u segments)",
				     t->nseg);
	tc_fini(t);
}

/* A passive connection with a 4096-byte receive buffer that sent 1000 bytes. */
static bool small_window_sent(struct tc *t)
{
	struct ixm_tcp_config cfg;

	ixm_tcp_config_default(&cfg);
	cfg.rcv_buf = 4096;
	tc_init_cfg(t, &cfg);
	return tc_passive(t, O_MSS) && tc_sendv(t, 0, 1000) == 1000 && t->nseg == 1;
}

/*
 * An ACK at the receive window's right edge is taken (as Linux's
 * tcp_sequence() takes it): a peer that sent up to our edge, its first
 * bytes lost, acknowledges our data from there.  By RFC 9293 §3.10.7.4's
 * table it was dropped, its acknowledgment lost, and answered.
 */
TEST(tcp_state_ack_at_the_right_edge)
{
	struct tc *t = &T;
	u32 edge;

	ASSERT_TRUE(small_window_sent(t)) TH_LOG("the handshake, 1000 bytes sent");
	edge = conn(t)->rcv_adv;
	EXPECT_EQ(4096, edge - t->snd) TH_LOG("the window offered");
	tc_seg(t, TH_ACK, edge, t->rcv + 1000, NULL, 0, 0);
	EXPECT_EQ(t->rcv + 1000, conn(t)->snd_una) TH_LOG("the ACK at the edge is taken");
	EXPECT_EQ(0, stats(t)->out_of_window);
	tc_seg(t, TH_ACK, edge + 1, t->rcv + 1000, NULL, 0, 0);
	EXPECT_EQ(1, stats(t)->out_of_window) TH_LOG("one past the edge is not");
	tc_fini(t);
}

/*
 * The ACK field of a segment whose data the window cannot take is heard
 * (RFC 9293 §3.10.7.4: "special allowance should be made to accept
 * valid ACKs"; Linux's tcp_sequence()).  A peer acknowledges our data on
 * its retransmissions and window probes; while our window is zero these
 * carry data at RCV.NXT, and by the table alone their ACKs were lost: an
 * application that frees its receive buffers only once its reply is
 * acknowledged (tcp-echo) then waited for good, and so did the peer.
 */
TEST(tcp_state_ack_on_data_in_a_zero_window)
{
	struct tc *t = &T;
	u32 got = 0, n;
	u64 ow;

	ASSERT_TRUE(small_window_sent(t)) TH_LOG("the handshake, 1000 bytes sent");
	while (got < 4096) {
		n = 4096 - got < 1460 ? 4096 - got : 1460;
		tc_send(t, TH_ACK, data + got, n);
		if (!tc_nev(t, IXMOD_EV_TCP_RECV))
			break;
		got += n;
	}
	ASSERT_EQ(4096, got);
	ASSERT_EQ(conn(t)->rcv_nxt, conn(t)->rcv_adv) TH_LOG("the window is closed");

	/* the peer's probe: 100 bytes at RCV.NXT, acknowledging our 1000 */
	ow = stats(t)->out_of_window;
	tc_seg(t, TH_ACK, t->snd, t->rcv + 1000, data + got, 100, 0);
	t->rcv += 1000;
	EXPECT_EQ(t->rcv, conn(t)->snd_una) {
		TH_LOG("the ACK on data in a zero window is taken (SND.UNA %+d)",
		       (int)(conn(t)->snd_una - t->rcv));
	}
	EXPECT_FALSE(tc_nev(t, IXMOD_EV_TCP_RECV)) TH_LOG("its data is not");
	ASSERT_TRUE(is_ack(t)) TH_LOG("and it is answered at once");
	EXPECT_FALSE(host_win(t, &t->seg[0])) TH_LOG("with the window still zero");
	EXPECT_EQ(ow + 1, stats(t)->out_of_window) TH_LOG("counted out of window");

	/* the window open again: data at its right edge, with an ACK */
	EXPECT_EQ(0, tc_recv_done(t, 4096));
	ASSERT_TRUE(is_ack(t));
	ASSERT_EQ(4096, conn(t)->rcv_adv - t->snd) TH_LOG("the window reopens");
	EXPECT_EQ(500, (int)tc_sendv(t, 1000, 500));
	ASSERT_EQ(1, t->nseg);
	tc_seg(t, TH_ACK, t->snd + 4096, t->rcv + 500, data, 100, 0);
	t->rcv += 500;
	EXPECT_EQ(t->rcv, conn(t)->snd_una) TH_LOG("data at the right edge: its ACK is taken");
	EXPECT_FALSE(tc_nev(t, IXMOD_EV_TCP_RECV));
	ASSERT_TRUE(is_ack(t)) TH_LOG("its data dropped and answered");
	EXPECT_EQ(ow + 2, stats(t)->out_of_window);
	tc_seg(t, TH_ACK, t->snd + 4097, t->rcv, data, 100, 0);
	EXPECT_EQ(ow + 3, stats(t)->out_of_window) TH_LOG("one past the edge: rejected");
	ASSERT_TRUE(is_ack(t));
	tc_send(t, TH_ACK, data, 1000);
	EXPECT_TRUE(recv_is(t, tc_ev(t, IXMOD_EV_TCP_RECV), data, 1000)) {
		TH_LOG("data flows again");
	}
	tc_fini(t);
}

/* A full event ring: TCP_RECVs are owed, not lost, and come in order. */
TEST(tcp_state_event_ring_full)
{
	static u8 f[IXM_MBUF_SIZE];
	struct ixmod_event ev;
	struct tc *t = &T;
	unsigned int i, got = 0, rounds, most = 0;
	bool ok = true;
	u32 off = 0;

	tc_init(t);
	tn_app_free(t->a);
	t->a = tn_app_new(t->h, 64, 4, ARENA);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	for (i = 0; i < 20; i++) {
		struct tcp_args a = {
			.src = P_IP, .dst = H_IP, .sport = t->pport, .dport = t->hport,
			.seq = t->snd, .ack = t->rcv, .flags = TH_ACK | TH_PSH,
			.win = t->pwin, .data = data + 100 * i, .dlen = 100,
		};

		t->snd += 100;
		tn_input(t->h, f, tcp_frame(f, our_mac, peer_mac, &a), 0);
		tn_host_run(t->h);
		tn_tx_flush(t->h);
	}
	EXPECT_EQ(4, tn_app_nevents(t->a));
	EXPECT_EQ(4, t->a->app.hold_count);
	EXPECT_TRUE(*tn_ring_word(t->a->events, IXM_RING_OFF_FLAGS) & IXMOD_RING_OVERFLOW) {
		TH_LOG("full ring: 20 segments, ring of 4: 4 in the ring, 4 held, OVERFLOW set");
	}
	for (rounds = 0; rounds < 20 && got < 20; rounds++) {
		unsigned int n = 0;

		while (tn_app_event(t->a, &ev)) {
			const u8 *p = tn_rx_ptr(t->h, ev.off, 100);

			n++;
			if (ev.type != IXMOD_EV_TCP_RECV || ev.res != 100 || !p ||
			    memcmp(p, data + off, 100))
				ok = false;
			off += 100;
			got++;
		}
		most = n > most ? n : most;
		tn_host_run(t->h);
		tn_tx_flush(t->h);
	}
	EXPECT_TRUE(ok);
	EXPECT_EQ(20, got);
	EXPECT_LE(most, 8) {
		TH_LOG("full ring: all 20 TCP_RECVs come, in order, as the ring drains (%u)", got);
	}
	EXPECT_EQ(0, tc_recv_done(t, 2000));
	EXPECT_EQ(t->h->pool.count, t->h->pool.nfree);
	EXPECT_FALSE(t->a->app.stats.rx_bufs) {
		TH_LOG("full ring: RECV_DONE of the 2000 bytes frees them all");
	}
	tc_fini(t);
}

static struct ixmod_call at_pos(struct ixmod_call c, u32 pos)
{
	c.flags |= IXMOD_CALL_F_POS;
	c.pos = pos;
	return c;
}

static u32 tc_sent_bytes(const struct tc *t, bool *fin)
{
	u32 n = 0, i;

	for (i = 0; i < t->nseg; i++) {
		n += t->seg[i].dlen;
		*fin |= !!(t->seg[i].flags & TH_FIN);
	}
	return n;
}

/*
 * IXMOD_CALL_F_POS: calls that carry the stream offset they expect, so
 * that an application may keep several in flight without hearing of each.
 * A send that goes whole posts no event; one that falls short says in res
 * how much it took and in @off where the next must start; the sends and
 * the graceful close behind it (at offsets past that) take nothing and
 * fail with -EAGAIN, so the stream keeps the application's order; once
 * the window opens the send at the right offset, then the close, go.
 */
TEST(tcp_state_send_at_pos)
{
	struct tc *t = &T;
	struct ixmod_call c;
	bool fin = false;
	unsigned int i;
	u32 n;

	tc_init(t);
	t->pwin = 3000;
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	for (i = 0; i < 8000; i++)
		t->a->arena[i] = (u8)(i * 13 + 5);

	c = at_pos(tn_call_send(t->ch, 0, 1000, 1), 0);
	tn_app_submit(t->a, &c);
	tc_run(t);
	n = tc_sent_bytes(t, &fin);
	EXPECT_EQ(0, tc_nev(t, IXMOD_EV_CALL));
	EXPECT_EQ(1000, n) TH_LOG("a send at its offset that goes whole: sent, no event");

	/* the window has 2000 bytes left: 2500 fall short, what follows waits */
	c = at_pos(tn_call_send(t->ch, 1000, 2500, 2), 1000);
	tn_app_submit(t->a, &c);
	c = at_pos(tn_call_send(t->ch, 3500, 500, 3), 3500);
	tn_app_submit(t->a, &c);
	c = at_pos(tn_call_close(t->ch, false), 4000);
	c.user_data = 4;
	tn_app_submit(t->a, &c);
	tc_run(t);
	n = tc_sent_bytes(t, &fin);
	ASSERT_EQ(3, tc_nev(t, IXMOD_EV_CALL));
	EXPECT_EQ(2, t->ev[0].user_data);
	EXPECT_EQ(2000, t->ev[0].res);
	EXPECT_EQ(3000, t->ev[0].off) TH_LOG("short: res 2000 taken, the next send at 3000");
	EXPECT_EQ(3, t->ev[1].user_data);
	EXPECT_EQ(-EAGAIN, t->ev[1].res);
	EXPECT_EQ(3000, t->ev[1].off) TH_LOG("the send behind it, at 3500: -EAGAIN");
	EXPECT_EQ(4, t->ev[2].user_data);
	EXPECT_EQ(IXMOD_OP_TCP_CLOSE, t->ev[2].op);
	EXPECT_EQ(-EAGAIN, t->ev[2].res) TH_LOG("the close at 4000: -EAGAIN");
	EXPECT_EQ(2000, n);
	EXPECT_FALSE(fin) TH_LOG("2000 bytes sent and no FIN");
	EXPECT_EQ(2, stats(t)->pos_refused);
	EXPECT_EQ(0, memcmp(t->seg[t->nseg - 1].data + t->seg[t->nseg - 1].dlen - 10,
			    t->a->arena + 2990, 10)) TH_LOG("the stream ends at byte 3000");

	c = tn_call_send(t->ch, 3000, 1, 5);
	c.pos = 1;
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("pos without IXMOD_CALL_F_POS: -EINVAL");
	c = at_pos(tn_call_close(t->ch, true), 3000);
	EXPECT_EQ(-EINVAL, tc_call(t, &c)) TH_LOG("IXMOD_CALL_F_POS on an abort: -EINVAL");

	t->rcv += 3000;
	tc_send(t, TH_ACK, NULL, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT));
	EXPECT_GT(tc_ev(t, IXMOD_EV_TCP_SENT)->win, 0) TH_LOG("the ACK: SENT with win > 0");

	c = at_pos(tn_call_send(t->ch, 3000, 1000, 6), 3000);
	tn_app_submit(t->a, &c);
	c = at_pos(tn_call_close(t->ch, false), 4000);
	tn_app_submit(t->a, &c);
	tc_run(t);
	fin = false;
	n = tc_sent_bytes(t, &fin);
	EXPECT_EQ(0, tc_nev(t, IXMOD_EV_CALL));
	EXPECT_EQ(1000, n);
	EXPECT_TRUE(fin) TH_LOG("the send at 3000, the close at 4000: no event, 1000 bytes, FIN");
	EXPECT_EQ(0, memcmp(t->seg[0].data, t->a->arena + 3000, t->seg[0].dlen)) {
		TH_LOG("the stream goes on at byte 3000, in order");
	}
	tc_fini(t);
}

TEST_HARNESS_MAIN
