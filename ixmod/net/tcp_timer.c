// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_timer.c - the timers of a connection, on the core's wheel
 *
 * One timer does what the state needs: retransmission (RFC 6298),
 * zero-window probes (RFC 9293 §3.8.6.1), keepalive (RFC 1122 §4.2.3.6),
 * the SYN and SYN-ACK retries, FIN-WAIT-2's limit and TIME_WAIT's 2 MSL.
 * The second is the delayed ACK (RFC 9293 §3.8.6.3).  Both are nearly
 * always moved or cancelled before they fire, which is what the wheel is
 * cheap at.
 */
#include "tcp.h"
#include "app.h"

/**
 * ixm_tcp_rtt_sample() - fold one RTT measurement into the RTO
 * @c: the connection
 * @rtt_us: the sample
 *
 * RFC 6298 §2.2-2.4 with alpha 1/8, beta 1/4, K 4, clamped to the
 * configured bounds; G, the clock granularity, is the wheel's tick.
 */
void ixm_tcp_rtt_sample(struct ixm_tcp_conn *c, u32 rtt_us)
{
	const struct ixm_tcp_config *cfg = &c->table->cfg;
	u32 g = IXM_TIMER_TICK_NS / 1000 + 1;
	u32 rto;

	if (!rtt_us)
		rtt_us = 1;
	if (!c->srtt_us) {
		c->srtt_us = rtt_us;
		c->rttvar_us = rtt_us / 2;
	} else {
		u32 err = c->srtt_us > rtt_us ? c->srtt_us - rtt_us : rtt_us - c->srtt_us;

		c->rttvar_us = c->rttvar_us - c->rttvar_us / 4 + err / 4;
		c->srtt_us = c->srtt_us - c->srtt_us / 8 + rtt_us / 8;
	}
	rto = c->srtt_us + max_t(u32, g, 4 * c->rttvar_us);
	c->rto_us = min_t(u32, max_t(u32, rto, cfg->rto_min_us), cfg->rto_max_us);
}

/**
 * ixm_tcp_arm_rexmit() - (re)start the connection's timer for the RTO
 * @c: the connection
 *
 * RTO times 2^backoff (RFC 6298 §5.5), at most the configured maximum.
 */
void ixm_tcp_arm_rexmit(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	u64 us = (u64)c->rto_us << min_t(u32, c->backoff, 20);

	if (us > t->cfg.rto_max_us)
		us = t->cfg.rto_max_us;
	c->flags &= ~(IXM_TCPF_PTO | IXM_TCPF_REO);
	ixm_timer_arm(&t->wheel, &c->timer, t->stack->now_ns + us * 1000);
}

/**
 * ixm_tcp_arm_sack() - the timer data in flight needs
 * @c: the connection, data outstanding
 * @on_ack: an acknowledgment, not a send, asks
 *
 * A SACK connection outside recovery, with nothing SACKed or lost, no
 * probe out and an RTT measured gets the tail loss probe's: 2 SRTT on
 * (RFC 8985 §7.2), plus the peer's delayed ACK (tlp_delack_us) when the
 * one segment in flight went out alone (or was found left alone at the
 * peer's window edge: ixm_tcp_pto_fn()), else two ticks; at the RTO's
 * time if that comes first (§7.2: the probe is sent in its place, so a
 * lost lone segment costs no collapse of cwnd; the RTO follows it).
 * An acknowledgment puts a probe due sooner off to one SRTT after it,
 * no further: 2 SRTT after the last send is when the tail's ACK is
 * overdue, and restarting from the last ACK (an RTT after that send)
 * would make the repair of a lost tail three round trips; but while ACKs
 * keep coming less than an SRTT apart the ACK clock runs and the tail is
 * not lost (an ECE cut or a closed window may stop the sender meanwhile).
 * RACK's reordering wait stays (it rearms the RTO).  Any other
 * connection: the RTO.
 */
void ixm_tcp_arm_sack(struct ixm_tcp_conn *c, bool on_ack)
{
	struct ixm_tcp_table *t = c->table;
	u64 now = t->stack->now_ns;
	u64 pto_us;

	if (c->flags & IXM_TCPF_REO)
		return;
	if (!(c->flags & IXM_TCPF_SACK) || c->sacked_bytes || c->lost_bytes ||
	    (c->flags & (IXM_TCPF_IN_RECOVERY | IXM_TCPF_TLP_OUT | IXM_TCPF_PERSIST)) ||
	    c->backoff || !c->srtt_us || !c->seg_count) {
		ixm_tcp_arm_rexmit(c);
		return;
	}
	pto_us = 2ULL * c->srtt_us;
	if (c->seg_count == 1 && (c->segs[c->seg_head].flags & IXM_TXSEG_LONE))
		pto_us += t->cfg.tlp_delack_us;
	else
		pto_us += 2 * IXM_TIMER_TICK_NS / 1000;
	/* an RTO that would come sooner is a probe at that time instead */
	if (pto_us > c->rto_us)
		pto_us = c->rto_us;
	if (on_ack && (c->flags & IXM_TCPF_PTO) && ixm_timer_pending(&c->timer) &&
	    c->timer.expires <= (now + pto_us * 1000) >> IXM_TIMER_TICK_SHIFT) {
		if (c->timer.expires >= (now + (u64)c->srtt_us * 1000) >> IXM_TIMER_TICK_SHIFT)
			return;
		pto_us = c->srtt_us;
	}
	c->flags |= IXM_TCPF_PTO;
	ixm_timer_arm(&t->wheel, &c->timer, now + pto_us * 1000);
}

static void ixm_tcp_arm_keepalive(struct ixm_tcp_conn *c, u64 now)
{
	struct ixm_tcp_table *t = c->table;

	if (t->cfg.keepalive_ns && ixm_tcp_port(c))
		ixm_timer_arm(&t->wheel, &c->timer, now + t->cfg.keepalive_ns);
}

/**
 * ixm_tcp_arm_idle() - nothing outstanding: the timer becomes keepalive's
 * @c: the connection (cancelled when keepalive is off)
 */
void ixm_tcp_arm_idle(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	ixm_timer_cancel(&t->wheel, &c->timer);
	c->flags &= ~(IXM_TCPF_PTO | IXM_TCPF_REO);
	c->syn_retries = 0;
	ixm_tcp_arm_keepalive(c, t->stack->now_ns);
}

/* The retransmission timeout proper (RFC 6298 §5.4-5.7, RFC 5681 §3.1). */
static void ixm_tcp_rto(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	t->stats.timeouts++;
	if (++c->backoff > t->cfg.retries) {
		ixm_tcp_send_rst(c);
		ixm_tcp_done(c, ixm_tcp_timeout_err(c));
		return;
	}
	c->ssthresh = c->cc->ssthresh(c);
	c->cc->on_rto(c);
	if (c->flags & IXM_TCPF_IN_RECOVERY)
		ixm_tcp_trace_recovery(c, false, IXM_TCP_REC_DONE);
	c->flags &= ~(IXM_TCPF_IN_RECOVERY | IXM_TCPF_RTT_TIMING);
	c->recover = c->snd_max;
	c->dupacks = 0;
	/* go back: everything from SND.UNA is sent again as the window allows */
	ixm_tcp_trace_retrans(c, c->snd_una, c->snd_max - c->snd_una, true);
	if ((c->flags & IXM_TCPF_SACK) && c->seg_count)
		ixm_tcp_sack_rto_lost(c);	/* what RFC 8985 §6.3 deems lost */
	else
		ixm_tcp_rewind(c);
	ixm_tcp_arm_rexmit(c);
	ixm_tcp_output(c);
}

/**
 * ixm_tcp_timer_fn() - the connection's timer fired
 * @tm: &conn->timer
 * @now_ns: the wheel's time
 */
void ixm_tcp_timer_fn(struct ixm_timer *tm, u64 now_ns)
{
	struct ixm_tcp_conn *c = container_of(tm, struct ixm_tcp_conn, timer);
	struct ixm_tcp_table *t = c->table;

	switch (c->state) {
	case IXM_TCP_CLOSED:
		return;
	case IXM_TCP_TIME_WAIT:
		ixm_tcp_tw_release(c);
		return;
	case IXM_TCP_FIN_WAIT_2:
		/* the limit of a closed one; one shut down keeps its keepalive */
		if (c->snd_una == c->snd_max && (c->flags & IXM_TCPF_CLOSED_APP)) {
			ixm_tcp_done(c, 0);
			return;
		}
		break;
	case IXM_TCP_SYN_SENT:
	case IXM_TCP_SYN_RECEIVED:
		if (++c->syn_retries > (c->state == IXM_TCP_SYN_SENT ?
					t->cfg.syn_retries : t->cfg.synack_retries)) {
			t->stats.attempt_fails++;
			if (c->state == IXM_TCP_SYN_SENT) {
				c->conn_err = -ETIMEDOUT;
				c->evpend |= IXM_TCPE_CONNECTED;
			}
			ixm_tcp_done(c, ixm_tcp_timeout_err(c));
			return;
		}
		t->stats.timeouts++;
		c->backoff++;
		c->flags &= ~IXM_TCPF_RTT_TIMING;
		ixm_tcp_send_syn(c);
		ixm_tcp_arm_rexmit(c);
		return;
	default:
		break;
	}
	if (c->flags & IXM_TCPF_PTO) {
		ixm_tcp_pto_fn(c);
		return;
	}
	if (c->flags & IXM_TCPF_REO) {
		ixm_tcp_reo_fn(c);
		return;
	}
	if (c->flags & IXM_TCPF_PERSIST) {
		if (c->snd_wnd) {
			c->flags &= ~IXM_TCPF_PERSIST;
			ixm_tcp_output(c);
			return;
		}
		/* RFC 1122 §4.2.2.17: probe with backoff for as long as it takes */
		if (c->backoff < 16)
			c->backoff++;
		ixm_tcp_send_probe(c);
		ixm_tcp_arm_rexmit(c);
		return;
	}
	if (c->snd_una != c->snd_max) {
		ixm_tcp_rto(c);
		return;
	}
	/* keepalive: nothing outstanding, nothing heard for a while */
	if (t->cfg.keepalive_ns && now_ns - c->last_rx_ns >= t->cfg.keepalive_ns) {
		if (++c->syn_retries > 9) {	/* RFC 1122 §4.2.3.6; Linux's 9 probes */
			ixm_tcp_done(c, ixm_tcp_timeout_err(c));
			return;
		}
		/* SEG.SEQ = SND.NXT - 1: the peer must answer with an ACK */
		ixm_tcp_send_keepalive(c);
		ixm_timer_arm(&t->wheel, &c->timer, now_ns + t->cfg.keepalive_ns / 8);
		return;
	}
	c->syn_retries = 0;
	ixm_tcp_arm_keepalive(c, c->last_rx_ns);
}

/**
 * ixm_tcp_delack_fn() - the delayed ACK is due
 * @tm: &conn->delack
 * @now_ns: the wheel's time
 */
void ixm_tcp_delack_fn(struct ixm_timer *tm, u64 now_ns)
{
	struct ixm_tcp_conn *c = container_of(tm, struct ixm_tcp_conn, delack);

	if (c->state == IXM_TCP_CLOSED)
		return;
	c->table->stats.delayed_acks++;
	c->flags |= IXM_TCPF_ACK_NOW;
	ixm_tcp_output(c);
}
