// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_timer.c - retransmission and the timers
 *
 * RTO backoff and the RTT of the SYN (RFC 6298), fast retransmit (RFC 5681),
 * SYN-SENT's and FIN-WAIT-2's timeouts, and keepalives.
 *
 * The host, the peer the test plays and the helpers: tcp_state.h.
 */
#include "tcp_state.h"

/* RFC 6298 §5.5: each timeout doubles the RTO; Karn: no sample from a retransmission. */
TEST_F(tcp_state_established, rto_backoff)
{
	u64 iv[4], next;
	struct tc *t = self->t;
	unsigned int i;
	bool ok = true;

	tc_sendv(t, 0, 100);
	for (i = 0; i < 4; i++) {
		iv[i] = tc_wait_seg(t, 60000 * MS, MS);
		if (!iv[i] || !one_seg(t, TH_ACK | TH_PSH, t->rcv, t->snd, 100))
			ok = false;
	}
	EXPECT_TRUE(ok) TH_LOG("RTO: the segment is sent again 4 times");
	EXPECT_GE(iv[0], 999 * MS);
	EXPECT_LE(iv[0], 1001 * MS) {
		TH_LOG("RTO: the first timeout is the initial RTO, 1 s (RFC 6298 §2.1): %llu ms",
		       iv[0] / MS);
	}
	for (i = 1; i < 4; i++)
		ok = ok && iv[i] >= 2 * iv[i - 1] - MS && iv[i] <= 2 * iv[i - 1] + MS;
	EXPECT_TRUE(ok) {
		TH_LOG("RTO: each timeout doubles it: %llu, %llu, %llu, %llu ms",
		       iv[0] / MS, iv[1] / MS, iv[2] / MS, iv[3] / MS);
	}
	EXPECT_EQ(4, stats(t)->timeouts);
	EXPECT_EQ(4, stats(t)->retrans) {
		TH_LOG("RTO: timeouts and retrans counted (%llu, %llu)",
		       stats(t)->timeouts, stats(t)->retrans);
	}
	t->rcv += 100;
	tc_send(t, TH_ACK, NULL, 0);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_SENT)) {
		TH_LOG("RTO: the ACK of the retransmission -> SENT");
	}
	tc_sendv(t, 100, 100);
	next = tc_wait_seg(t, 60000 * MS, MS);
	EXPECT_TRUE((next >= 999 * MS && next <= 1001 * MS) || (next >= iv[3] * 2 - MS && next <= iv[3] * 2 + MS)) {
		TH_LOG("Karn: that ACK gave no RTT sample (next RTO %llu ms: 1 s, or still backed off)",
		       next / MS);
	}
}

/* The RTT of the handshake is measured from when the SYN went out. */
TEST(tcp_state_syn_rtt)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0xc0);
	struct tc *t = &T;
	u64 rto;

	tc_init(t);
	tc_call(t, &c);
	t->ch = t->nev ? t->ev[0].handle : 0;
	t->hport = t->seg[0].sport;
	t->rcv = t->seg[0].seq + 1;
	t->snd = P_ISS;
	tc_advance(t, MS);
	tc_seg(t, TH_SYN | TH_ACK, t->snd++, t->rcv, NULL, 0, O_MSS);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_CONNECTED));
	EXPECT_TRUE(is_ack(t)) TH_LOG("SYN RTT: connected after 1 ms");
	tc_sendv(t, 0, 100);
	rto = tc_wait_seg(t, 120000 * MS, MS);
	EXPECT_TRUE(rto);
	EXPECT_LE(rto, 1000 * MS) {
		TH_LOG("SYN RTT: with a 1 ms handshake the first data RTO is at most 1 s: %llu ms",
		       rto / MS);
	}
	if (conn(t))
		TH_LOG("srtt %u us, rttvar %u us, rto %u us", conn(t)->srtt_us,
		       conn(t)->rttvar_us, conn(t)->rto_us);
	tc_fini(t);
}

/* RFC 5681 §3.2: three duplicate ACKs resend the first unacknowledged segment. */
TEST_F(tcp_state_established, fast_retransmit)
{
	struct tc *t = self->t;
	u32 una, end;
	int res, i;
	bool quiet = true;

	res = tc_sendv(t, 0, 4380);
	end = t->rcv + (u32)res;
	t->rcv += 1460;
	tc_send(t, TH_ACK, NULL, 0);
	res = tc_sendv(t, end - t->hiss - 1, 2920);
	end += (u32)res;
	una = t->rcv;
	EXPECT_GE(end - una, 4 * 1460) {
		TH_LOG("fast retransmit: %u bytes outstanding past SND.UNA", end - una);
	}
	for (i = 0; i < 2; i++) {
		tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
		quiet = quiet && !t->nseg;
	}
	ASSERT_TRUE(quiet);
	EXPECT_FALSE(stats(t)->fast_retrans) {
		TH_LOG("fast retransmit: two duplicate ACKs: nothing yet");
	}
	tc_seg(t, TH_ACK, t->snd, una, NULL, 0, 0);
	EXPECT_TRUE(one_seg(t, TH_ACK | TH_PSH, una, t->snd, 1460) || one_seg(t, TH_ACK, una, t->snd, 1460)) {
		TH_LOG("fast retransmit: the third -> the segment at SND.UNA again");
	}
	EXPECT_EQ(1, stats(t)->fast_retrans);
	EXPECT_EQ(1, stats(t)->retrans);
	EXPECT_FALSE(stats(t)->timeouts) TH_LOG("fast retransmit: counted, without a timeout");
	tc_seg(t, TH_ACK, t->snd, end, NULL, 0, 0);
	ASSERT_NE(NULL, tc_ev(t, IXMOD_EV_TCP_SENT));
	EXPECT_EQ((int)(end - una), tc_ev(t, IXMOD_EV_TCP_SENT)->res) {
		TH_LOG("fast retransmit: the ACK of everything -> SENT of the rest");
	}
}

/*
 * After a timeout sends SND.UNA's segment again, a bare ACK still carries
 * the sequence number of the next new byte: the peer, which may have had
 * everything, accepts a zero-length segment only at RCV.NXT or later
 * (RFC 9293 §3.10.7.4), and drops the ACK otherwise.
 */
TEST_F(tcp_state_established, ack_seq_after_rto)
{
	struct tc *t = self->t;
	u32 top;
	int res;

	res = tc_sendv(t, 0, 4380);
	top = t->rcv + (u32)res;
	EXPECT_EQ(4380, res);
	EXPECT_EQ(3, t->nseg) TH_LOG("ACK after RTO: 3 segments out (%d bytes)", res);
	ASSERT_TRUE(tc_wait_seg(t, 2000 * MS, MS));
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(t->rcv, t->seg[0].seq) TH_LOG("ACK after RTO: the timeout sends the first again");
	tc_seg(t, TH_ACK | TH_PSH, t->snd, t->rcv, data, 100, 0);
	t->snd += 100;
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(TH_ACK, t->seg[0].flags);
	EXPECT_FALSE(t->seg[0].dlen);
	EXPECT_EQ(top, t->seg[0].seq);
	EXPECT_EQ(t->snd, t->seg[0].ack) {
		TH_LOG("ACK after RTO: the ACK of the peer's data has SEQ = SND.UNA + %u (the next new byte)",
		       top - t->rcv);
	}
	if (t->nseg)
		TH_LOG("its SEQ is SND.UNA + %u", t->seg[0].seq - t->rcv);
}

/* RFC 6298 §5.5 for the SYN: 1, 2, 4 ... s, then CONNECTED and DEAD -ETIMEDOUT. */
TEST(tcp_state_syn_timeout)
{
	struct ixmod_call c = tn_call_connect(P_IP, P_PORT, 0x5a);
	const struct ixmod_event *ev = NULL;
	struct tc *t = &T;
	unsigned int n = 0, i;
	u64 iv[8], waited, total = 0;
	bool ok = true;

	tc_init(t);
	tc_call(t, &c);
	t->ch = t->nev ? t->ev[0].handle : 0;
	while (n < 8) {
		waited = tc_wait_any(t, 200000 * MS, 10 * MS);
		total += waited;
		ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
		if (!waited || ev)
			break;
		if (t->nseg != 1 || t->seg[0].flags != TH_SYN)
			ok = false;
		iv[n++] = waited;
	}
	for (i = 0; i < n; i++)
		ok = ok && iv[i] >= (1000ULL << i) * MS - 10 * MS &&
		     iv[i] <= (1000ULL << i) * MS + 10 * MS;
	EXPECT_TRUE(ok);
	EXPECT_EQ(6, n) TH_LOG("SYN timeout: 6 retransmissions, 1 s apart doubling (%u)", n);
	if (!ev) {
		total += tc_wait_ev(t, IXMOD_EV_TCP_CONNECTED, 200000 * MS, 10 * MS);
		ev = tc_ev(t, IXMOD_EV_TCP_CONNECTED);
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ETIMEDOUT, ev->res);
	EXPECT_EQ(1, tc_nev(t, IXMOD_EV_TCP_DEAD));
	EXPECT_EQ(-ETIMEDOUT, tc_ev(t, IXMOD_EV_TCP_DEAD)->res);
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("SYN timeout");
	EXPECT_EQ(1, stats(t)->attempt_fails);
	EXPECT_GE(total, 122900 * MS);
	EXPECT_LE(total, 123100 * MS) {
		TH_LOG("SYN timeout: after %llu ms (1 + 2 + ... + 32 + 60 s, the RTO's cap) CONNECTED and DEAD -ETIMEDOUT",
		       total / MS);
	}
	tc_fini(t);
}

/* FIN-WAIT-2 does not last for ever: after tw_ns the connection goes. */
TEST(tcp_state_fin_wait_2_timeout)
{
	struct ixm_tcp_config cfg;
	const struct ixmod_event *ev;
	struct tc *t = &T;

	ixm_tcp_config_default(&cfg);
	cfg.tw_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	tc_close(t, false);
	t->rcv++;
	tc_send(t, TH_ACK, NULL, 0);
	tc_advance(t, cfg.tw_ns - MS);
	EXPECT_FALSE(t->nev);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("FIN-WAIT-2: still waiting for the peer's FIN");
	tc_advance(t, 2 * MS);
	ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
	ASSERT_NE(NULL, ev);
	EXPECT_FALSE(ev->res);
	EXPECT_FALSE(stats(t)->conns) {
		TH_LOG("FIN-WAIT-2: after tw_ns without a FIN -> DEAD 0, slot freed");
	}
	tc_fini(t);
}

/* RFC 1122 §4.2.3.6: keep-alives on an idle connection, when turned on. */
TEST(tcp_state_keepalive)
{
	struct ixm_tcp_config cfg;
	const struct ixmod_event *ev = NULL;
	struct tc *t = &T;
	unsigned int i, probes = 0;
	u64 first, waited;
	bool alive = true;

	ixm_tcp_config_default(&cfg);
	cfg.keepalive_ns = 10000 * MS;
	tc_init_cfg(t, &cfg);
	ASSERT_TRUE(tc_passive(t, O_MSS)) TH_LOG("the handshake");
	first = tc_wait_seg(t, 30000 * MS, 100 * MS);
	EXPECT_TRUE(first);
	EXPECT_LE(first, 10100 * MS) {
		TH_LOG("keepalive: an idle connection is probed after 10 s (%llu ms)", first / MS);
	}
	ASSERT_TRUE(first);
	EXPECT_EQ(1, t->nseg);
	EXPECT_EQ(TH_ACK, t->seg[0].flags);
	EXPECT_FALSE(t->seg[0].dlen);
	EXPECT_EQ(t->rcv - 1, t->seg[0].seq);
	EXPECT_EQ(t->snd, t->seg[0].ack) {
		TH_LOG("keepalive: the probe has SEG.SEQ = SND.NXT - 1, so the peer must answer");
	}
	if (first && t->nseg)
		TH_LOG("probe SEQ = SND.NXT%+d", (int)(t->seg[0].seq - t->rcv));
	else
		TH_LOG("no probe in 30 s of silence");
	for (i = 0; first && i < 20; i++) {
		if (!tc_wait_seg(t, 20000 * MS, 100 * MS))
			break;
		tc_send(t, TH_ACK, NULL, 0);
		alive = alive && !tc_ev(t, IXMOD_EV_TCP_DEAD);
	}
	ASSERT_TRUE(first);
	ASSERT_TRUE(alive);
	EXPECT_EQ(1, stats(t)->conns) TH_LOG("keepalive: a peer that answers keeps the connection");
	for (i = 0; i < 40 && !ev; i++) {
		/* _any: the DEAD comes in a step that sends nothing */
		waited = tc_wait_any(t, 20000 * MS, 100 * MS);
		probes += t->nseg;
		ev = tc_ev(t, IXMOD_EV_TCP_DEAD);
		if (!waited)
			break;
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-ETIMEDOUT, ev->res) {
		TH_LOG("keepalive: a silent peer -> DEAD -ETIMEDOUT after %u probes", probes);
	}
	EXPECT_TRUE(dead_handle_lives_until_close(t)) TH_LOG("keepalive");
	tc_fini(t);
}

TEST_HARNESS_MAIN
