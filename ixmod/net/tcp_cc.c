// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_cc.c - congestion control: NewReno (RFC 5681, RFC 6582), CUBIC
 * (RFC 9438) and DCTCP (RFC 8257), and ECN's signals (RFC 3168)
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
 * (RFC 8257 §3.3, §4.2).  A CUBIC sender answers an ECE as it answers
 * a loss (RFC 9438 §4.6).  A port chooses its connections' algorithm
 * (sysfs congestion: newreno, cubic or dctcp); DCTCP always asks for
 * ECN, the others as the tcp_ecn knob says.
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
 * L: a delayed ACK of two segments grows cwnd by two, as in Linux).
 * Return: whether @c is in slow start (below ssthresh).
 */
static bool ixm_tcp_slow_start(struct ixm_tcp_conn *c, u32 acked)
{
	if (c->cwnd >= c->ssthresh)
		return false;
	c->cwnd += min_t(u32, acked, 2 * c->mss);
	return true;
}

/* Slow start, then congestion avoidance by byte counting (RFC 3465 §2.1). */
static void ixm_newreno_on_ack(struct ixm_tcp_conn *c, u32 acked)
{
	if (ixm_tcp_slow_start(c, acked))
		return;
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
	c->ssthresh = c->cc->ssthresh(c);
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

/*
 * CUBIC (RFC 9438): after a congestion event the window follows
 *
 *	W_cubic(t) = C * (t - K)^3 + W_max,	K = cbrt((W_max - cwnd_epoch) / C)
 *
 * (§4.2), t the time since congestion avoidance began, C 0.4 segments
 * per second cubed: concave up to the window of the last loss, a plateau
 * there, convex beyond.  A loss cuts cwnd to 0.7 of the flight (beta,
 * §4.6), not half.  Where Reno would grow faster (short RTTs, small
 * windows: the Reno-friendly region, §4.3) the window follows W_est,
 * Reno's AIMD with alpha 3 (1 - beta) / (1 + beta) = 9/17 until W_est
 * reaches the window before the cut, 1 after.  Slow start is RFC 5681's
 * (§4.10; no HyStart++), recovery the input path's as for NewReno, and a
 * spurious loss is not undone (§4.9 makes that optional).
 *
 * Windows are bytes, as elsewhere here: C becomes 0.4 * MSS bytes per
 * second cubed.  Times on the curve are in 1/1024 s (IXM_CUBIC_HZ_SHIFT).
 */
#define IXM_CUBIC_HZ_SHIFT	10	/* t and K in 1/1024 s */
#define IXM_CUBIC_T_MAX		(64 << IXM_CUBIC_HZ_SHIFT) /* |t - K| cubed fits */

/* The integer cube root of @x, @x < 2^57: bit by bit, from the top. */
static u32 ixm_cubic_cbrt(u64 x)
{
	u32 r = 0;
	int b;

	for (b = 18; b >= 0; b--) {
		u64 t = r | (1u << b);

		if (t * t * t <= x)
			r = (u32)t;
	}
	return r;
}

/* W_cubic(@t), bytes, @t in 1/1024 s since the stage began (Figure 1) */
static u32 ixm_cubic_w(const struct ixm_tcp_conn *c, u64 t)
{
	s64 d = (s64)t - c->cubic.k;
	u64 a = d < 0 ? -d : d, off;

	a = min_t(u64, a, IXM_CUBIC_T_MAX);
	/* 0.4 * MSS * (a / 1024)^3 = 2 * MSS * a^3 / 5 / 2^30 */
	off = (((a * a * a) >> 10) * 2 * c->mss / 5) >> 20;
	if (d >= 0)
		return (u32)min_t(u64, (u64)c->cubic.wmax + off, 0x7fffffff);
	return off < c->cubic.wmax ? c->cubic.wmax - (u32)off : 0;
}

static void ixm_cubic_init(struct ixm_tcp_conn *c)
{
	ixm_newreno_init(c);
	memset(&c->cubic, 0, sizeof(c->cubic));
}

/*
 * Congestion avoidance begins (§4.2): t_epoch is now, W_est starts at
 * cwnd (§4.3), and K is when the curve climbs from cwnd back to W_max:
 * (W_max - cwnd) / (0.4 * MSS) seconds cubed, in 1/1024 s.  From a
 * window at or above W_max (a first stage, or one after a timeout,
 * §4.8) the curve starts at cwnd with K = 0.
 */
static void ixm_cubic_epoch(struct ixm_tcp_conn *c, u64 now)
{
	c->cubic.epoch_ns = now ?: 1;
	c->cubic.west = c->cwnd;
	c->cubic.rem = 0;
	c->bytes_acked = 0;
	if (c->cwnd >= c->cubic.wmax) {
		c->cubic.wmax = c->cwnd;
		c->cubic.k = 0;
		return;
	}
	c->cubic.k = ixm_cubic_cbrt(((u64)(c->cubic.wmax - c->cwnd) << 30) /
				    (2 * c->mss) * 5);
}

/*
 * An acknowledgment in congestion avoidance (§4.3-4.5).  cwnd grows only
 * while the connection fills it: at least half of cwnd was in flight
 * (RFC 7661 §4.3's validated window), else the time passes the curve by
 * (§5.8: an application-limited period is not counted in t).  So does
 * the time nothing was in flight: from an acknowledgment of everything
 * to the next, less the round trip of the data that one acknowledges.
 */
static void ixm_cubic_avoid(struct ixm_tcp_conn *c, u32 acked)
{
	u64 now = c->table->stack->now_ns, t, tmp;
	u32 flight = c->snd_max - c->snd_una + acked;
	u32 per, target, w;

	if (!c->cubic.epoch_ns)
		ixm_cubic_epoch(c, now);
	else if (flight < c->cwnd / 2)
		c->cubic.epoch_ns += now - c->cubic.stamp_ns;
	else if (c->cubic.idle && now - c->cubic.stamp_ns > (u64)c->srtt_us * 1000)
		c->cubic.epoch_ns += now - c->cubic.stamp_ns - (u64)c->srtt_us * 1000;
	c->cubic.stamp_ns = now;
	c->cubic.idle = c->snd_una == c->snd_max;
	if (flight < c->cwnd / 2)
		return;

	/* §4.3: W_est grows by alpha segments a window acknowledged, 9/17 or 1 */
	per = c->cubic.west >= c->cubic.prior ? c->cwnd : (u32)((u64)c->cwnd * 17 / 9);
	c->bytes_acked += acked;
	if (c->bytes_acked >= per) {
		c->bytes_acked -= per;
		c->cubic.west += c->mss;
	}

	t = min_t(u64, now - c->cubic.epoch_ns, 1ULL << 42);
	t = (t << IXM_CUBIC_HZ_SHIFT) / 1000000000;
	if (ixm_cubic_w(c, t) < c->cubic.west) {
		c->cwnd = max_t(u32, c->cwnd, c->cubic.west);
		return;
	}
	/* §4.4, §4.5: towards W_cubic(t + RTT), at most 1.5 cwnd */
	t += ((u64)c->srtt_us << IXM_CUBIC_HZ_SHIFT) / 1000000;
	w = ixm_cubic_w(c, t);
	target = clamp_t(u32, w, c->cwnd, c->cwnd + c->cwnd / 2);
	tmp = (u64)(target - c->cwnd) * acked + c->cubic.rem;
	c->cubic.rem = (u32)(tmp % c->cwnd);
	c->cwnd += (u32)(tmp / c->cwnd);
}

static void ixm_cubic_on_ack(struct ixm_tcp_conn *c, u32 acked)
{
	if (!ixm_tcp_slow_start(c, acked))
		ixm_cubic_avoid(c, acked);
}

/*
 * A congestion event (§4.6, §4.7): ssthresh is 0.7 of the flight (RFC
 * 9438 allows the flight for cwnd, as RFC 5681 uses it), W_max the window
 * reached, lowered to (1 + beta) / 2 of it if that is below the last
 * W_max (fast convergence: a flow losing ground leaves room for a new
 * one).  The next stage starts at the next acknowledgment after recovery.
 */
static u32 ixm_cubic_ssthresh(struct ixm_tcp_conn *c)
{
	u32 flight = c->snd_max - c->snd_una;

	if (flight < c->cubic.wmax)
		c->cubic.wmax = (u32)((u64)flight * 17 / 20);
	else
		c->cubic.wmax = flight;
	c->cubic.prior = flight;
	c->cubic.epoch_ns = 0;
	return max_t(u32, (u32)((u64)flight * 7 / 10), 2 * c->mss);
}

/*
 * §4.8: a timeout restarts from one segment; the stage after it grows
 * from the window it begins at (W_max and W_est there, K = 0).
 */
static void ixm_cubic_on_rto(struct ixm_tcp_conn *c)
{
	ixm_newreno_on_rto(c);
	c->cubic.wmax = 0;
}

const struct ixm_tcp_cc_ops ixm_tcp_cubic = {
	.name			= "cubic",
	.init			= ixm_cubic_init,
	.on_ack			= ixm_cubic_on_ack,
	.ssthresh		= ixm_cubic_ssthresh,
	.on_rto			= ixm_cubic_on_rto,
	.on_recovery_exit	= ixm_newreno_on_recovery_exit,
	.on_ecn			= ixm_newreno_on_ecn,
};

#define IXM_DCTCP_ONE		1024	/* alpha 1.0 */
#define IXM_DCTCP_G_SHIFT	4	/* g = 1/16 (RFC 8257 §4.2) */

/* RFC 8257 §3.3: alpha starts at 1, the safe guess (Linux's default too) */
static void ixm_dctcp_init(struct ixm_tcp_conn *c)
{
	ixm_newreno_init(c);
	c->dctcp.alpha = IXM_DCTCP_ONE;
	c->dctcp.acked = 0;
	c->dctcp.ce = 0;
	c->dctcp.next = c->snd_max;
	c->cwr_seq = c->snd_una;
}

/*
 * RFC 8257 §3.3: count the bytes acknowledged, and those with ECE; when
 * a window of data (one RTT) is acknowledged, alpha = (1 - g) alpha + g F.
 * An ECE cuts cwnd by alpha / 2, once a window.
 */
static void ixm_dctcp_on_ecn(struct ixm_tcp_conn *c, u32 acked, bool ece)
{
	c->dctcp.acked += acked;
	if (ece)
		c->dctcp.ce += acked;
	if (ixm_seq_geq(c->snd_una, c->dctcp.next)) {
		u32 f = c->dctcp.acked ?
			(u32)(((u64)c->dctcp.ce * IXM_DCTCP_ONE) / c->dctcp.acked) : 0;

		c->dctcp.alpha = c->dctcp.alpha - (c->dctcp.alpha >> IXM_DCTCP_G_SHIFT) +
				 (f >> IXM_DCTCP_G_SHIFT);
		c->dctcp.acked = 0;
		c->dctcp.ce = 0;
		c->dctcp.next = c->snd_max;
	}
	if (ece && ixm_tcp_ece_cut_due(c)) {
		u32 cut = (u32)(((u64)c->cwnd * c->dctcp.alpha) / (2 * IXM_DCTCP_ONE));

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
	c->cc = np->cfg->cc == IXM_CC_CUBIC ? &ixm_tcp_cubic : &ixm_tcp_newreno;
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
