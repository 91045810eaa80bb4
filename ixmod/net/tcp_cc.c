// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cc.c - congestion control: NewReno (RFC 5681, RFC 6582) and DCTCP
 * (RFC 8257), and ECN's signals (RFC 3168)
 *
 * Only window sizing lives here; fast retransmit and the partial-ACK
 * rules of recovery are in tcp_in.c, shared by every algorithm.
 *
 * ECN: a connection asks for it with ECE and CWR on its SYN and agrees
 * with ECE alone on the SYN-ACK (RFC 3168 §6.1.1); its new data then goes
 * out ECT(0) (never a retransmission, a pure ACK or a window probe,
 * §6.1.4-6.1.6).  A receiver under NewReno sets ECE on its ACKs from the
 * first CE-marked segment until a segment with CWR (§6.1.3); under DCTCP
 * each ACK's ECE is the CE of the data it acknowledges, an ACK going at
 * once when that changes (RFC 8257 §3.2).  A NewReno sender halves cwnd
 * for an ECE once a window and sends CWR on its next new data; a DCTCP
 * sender cuts it by alpha / 2, alpha being the share of bytes
 * acknowledged with ECE, averaged window by window with g = 1/16
 * (RFC 8257 §3.3, §4.2).  A port chooses its connections' algorithm
 * (sysfs congestion: newreno or dctcp); DCTCP always asks for ECN,
 * NewReno as the tcp_ecn knob says.
 */
#include "tcp.h"
#include "app.h"

/*
 * The initial window: RFC 6928's IW = min(10 * MSS, max(2 * MSS, 14600))
 * for init_cwnd 10 (N in general), RFC 3390's min(4 * MSS, max(2 * MSS,
 * 4380)) for 0.  A response of up to ten segments goes in one round trip.
 */
static void ixm_newreno_init(struct ixm_tcp_conn *c)
{
	u32 n = c->table->cfg.init_cwnd;

	if (n)
		c->cwnd = min_t(u32, n * c->mss, max_t(u32, 2 * c->mss, n * 1460));
	else
		c->cwnd = min_t(u32, 4 * c->mss, max_t(u32, 2 * c->mss, 4380));
	c->ssthresh = 0x7fffffff;	/* "arbitrarily high" */
	c->bytes_acked = 0;
}

/*
 * Slow start by bytes acknowledged, at most 2 SMSS an ACK (RFC 3465 §2.2's
 * L: a delayed ACK of two segments grows cwnd by two, as in Linux), then
 * congestion avoidance by appropriate byte counting (RFC 3465 §2.1).
 */
static void ixm_newreno_on_ack(struct ixm_tcp_conn *c, u32 acked)
{
	if (c->cwnd < c->ssthresh) {
		c->cwnd += min_t(u32, acked, 2 * c->mss);
		return;
	}
	c->bytes_acked += acked;
	if (c->bytes_acked >= c->cwnd) {
		c->bytes_acked -= c->cwnd;
		c->cwnd += c->mss;
	}
}

/* RFC 5681 §3.1 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS) */
static u32 ixm_newreno_ssthresh(struct ixm_tcp_conn *c)
{
	u32 flight = c->snd_max - c->snd_una;

	return max_t(u32, flight / 2, 2 * c->mss);
}

/* RFC 5681 §3.1: after a timeout the window is one segment (LW) */
static void ixm_newreno_on_rto(struct ixm_tcp_conn *c)
{
	c->cwnd = c->mss;
	c->bytes_acked = 0;
}

static void ixm_newreno_on_recovery_exit(struct ixm_tcp_conn *c)
{
	c->bytes_acked = 0;
}

/* Whether cwnd may be cut for an ECE now: once a window, not in loss recovery. */
static bool ixm_tcp_ece_cut_due(const struct ixm_tcp_conn *c)
{
	return !(c->flags & IXM_TCPF_IN_RECOVERY) && ixm_seq_geq(c->snd_una, c->cwr_seq);
}

/* cwnd was cut for an ECE: CWR on the next new data, no cut again this window. */
static void ixm_tcp_ece_cut(struct ixm_tcp_conn *c)
{
	c->ecn |= IXM_ECN_CWR;
	c->cwr_seq = c->snd_max;
	c->bytes_acked = 0;
	c->table->stats.ece_cuts++;
}

/* RFC 3168 §6.1.2: an ECE is answered as a loss would be, once a window */
static void ixm_newreno_on_ecn(struct ixm_tcp_conn *c, u32 acked, bool ece)
{
	if (!ece || !ixm_tcp_ece_cut_due(c))
		return;
	c->ssthresh = ixm_newreno_ssthresh(c);
	c->cwnd = c->ssthresh;
	ixm_tcp_ece_cut(c);
}

const struct ixm_tcp_cc_ops ixm_tcp_newreno = {
	.name			= "newreno",
	.init			= ixm_newreno_init,
	.on_ack			= ixm_newreno_on_ack,
	.ssthresh		= ixm_newreno_ssthresh,
	.on_rto			= ixm_newreno_on_rto,
	.on_recovery_exit	= ixm_newreno_on_recovery_exit,
	.on_ecn			= ixm_newreno_on_ecn,
};

#define IXM_DCTCP_ONE		1024	/* alpha 1.0 */
#define IXM_DCTCP_G_SHIFT	4	/* g = 1/16 (RFC 8257 §4.2) */

/* RFC 8257 §3.3: alpha starts at 1, the safe guess (Linux's default too) */
static void ixm_dctcp_init(struct ixm_tcp_conn *c)
{
	ixm_newreno_init(c);
	c->dctcp_alpha = IXM_DCTCP_ONE;
	c->dctcp_acked = 0;
	c->dctcp_ce = 0;
	c->dctcp_next = c->snd_max;
	c->cwr_seq = c->snd_una;
}

/*
 * RFC 8257 §3.3: count the bytes acknowledged, and those with ECE; when
 * a window of data (one RTT) is acknowledged, alpha = (1 - g) alpha + g F.
 * An ECE cuts cwnd by alpha / 2, once a window.
 */
static void ixm_dctcp_on_ecn(struct ixm_tcp_conn *c, u32 acked, bool ece)
{
	c->dctcp_acked += acked;
	if (ece)
		c->dctcp_ce += acked;
	if (ixm_seq_geq(c->snd_una, c->dctcp_next)) {
		u32 f = c->dctcp_acked ?
			(u32)(((u64)c->dctcp_ce * IXM_DCTCP_ONE) / c->dctcp_acked) : 0;

		c->dctcp_alpha = c->dctcp_alpha - (c->dctcp_alpha >> IXM_DCTCP_G_SHIFT) +
				 (f >> IXM_DCTCP_G_SHIFT);
		c->dctcp_acked = 0;
		c->dctcp_ce = 0;
		c->dctcp_next = c->snd_max;
	}
	if (ece && ixm_tcp_ece_cut_due(c)) {
		u32 cut = (u32)(((u64)c->cwnd * c->dctcp_alpha) / (2 * IXM_DCTCP_ONE));

		c->cwnd = max_t(u32, c->cwnd - cut, 2 * c->mss);
		c->ssthresh = c->cwnd;
		ixm_tcp_ece_cut(c);
	}
}

/* RFC 8257 §3.4: a loss is answered as standard TCP answers it */
const struct ixm_tcp_cc_ops ixm_tcp_dctcp = {
	.name			= "dctcp",
	.init			= ixm_dctcp_init,
	.on_ack			= ixm_newreno_on_ack,
	.ssthresh		= ixm_newreno_ssthresh,
	.on_rto			= ixm_newreno_on_rto,
	.on_recovery_exit	= ixm_newreno_on_recovery_exit,
	.on_ecn			= ixm_dctcp_on_ecn,
	.ce_echo		= true,
};

/**
 * ixm_tcp_cc_pick() - a new connection takes its port's algorithm
 * @c: the connection, in CLOSED state
 * @np: the port it runs on
 *
 * And whether it asks for (an active open) or accepts (a passive one) ECN.
 */
void ixm_tcp_cc_pick(struct ixm_tcp_conn *c, const struct ixm_net_port *np)
{
	u32 ecn = c->table->cfg.ecn;

	c->ecn = 0;
	if (np->cfg->cc == IXM_CC_DCTCP) {
		c->cc = &ixm_tcp_dctcp;
		c->ecn = IXM_ECN_WANT;
		return;
	}
	c->cc = &ixm_tcp_newreno;
	if (ecn == 1 || (ecn == 2 && !(c->flags & IXM_TCPF_ACTIVE)))
		c->ecn = IXM_ECN_WANT;
}

/**
 * ixm_tcp_ecn_syn() - what the peer's SYN or SYN-ACK says of ECN
 * @c: the connection
 * @flags: the segment's control bits
 *
 * RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR, an ECN-setup
 * SYN-ACK ECE alone.
 */
void ixm_tcp_ecn_syn(struct ixm_tcp_conn *c, u8 flags)
{
	u8 want = (flags & IXM_TCP_ACK) ? IXM_TCP_ECE : IXM_TCP_ECE | IXM_TCP_CWR;

	if ((c->ecn & IXM_ECN_WANT) && (flags & (IXM_TCP_ECE | IXM_TCP_CWR)) == want) {
		c->ecn = IXM_ECN_WANT | IXM_ECN_OK;
		c->cwr_seq = c->iss;
		c->table->stats.ecn_conns++;
	} else {
		c->ecn = 0;	/* decided: nothing to add to any segment */
	}
}

/**
 * __ixm_tcp_ecn_rcv() - an acceptable segment of an ECN connection arrived
 * @c: the connection, ECN agreed (ixm_tcp_ecn_rcv() checked)
 * @nh: its IPv4 or IPv6 header (the ECN field, RFC 3168 §5; RFC 8200 §7)
 * @flags: its control bits
 * @dlen: its data bytes
 */
void __ixm_tcp_ecn_rcv(struct ixm_tcp_conn *c, const void *nh, u8 flags, u32 dlen)
{
	bool ce = ixm_tcp_nh_ecn(nh) == IXM_IP_ECN_CE;

	if (ce)
		c->table->stats.ce_rcvd++;
	if (c->cc->ce_echo) {
		/* RFC 8257 §3.2: the ACK owed for what came before keeps its echo */
		if (ce != !!(c->ecn & IXM_ECN_CE)) {
			if (c->rcv_unacked && ixm_tcp_send_ack(c))
				c->flags |= IXM_TCPF_ACK_NOW;
			c->ecn ^= IXM_ECN_CE;
			if (dlen)
				c->flags |= IXM_TCPF_ACK_NOW;
		}
		return;
	}
	/* RFC 3168 §6.1.3: ECE from a CE until the sender's CWR */
	if (flags & IXM_TCP_CWR)
		c->ecn &= ~IXM_ECN_ECE;
	if (ce) {
		c->ecn |= IXM_ECN_ECE;
		c->flags |= IXM_TCPF_ACK_NOW;
	}
}

/**
 * __ixm_tcp_ecn_flags() - the ECN bits of a segment @c sends
 * @c: the connection, ECN asked for or agreed (ixm_tcp_ecn_flags() checked)
 * @flags: the segment's control bits so far
 * @seq: its sequence number
 * @dlen: its data bytes
 * @tos: set to ECT(0) when the segment is new data of an ECN connection
 *
 * Return: @flags with ECE and CWR as RFC 3168 §6.1.1-6.1.3 (and RFC 8257
 * §3.2) want them.
 */
u8 __ixm_tcp_ecn_flags(struct ixm_tcp_conn *c, u8 flags, u32 seq, u32 dlen, u8 *tos)
{
	bool ece;

	if (flags & IXM_TCP_RST)
		return flags;
	if (flags & IXM_TCP_SYN) {
		if (c->state == IXM_TCP_SYN_SENT)
			return flags | IXM_TCP_ECE | IXM_TCP_CWR;
		return (c->ecn & IXM_ECN_OK) ? flags | IXM_TCP_ECE : flags;
	}
	if (!(c->ecn & IXM_ECN_OK))
		return flags;
	ece = c->cc->ce_echo ? c->ecn & IXM_ECN_CE : c->ecn & IXM_ECN_ECE;
	if (ece && (flags & IXM_TCP_ACK))
		flags |= IXM_TCP_ECE;
	if (dlen && ixm_seq_geq(seq, c->snd_max) && !(c->flags & IXM_TCPF_PERSIST)) {
		*tos = IXM_IP_ECN_ECT0;
		if (c->ecn & IXM_ECN_CWR) {
			flags |= IXM_TCP_CWR;
			c->ecn &= ~IXM_ECN_CWR;
		}
	}
	return flags;
}
