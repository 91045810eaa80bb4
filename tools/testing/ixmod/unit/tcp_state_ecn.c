// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_state_ecn.c - ECN (RFC 3168) and DCTCP's echo (RFC 8257 §3.2), one
 * crafted segment at a time (tcp_state.h)
 *
 * The handshake's bits (ECE and CWR on an ECN-setup SYN, ECE alone on the
 * SYN-ACK), ECT(0) on new data only, the receiver's ECE from a CE until
 * CWR (NewReno) or exactly as the data's CE (DCTCP), and the sender's
 * answer to an ECE: cwnd cut once a window, CWR on its next new data.
 */
#include "tcp_state.h"

#define ECT0	0x02
#define CE	0x03

/* A passive open with the tcp_ecn knob @ecn, the peer's SYN carrying @synflags. */
static bool ecn_passive(struct tc *t, u32 ecn, u8 cc, u8 synflags)
{
	struct ixm_tcp_config cfg;
	struct ixmod_call c;
	const struct ixmod_event *ev;

	ixm_tcp_config_default(&cfg);
	cfg.ecn = ecn;
	tc_init_cfg(t, &cfg);
	t->h->cfg.cc = cc;
	t->hport = H_PORT;
	c = tn_call_listen(H_PORT, 16, 0x11);
	if (tc_call(t, &c))
		return false;
	t->snd = t->piss;
	tc_seg(t, TH_SYN | synflags, t->snd, 0, NULL, 0, O_MSS);
	t->snd++;
	if (t->nseg != 1)
		return false;
	t->hiss = t->seg[0].seq;
	t->rcv = t->hiss + 1;
	t->synack_flags = t->seg[0].flags;
	tc_send(t, TH_ACK, NULL, 0);
	ev = tc_ev(t, IXMOD_EV_TCP_KNOCK);
	if (!ev)
		return false;
	t->ch = ev->handle;
	c = tn_call_accept(t->ch, 0xc0);
	return !tc_call(t, &c);
}

/* RFC 3168 §6.1.1: SYN with ECE and CWR; the SYN-ACK agrees with ECE alone. */
TEST(ecn_handshake)
{
	struct ixm_tcp_config cfg;
	struct tc *t = &T;
	struct ixmod_call c;

	ASSERT_TRUE(ecn_passive(t, 2, IXM_CC_NEWRENO, TH_ECE | TH_CWR));
	EXPECT_EQ(TH_SYN | TH_ACK | TH_ECE, t->synack_flags) {
		TH_LOG("tcp_ecn 2, an ECN-setup SYN: the SYN-ACK has ECE, not CWR");
	}
	EXPECT_EQ(1, stats(t)->ecn_conns);
	EXPECT_EQ(100, tc_sendv(t, 0, 100));
	ASSERT_EQ(1, t->nseg);
	EXPECT_EQ(ECT0, t->seg[0].tos & 3) TH_LOG("its data: ECT(0)");
	tc_send(t, TH_ACK | TH_PSH, data, 10);	/* a quick ACK at the start */
	ASSERT_EQ(1, t->nseg);
	EXPECT_EQ(0, t->seg[0].dlen);
	EXPECT_EQ(0, t->seg[0].tos & 3) TH_LOG("a pure ACK: not ECT (§6.1.4)");
	tc_fini(t);

	ASSERT_TRUE(ecn_passive(t, 2, IXM_CC_NEWRENO, TH_ECE));
	EXPECT_EQ(TH_SYN | TH_ACK, t->synack_flags) TH_LOG("ECE without CWR: no ECN");
	EXPECT_EQ(100, tc_sendv(t, 0, 100));
	EXPECT_EQ(0, t->seg[0].tos & 3) TH_LOG("and no ECT");
	tc_fini(t);

	ASSERT_TRUE(ecn_passive(t, 0, IXM_CC_NEWRENO, TH_ECE | TH_CWR));
	EXPECT_EQ(TH_SYN | TH_ACK, t->synack_flags) TH_LOG("tcp_ecn 0: no ECN");
	tc_fini(t);

	ASSERT_TRUE(ecn_passive(t, 0, IXM_CC_DCTCP, TH_ECE | TH_CWR));
	EXPECT_EQ(TH_SYN | TH_ACK | TH_ECE, t->synack_flags) {
		TH_LOG("a DCTCP port: ECN whatever tcp_ecn says");
	}
	tc_fini(t);

	ixm_tcp_config_default(&cfg);
	cfg.ecn = 1;
	tc_init_cfg(t, &cfg);
	c = tn_call_connect(P_IP, P_PORT, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	ASSERT_EQ(1, t->nseg);
	EXPECT_EQ(TH_SYN | TH_ECE | TH_CWR, t->seg[0].flags) TH_LOG("tcp_ecn 1: the SYN asks");
	tc_fini(t);

	tc_init(t);
	c = tn_call_connect(P_IP, P_PORT, 0xc0);
	EXPECT_EQ(0, tc_call(t, &c));
	ASSERT_EQ(1, t->nseg);
	EXPECT_EQ(TH_SYN, t->seg[0].flags) TH_LOG("tcp_ecn 2 (the default): the SYN does not");
	tc_fini(t);
}

/* RFC 3168 §6.1.3: ECE on every ACK from a CE until the peer's CWR. */
TEST(ecn_receiver_echo)
{
	struct tc *t = &T;

	ASSERT_TRUE(ecn_passive(t, 2, IXM_CC_NEWRENO, TH_ECE | TH_CWR));
	t->ptos = CE;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	t->ptos = ECT0;
	EXPECT_TRUE(t->nseg == 1 && t->seg[0].flags == (TH_ACK | TH_ECE)) {
		TH_LOG("CE: ACK at once, ECE");
	}
	EXPECT_EQ(1, stats(t)->ce_rcvd);
	/* the connection's first segments are acknowledged at once (quick ACKs) */
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_TRUE(t->nseg == 1 && (t->seg[0].flags & TH_ECE)) TH_LOG("ECE again, until CWR");
	tc_send(t, TH_ACK | TH_PSH | TH_CWR, data, 10);
	EXPECT_TRUE(t->nseg == 1 && !(t->seg[0].flags & TH_ECE)) TH_LOG("CWR: no ECE after it");
	tc_fini(t);
}

/* RFC 8257 §3.2: DCTCP's ECE is each segment's CE, the ACK going when it changes. */
TEST(dctcp_receiver_echo)
{
	struct tc *t = &T;

	ASSERT_TRUE(ecn_passive(t, 0, IXM_CC_DCTCP, TH_ECE | TH_CWR));
	t->ptos = ECT0;
	tc_send(t, TH_ACK | TH_PSH, data, 1000);
	tc_send(t, TH_ACK | TH_PSH, data, 1000);
	/* quick ACKs at the start: let the delayed-ACK state begin */
	tc_advance(t, 50 * MS);
	t->ptos = CE;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_TRUE(t->nseg >= 1 && (t->seg[t->nseg - 1].flags & TH_ECE)) {
		TH_LOG("CE: an ACK with ECE now");
	}
	t->ptos = ECT0;
	tc_send(t, TH_ACK | TH_PSH, data, 10);
	EXPECT_TRUE(t->nseg >= 1 && !(t->seg[t->nseg - 1].flags & TH_ECE)) {
		TH_LOG("no CE: an ACK without ECE now (no waiting for CWR)");
	}
	tc_fini(t);
}

/* RFC 3168 §6.1.2: an ECE halves cwnd once a window; CWR on the next new data. */
TEST(ecn_sender_cut)
{
	struct tc *t = &T;
	u32 una, cwnd, ssthresh;

	ASSERT_TRUE(ecn_passive(t, 2, IXM_CC_NEWRENO, TH_ECE | TH_CWR));
	una = t->rcv;
	EXPECT_EQ(2000, tc_sendv(t, 0, 2000));
	cwnd = conn(t)->cwnd;
	tc_seg(t, TH_ACK | TH_ECE, t->snd, una + 1000, NULL, 0, 0);
	ssthresh = conn(t)->ssthresh;
	EXPECT_EQ(1, stats(t)->ece_cuts);
	EXPECT_LT(conn(t)->cwnd, cwnd);
	EXPECT_EQ(ssthresh, conn(t)->cwnd) TH_LOG("ECE: cwnd = ssthresh, cut");
	tc_seg(t, TH_ACK | TH_ECE, t->snd, una + 1500, NULL, 0, 0);
	EXPECT_EQ(1, stats(t)->ece_cuts) TH_LOG("a second ECE in the window: no second cut");
	EXPECT_EQ(100, tc_sendv(t, 2000, 100));
	ASSERT_TRUE(t->nseg >= 1);
	EXPECT_TRUE(t->seg[0].flags & TH_CWR) TH_LOG("the next new data carries CWR");
	EXPECT_EQ(100, tc_sendv(t, 2100, 100));
	ASSERT_TRUE(t->nseg >= 1);
	EXPECT_FALSE(t->seg[0].flags & TH_CWR) TH_LOG("once");
	tc_fini(t);
}

TEST_HARNESS_MAIN
