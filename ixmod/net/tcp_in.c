// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_in.c - segment arrival (RFC 9293 §3.10.7)
 *
 * The checks run in the RFC's order: for LISTEN (§3.10.7.2), SYN-SENT
 * (§3.10.7.3) and the other states (§3.10.7.4: sequence number, RST, SYN,
 * ACK, text, FIN), with RFC 7323's PAWS before the sequence check and
 * RFC 5961's stricter RST, SYN and ACK rules.  A segment's buffer becomes
 * the application's when it carries in-order data (zero-copy receive);
 * any other segment's buffer is freed before ixm_tcp_input() returns.
 *
 * §3.10.7.4 is one function per check, as Linux's tcp_rcv_state_process()
 * delegates: ixm_tcp_rcv_validate() (first to fourth), ixm_tcp_rcv_ack()
 * (fifth), ixm_tcp_rcv_data() (seventh) and ixm_tcp_rcv_fin() (eighth),
 * run by ixm_tcp_rcv_other_states() when header prediction
 * (ixm_tcp_rcv_fast()) does not take the segment.
 */
#include "tcp.h"
#include "app.h"
#include "csum.h"
#include "eth.h"
#include "icmp6.h"
#include "icmp6_relay.h"
#include "toeplitz.h"

#define IXM_PAWS_IDLE_NS	(24ULL * 24 * 3600 * 1000000000ULL)	/* RFC 7323 §5.5 */

/**
 * ixm_tcp_parse_opts() - read the options of a segment
 * @th: the header; its data offset was checked against the segment
 * @o: filled in (zeroed first)
 *
 * Unknown options are skipped by their length (RFC 9293 §3.2); options
 * with a wrong length for their kind are ignored, as RFC 9293 §3.2 allows.
 *
 * Return: 0, or -EINVAL for a length that is impossible (below 2 or past
 * the header): the segment is dropped.
 */
int ixm_tcp_parse_opts(const struct ixm_tcphdr *th, struct ixm_tcp_opts *o)
{
	const u8 *p = (const u8 *)(th + 1);
	unsigned int doff = ixm_tcp_doff(th);
	unsigned int left;

	memset(o, 0, sizeof(*o));
	/* the caller checked it too: a data offset below 5 words is no header */
	if (doff < IXM_TCP_HLEN)
		return -EINVAL;
	left = doff - IXM_TCP_HLEN;
	/*
	 * RFC 7323 Appendix A's layout, the only options on an established
	 * connection's segments from Linux and from ixmod: NOP, NOP, TS
	 */
	if (left == IXM_TCPOLEN_TS_ALIGNED &&
	    ixm_get_be32(p) == (IXM_TCPOPT_NOP << 24 | IXM_TCPOPT_NOP << 16 |
				IXM_TCPOPT_TS << 8 | 10)) {
		o->has_ts = true;
		o->tsval = ixm_get_be32(p + 4);
		o->tsecr = ixm_get_be32(p + 8);
		return 0;
	}
	while (left) {
		unsigned int kind = p[0], len;

		if (kind == IXM_TCPOPT_EOL)
			break;
		if (kind == IXM_TCPOPT_NOP) {
			p++;
			left--;
			continue;
		}
		if (left < 2)
			return -EINVAL;
		len = p[1];
		if (len < 2 || len > left)
			return -EINVAL;
		switch (kind) {
		case IXM_TCPOPT_MSS:
			if (len == 4 && (th->flags & IXM_TCP_SYN))
				o->mss = ixm_get_be16(p + 2);
			break;
		case IXM_TCPOPT_WSCALE:
			if (len == 3 && (th->flags & IXM_TCP_SYN)) {
				o->has_ws = true;
				/* RFC 7323 §2.3: above 14, use 14 */
				o->wscale = min_t(u8, p[2], IXM_TCP_WSCALE_MAX);
			}
			break;
		case IXM_TCPOPT_SACK_OK:
			if (len == 2)
				o->sack_ok = true;
			break;
		case IXM_TCPOPT_SACK:
			/* RFC 2018 §3: 1 to 4 blocks of two edges; only the first option */
			if (!(th->flags & IXM_TCP_SYN) && !o->nsack && (len - 2) % 8 == 0 &&
			    len > 2 && (len - 2) / 8 <= IXM_TCP_SACK_BLOCKS) {
				unsigned int i;

				for (i = 0; i < (len - 2) / 8; i++) {
					o->sack[i][0] = ixm_get_be32(p + 2 + 8 * i);
					o->sack[i][1] = ixm_get_be32(p + 6 + 8 * i);
				}
				o->nsack = (u8)i;
			}
			break;
		case IXM_TCPOPT_TS:
			if (len == 10) {
				o->has_ts = true;
				o->tsval = ixm_get_be32(p + 2);
				o->tsecr = ixm_get_be32(p + 6);
			}
			break;
		}
		p += len;
		left -= len;
	}
	return 0;
}

/*
 * The most data per segment we send, from the peer's MSS option (0 or
 * none: RFC 9293 §3.7.1's 536).  RFC 6691 §2: the MSS counts data and
 * options both, so the timestamps option comes out of it.  The option is
 * clamped first, to what our MTU (or a path MTU a Packet Too Big lowered
 * before the handshake ended) allows and to a floor that leaves
 * IXM_TCP_MSS_MIN bytes of data after the options, and only then are the
 * options taken out: in that order no value of the option can wrap.
 */
static void ixm_tcp_set_mss(struct ixm_tcp_conn *c, u16 peer_mss)
{
	u32 optlen = (c->flags & IXM_TCPF_TS) ? IXM_TCPOLEN_TS_ALIGNED : 0;
	u32 mss = peer_mss ? peer_mss : IXM_TCP_MSS_DEFAULT;

	mss = clamp_t(u32, mss, IXM_TCP_MSS_MIN + optlen, ixm_tcp_path_mss_cap(c));
	c->mss = mss - optlen;
}

/*
 * What the SYN (or SYN-ACK) we got says about window scaling, timestamps
 * and SACK (offered on our SYN, answered on our SYN-ACK, when enabled).
 */
static void ixm_tcp_syn_options(struct ixm_tcp_conn *c, const struct ixm_tcp_opts *o)
{
	if (o->sack_ok && c->table->cfg.sack)
		ixm_tcp_sack_init(c);
	else
		c->flags &= ~IXM_TCPF_SACK;
	if (o->has_ws) {
		c->flags |= IXM_TCPF_WS;
		c->snd_wscale = o->wscale;
		c->rcv_wscale = ixm_tcp_pick_wscale(c->rcv_buf);
	} else {
		/* RFC 7323 §2.2: both sides must send the option, or neither scales */
		c->flags &= ~IXM_TCPF_WS;
		c->snd_wscale = 0;
		c->rcv_wscale = 0;
	}
	if (o->has_ts) {
		c->flags |= IXM_TCPF_TS;
		c->ts_recent = o->tsval;
		c->ts_recent_ns = c->table->stack->now_ns;
	} else {
		c->flags &= ~IXM_TCPF_TS;
	}
	ixm_tcp_set_mss(c, o->mss);
}

static unsigned int ixm_tcp_port_index(struct ixm_stack *st, struct ixm_net_port *port)
{
	unsigned int i;

	for (i = 0; i < st->nports; i++)
		if (st->ports[i] == port)
			return i;
	return 0;
}

/* A connection in SYN-RECEIVED (or opened by a cookie) for a listener. */
static struct ixm_tcp_conn *ixm_tcp_passive(struct ixm_net_port *port, u32 li,
					    const void *nh,
					    const struct ixm_tcphdr *th)
{
	struct ixm_tcp_table *t = port->stack->tcp;
	struct ixm_tcp_listener *l = &t->listeners[li];
	struct ixm_tcp_conn *c;

	if (ixm_tcp_nh_v6(nh)) {
		const struct ixm_ip6hdr *ih = nh;

		c = ixm_tcp_conn_alloc6(t, &ih->daddr, th->dest, &ih->saddr, th->source);
	} else {
		const struct ixm_iphdr *ih = nh;

		c = ixm_tcp_conn_alloc(t, ih->daddr, th->dest, ih->saddr, th->source);
	}
	if (!c)
		return NULL;
	c->app = l->app;
	c->listener = li;
	l->queued++;
	c->pidx = ixm_tcp_port_index(port->stack, port);
	ixm_tcp_cc_pick(c, port);
	memcpy(c->dmac, ((const struct ixm_ethhdr *)((const u8 *)nh - IXM_ETH_HLEN))->src,
	       ETH_ALEN);
	return c;
}

static __always_inline bool ixm_tcp_rcv_conn(struct ixm_tcp_conn *c, struct ixm_mbuf *m,
					     const void *nh, struct ixm_tcphdr *th,
					     const struct ixm_tcp_opts *o);

/* A segment to a listener that has no business there: RST (§3.10.7.2). */
static void ixm_tcp_listen_reset(struct ixm_net_port *port, struct ixm_mbuf *m,
				 const void *nh, struct ixm_tcphdr *th)
{
	port->stack->tcp->stats.no_conn++;
	ixm_tcp_reply_rst(port, nh, th, m->len + !!(th->flags & IXM_TCP_SYN) +
			  !!(th->flags & IXM_TCP_FIN));
	ixm_net_drop(port, m, IXM_DROP_TCP_STATE);
}

/*
 * RFC 4987 §3.6: an ACK to a listener completes the handshake of a
 * SYN-ACK that carried a SYN cookie, if its acknowledgment is one, and
 * is reset otherwise.  The connection is ESTABLISHED at once, and the
 * rest of the segment (data, FIN) is taken as in ESTABLISHED.
 */
static void ixm_tcp_rcv_cookie_ack(struct ixm_net_port *port, u32 li, struct ixm_mbuf *m,
				   const void *nh, struct ixm_tcphdr *th,
				   const struct ixm_tcp_opts *o)
{
	struct ixm_tcp_table *t = port->stack->tcp;
	u32 seq = ixm_ntohl(th->seq), ack = ixm_ntohl(th->ack_seq);
	struct ixm_tcp_addrs a;
	struct ixm_tcp_conn *c;
	u16 mss;

	if ((th->flags & IXM_TCP_SYN) || !t->cfg.syncookies) {
		ixm_tcp_listen_reset(port, m, nh, th);
		return;
	}
	a = ixm_tcp_nh_addrs(nh);
	mss = ixm_tcp_cookie_check(t, &a, th->dest, th->source, seq - 1, ack - 1,
				   port->stack->now_ns);
	if (!mss) {
		t->stats.syncookies_bad++;
		ixm_tcp_listen_reset(port, m, nh, th);
		return;
	}
	c = ixm_tcp_passive(port, li, nh, th);
	if (!c) {
		ixm_net_drop(port, m, IXM_DROP_TCP_STATE);
		return;
	}
	t->stats.syncookies_ok++;
	c->flags |= IXM_TCPF_COOKIE;
	c->ecn = 0;		/* the cookie's SYN-ACK did not agree to it */
	c->iss = ack - 1;
	c->snd_una = ack;
	c->snd_nxt = ack;
	c->snd_max = ack;
	c->snd_end = ack;
	c->recover = ack;
	c->irs = seq - 1;
	c->rcv_nxt = seq;
	c->rcv_adv = seq + min_t(u32, c->rcv_buf, 65535);
	ixm_tcp_set_mss(c, mss);	/* no timestamps: the cookie offered none */
	c->snd_wnd = ixm_ntohs(th->window);
	c->max_snd_wnd = c->snd_wnd;
	c->snd_wl1 = seq;
	c->snd_wl2 = ack;
	ixm_tcp_established(c);
	if (!ixm_tcp_rcv_conn(c, m, nh, th, o))
		ixm_mbuf_free(m);
}

/* RFC 9293 §3.10.7.2, with SYN cookies (RFC 4987 §3.6) */
static void ixm_tcp_rcv_listen(struct ixm_net_port *port, u32 li, struct ixm_mbuf *m,
			       const void *nh, struct ixm_tcphdr *th,
			       const struct ixm_tcp_opts *o)
{
	struct ixm_tcp_table *t = port->stack->tcp;
	struct ixm_tcp_listener *l = &t->listeners[li];
	struct ixm_tcp_addrs a = ixm_tcp_nh_addrs(nh);
	u64 now = port->stack->now_ns;
	u32 seq = ixm_ntohl(th->seq);
	struct ixm_tcp_conn *c;
	u16 mss;

	if (th->flags & IXM_TCP_RST)
		goto drop;
	if (th->flags & IXM_TCP_ACK) {
		ixm_tcp_rcv_cookie_ack(port, li, m, nh, th, o);
		return;
	}
	if (!(th->flags & IXM_TCP_SYN))
		goto drop;

	if (t->cfg.syncookies == 2 ||
	    (t->cfg.syncookies && (l->queued >= l->backlog || t->free == IXM_TCP_NONE))) {
		mss = o->mss ? o->mss : IXM_TCP_MSS_DEFAULT;
		if (!ixm_tcp_send_synack_stateless(port, nh, th,
						   ixm_tcp_cookie_make(t, &a, th->dest, th->source,
								       seq, mss, now),
						   mss))
			t->stats.syncookies_sent++;
		ixm_mbuf_free(m);
		return;
	}
	if (l->queued >= l->backlog) {
		t->stats.backlog_drops++;
		goto drop;
	}
	c = ixm_tcp_passive(port, li, nh, th);
	if (!c)
		goto drop;
	c->irs = seq;
	c->rcv_nxt = seq + 1;
	c->rcv_adv = c->rcv_nxt;
	c->iss = ixm_tcp_isn(t, &a, th->dest, th->source, now);
	c->snd_una = c->iss;
	c->snd_nxt = c->iss;
	c->snd_max = c->iss;
	c->snd_end = c->iss + 1;
	c->recover = c->iss;
	c->snd_wnd = ixm_ntohs(th->window);	/* a SYN's window is not scaled */
	c->max_snd_wnd = c->snd_wnd;
	c->snd_wl1 = seq;
	ixm_tcp_syn_options(c, o);
	ixm_tcp_ecn_syn(c, th->flags);
	ixm_tcp_set_state(c, IXM_TCP_SYN_RECEIVED);
	ixm_tcp_send_syn(c);
	ixm_tcp_arm_rexmit(c);
	/* data on a SYN is not kept: the peer sends it again (see the docs) */
	ixm_mbuf_free(m);
	return;
drop:
	ixm_net_drop(port, m, IXM_DROP_TCP_STATE);
}

/* RFC 9293 §3.10.7.3 */
static void ixm_tcp_rcv_syn_sent(struct ixm_tcp_conn *c, const void *nh,
				 struct ixm_tcphdr *th, const struct ixm_tcp_opts *o,
				 u32 seglen)
{
	struct ixm_tcp_table *t = c->table;
	u32 seq = ixm_ntohl(th->seq), ack = ixm_ntohl(th->ack_seq);
	u8 flags = th->flags;

	if (flags & IXM_TCP_ACK) {
		if (ixm_seq_leq(ack, c->iss) || ixm_seq_gt(ack, c->snd_max)) {
			ixm_tcp_reply_rst(ixm_tcp_port(c), nh, th, seglen);
			return;
		}
	}
	if (flags & IXM_TCP_RST) {
		if (!(flags & IXM_TCP_ACK))
			return;
		t->stats.resets_in++;
		t->stats.attempt_fails++;
		c->conn_err = -ECONNREFUSED;
		c->evpend |= IXM_TCPE_CONNECTED;
		ixm_tcp_done(c, -ECONNREFUSED);
		return;
	}
	if (!(flags & IXM_TCP_SYN))
		return;
	c->irs = seq;
	c->rcv_nxt = seq + 1;
	c->rcv_adv = c->rcv_nxt;
	ixm_tcp_syn_options(c, o);
	ixm_tcp_ecn_syn(c, flags);
	if (flags & IXM_TCP_ACK) {
		c->snd_una = ack;
		if (ixm_seq_lt(c->snd_nxt, ack))
			c->snd_nxt = ack;
		c->snd_wnd = ixm_ntohs(th->window);
		c->max_snd_wnd = c->snd_wnd;
		c->snd_wl1 = seq;
		c->snd_wl2 = ack;
		c->recover = ack;
		/* RFC 6298 §2: a SYN not retransmitted gives an RTT sample */
		if (!c->syn_retries)
			ixm_tcp_rtt_sample(c, (u32)((t->stack->now_ns - c->rtt_start_ns) / 1000));
		ixm_tcp_arm_idle(c);
		ixm_tcp_established(c);
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_output(c);
		return;
	}
	/* simultaneous open (RFC 9293 Figure 8): SYN-ACK with our ISS */
	ixm_tcp_set_state(c, IXM_TCP_SYN_RECEIVED);
	ixm_tcp_send_syn(c);
}

/* A buffer's worth of room: the connection's share and the core's pool. */
static bool ixm_tcp_rcv_room(const struct ixm_tcp_conn *c, const struct ixm_mbuf *m)
{
	return c->rcv_bufs < IXM_TCP_RCV_BUFS && ixm_tcp_pool_room(m->pool);
}

/*
 * Data for a connection the application has not accepted yet waits for
 * it, as datagrams wait for a slow application: the listener's backlog
 * times IXM_TCP_RCV_BUFS could be the whole pool, so that stops at a
 * quarter free (IXM_POOL_RESERVE_UNTAKEN), above in-order data's eighth.
 */
static bool ixm_tcp_rcv_untaken_room(const struct ixm_tcp_conn *c,
				     const struct ixm_mbuf *m)
{
	return (c->flags & IXM_TCPF_ACCEPTED) ||
	       ixm_mbuf_pool_free_over(m->pool, IXM_POOL_RESERVE_UNTAKEN);
}

/*
 * New data acknowledged: RTT, the send queue, the scoreboard, congestion
 * control, timers.  Return: whether RACK's most recent delivery moved.
 */
static bool ixm_tcp_ack_new(struct ixm_tcp_conn *c, u32 ack, u8 flags)
{
	struct ixm_tcp_table *t = c->table;
	u32 data_lo = ixm_seq_gt(c->snd_una, c->iss + 1) ? c->snd_una : c->iss + 1;
	u32 data_hi = ixm_seq_lt(ack, c->snd_end) ? ack : c->snd_end;
	u32 acked = ixm_seq_gt(data_hi, data_lo) ? data_hi - data_lo : 0;
	u32 bytes = acked;
	bool moved = false;

	if ((c->flags & IXM_TCPF_RTT_TIMING) && ixm_seq_geq(ack, c->rtt_seq)) {
		c->flags &= ~IXM_TCPF_RTT_TIMING;
		ixm_tcp_rtt_sample(c, (u32)((t->stack->now_ns - c->rtt_start_ns) / 1000));
	}
	c->backoff = 0;
	if (c->flags & IXM_TCPF_SACK)
		moved = ixm_tcp_sack_acked(c, ack);
	c->snd_una = ack;
	if (ixm_seq_lt(c->snd_nxt, ack))
		c->snd_nxt = ack;
	while (bytes && c->sndq_count) {
		struct ixm_tcp_sndpiece *p = &c->sndq[c->sndq_head];
		u32 n = min_t(u32, bytes, p->len - c->sndq_skip);

		c->sndq_skip += n;
		bytes -= n;
		if (c->sndq_skip == p->len) {
			c->sndq_head = (c->sndq_head + 1) % IXM_TCP_SNDQ;
			c->sndq_count--;
			c->sndq_skip = 0;
		}
	}
	if (acked) {
		c->pending_acked += acked;
		c->zc_gate = c->zc.built;	/* the frames out now may read them */
		c->evpend |= IXM_TCPE_SENT;
		if (c->flags & IXM_TCPF_WANT_SPACE)
			c->flags = (c->flags & ~IXM_TCPF_WANT_SPACE) | IXM_TCPF_SENT_WIN;
	}

	if (c->flags & IXM_TCPF_IN_RECOVERY) {
		if (ixm_seq_geq(ack, c->recover)) {
			/* RFC 6582 §3.2 step 3: full acknowledgment */
			u32 flight = c->snd_max - c->snd_una;

			c->cwnd = min_t(u32, c->ssthresh, flight + c->mss);
			c->flags &= ~IXM_TCPF_IN_RECOVERY;
			c->dupacks = 0;
			c->cc->on_recovery_exit(c);
			ixm_tcp_trace_recovery(c, false, IXM_TCP_REC_DONE);
		} else if (!(c->flags & IXM_TCPF_SACK)) {
			/* step 5: partial acknowledgment (SACK's: RACK sees to it) */
			ixm_tcp_retransmit_head(c);
			c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
			c->cwnd += c->mss;
		}
	} else {
		c->dupacks = 0;
		if (acked)
			c->cc->on_ack(c, acked);
	}
	ixm_tcp_ecn_ack(c, acked, flags);
	if (c->snd_una == c->snd_max) {
		if (!(c->flags & IXM_TCPF_PERSIST))
			ixm_tcp_arm_idle(c);
	} else {
		c->flags &= ~IXM_TCPF_PERSIST;
		ixm_tcp_arm_sack(c, true);	/* RFC 6298 §5.3, or a tail loss probe */
	}
	ixm_tcp_mark_pending(c);
	return moved;
}

/* RFC 5681 §3.2 fast retransmit, RFC 6582 fast recovery (SACK's: RACK) */
static void ixm_tcp_dupack(struct ixm_tcp_conn *c)
{
	c->dupacks++;
	if (c->flags & IXM_TCPF_SACK) {
		ixm_tcp_mark_pending(c);
		return;
	}
	if (!(c->flags & IXM_TCPF_IN_RECOVERY)) {
		/* RFC 6582 §3.2 step 2: not again for losses of the last window */
		if (c->dupacks != 3 || !ixm_seq_gt(c->snd_una, c->recover))
			return;
		c->table->stats.fast_retrans++;
		c->ssthresh = c->cc->ssthresh(c);
		c->recover = c->snd_max;
		ixm_tcp_retransmit_head(c);
		c->cwnd = c->ssthresh + 3 * c->mss;
		c->flags |= IXM_TCPF_IN_RECOVERY;
		ixm_tcp_trace_recovery(c, true, IXM_TCP_REC_DUPACKS);
		return;
	}
	/* each further duplicate: a segment left the network */
	c->cwnd += c->mss;
	ixm_tcp_mark_pending(c);
}

/*
 * RFC 9293 §3.10.7.4, first check, as Linux's tcp_sequence() makes it:
 * a segment is taken if it starts no later than the window's right edge
 * and, with data, ends past RCV.NXT (without, starts at RCV.NXT or
 * later).  Beyond the RFC's table this takes a segment at the right
 * edge (a peer that sent up to our edge while a hole keeps RCV.NXT
 * behind), one that covers the whole window, and data at RCV.NXT while
 * the window is zero: the "special allowance" for valid ACKs the RFC
 * asks for, since a peer's acknowledgment of our data rides on its
 * retransmissions and window probes.  The data past the edge is cut off
 * and answered in ixm_tcp_rcv_data(); by the table alone the ACK field
 * was lost, and with an application that frees its receive buffers only
 * once its reply is acknowledged (tcp-echo) both ends then waited.
 */
static bool ixm_tcp_seq_ok(const struct ixm_tcp_conn *c, u32 seq, u32 seglen)
{
	u32 wnd = ixm_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;

	if (ixm_seq_gt(seq, c->rcv_nxt + wnd))
		return false;
	return seglen ? ixm_seq_gt(seq + seglen, c->rcv_nxt) : ixm_seq_geq(seq, c->rcv_nxt);
}

/*
 * The ACK owed to a segment PAWS or the window check rejected (RFC 7323
 * §5.3, RFC 9293 §3.10.7.4), at most one per invalid_ratelimit_ns per
 * connection, as Linux's tcp_invalid_ratelimit: two ends that each find
 * the other's ACKs out of window would ACK each other without end, and a
 * forger gets an ACK for every segment it makes up.  As in Linux, a
 * segment that carries data or a FIN (and no SYN) always gets its ACK:
 * a duplicate of data already here means our ACK was lost and the peer
 * needs the next one, and a window probe must be answered.
 */
static void ixm_tcp_ack_rejected(struct ixm_tcp_conn *c, u8 flags, u32 seglen)
{
	struct ixm_tcp_table *t = c->table;
	u64 now = t->stack->now_ns;

	if (!seglen || (flags & IXM_TCP_SYN)) {
		if (t->cfg.invalid_ratelimit_ns && c->oow_ack_ns &&
		    now - c->oow_ack_ns < t->cfg.invalid_ratelimit_ns) {
			t->stats.ack_ratelimited++;
			return;
		}
		c->oow_ack_ns = now;
	}
	c->flags |= IXM_TCPF_ACK_NOW;
	ixm_tcp_mark_pending(c);
}

/* The ACK a data segment earns: now, or after the delayed-ACK timer. */
static void ixm_tcp_schedule_ack(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;

	c->rcv_unacked++;
	/* RFC 5681 §4.2: at least every second full segment; RFC 9293 §3.8.6.3 */
	if (c->quickacks || c->rcv_unacked >= 2 || !t->cfg.delack_us) {
		c->flags |= IXM_TCPF_ACK_NOW;
		if (c->quickacks)
			c->quick_rcv_ns = t->stack->now_ns;
		return;
	}
	if (!ixm_timer_pending(&c->delack))
		ixm_timer_arm(&t->wheel, &c->delack,
			      t->stack->now_ns + (u64)t->cfg.delack_us * 1000);
}

/* A sendv that found no room hears when there is some. */
static __always_inline void ixm_tcp_space_check(struct ixm_tcp_conn *c)
{
	if ((c->flags & IXM_TCPF_WANT_SPACE) && ixm_tcp_send_space(c)) {
		c->flags = (c->flags & ~IXM_TCPF_WANT_SPACE) | IXM_TCPF_SENT_WIN;
		ixm_tcp_post_sent(c);
	}
}

/*
 * The send window from a segment the window update rule accepts (RFC
 * 9293 §3.10.7.4, fifth check: SND.WL1 < SEG.SEQ, or equal with SND.WL2
 * <= SEG.ACK): a window that reopens ends persisting, a larger one may
 * let queued data go, and a sendv that found no room hears of it.
 */
static __always_inline void ixm_tcp_update_window(struct ixm_tcp_conn *c, u32 seq, u32 ack, u32 nwnd)
{
	if (nwnd && !c->snd_wnd && (c->flags & IXM_TCPF_PERSIST)) {
		c->flags &= ~IXM_TCPF_PERSIST;
		ixm_tcp_rewind(c);	/* a refused probe byte goes again first */
		ixm_timer_cancel(&c->table->wheel, &c->timer);
		if (c->snd_una != c->snd_max)
			ixm_tcp_arm_rexmit(c);
	}
	if (nwnd > c->snd_wnd)
		ixm_tcp_mark_pending(c);
	c->snd_wnd = nwnd;
	if (nwnd > c->max_snd_wnd)
		c->max_snd_wnd = nwnd;
	c->snd_wl1 = seq;
	c->snd_wl2 = ack;
	ixm_tcp_space_check(c);
}

/*
 * Header prediction (Van Jacobson's, as in Linux's tcp_rcv_established()):
 * the segment an established connection expects next, in order, with
 * only ACK (and PSH) set, an open window, a timestamp that passes PAWS,
 * and either new data or a new acknowledgment.  For it every check of
 * RFC 9293 §3.10.7.4 has a known answer, and what is left is the
 * acknowledgment, the timestamp, the send window and the data.  Return:
 * 0 or 1 (the buffer kept) when it handled the segment, -1 when the full
 * path must.
 */
static int ixm_tcp_rcv_fast(struct ixm_tcp_conn *c, struct ixm_mbuf *m,
			    const void *nh, const struct ixm_tcphdr *th,
			    const struct ixm_tcp_opts *o)
{
	u32 seq = ixm_ntohl(th->seq), ack = ixm_ntohl(th->ack_seq);
	u32 nwnd = (u32)ixm_ntohs(th->window) << c->snd_wscale;
	u32 dlen = m->len;
	bool kept = false;

	if (c->state != IXM_TCP_ESTABLISHED ||
	    (th->flags & ~IXM_TCP_PSH) != IXM_TCP_ACK || seq != c->rcv_nxt ||
	    (c->flags & (IXM_TCPF_IN_RECOVERY | IXM_TCPF_PERSIST | IXM_TCPF_OOO_FIN |
			 IXM_TCPF_CLOSED_APP | IXM_TCPF_ACCEPTED | IXM_TCPF_TLP_OUT |
			 IXM_TCPF_REO)) != IXM_TCPF_ACCEPTED ||
	    c->ooo || o->nsack || c->sacked_bytes || c->lost_bytes ||
	    !nwnd || ixm_seq_gt(ack, c->snd_max) || ixm_seq_lt(ack, c->snd_una) ||
	    (ack == c->snd_una && !dlen))
		return -1;
	if (c->flags & IXM_TCPF_TS) {
		/* RFC 7323 §5.3 PAWS passes; §4.3: the left edge, remembered */
		if (!o->has_ts || ixm_seq_lt(o->tsval, c->ts_recent))
			return -1;
	}
	/* the receive window: checked for a right edge behind, then subtracted */
	if (dlen && (ixm_seq_lt(c->rcv_adv, c->rcv_nxt) || dlen > c->rcv_adv - c->rcv_nxt ||
		     !ixm_tcp_rcv_room(c, m)))
		return -1;

	if (c->flags & IXM_TCPF_TS) {
		c->ts_recent = o->tsval;
		c->ts_recent_ns = c->last_rx_ns;
	}
	ixm_tcp_ecn_rcv(c, nh, th->flags, dlen);
	if (ack != c->snd_una)
		ixm_tcp_ack_new(c, ack, th->flags);
	/*
	 * In order, ACK not behind: the window update rule holds.  With the
	 * window as it was, only the edges move: the ACK, if new, already
	 * told a waiting sendv of the room it made.
	 */
	if (nwnd != c->snd_wnd) {
		ixm_tcp_update_window(c, seq, ack, nwnd);
	} else {
		c->snd_wl1 = seq;
		c->snd_wl2 = ack;
	}
	if (dlen) {
		m->seq = seq;
		c->rcv_bufs++;
		ixm_tcp_deliver(c, m);
		ixm_tcp_schedule_ack(c);
		kept = true;
	}
	if (c->flags & IXM_TCPF_ACK_NOW)
		ixm_tcp_mark_pending(c);
	ixm_tcp_flush_events(c);
	c->table->stats.fast_path++;
	return kept;
}

/*
 * What a step of RFC 9293 §3.10.7.4 tells ixm_tcp_rcv_other_states(): go on to
 * the next step, go on with the buffer kept (its data was queued), or
 * stop here (the segment is dealt with; @c may be gone).
 */
enum ixm_tcp_rcv_res {
	IXM_TCP_RCV_CONT,
	IXM_TCP_RCV_KEPT,
	IXM_TCP_RCV_DONE,
};

/*
 * RFC 9293 §3.10.7.4, first check: the sequence number, after PAWS (RFC
 * 7323 §5.3) and the retransmitted FIN of TIME_WAIT.  A segment
 * ixm_tcp_seq_ok() refuses is answered with an ACK (RFC 7323's rate
 * limit, in ixm_tcp_ack_rejected()) unless it is a RST, and dropped.  An accepted
 * segment at the left edge has its timestamp remembered (RFC 7323 §4.3).
 */
static enum ixm_tcp_rcv_res ixm_tcp_rcv_check_seq(struct ixm_tcp_conn *c,
						  const struct ixm_tcphdr *th,
						  const struct ixm_tcp_opts *o,
						  u32 seq, u32 seglen)
{
	struct ixm_tcp_table *t = c->table;
	u64 now = t->stack->now_ns;
	u8 flags = th->flags;

	/* RFC 7323 §5.3 PAWS: an old timestamp is an old duplicate */
	if ((c->flags & IXM_TCPF_TS) && o->has_ts && !(flags & IXM_TCP_RST) &&
	    ixm_seq_lt(o->tsval, c->ts_recent) &&
	    now - c->ts_recent_ns < IXM_PAWS_IDLE_NS) {
		t->stats.paws_drops++;
		ixm_tcp_ack_rejected(c, flags, seglen);
		return IXM_TCP_RCV_DONE;
	}

	/* a retransmitted FIN in TIME_WAIT: ACK it and restart 2 MSL (§3.10.7.4) */
	if (c->state == IXM_TCP_TIME_WAIT && (flags & IXM_TCP_FIN) &&
	    !(flags & IXM_TCP_RST) &&
	    seq + seglen - !!(flags & IXM_TCP_SYN) == c->rcv_nxt) {
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_output(c);
		ixm_tcp_enter_time_wait(c);
		return IXM_TCP_RCV_DONE;
	}
	if (!ixm_tcp_seq_ok(c, seq, seglen)) {
		/* all of it received before: a duplicate, not out of window */
		if (seglen && ixm_seq_leq(seq + seglen, c->rcv_nxt)) {
			t->stats.dup_data++;
			/* RFC 2883 §4: its data bytes, reported first */
			ixm_tcp_sack_dup(c, seq, seq + seglen - !!(flags & IXM_TCP_SYN) -
					 !!(flags & IXM_TCP_FIN));
		} else {
			t->stats.out_of_window++;
		}
		if (!(flags & IXM_TCP_RST))
			ixm_tcp_ack_rejected(c, flags, seglen);
		return IXM_TCP_RCV_DONE;
	}
	/* RFC 7323 §4.3: remember the timestamp of a segment at the left edge */
	if ((c->flags & IXM_TCPF_TS) && o->has_ts && ixm_seq_leq(seq, c->rcv_nxt)) {
		c->ts_recent = o->tsval;
		c->ts_recent_ns = now;
	}
	return IXM_TCP_RCV_CONT;
}

/*
 * RFC 9293 §3.10.7.4, second check: the RST bit, accepted only at exactly
 * RCV.NXT and otherwise answered with a challenge ACK (RFC 5961 §3.2).
 * In SYN-RECEIVED a passive open goes back to its listener, an active
 * one is refused; in any other state the connection is reset.
 */
static enum ixm_tcp_rcv_res ixm_tcp_rcv_check_rst(struct ixm_tcp_conn *c, u32 seq)
{
	struct ixm_tcp_table *t = c->table;

	if (seq != c->rcv_nxt) {
		ixm_tcp_challenge_ack(c);
		return IXM_TCP_RCV_DONE;
	}
	t->stats.resets_in++;
	if (c->state == IXM_TCP_SYN_RECEIVED) {
		t->stats.attempt_fails++;
		if (c->flags & IXM_TCPF_ACTIVE) {
			c->conn_err = -ECONNREFUSED;
			c->evpend |= IXM_TCPE_CONNECTED;
			ixm_tcp_done(c, -ECONNREFUSED);
		} else {
			ixm_tcp_conn_free(c);	/* back to LISTEN, for the listener */
		}
		return IXM_TCP_RCV_DONE;
	}
	ixm_tcp_done(c, c->state == IXM_TCP_TIME_WAIT ? 0 : -ECONNRESET);
	return IXM_TCP_RCV_DONE;
}

/*
 * RFC 9293 §3.10.7.4, fourth check: a SYN in a synchronized state gets a
 * challenge ACK (RFC 5961 §4.2); in TIME_WAIT, a plain ACK.
 */
static void ixm_tcp_rcv_check_syn(struct ixm_tcp_conn *c)
{
	if (c->state == IXM_TCP_TIME_WAIT) {
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_mark_pending(c);
		return;
	}
	ixm_tcp_challenge_ack(c);
}

/*
 * RFC 9293 §3.10.7.4, first to fourth checks, as Linux's
 * tcp_validate_incoming(): sequence number and PAWS, RST, SYN (the third,
 * security, does not apply), and then a segment without ACK is dropped
 * (the fifth check's first sentence).
 */
static enum ixm_tcp_rcv_res ixm_tcp_rcv_validate(struct ixm_tcp_conn *c,
						 const struct ixm_tcphdr *th,
						 const struct ixm_tcp_opts *o,
						 u32 seq, u32 seglen)
{
	if (ixm_tcp_rcv_check_seq(c, th, o, seq, seglen) != IXM_TCP_RCV_CONT)
		return IXM_TCP_RCV_DONE;
	if (th->flags & IXM_TCP_RST)
		return ixm_tcp_rcv_check_rst(c, seq);
	if (th->flags & IXM_TCP_SYN) {
		ixm_tcp_rcv_check_syn(c);
		return IXM_TCP_RCV_DONE;
	}
	if (!(th->flags & IXM_TCP_ACK))
		return IXM_TCP_RCV_DONE;
	return IXM_TCP_RCV_CONT;
}

/*
 * RFC 9293 §3.10.7.4, fifth check: the ACK field, as Linux's tcp_ack().
 * SYN-RECEIVED is completed by an ACK of our SYN (else RST); an ACK out
 * of [SND.UNA - MAX.SND.WND, SND.MAX] gets a challenge (RFC 5961 §5.2);
 * a new ACK frees sent data, a duplicate may start fast retransmit; the
 * window update rule; and our FIN, once acknowledged, moves FIN-WAIT-1,
 * CLOSING and LAST-ACK on.
 */
static enum ixm_tcp_rcv_res ixm_tcp_rcv_ack(struct ixm_tcp_conn *c,
					    const void *nh,
					    const struct ixm_tcphdr *th,
					    const struct ixm_tcp_opts *o,
					    u32 seq, u32 seglen)
{
	u32 nwnd = (u32)ixm_ntohs(th->window) << c->snd_wscale;
	u32 ack = ixm_ntohl(th->ack_seq);
	struct ixm_tcp_table *t = c->table;
	bool moved = false, dup = false, acked = false;

	if (c->state == IXM_TCP_SYN_RECEIVED) {
		if (ixm_seq_leq(ack, c->snd_una) || ixm_seq_gt(ack, c->snd_max)) {
			ixm_tcp_reply_rst(ixm_tcp_port(c), nh, th, seglen);
			return IXM_TCP_RCV_DONE;
		}
		c->snd_wnd = nwnd;
		c->max_snd_wnd = c->snd_wnd;
		c->snd_wl1 = seq;
		c->snd_wl2 = ack;
		ixm_tcp_established(c);
		if (c->state == IXM_TCP_CLOSED)
			return IXM_TCP_RCV_DONE;
	}

	/* RFC 5961 §5.2: acceptable ACKs lie in [SND.UNA - MAX.SND.WND, SND.NXT] */
	if (ixm_seq_gt(ack, c->snd_max) ||
	    ixm_seq_lt(ack, c->snd_una - c->max_snd_wnd)) {
		ixm_tcp_challenge_ack(c);
		return IXM_TCP_RCV_DONE;
	}
	if (ixm_seq_gt(ack, c->snd_una)) {
		acked = true;
		moved = ixm_tcp_ack_new(c, ack, th->flags);
	} else {
		if (ack == c->snd_una && !seglen && c->snd_max != c->snd_una &&
		    nwnd == c->snd_wnd) {
			/* no data, no FIN (a SYN stopped at the fourth check) */
			dup = true;
			ixm_tcp_dupack(c);
		}
		ixm_tcp_ecn_ack(c, 0, th->flags);
	}
	/*
	 * The window update rule (RFC 9293 §3.10.7.4, fifth check), and as
	 * Linux's tcp_may_update_window() an ACK of new data too: it is the
	 * peer's latest word on our data whatever its SEQ, which is behind
	 * SND.WL1 while the peer sends its own data again after a loss.  By
	 * the rule alone, a window the peer closed meanwhile went unheard and
	 * we sent a whole window past its edge.
	 */
	if (acked || ixm_seq_lt(c->snd_wl1, seq) ||
	    (c->snd_wl1 == seq && ixm_seq_leq(c->snd_wl2, ack)))
		ixm_tcp_update_window(c, seq, ack, nwnd);
	if (c->flags & IXM_TCPF_SACK) {
		ixm_tcp_sack_rcv(c, o, moved, dup);
		ixm_tcp_space_check(c);	/* SACKed bytes leave cwnd room */
	}

	/* our FIN acknowledged? */
	if ((c->flags & IXM_TCPF_FIN_SENT) && c->snd_una == c->snd_end + 1) {
		switch (c->state) {
		case IXM_TCP_FIN_WAIT_1:
			ixm_tcp_set_state(c, IXM_TCP_FIN_WAIT_2);
			/*
			 * Closed: nobody will read the other half, time it out.
			 * Shut down only: the application reads until the
			 * peer's FIN, however long (Linux's FIN-WAIT-2 limit
			 * is for orphans too); keepalive's timer stays.
			 */
			if (c->flags & IXM_TCPF_CLOSED_APP)
				ixm_timer_arm(&t->wheel, &c->timer,
					      t->stack->now_ns + t->cfg.tw_ns);
			break;
		case IXM_TCP_CLOSING:
			ixm_tcp_enter_time_wait(c);
			break;
		case IXM_TCP_LAST_ACK:
			ixm_tcp_done(c, 0);
			return IXM_TCP_RCV_DONE;
		default:
			break;
		}
	}
	return IXM_TCP_RCV_CONT;
}

/*
 * RFC 9293 §3.10.7.4, seventh check: the segment text, as Linux's
 * tcp_data_queue().  Data after the peer's FIN is ignored, data nobody
 * will read resets (RFC 2525 §2.17); what is left is trimmed to the
 * window, then delivered in order or queued out of order (tcp_ofo.c).
 * *@seq and *@dlen become the data taken; *@fin is cleared when the FIN
 * cannot be taken with it.
 */
static enum ixm_tcp_rcv_res ixm_tcp_rcv_data(struct ixm_tcp_conn *c, struct ixm_mbuf *m,
					     u32 *seq, u32 *dlen, bool *fin)
{
	struct ixm_tcp_table *t = c->table;
	u32 wnd;
	int q;

	if (c->state != IXM_TCP_ESTABLISHED && c->state != IXM_TCP_FIN_WAIT_1 &&
	    c->state != IXM_TCP_FIN_WAIT_2) {
		*dlen = 0;	/* the peer's FIN came before: ignore */
		*fin = false;
		return IXM_TCP_RCV_CONT;
	}
	if (c->flags & IXM_TCPF_CLOSED_APP) {
		/* nobody will read it: RFC 2525 §2.17, reset */
		ixm_tcp_send_rst(c);
		ixm_tcp_done(c, -ECONNRESET);
		return IXM_TCP_RCV_DONE;
	}
	if (ixm_seq_lt(*seq, c->rcv_nxt)) {
		u32 skip = c->rcv_nxt - *seq;

		if (skip >= *dlen) {
			t->stats.dup_data++;
			ixm_tcp_sack_dup(c, *seq, *seq + *dlen);
			*dlen = 0;
			c->flags |= IXM_TCPF_ACK_NOW;
		} else {
			ixm_tcp_sack_dup(c, *seq, c->rcv_nxt);
			m->data += skip;
			*dlen -= skip;
			*seq += skip;
		}
	}
	wnd = ixm_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
	if (*dlen && ixm_seq_gt(*seq + *dlen, c->rcv_nxt + wnd)) {
		*dlen = ixm_seq_gt(c->rcv_nxt + wnd, *seq) ? c->rcv_nxt + wnd - *seq : 0;
		*fin = false;
		/* none of it fits (a zero window's probe): the peer hears the edge */
		if (!*dlen) {
			t->stats.out_of_window++;
			c->flags |= IXM_TCPF_ACK_NOW;
		}
	}
	m->len = *dlen;
	m->seq = *seq;
	if (!*dlen)
		return IXM_TCP_RCV_CONT;
	/*
	 * Out-of-order queues give buffers back before data is refused,
	 * but not for data that would be refused anyway.
	 */
	if (!ixm_tcp_rcv_untaken_room(c, m) ||
	    (!ixm_tcp_rcv_room(c, m) && !ixm_tcp_ooo_relieve(c, m))) {
		t->stats.rcv_drops++;
		*fin = false;
		return IXM_TCP_RCV_CONT;
	}
	if (*seq == c->rcv_nxt) {
		bool filled = c->ooo != NULL;

		c->rcv_bufs++;
		ixm_tcp_deliver(c, m);
		if (filled) {
			ixm_tcp_ooo_drain(c);
			c->flags |= IXM_TCPF_ACK_NOW;	/* RFC 5681 §4.2 */
		} else {
			ixm_tcp_schedule_ack(c);
		}
		return IXM_TCP_RCV_KEPT;
	}
	q = ixm_tcp_ooo_queue(c, m);
	if (q == IXM_TCP_OOO_HAD)
		ixm_tcp_sack_dup(c, *seq, *seq + *dlen);	/* RFC 2883 §4.1.3 */
	else if (q != IXM_TCP_OOO_DROPPED)
		ixm_tcp_sack_ooo(c, *seq);
	if (q != IXM_TCP_OOO_DROPPED) {
		t->stats.ooo++;
		/* its FIN waits with it for the data before it */
		if (*fin && q != IXM_TCP_OOO_HAD) {
			c->flags |= IXM_TCPF_OOO_FIN;
			c->ooo_fin = *seq + *dlen;
		}
		/* RFC 5681 §4.2: a duplicate ACK for each, at once */
		if (ixm_tcp_send_ack(c))
			c->flags |= IXM_TCPF_ACK_NOW;
	}
	*fin = false;
	return q == IXM_TCP_OOO_QUEUED ? IXM_TCP_RCV_KEPT : IXM_TCP_RCV_CONT;
}

/*
 * RFC 9293 §3.10.7.4, eighth check: the FIN bit, as Linux's tcp_fin(),
 * taken in order only: @fin on the segment that ends at @end, or a
 * queued FIN that the data before it just reached.  A peer that sent
 * data past its own FIN loses the queued FIN; it sends it again.
 */
static void ixm_tcp_rcv_fin(struct ixm_tcp_conn *c, bool fin, u32 end)
{
	struct ixm_tcp_table *t = c->table;
	bool fin_now = fin && end == c->rcv_nxt;

	if (c->flags & IXM_TCPF_OOO_FIN) {
		if (c->rcv_nxt == c->ooo_fin)
			fin_now = true;
		else if (ixm_seq_gt(c->rcv_nxt, c->ooo_fin))
			c->flags &= ~IXM_TCPF_OOO_FIN;
	}
	if (!fin_now) {
		if (fin && c->state == IXM_TCP_TIME_WAIT) {
			c->flags |= IXM_TCPF_ACK_NOW;
			ixm_tcp_enter_time_wait(c);
		}
		return;
	}
	c->rcv_nxt++;
	c->flags |= IXM_TCPF_FIN_RCVD;
	/* what is still queued lies past the FIN: no use (tcp_ofo.c) */
	if (c->ooo)
		t->stats.ooo_purged += ixm_tcp_ooo_purge(c);
	c->flags &= ~IXM_TCPF_OOO_FIN;
	switch (c->state) {
	case IXM_TCP_ESTABLISHED:
		ixm_tcp_set_state(c, IXM_TCP_CLOSE_WAIT);
		ixm_tcp_post_eof(c);
		/*
		 * The ACK waits, as Linux's does (tcp_fin() enters pingpong
		 * mode): an application that answers or closes within the
		 * delayed-ACK time sends it on its data or its FIN, one
		 * segment instead of two.
		 */
		if (t->cfg.delack_us && !(c->flags & IXM_TCPF_ACK_NOW)) {
			if (!ixm_timer_pending(&c->delack))
				ixm_timer_arm(&t->wheel, &c->delack, t->stack->now_ns +
					      (u64)t->cfg.delack_us * 1000);
		} else {
			c->flags |= IXM_TCPF_ACK_NOW;
		}
		break;
	case IXM_TCP_FIN_WAIT_1:
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_post_eof(c);
		ixm_tcp_set_state(c, IXM_TCP_CLOSING);
		break;
	case IXM_TCP_FIN_WAIT_2:
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_post_eof(c);
		ixm_tcp_output(c);	/* the last ACK before TIME_WAIT */
		ixm_tcp_enter_time_wait(c);
		break;
	case IXM_TCP_TIME_WAIT:
		c->flags |= IXM_TCPF_ACK_NOW;
		ixm_tcp_enter_time_wait(c);	/* restart 2 MSL */
		break;
	default:
		c->flags |= IXM_TCPF_ACK_NOW;
		break;
	}
}

/*
 * RFC 9293 §3.10.7.4 ("Other States"): every state after SYN-SENT, in the
 * RFC's order, as Linux's tcp_rcv_state_process(): the cases with no TCB
 * to speak of (CLOSED, SYN-SENT, a repeated SYN in SYN-RECEIVED); then
 * the first to fourth checks, the ACK (fifth), the text (seventh; the
 * sixth, URG, is not supported) and the FIN (eighth).  Out of line, so
 * that header prediction's path (ixm_tcp_rcv_conn()) stays short.
 * Return: true if the buffer was kept (in-order or out-of-order data).
 * @c may be freed when this returns.
 */
static noinline bool ixm_tcp_rcv_other_states(struct ixm_tcp_conn *c, struct ixm_mbuf *m,
					      const void *nh, struct ixm_tcphdr *th,
					      const struct ixm_tcp_opts *o)
{
	u32 seq = ixm_ntohl(th->seq);
	bool fin = th->flags & IXM_TCP_FIN;
	u32 dlen = m->len;
	u32 seglen = dlen + !!(th->flags & IXM_TCP_SYN) + fin;
	enum ixm_tcp_rcv_res res;

	if (c->state == IXM_TCP_CLOSED) {
		/*
		 * Not a dead one (ixm_tcp_done() unhashed it): a slot just
		 * allocated, before its SYN or SYN-ACK set its state
		 */
		ixm_tcp_reply_rst(ixm_tcp_port(c), nh, th, seglen);
		return false;
	}
	if (c->state == IXM_TCP_SYN_SENT) {
		ixm_tcp_rcv_syn_sent(c, nh, th, o, seglen);
		return false;
	}
	/* our SYN-ACK was lost: the peer sends its SYN again */
	if (c->state == IXM_TCP_SYN_RECEIVED && (th->flags & IXM_TCP_SYN) &&
	    !(th->flags & (IXM_TCP_ACK | IXM_TCP_RST)) && seq == c->irs) {
		ixm_tcp_send_syn(c);
		return false;
	}
	if (ixm_tcp_rcv_validate(c, th, o, seq, seglen) != IXM_TCP_RCV_CONT ||
	    ixm_tcp_rcv_ack(c, nh, th, o, seq, seglen) != IXM_TCP_RCV_CONT)
		return false;
	ixm_tcp_ecn_rcv(c, nh, th->flags, dlen);
	res = IXM_TCP_RCV_CONT;
	if (dlen) {
		res = ixm_tcp_rcv_data(c, m, &seq, &dlen, &fin);
		if (res == IXM_TCP_RCV_DONE)
			return false;
	}
	ixm_tcp_rcv_fin(c, fin, seq + dlen);

	if (c->flags & IXM_TCPF_ACK_NOW)
		ixm_tcp_mark_pending(c);
	if (c->state != IXM_TCP_TIME_WAIT)
		ixm_tcp_flush_events(c);
	return res == IXM_TCP_RCV_KEPT;
}

/*
 * A segment for a connection: header prediction (ixm_tcp_rcv_fast()),
 * else RFC 9293 §3.10.7.4 step by step.  Return: true if the buffer was
 * kept.  @c may be freed when this returns.
 */
static __always_inline bool ixm_tcp_rcv_conn(struct ixm_tcp_conn *c, struct ixm_mbuf *m,
					     const void *nh, struct ixm_tcphdr *th,
					     const struct ixm_tcp_opts *o)
{
	int fast;

	c->last_rx_ns = c->table->stack->now_ns;
	fast = ixm_tcp_rcv_fast(c, m, nh, th, o);
	if (fast >= 0)
		return fast;
	return ixm_tcp_rcv_other_states(c, m, nh, th, o);
}

/*
 * A segment whose header and checksum passed, @m trimmed to its data
 * (@v6: @nh is an IPv6 header; a constant, so each family gets its own):
 * find the connection or listener and run the state machine.  A segment
 * for neither, or an IPv6 one for a listener whose context cannot be
 * told of an IPv6 peer (not IXMOD_SETUP_INET6), is answered with RST
 * (RFC 9293 §3.10.7.1) and counted in TCP_NO_SOCK.
 */
static __always_inline void ixm_tcp_rcv_seg(struct ixm_tcp_table *t,
					    struct ixm_net_port *port, struct ixm_mbuf *m,
					    const void *nh, bool v6, struct ixm_tcphdr *th,
					    const struct ixm_tcp_opts *o)
{
	struct ixm_tcp_conn *c;
	u32 li;

	if (likely(!v6)) {
		const struct ixm_iphdr *ih = nh;

		c = ixm_tcp_lookup(t, ih->daddr, th->dest, ih->saddr, th->source);
	} else {
		const struct ixm_ip6hdr *ih = nh;

		c = ixm_tcp_lookup6(t, &ih->daddr, th->dest, &ih->saddr, th->source);
	}
	if (c && c->app && c->app->dead)
		c = NULL;
	/* a new SYN may take over a TIME_WAIT pair (RFC 9293 §3.10.7.4, RFC 6191) */
	if (c && c->state == IXM_TCP_TIME_WAIT && (th->flags & IXM_TCP_SYN) &&
	    !(th->flags & (IXM_TCP_ACK | IXM_TCP_RST)) &&
	    /* not while a shutdown's application holds the handle */
	    (c->flags & (IXM_TCPF_ACCEPTED | IXM_TCPF_CLOSED_APP)) != IXM_TCPF_ACCEPTED &&
	    ixm_seq_gt(ixm_ntohl(th->seq), c->rcv_nxt) &&
	    ixm_tcp_listener_find(t, th->dest) != IXM_TCP_NONE) {
		ixm_tcp_conn_free(c);
		c = NULL;
	}
	if (c) {
		if (!ixm_tcp_rcv_conn(c, m, nh, th, o))
			ixm_mbuf_free(m);
		return;
	}
	li = ixm_tcp_listener_find(t, th->dest);
	if (li != IXM_TCP_NONE && !t->listeners[li].app->dead &&
	    (!v6 || t->listeners[li].app->inet6)) {
		ixm_tcp_rcv_listen(port, li, m, nh, th, o);
		return;
	}
	t->stats.no_conn++;
	ixm_tcp_reply_rst(port, nh, th, m->len + !!(th->flags & IXM_TCP_SYN) +
			  !!(th->flags & IXM_TCP_FIN));
	ixm_net_drop(port, m, IXM_DROP_TCP_NO_SOCK);
}

/*
 * The header checks of both families: @len bytes of segment at @th, the
 * checksum already verified.  Return: false when @m was dropped.
 */
static bool ixm_tcp_rcv_hdr(struct ixm_tcp_table *t, struct ixm_net_port *port,
			    struct ixm_mbuf *m, struct ixm_tcphdr *th, unsigned int len,
			    struct ixm_tcp_opts *o)
{
	unsigned int doff = ixm_tcp_doff(th);

	if (unlikely(ixm_tcp_parse_opts(th, o))) {
		t->stats.bad_hdr++;
		ixm_net_drop(port, m, IXM_DROP_TCP_OPTS);
		return false;
	}
	t->stats.segs_in++;
	m->data = (u8 *)th + doff;
	m->len = len - doff;
	return true;
}

/* At least a header, and a data offset inside the segment (TCP_SHORT). */
static bool ixm_tcp_rcv_short(struct ixm_tcp_table *t, struct ixm_net_port *port,
			      struct ixm_mbuf *m, const struct ixm_tcphdr *th,
			      unsigned int len)
{
	unsigned int doff;

	if (likely(len >= IXM_TCP_HLEN)) {
		doff = ixm_tcp_doff(th);
		if (likely(doff >= IXM_TCP_HLEN && doff <= len))
			return false;
	}
	t->stats.bad_hdr++;
	ixm_net_drop(port, m, IXM_DROP_TCP_SHORT);
	return true;
}

/**
 * ixm_tcp_input() - a TCP segment for us
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the IP total length
 * @ih: its validated IPv4 header
 *
 * Validates the header (TCP_SHORT: shorter than 20 bytes, or a data
 * offset below 5 words or past the segment; TCP_CSUM; TCP_OPTS), finds
 * the connection or listener, and runs the state machine.  A segment for
 * neither is answered with RST (RFC 9293 §3.10.7.1) and counted in
 * TCP_NO_SOCK.
 *
 * Context: the port's dataplane core.
 */
void ixm_tcp_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		   struct ixm_iphdr *ih)
{
	struct ixm_tcp_table *t = port->stack ? port->stack->tcp : NULL;
	unsigned int hlen = ixm_ip_hlen(ih);
	unsigned int len = ixm_ntohs(ih->tot_len) - hlen;
	struct ixm_tcp_opts o;
	struct ixm_tcphdr *th;

	if (unlikely(!t)) {
		ixm_net_drop(port, m, IXM_DROP_TCP_NO_SOCK);
		return;
	}
	th = (struct ixm_tcphdr *)((u8 *)ih + hlen);
	if (ixm_tcp_rcv_short(t, port, m, th, len))
		return;
	/* RFC 9293 §3.1: the checksum covers the pseudo-header (MUST check) */
	if (!(m->flags & IXM_MBUF_F_L4_CSUM_OK) &&
	    ixm_csum_fold(ixm_csum_pseudo(ih->saddr, ih->daddr, IXM_IPPROTO_TCP, len,
					  ixm_csum_partial(th, len, 0)))) {
		t->stats.bad_csum++;
		ixm_net_drop(port, m, IXM_DROP_TCP_CSUM);
		return;
	}
	if (ixm_tcp_rcv_hdr(t, port, m, th, len, &o))
		ixm_tcp_rcv_seg(t, port, m, ih, false, th, &o);
}

/**
 * ixm_tcp_input6() - a TCP segment for us over IPv6
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the IPv6 payload length
 * @ih: its IPv6 header (ixm_ip6_deliver_l4(): a unicast source, not ::)
 * @thoff: where the TCP header starts, in bytes from @ih (after any
 *	extension headers ip6.c skipped)
 *
 * As ixm_tcp_input(), the checksum over RFC 8200 §8.1's pseudo-header:
 * the same drops and counters, and one state machine for both families.
 * A segment to a group the port is in (all-nodes, a solicited-node
 * group) is dropped unanswered in TCP_NO_SOCK: no connection has a group
 * for its address (RFC 1122 §4.2.3.10), and a reply would come from one.
 *
 * Context: the port's dataplane core.
 */
void ixm_tcp_input6(struct ixm_net_port *port, struct ixm_mbuf *m,
		    struct ixm_ip6hdr *ih, unsigned int thoff)
{
	struct ixm_tcp_table *t = port->stack ? port->stack->tcp : NULL;
	unsigned int len = ixm_ip6_l4_len(m, thoff);
	struct ixm_tcp_opts o;
	struct ixm_tcphdr *th;

	if (unlikely(!t)) {
		ixm_net_drop(port, m, IXM_DROP_TCP_NO_SOCK);
		return;
	}
	if (unlikely(ixm_ip6_addr_is_multicast(&ih->daddr))) {
		ixm_net_drop(port, m, IXM_DROP_TCP_NO_SOCK);
		return;
	}
	th = (struct ixm_tcphdr *)((u8 *)ih + thoff);
	if (ixm_tcp_rcv_short(t, port, m, th, len))
		return;
	/* the NIC's verdict only when it summed this very segment */
	if (!((m->flags & IXM_MBUF_F_L4_CSUM_OK) && thoff == IXM_IP6_HLEN) &&
	    ixm_csum_fold(ixm_csum_pseudo6(&ih->saddr, &ih->daddr, IXM_IPPROTO_TCP6, len,
					   ixm_csum_partial(th, len, 0)))) {
		t->stats.bad_csum++;
		ixm_net_drop(port, m, IXM_DROP_TCP_CSUM);
		return;
	}
	if (ixm_tcp_rcv_hdr(t, port, m, th, len, &o))
		ixm_tcp_rcv_seg(t, port, m, ih, true, th, &o);
}

/* RFC 4443 §3.1's codes as -errno, as Linux's icmpv6_err_convert() has them. */
static int ixm_tcp_unreach_errno(u8 code)
{
	switch (code) {
	case 0:			/* no route to destination */
		return -ENETUNREACH;
	case 1:			/* communication administratively prohibited */
	case 5:			/* source address failed ingress/egress policy */
	case 6:			/* reject route to destination */
		return -EACCES;
	case 2:			/* beyond scope of source address */
	case 3:			/* address unreachable */
		return -EHOSTUNREACH;
	case 4:			/* port unreachable */
		return -ECONNREFUSED;
	default:
		return -EPROTO;
	}
}

/*
 * A Packet Too Big for @c with MTU @mtu: RFC 8200 §5 takes an MTU under
 * 1280 as 1280 (RFC 8201 §4: never below it), and RFC 8201 §4 lowers the
 * path MTU only, never raises it from a message.  The MSS follows when it
 * was larger (the timestamps option coming out of it as in
 * ixm_tcp_set_mss()), and what is in flight goes again in pieces that
 * fit.  Return: whether the path MTU went down.
 */
static bool ixm_tcp_pmtu_lower(struct ixm_tcp_conn *c, u32 mtu)
{
	u32 cur = c->pmtu ? c->pmtu : IXM_TCP_MTU, mss;

	if (mtu < IXM_IP6_MIN_MTU)
		mtu = IXM_IP6_MIN_MTU;
	if (mtu >= cur)
		return false;
	c->pmtu = mtu;
	mss = ixm_tcp_path_mss_cap(c) - ((c->flags & IXM_TCPF_TS) ? IXM_TCPOLEN_TS_ALIGNED : 0);
	/* SYN-SENT's MSS is a placeholder: the SYN-ACK's option sets it, capped */
	if (c->state == IXM_TCP_SYN_SENT || mss >= c->mss)
		return true;
	c->mss = mss;
	if (c->state != IXM_TCP_SYN_RECEIVED && c->snd_una != c->snd_max)
		ixm_tcp_mtu_rexmit(c);
	return true;
}

/*
 * What an ICMPv6 error does to the connection @c of this core's table @t
 * it names (RFC 5927 §4.1's check first); counted in @t's stats.
 */
static void ixm_tcp_icmp6_act(struct ixm_tcp_table *t, struct ixm_tcp_conn *c,
			      const struct ixm_icmp6_note *n)
{
	u32 seq;
	int err;

	if (!c || c->state == IXM_TCP_CLOSED || c->state == IXM_TCP_TIME_WAIT)
		goto ignored;
	seq = ixm_ntohl(n->seq);
	if (c->state == IXM_TCP_SYN_SENT ? seq != c->iss :
	    ixm_seq_lt(seq, c->snd_una) || ixm_seq_gt(seq, c->snd_max))
		goto ignored;
	if (n->type == IXM_ICMP6_PKT_TOOBIG) {
		if (!ixm_tcp_pmtu_lower(c, n->info))
			goto ignored;
		t->stats.icmp_ptb++;
		return;
	}
	err = ixm_tcp_unreach_errno(n->code);
	t->stats.icmp_unreach++;
	if (c->state == IXM_TCP_SYN_SENT) {
		t->stats.attempt_fails++;
		c->conn_err = err;
		c->evpend |= IXM_TCPE_CONNECTED;
		ixm_tcp_done(c, err);
		return;
	}
	c->soft_err = err;
	c->soft_una = c->snd_una;
	return;
ignored:
	t->stats.icmp_ignored++;
}

/*
 * The queue whose core owns the connection @n quotes: the one RSS gives
 * the connection's replies, from the peer (the quote's destination) to
 * us, as ixm_tcp_port_steers_here() (tcp_call.c) picked its port and the
 * NIC steered its SYN; queue 0 on a device that hashes IPv4 alone.
 */
static u16 ixm_tcp_icmp6_owner(const struct ixm_net_port *port,
			       const struct ixm_icmp6_note *n)
{
	u32 h;

	if (port->rss_v4_only)
		return 0;
	h = ixm_toeplitz_ipv6_l4(port->rss_key, n->daddr.s6, n->saddr.s6,
				 n->dport, n->sport);
	return ixm_rss_queue(h, port->rss_nq);
}

/**
 * ixm_tcp_icmp6_err() - an ICMPv6 error quoting a TCP segment
 * @port: the port and core it arrived on
 * @type: IXM_ICMP6_DEST_UNREACH or IXM_ICMP6_PKT_TOOBIG
 * @code: its code
 * @info: its 32-bit field (the MTU of a Packet Too Big)
 * @oih: the quoted IPv6 header (icmp6.c checked it is one, with TCP next)
 * @oth: the quoted TCP header: only its first 8 bytes (ports and sequence
 *	number) are known to be there
 *
 * The segment is one of ours only if it came from one of the port's
 * addresses and its 4-tuple names a connection, and the error is acted
 * on only if the quoted sequence number is one the connection may have
 * sent unacknowledged: SND.UNA..SND.NXT (ixmod's SND.MAX, the highest
 * sent), the ISS in SYN-SENT (RFC 5927 §4.1; RFC 4443 §5.2 leaves the
 * check to the upper layer).  Else, or in TIME_WAIT, it is ignored
 * (tcp_icmp_ignored).
 *
 * A Destination Unreachable aborts a connect in SYN-SENT, TCP_CONNECTED
 * and TCP_DEAD carrying the errno Linux gives the code
 * (ixm_tcp_unreach_errno()); in any later state it is a soft error only
 * (RFC 1122 §4.2.3.9: it must not abort the connection), remembered so
 * that a timeout reports it instead of -ETIMEDOUT (ixm_tcp_timeout_err()).
 * A Packet Too Big lowers the path MTU (ixm_tcp_pmtu_lower()).
 *
 * RSS gives an ICMPv6 message the queue of its addresses' hash, the
 * connection has the queue of its 4-tuple's, and with several cores the
 * two differ for most connections.  So when this core's table has no
 * such connection and the port has several queues, the queue whose core
 * owns it is computed from the quoted 4-tuple (ixm_tcp_icmp6_owner());
 * if that is another, a record of the error goes to that core's mailbox
 * (tcp_icmp_handed; tcp_icmp_hand_full when it was full, the error
 * dropped) and the owner does all of the above at its next iteration
 * (ixm_tcp_icmp6_relay_drain()), counted in its own counters.
 *
 * Context: the port's dataplane core.
 * Return: false if the core has no TCP (the caller counts the message as
 * a type not handled); true when TCP counted it.
 */
bool ixm_tcp_icmp6_err(struct ixm_net_port *port, u8 type, u8 code, u32 info,
		       const struct ixm_ip6hdr *oih, const struct ixm_tcphdr *oth)
{
	struct ixm_tcp_table *t = port->stack ? port->stack->tcp : NULL;
	struct ixm_icmp6_note n;
	struct ixm_tcp_conn *c;
	u16 q;

	if (!t)
		return false;
	if (!ixm_ip6_addr_is_ours(port->cfg, &oih->saddr)) {
		t->stats.icmp_ignored++;
		return true;
	}
	n.saddr = oih->saddr;
	n.daddr = oih->daddr;
	n.sport = oth->source;
	n.dport = oth->dest;
	n.seq = oth->seq;
	n.info = info;
	n.type = type;
	n.code = code;
	c = ixm_tcp_lookup6(t, &n.saddr, n.sport, &n.daddr, n.dport);
	if (!c && port->relay && port->rss_nq > 1 && port->rss_key) {
		q = ixm_tcp_icmp6_owner(port, &n);
		if (q != port->rss_q) {
			if (ixm_icmp6_relay_post(port->relay, q, &n))
				t->stats.icmp_hand_full++;
			else
				t->stats.icmp_handed++;
			return true;
		}
	}
	ixm_tcp_icmp6_act(t, c, &n);
	return true;
}

/**
 * ixm_tcp_icmp6_relay_drain() - act on the errors other cores handed here
 * @port: the port as this core sees it (@port->cfg current)
 *
 * Each record another core of the port posted to this core's mailbox
 * (ixm_tcp_icmp6_err()) goes through the same checks and actions as an
 * error received here: the address, the connection, the sequence number,
 * then the Packet Too Big or the Destination Unreachable; an error for no
 * connection here is ignored, never handed on again.  At most a mailbox's
 * worth: what is posted meanwhile waits for the next iteration.
 *
 * Context: the port's dataplane core, at the start of an iteration.
 * Return: the records taken (work done).
 */
unsigned int ixm_tcp_icmp6_relay_drain(struct ixm_net_port *port)
{
	struct ixm_icmp6_box *b = ixm_icmp6_relay_box(port);
	struct ixm_tcp_table *t = port->stack ? port->stack->tcp : NULL;
	struct ixm_icmp6_note n;
	unsigned int i;

	for (i = 0; b && i < IXM_ICMP6_RELAY_SLOTS && ixm_icmp6_relay_take(b, &n); i++) {
		if (!t)
			continue;
		if (!ixm_ip6_addr_is_ours(port->cfg, &n.saddr)) {
			t->stats.icmp_ignored++;
			continue;
		}
		ixm_tcp_icmp6_act(t, ixm_tcp_lookup6(t, &n.saddr, n.sport, &n.daddr, n.dport),
				  &n);
	}
	return i;
}
