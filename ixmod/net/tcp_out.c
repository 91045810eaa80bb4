// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_out.c - building and sending segments
 *
 * Every segment's headers are built in a fresh buffer: Ethernet, IPv4,
 * TCP header and options.  Its data stays where the application wrote it:
 * the buffer's fragments point the NIC at the pieces of the transmit arena
 * that sendv accepted (zero-copy), and the checksum (RFC 9293 §3.1) is
 * summed over them in place.  Only when the port has no mapping of the
 * arena, or the data needs more than IXM_MBUF_FRAGS fragments (one per
 * page it touches, at least), is it copied into the buffer after the
 * headers.
 * A segment goes out only if the port's TX batch has room; otherwise the
 * connection waits on the pending list for the next iteration, so a full
 * batch never loses an ACK or data.
 *
 * Loss recovery: NewReno (RFC 6582) with a peer that does not SACK; with
 * one that does, the segments RACK deemed lost go first, against pipe
 * (RFC 6675 §5), and a tail loss probe may come before the RTO (RFC 8985
 * §7.3; the scoreboard is tcp_sack.c's).
 *
 * Deviations, all documented in Documentation/networking/ixmod-tcp.rst:
 * no Nagle (every sendv is pushed, as with TCP_NODELAY), no urgent data,
 * no path MTU probing: the path MTU is the port's until an ICMPv6 Packet
 * Too Big lowers it (IPv6 only, ixm_tcp_mtu_rexmit()).
 */
#include "tcp.h"
#include "app.h"
#include "arp.h"
#include "nd.h"
#include "csum.h"
#include "eth.h"

/* RFC 7323 §5.4: the timestamp clock ticks once per millisecond. */
static u32 ixm_tcp_ts_now(const struct ixm_tcp_table *t)
{
	return (u32)(t->stack->now_ns / 1000000) + (u32)t->secret[3];
}

/**
 * ixm_tcp_pick_wscale() - the window scale we offer
 * @rcv_buf: the receive buffer
 *
 * Return: the smallest shift that lets a 16-bit window field cover it
 * (RFC 7323 §2.3).
 */
u8 ixm_tcp_pick_wscale(u32 rcv_buf)
{
	u8 s = 0;

	while (s < IXM_TCP_WSCALE_MAX && (65535U << s) < rcv_buf)
		s++;
	return s;
}

/**
 * ixm_tcp_rcv_window() - the receive window to offer now
 * @c: the connection
 *
 * The buffer room the application left, never less than what was offered
 * before (the right edge does not move left, RFC 9293 §3.8.6.2.2 and
 * RFC 7323 §2.4), and grown only in steps of at least min(half the
 * buffer, one MSS) (receiver-side silly window avoidance).
 *
 * Return: bytes, a multiple of the window scale unit.
 */
u32 ixm_tcp_rcv_window(const struct ixm_tcp_conn *c)
{
	u32 cur = ixm_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
	u32 room = c->rcv_buf > c->rcv_held ? c->rcv_buf - c->rcv_held : 0;
	u32 step = min_t(u32, c->rcv_buf / 2, c->mss);

	if (c->rcv_bufs >= IXM_TCP_RCV_BUFS)
		room = 0;
	if (room < cur || room - cur < step)
		room = cur;
	room &= ~((1U << c->rcv_wscale) - 1);
	return min_t(u32, room, 65535U << c->rcv_wscale);
}

/* The window field of a segment, and the edge it advertises. */
static __be16 ixm_tcp_window_field(struct ixm_tcp_conn *c, bool syn)
{
	u32 wnd = ixm_tcp_rcv_window(c);

	if (syn) {
		/* RFC 7323 §2.2: the window in a SYN is never scaled */
		wnd = min_t(u32, wnd ? wnd : c->rcv_buf, 65535);
		if (ixm_seq_gt(c->rcv_nxt + wnd, c->rcv_adv))
			c->rcv_adv = c->rcv_nxt + wnd;
		return ixm_htons(wnd);
	}
	if (ixm_seq_gt(c->rcv_nxt + wnd, c->rcv_adv))
		c->rcv_adv = c->rcv_nxt + wnd;
	return ixm_htons(wnd >> c->rcv_wscale);
}

/* Timestamps option, NOP-aligned (RFC 7323 Appendix A layout) */
static unsigned int ixm_tcp_put_ts(u8 *p, u32 tsval, u32 tsecr)
{
	p[0] = IXM_TCPOPT_NOP;
	p[1] = IXM_TCPOPT_NOP;
	p[2] = IXM_TCPOPT_TS;
	p[3] = 10;
	ixm_put_be32(p + 4, tsval);
	ixm_put_be32(p + 8, tsecr);
	return IXM_TCPOLEN_TS_ALIGNED;
}

static unsigned int ixm_tcp_put_mss(u8 *p, u16 mss)
{
	p[0] = IXM_TCPOPT_MSS;
	p[1] = 4;
	ixm_put_be16(p + 2, mss);
	return 4;
}

/*
 * The options of a segment of @c carrying @dlen data bytes: SYN ones, or
 * timestamps if agreed, then SACK blocks if there are any to report and
 * room for them (40 bytes of options in all; on a data segment, within
 * the MSS, RFC 6691 §2).
 */
static unsigned int ixm_tcp_build_opts(struct ixm_tcp_conn *c, u8 *p, bool syn, u32 dlen)
{
	unsigned int n = 0, room;
	bool offer, sack;

	if (syn) {
		/* our MSS: what a 1500-byte MTU leaves (RFC 6691 §2) */
		n += ixm_tcp_put_mss(p, ixm_tcp_mss_cap(c));
		/* offered on a SYN; on a SYN-ACK only if the peer offered */
		offer = c->state == IXM_TCP_SYN_SENT;
		sack = offer ? c->table->cfg.sack : c->flags & IXM_TCPF_SACK;
		if (offer || (c->flags & IXM_TCPF_WS)) {
			p[n++] = IXM_TCPOPT_NOP;
			p[n++] = IXM_TCPOPT_WSCALE;
			p[n++] = 3;
			p[n++] = c->rcv_wscale;
		}
		if (offer || (c->flags & IXM_TCPF_TS)) {
			n += ixm_tcp_put_ts(p + n, ixm_tcp_ts_now(c->table), c->ts_recent);
			if (sack) {	/* SACK-permitted in the NOPs' place (RFC 2018 §2) */
				p[n - 12] = IXM_TCPOPT_SACK_OK;
				p[n - 11] = 2;
			}
		} else if (sack) {
			p[n++] = IXM_TCPOPT_NOP;
			p[n++] = IXM_TCPOPT_NOP;
			p[n++] = IXM_TCPOPT_SACK_OK;
			p[n++] = 2;
		}
		return n;
	}
	if (c->flags & IXM_TCPF_TS)
		n += ixm_tcp_put_ts(p, ixm_tcp_ts_now(c->table), c->ts_recent);
	if ((c->flags & IXM_TCPF_SACK) && (c->ooo || (c->flags & IXM_TCPF_DSACK))) {
		room = 40 - n;
		if (dlen)
			room = dlen < c->mss ? min_t(u32, room, c->mss - dlen) : 0;
		n += ixm_tcp_sack_put(c, p + n, room);
	}
	return n;
}

/*
 * Point @m's fragments at @len bytes of the stream from sequence number
 * @seq, as they lie in the arena, and add their sum to *@sum (the data
 * starts at the even offset @at of the checksummed bytes) unless @sum is
 * NULL (the NIC sums them).  False, with @m's @nfrags and *@sum
 * untouched, when the port has no mapping of the arena or the bytes need
 * more than IXM_MBUF_FRAGS fragments.
 */
static bool ixm_tcp_map_data(struct ixm_tcp_conn *c, struct ixm_mbuf *m,
			     u32 seq, u32 len, u32 *sum, u32 at)
{
	const u32 pmask = (1u << IXM_PAGE_SHIFT) - 1;
	struct ixm_mbuf_frag *frags = m->frags;	/* only used if nfrags is set */
	u32 pos = seq - c->snd_una + c->sndq_skip, done = 0, s = sum ? *sum : 0;
	u32 i = c->sndq_head, end = c->sndq_head + c->sndq_count;
	const u8 *arena = c->app->txarena;
	u32 last_pg = ~0u;	/* the page of frags[nf - 1] */
	struct ixm_app_txmap *map;
	unsigned int nf = 0;

	if (!c->app->txmap)
		return false;
	map = &c->app->txmap[c->pidx];		/* c->pidx < nslices: ixm_tcp_port() */
	if (!map->page_dma)
		return false;
	while (done < len && i != end) {
		const struct ixm_tcp_sndpiece *p = &c->sndq[i % IXM_TCP_SNDQ];
		u32 off, n, left;

		if (pos >= p->len) {
			pos -= p->len;
			i++;
			continue;
		}
		off = p->off + pos;
		n = min_t(u32, len - done, p->len - pos);
		if (sum)
			s = ixm_csum_block_add(s, ixm_csum_partial(arena + off, n, 0),
					       at + done);
		done += n;
		/*
		 * A fragment per page, never across two: each page is its own
		 * mapping (and a DMA sync must stay inside one).  Pieces that
		 * follow each other on one page share a fragment.
		 */
		for (left = n; left; ) {
			u32 run = min_t(u32, left, pmask + 1 - (off & pmask));
			u32 pg = off >> IXM_PAGE_SHIFT;
			dma_addr_t dma = map->page_dma[pg] + (off & pmask);

			if (pg == last_pg && frags[nf - 1].dma + frags[nf - 1].len == dma) {
				frags[nf - 1].len += run;
			} else {
				if (nf == IXM_MBUF_FRAGS)
					return false;
				frags[nf].dma = dma;
				frags[nf].len = run;
				nf++;
				last_pg = pg;
			}
			off += run;
			left -= run;
		}
		pos = 0;
		i++;
	}
	if (done != len)	/* never: the caller never asks past snd_end */
		return false;
	m->nfrags = nf;
	m->inflight = &map->inflight;
	map->inflight++;
	m->zc = &c->zc;
	c->zc.built++;
	if (sum)
		*sum = s;
	return true;
}

/* Copy @len bytes of the stream from sequence number @seq out of the arena. */
static void ixm_tcp_copy_data(const struct ixm_tcp_conn *c, u32 seq, u8 *dst, u32 len)
{
	const u8 *arena = c->app->txarena;
	u32 pos = seq - c->snd_una + c->sndq_skip;
	u32 i = c->sndq_head, end = c->sndq_head + c->sndq_count;

	/* bounded by the pieces held: the caller never asks past snd_end */
	while (len && i != end) {
		const struct ixm_tcp_sndpiece *p = &c->sndq[i % IXM_TCP_SNDQ];
		u32 n;

		if (pos >= p->len) {
			pos -= p->len;
			i++;
			continue;
		}
		n = min_t(u32, len, p->len - pos);
		memcpy(dst, arena + p->off + pos, n);
		dst += n;
		len -= n;
		pos = 0;
		i++;
	}
	if (len)	/* never: but no stale pool bytes on the wire if it were */
		memset(dst, 0, len);
}

/*
 * A buffer for one segment (-ENOSPC: the port's batch is full, -ENOBUFS:
 * no buffer).  Its options are written at ixm_tcp_seg_opts() before
 * ixm_tcp_xmit() fills in the rest.
 */
static __always_inline int ixm_tcp_seg_alloc(struct ixm_net_port *np, struct ixm_mbuf **mp)
{
	if (np->ntx >= IXM_TX_BATCH)
		return -ENOSPC;
	*mp = ixm_mbuf_alloc(np->pool);
	if (!*mp) {
		np->stats->drops[IXM_DROP_NO_BUF]++;
		return -ENOBUFS;
	}
	return 0;
}

/* Where @m's options go: after the IPv4 or (@v6) the IPv6 header. */
static u8 *ixm_tcp_seg_opts(struct ixm_mbuf *m, bool v6)
{
	return m->data + IXM_ETH_HLEN + (v6 ? IXM_IP6_HLEN : IXM_IP_HLEN) + IXM_TCP_HLEN;
}

/**
 * struct ixm_tcp_seg - one segment to build, as Linux's TCP_SKB_CB
 * @dmac: the next hop's Ethernet address
 * @saddr: IPv4 source
 * @daddr: IPv4 destination
 * @saddr6: IPv6 source; NULL for IPv4
 * @daddr6: IPv6 destination (with @saddr6)
 * @sport: TCP source port
 * @dport: TCP destination port
 * @seq: sequence number (of the first data byte, if any)
 * @ack: acknowledgment number (0 without IXM_TCP_ACK)
 * @flags: IXM_TCP_* control bits
 * @tos: the IPv4 TOS byte or IPv6 traffic class: ECT(0) on an ECN
 *	connection's new data
 * @win: the window field, already scaled and in network order
 * @optlen: bytes of options already written at ixm_tcp_seg_opts()
 * @c: the payload's connection: @dlen bytes of its send queue from @seq;
 *	NULL for a segment without data
 * @dlen: payload bytes
 */
struct ixm_tcp_seg {
	const u8		*dmac;
	__be32			saddr;
	__be32			daddr;
	const struct ixm_in6_addr *saddr6;
	const struct ixm_in6_addr *daddr6;
	__be16			sport;
	__be16			dport;
	u32			seq;
	u32			ack;
	u8			flags;
	u8			tos;
	__be16			win;
	unsigned int		optlen;
	struct ixm_tcp_conn	*c;
	u32			dlen;
};

/*
 * Build and queue segment @s in @m (ixm_tcp_seg_alloc(), its options
 * already in place; consumed).
 */
static __always_inline int ixm_tcp_xmit(struct ixm_net_port *np, struct ixm_mbuf *m,
					const struct ixm_tcp_seg *s)
{
	const struct ixm_if_config *cfg = np->cfg;
	unsigned int thlen = IXM_TCP_HLEN + s->optlen;
	bool nic_csum = np->tx_offload & IXM_TXO_CSUM;
	unsigned int nhlen = s->saddr6 ? IXM_IP6_HLEN : IXM_IP_HLEN;
	struct ixm_tcp_conn *c = s->c;
	u32 dlen = s->dlen;
	struct ixm_ethhdr *eh;
	struct ixm_tcphdr *th;
	struct ixm_iphdr *ih;
	u32 sum;

	BUILD_BUG_ON(IXM_ETH_HLEN + IXM_TCP_MTU > IXM_MBUF_DATA_MAX);
	/*
	 * Never: the MSS (ixm_tcp_set_mss()) keeps every segment inside the
	 * MTU, and the MTU inside a buffer.  Were it wrong, a copied segment
	 * would run past its buffer and a gathered one would carry a wrapped
	 * IP total length: refuse it, whatever the MSS says.
	 */
	if (WARN_ONCE(dlen > IXM_TCP_MTU - nhlen - thlen,
		      "ixmod: TCP segment of %u data bytes over the MTU (mss %u)\n",
		      dlen, c ? c->mss : 0)) {
		np->stack->tcp->stats.tx_oversize++;
		ixm_mbuf_free(m);
		return -EMSGSIZE;
	}
	eh = (struct ixm_ethhdr *)m->data;
	ih = (struct ixm_iphdr *)(m->data + IXM_ETH_HLEN);
	th = (struct ixm_tcphdr *)((u8 *)ih + nhlen);
	th->source = s->sport;
	th->dest = s->dport;
	th->seq = ixm_htonl(s->seq);
	th->ack_seq = ixm_htonl(s->ack);
	th->doff = (thlen / 4) << 4;
	th->flags = s->flags;
	th->window = s->win;
	th->check = 0;
	th->urg_ptr = 0;
	sum = nic_csum ? 0 : ixm_csum_partial(th, thlen, 0);
	m->len = IXM_ETH_HLEN + nhlen + thlen;
	if (dlen) {
		if (likely(ixm_tcp_map_data(c, m, s->seq, dlen, nic_csum ? NULL : &sum,
					    thlen))) {
			c->table->stats.tx_zerocopy++;
		} else {
			ixm_tcp_copy_data(c, s->seq, (u8 *)th + thlen, dlen);
			if (!nic_csum)
				sum = ixm_csum_partial((u8 *)th + thlen, dlen, sum);
			m->len += dlen;
			c->table->stats.tx_copied++;
		}
	}
	memcpy(eh->dst, s->dmac, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	if (unlikely(s->saddr6)) {
		struct ixm_ip6hdr *ih6 = (struct ixm_ip6hdr *)ih;

		th->check = ixm_csum_fold(ixm_csum_pseudo6(s->saddr6, s->daddr6,
							   IXM_IPPROTO_TCP6, thlen + dlen,
							   sum));
		/* a fixed 40-byte header, TCP right after it (mbuf.h) */
		if (nic_csum) {
			th->check = ~th->check;
			m->flags |= IXM_MBUF_F_TX_TCP_CSUM | IXM_MBUF_F_TX_IPV6;
		} else {
			np->stats->tx_csum_sw++;
		}
		ixm_ip6_build_header(ih6, s->saddr6, s->daddr6, IXM_IPPROTO_TCP6,
				     thlen + dlen, IXM_IP6_HOPLIMIT);
		if (s->tos)
			ixm_ip6_set_flow(ih6, s->tos, 0);
		eh->type = ixm_htons(IXM_ETH_P_IPV6);
		return ixm_net_xmit(np, m);
	}
	/* the NIC adds the header and data to the pseudo-header's sum */
	th->check = ixm_csum_fold(ixm_csum_pseudo(s->saddr, s->daddr, IXM_IPPROTO_TCP,
						  thlen + dlen, sum));
	if (nic_csum) {
		th->check = ~th->check;
		m->flags |= IXM_MBUF_F_TX_TCP_CSUM;
	} else {
		np->stats->tx_csum_sw++;
	}
	ixm_ip_build_header(ih, s->saddr, s->daddr, IXM_IPPROTO_TCP, thlen + dlen, 0,
			    nic_csum);
	if (s->tos) {
		ih->tos = s->tos;
		if (!nic_csum) {
			ih->check = 0;
			ih->check = ixm_csum(ih, IXM_IP_HLEN);
		}
	}
	eh->type = ixm_htons(IXM_ETH_P_IP);
	return ixm_net_xmit(np, m);
}

/* The port to send on, with the peer's MAC resolved; NULL if not (yet). */
static struct ixm_net_port *ixm_tcp_route(struct ixm_tcp_conn *c)
{
	struct ixm_net_port *np = ixm_tcp_port(c);

	if (!np)
		return NULL;
	if (unlikely(c->flags & IXM_TCPF_NEED_ARP)) {
		/* room for the request ixm_arp_resolve() may send */
		if (np->ntx + 2 > IXM_TX_BATCH ||
		    (c->flags & IXM_TCPF_INET6 ? ixm_nd_resolve(np, &c->raddr6, c->dmac) :
		     ixm_arp_resolve(np, c->raddr, c->dmac))) {
			ixm_tcp_mark_pending(c);
			return NULL;
		}
		c->flags &= ~IXM_TCPF_NEED_ARP;
	}
	return np;
}

/* Send one segment of @c with the usual header fields; data from @seq. */
static int ixm_tcp_send_seg(struct ixm_tcp_conn *c, u32 seq, u8 flags, u32 dlen)
{
	bool syn = flags & IXM_TCP_SYN;
	struct ixm_net_port *np;
	struct ixm_mbuf *m;
	int err;

	np = ixm_tcp_route(c);
	if (!np)
		return -EAGAIN;
	err = ixm_tcp_seg_alloc(np, &m);
	if (!err) {
		u8 tos = 0, fl = ixm_tcp_ecn_flags(c, flags, seq, dlen, &tos);
		bool v6 = c->flags & IXM_TCPF_INET6;
		struct ixm_tcp_seg s = {
			.dmac = c->dmac, .saddr = c->laddr, .daddr = c->raddr,
			.saddr6 = v6 ? &c->laddr6 : NULL, .daddr6 = v6 ? &c->raddr6 : NULL,
			.sport = c->lport, .dport = c->rport,
			.seq = seq, .ack = (flags & IXM_TCP_ACK) ? c->rcv_nxt : 0,
			.flags = fl, .tos = tos, .win = ixm_tcp_window_field(c, syn),
			.optlen = ixm_tcp_build_opts(c, ixm_tcp_seg_opts(m, v6), syn, dlen),
			.c = c, .dlen = dlen,
		};

		err = ixm_tcp_xmit(np, m, &s);
	}
	if (err) {
		/* a segment over the MTU goes no better next time: dropped */
		if (err != -EMSGSIZE)
			ixm_tcp_mark_pending(c);
		return err;
	}
	c->table->stats.segs_out++;
	if (flags & IXM_TCP_ACK) {
		/*
		 * Data sent within the delayed-ACK time of the data last
		 * received answers it: the connection is interactive (request
		 * and response), its answers carry the ACKs, and quick ACKs
		 * would only add a segment per request (Linux leaves its
		 * quick-ACK mode for "pingpong" on the same sign).
		 */
		if (unlikely(c->quickacks) && dlen &&
		    c->table->stack->now_ns - c->quick_rcv_ns <
		    (u64)c->table->cfg.delack_us * 1000)
			c->quickacks = 0;
		/* this segment acknowledges everything received */
		c->flags &= ~IXM_TCPF_ACK_NOW;
		c->rcv_unacked = 0;
		if (ixm_timer_pending(&c->delack))
			ixm_timer_cancel(&c->table->wheel, &c->delack);
		if (c->quickacks)
			c->quickacks--;
	}
	return 0;
}

/**
 * ixm_tcp_send_ack() - a segment with no data acknowledging rcv_nxt
 * @c: the connection
 *
 * Return: 0, or -errno (the connection is then on the pending list).
 */
int ixm_tcp_send_ack(struct ixm_tcp_conn *c)
{
	/*
	 * SND.MAX, not SND.NXT: after a timeout rewound SND.NXT the peer
	 * may hold everything, and a lower SEQ would be out of its window.
	 */
	return ixm_tcp_send_seg(c, c->snd_max, IXM_TCP_ACK, 0);
}

/**
 * ixm_tcp_send_keepalive() - an ACK one below SND.NXT (RFC 1122 §4.2.3.6)
 * @c: the connection; the peer answers it with an ACK
 *
 * Return: 0 or -errno.
 */
int ixm_tcp_send_keepalive(struct ixm_tcp_conn *c)
{
	return ixm_tcp_send_seg(c, c->snd_max - 1, IXM_TCP_ACK, 0);
}

/**
 * ixm_tcp_send_syn() - the SYN (SYN-SENT) or SYN-ACK (SYN-RECEIVED)
 * @c: the connection
 *
 * Return: 0 or -errno.
 */
int ixm_tcp_send_syn(struct ixm_tcp_conn *c)
{
	u8 flags = IXM_TCP_SYN;
	int err;

	if (c->state == IXM_TCP_SYN_RECEIVED)
		flags |= IXM_TCP_ACK;
	err = ixm_tcp_send_seg(c, c->iss, flags, 0);
	if (!err) {
		if (c->snd_max == c->iss)	/* the first: RTT sample from the SYN-ACK */
			c->rtt_start_ns = c->table->stack->now_ns;
		c->snd_nxt = c->iss + 1;
		if (ixm_seq_lt(c->snd_max, c->snd_nxt))
			c->snd_max = c->snd_nxt;
	}
	return err;
}

/**
 * ixm_tcp_send_rst() - reset the connection's peer
 * @c: the connection (RFC 9293 §3.10.5: <SEQ=SND.NXT><CTL=RST>)
 *
 * Return: 0 or -errno.
 */
int ixm_tcp_send_rst(struct ixm_tcp_conn *c)
{
	u8 flags = IXM_TCP_RST;
	int err;

	if (c->state != IXM_TCP_SYN_SENT)
		flags |= IXM_TCP_ACK;
	err = ixm_tcp_send_seg(c, c->snd_nxt, flags, 0);
	if (!err)
		c->table->stats.resets_out++;
	return err;
}

/**
 * ixm_tcp_challenge_ack() - an ACK asking the peer to prove it is in sync
 * @c: the connection (RFC 5961 §3.2, §4.2, §5.2)
 *
 * Rate-limited per core (RFC 5961 §7: 1000 a second, as Linux).
 */
void ixm_tcp_challenge_ack(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	u64 now = t->stack->now_ns;

	if (now - t->challenge_ns >= 1000000000ULL) {
		t->challenge_ns = now;
		t->challenge_count = 0;
	}
	if (t->challenge_count >= 1000)
		return;
	t->challenge_count++;
	t->stats.challenge_acks++;
	c->flags |= IXM_TCPF_ACK_NOW;
	ixm_tcp_mark_pending(c);
}

/* The stream's data bytes from @seq on that have been accepted (FIN excluded). */
static u32 ixm_tcp_data_after(const struct ixm_tcp_conn *c, u32 seq)
{
	return ixm_seq_lt(seq, c->snd_end) ? c->snd_end - seq : 0;
}

/**
 * ixm_tcp_retransmit_head() - resend the oldest unacknowledged segment
 * @c: the connection (fast retransmit, NewReno partial ACKs)
 */
void ixm_tcp_retransmit_head(struct ixm_tcp_conn *c)
{
	u32 len = min_t(u32, ixm_tcp_data_after(c, c->snd_una), c->mss);
	u8 flags = IXM_TCP_ACK;

	if (c->state == IXM_TCP_SYN_SENT || c->state == IXM_TCP_SYN_RECEIVED) {
		ixm_tcp_send_syn(c);
		return;
	}
	if ((c->flags & IXM_TCPF_FIN_SENT) && c->snd_una + len == c->snd_end)
		flags |= IXM_TCP_FIN;
	if (!len && !(flags & IXM_TCP_FIN))
		return;
	if (len)
		flags |= IXM_TCP_PSH;
	if (!ixm_tcp_send_seg(c, c->snd_una, flags, len)) {
		c->table->stats.retrans++;
		ixm_tcp_trace_retrans(c, c->snd_una, len, false);
	}
	/* Karn: a retransmitted segment gives no RTT sample */
	c->flags &= ~IXM_TCPF_RTT_TIMING;
}

/*
 * A segment of @c up to @end (and its FIN, if @fin) went out: SND.NXT and
 * SND.MAX move past it, and the retransmission timer runs, replacing the
 * persist timer if that was armed.
 */
static __always_inline void ixm_tcp_sent(struct ixm_tcp_conn *c, u32 end, bool fin)
{
	c->snd_nxt = end + fin;
	if (fin)
		c->flags |= IXM_TCPF_FIN_SENT;
	if (ixm_seq_gt(c->snd_nxt, c->snd_max))
		c->snd_max = c->snd_nxt;
	if (c->flags & IXM_TCPF_SACK)
		return;		/* once for the burst: ixm_tcp_output_armed() */
	if (!ixm_timer_pending(&c->timer) || (c->flags & IXM_TCPF_PERSIST)) {
		c->flags &= ~IXM_TCPF_PERSIST;
		ixm_tcp_arm_rexmit(c);
	}
}

/*
 * Send the segment @r of the scoreboard again: in pieces of the MSS when
 * it is larger (a Packet Too Big lowered the MSS and tcp_sack.c had no
 * room to split it), a FIN on the last if the FIN followed it.  Return:
 * 0, or the -errno of the first piece that could not go.
 */
static int ixm_tcp_send_rec(struct ixm_tcp_conn *c, const struct ixm_tcp_txseg *r)
{
	u32 seq = r->seq, end = r->seq + r->len;
	int err;

	do {
		u32 len = min_t(u32, end - seq, c->mss);
		u8 flags = IXM_TCP_ACK | IXM_TCP_PSH;

		if ((c->flags & IXM_TCPF_FIN_SENT) && seq + len == c->snd_end)
			flags |= IXM_TCP_FIN;
		err = ixm_tcp_send_seg(c, seq, flags, len);
		if (err)
			return err;
		seq += len;
	} while (seq != end);
	return 0;
}

/*
 * RFC 6675 §5 (NextSeg's first rule, with RACK's marks): the segments
 * deemed lost go again, oldest first, while pipe leaves cwnd room for
 * them (one at least when nothing is in flight); the one at SND.UNA
 * whatever pipe says (step 4.3: the first retransmission does not wait
 * for pipe to drain below the halved cwnd, half a round trip).  Return:
 * 0, or -errno when one could not go (the connection is then on the
 * pending list).
 */
static int ixm_tcp_output_lost(struct ixm_tcp_conn *c)
{
	u32 pipe = ixm_tcp_sack_pipe(c);
	struct ixm_tcp_txseg *r;
	bool sent = false;
	int err = 0;

	while ((r = ixm_tcp_sack_next_lost(c))) {
		if (pipe && pipe + r->len > c->cwnd && r->seq != c->snd_una)
			break;
		err = ixm_tcp_send_rec(c, r);
		if (err)
			break;
		c->table->stats.retrans++;
		ixm_tcp_trace_retrans(c, r->seq, r->len, c->backoff != 0);
		ixm_tcp_seg_resent(c, r);
		pipe += r->len;
		sent = true;
	}
	if (sent) {
		c->flags &= ~IXM_TCPF_RTT_TIMING;	/* Karn */
		if (!ixm_timer_pending(&c->timer) || (c->flags & IXM_TCPF_PTO))
			ixm_tcp_arm_rexmit(c);
	}
	return err;
}

/*
 * A SACK connection sent new data: the probe's timer restarts (RFC 8985
 * §7.2), or the RTO starts if it was not running (RFC 6298 §5.1).
 */
static void ixm_tcp_output_armed(struct ixm_tcp_conn *c)
{
	if (ixm_timer_pending(&c->timer) &&
	    !(c->flags & (IXM_TCPF_PERSIST | IXM_TCPF_PTO)))
		return;
	c->flags &= ~IXM_TCPF_PERSIST;
	ixm_tcp_arm_sack(c, false);
}

/**
 * ixm_tcp_rewind() - what is in flight goes again (a timeout; a window
 * that reopened after a probe)
 * @c: the connection
 *
 * Without SACK, SND.NXT goes back to SND.UNA; with it, every segment is
 * deemed lost, and a FIN alone is sent again from SND.NXT.
 */
void ixm_tcp_rewind(struct ixm_tcp_conn *c)
{
	if ((c->flags & IXM_TCPF_SACK) && c->seg_count)
		ixm_tcp_sack_all_lost(c);
	else
		c->snd_nxt = c->snd_una;
}

/**
 * ixm_tcp_mtu_rexmit() - the MSS went down: what is in flight goes again
 * @c: the connection, data in flight
 *
 * RFC 8201 §4: a Packet Too Big means the segments in flight larger than
 * the new MSS were dropped; they are sent again at once, in pieces of the
 * new size, as Linux's tcp_simple_retransmit() does.  This is not
 * congestion: cwnd and ssthresh stay, and the recovery point moves to
 * SND.MAX, so the duplicate ACKs or RACK losses this repair brings start
 * no fast recovery of their own (RFC 6582 §3.2 step 2).  With SACK the
 * scoreboard marks the records too large lost and splits them
 * (ixm_tcp_sack_mtu()); without it (or with only a FIN in flight) SND.NXT
 * goes back to SND.UNA and everything from there is sent again in MSS
 * pieces, those that fitted included: NewReno keeps no record of what
 * went out in which size.
 */
void ixm_tcp_mtu_rexmit(struct ixm_tcp_conn *c)
{
	if ((c->flags & IXM_TCPF_SACK) && c->seg_count)
		ixm_tcp_sack_mtu(c);
	else
		c->snd_nxt = c->snd_una;
	if (!(c->flags & IXM_TCPF_IN_RECOVERY))
		c->recover = c->snd_max;
	c->flags &= ~IXM_TCPF_RTT_TIMING;	/* Karn */
	ixm_tcp_mark_pending(c);
}

/**
 * ixm_tcp_output() - send what the windows allow, and any ACK owed
 * @c: the connection
 *
 * Context: the connection's core.
 */
void ixm_tcp_output(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	bool sent_new = false;
	u32 wnd_end, cwnd_end;

	switch (c->state) {
	case IXM_TCP_CLOSED:
		return;
	case IXM_TCP_SYN_SENT:
	case IXM_TCP_SYN_RECEIVED:
		/* the SYN could not go out yet (ARP, a full batch) */
		if (c->snd_max == c->iss)
			ixm_tcp_send_syn(c);
		else if ((c->flags & IXM_TCPF_ACK_NOW) && c->state == IXM_TCP_SYN_RECEIVED)
			ixm_tcp_send_syn(c);
		c->flags &= ~IXM_TCPF_ACK_NOW;
		return;
	case IXM_TCP_TIME_WAIT:
		if (c->flags & IXM_TCPF_ACK_NOW)
			ixm_tcp_send_ack(c);
		return;
	default:
		break;
	}

	cwnd_end = c->snd_una + c->cwnd;
	if (c->flags & IXM_TCPF_SACK) {
		u32 pipe;

		if (c->lost_bytes && ixm_tcp_output_lost(c))
			return;
		/*
		 * New data against pipe (RFC 6675 §5, as Linux's
		 * tcp_packets_in_flight() always): what the peer SACKed has
		 * left the network, so a hole does not hold the window
		 * shut, and in recovery new data goes on behind a
		 * retransmission, which RACK needs to see that one lost
		 * too.
		 */
		pipe = ixm_tcp_sack_pipe(c);
		cwnd_end = c->snd_nxt + (c->cwnd > pipe ? c->cwnd - pipe : 0);
	}
	wnd_end = c->snd_una + c->snd_wnd;
	if (ixm_seq_lt(cwnd_end, wnd_end))
		wnd_end = cwnd_end;
	while (ixm_seq_lt(c->snd_nxt, c->snd_end) && ixm_seq_lt(c->snd_nxt, wnd_end)) {
		u32 len = min_t(u32, c->snd_end - c->snd_nxt, c->mss);
		u32 seq = c->snd_nxt;
		u8 flags = IXM_TCP_ACK;

		/* a SACK connection remembers each segment: while room lasts */
		if ((c->flags & IXM_TCPF_SACK) && c->seg_count == IXM_TCP_TXSEGS &&
		    !ixm_seq_lt(seq, c->snd_max))
			break;

		len = min_t(u32, len, wnd_end - seq);
		/*
		 * Only whole segments while more is queued and data is in
		 * flight (sender silly window avoidance, RFC 9293
		 * §3.8.6.2.1; RFC 6675 §5 step C): cwnd grows by bytes and a
		 * slow reader's window opens by bytes, and a piece cut to
		 * the room would be followed by another cut to the next
		 * ACK's.  The ACK in flight makes the room; with nothing in
		 * flight the piece goes.  The last bytes go whatever their
		 * size: they are what lets RACK see a lost segment before
		 * them (Linux's cwnd counts packets of any size).
		 */
		if (len < c->mss && seq + len != c->snd_end && seq != c->snd_una)
			break;
		if (seq + len == c->snd_end) {
			flags |= IXM_TCP_PSH;
			if (c->flags & IXM_TCPF_FIN_QUEUED)
				flags |= IXM_TCP_FIN;
		}
		if (ixm_tcp_send_seg(c, seq, flags, len))
			return;
		if (ixm_seq_lt(seq, c->snd_max)) {
			t->stats.retrans++;
			ixm_tcp_trace_retrans(c, seq, len, true);
		} else {
			if (c->flags & IXM_TCPF_SACK)
				ixm_tcp_seg_sent(c, seq, len);
			if (!(c->flags & IXM_TCPF_RTT_TIMING) && !c->backoff) {
				c->flags |= IXM_TCPF_RTT_TIMING;
				c->rtt_seq = seq + len;
				c->rtt_start_ns = t->stack->now_ns;
			}
		}
		ixm_tcp_sent(c, seq + len, flags & IXM_TCP_FIN);
		sent_new = true;
	}
	/* a FIN with no data left to carry it (RFC 9293 §3.10.4) */
	if ((c->flags & IXM_TCPF_FIN_QUEUED) && c->snd_nxt == c->snd_end) {
		bool again = c->flags & IXM_TCPF_FIN_SENT;

		if (ixm_tcp_send_seg(c, c->snd_end, IXM_TCP_ACK | IXM_TCP_FIN, 0))
			goto out;
		/* sent again (RACK found it lost, or a timeout): counted as data is */
		if (again) {
			t->stats.retrans++;
			ixm_tcp_trace_retrans(c, c->snd_end, 0, c->backoff != 0);
		}
		c->fin_xmit_us = (u32)(t->stack->now_ns / 1000);
		ixm_tcp_sent(c, c->snd_end, true);
		sent_new = true;
	}
	/* data waits behind a closed window: probe it (RFC 9293 §3.8.6.1) */
	if (!c->snd_wnd && ixm_seq_lt(c->snd_nxt, c->snd_end) &&
	    c->snd_una == c->snd_max && !ixm_timer_pending(&c->timer)) {
		ixm_tcp_arm_rexmit(c);
		c->flags |= IXM_TCPF_PERSIST;
	}
	if (c->flags & IXM_TCPF_ACK_NOW)
		ixm_tcp_send_ack(c);
out:
	if (sent_new && (c->flags & IXM_TCPF_SACK))
		ixm_tcp_output_armed(c);
}

/**
 * ixm_tcp_pto_fn() - a tail loss probe is due (RFC 8985 §7.3)
 * @c: the connection, SACK agreed
 *
 * One segment: new data if the windows have room for it, else the last
 * segment in flight again.  Then the RTO runs; no second probe until an
 * acknowledgment covers this one (ixm_tcp_sack_rcv()).
 */
void ixm_tcp_pto_fn(struct ixm_tcp_conn *c)
{
	struct ixm_tcp_table *t = c->table;
	struct ixm_tcp_txseg *r;
	u32 seq = c->snd_nxt;

	c->flags &= ~IXM_TCPF_PTO;
	if (c->snd_una == c->snd_max) {
		ixm_tcp_arm_idle(c);
		return;
	}
	/*
	 * One segment left, the last the peer's window took: the ACKs of
	 * those before it came, this one's may wait for the receiver's
	 * delayed ACK (it completes no second segment, and a reader that
	 * filled its window sends no update until it reads).  It waits as
	 * one sent alone does (RFC 8985 §7.2's WCDelAckT, as Linux's probe
	 * for one packet out).
	 */
	r = c->seg_count == 1 ? &c->segs[c->seg_head] : NULL;
	if (r && !(r->flags & IXM_TXSEG_LONE) && c->snd_max - c->snd_una >= c->snd_wnd) {
		r->flags |= IXM_TXSEG_LONE;
		ixm_tcp_arm_sack(c, false);
		return;
	}
	if (ixm_seq_lt(seq, c->snd_end) && ixm_seq_lt(seq, c->snd_una + c->snd_wnd) &&
	    c->seg_count < IXM_TCP_TXSEGS && seq == c->snd_max) {
		u32 len = min_t(u32, min_t(u32, c->snd_end - seq, c->mss),
				c->snd_una + c->snd_wnd - seq);
		u8 flags = IXM_TCP_ACK;

		if (seq + len == c->snd_end) {
			flags |= IXM_TCP_PSH;
			if (c->flags & IXM_TCPF_FIN_QUEUED)
				flags |= IXM_TCP_FIN;
		}
		if (ixm_tcp_send_seg(c, seq, flags, len))
			goto rto;
		ixm_tcp_seg_sent(c, seq, len);
		ixm_tcp_sent(c, seq + len, flags & IXM_TCP_FIN);
		c->flags = (c->flags | IXM_TCPF_TLP_OUT) & ~IXM_TCPF_TLP_RXT;
	} else if (c->seg_count) {
		r = &c->segs[(c->seg_head + c->seg_count - 1) % IXM_TCP_TXSEGS];
		if (ixm_tcp_send_rec(c, r))
			goto rto;
		t->stats.retrans++;
		ixm_tcp_trace_retrans(c, r->seq, r->len, false);
		ixm_tcp_seg_resent(c, r);
		c->flags |= IXM_TCPF_TLP_OUT | IXM_TCPF_TLP_RXT;
	} else {
		goto rto;	/* a FIN alone: the RTO sends it again */
	}
	c->tlp_end = c->snd_max;
	t->stats.tlp_probes++;
rto:
	ixm_tcp_arm_rexmit(c);
}

/**
 * ixm_tcp_send_probe() - one byte past a closed window
 * @c: the connection (RFC 9293 §3.8.6.1; RFC 1122 §4.2.2.17)
 *
 * Return: 0 or -errno.
 */
int ixm_tcp_send_probe(struct ixm_tcp_conn *c)
{
	u32 seq = c->snd_una;
	int err;

	if (!ixm_tcp_data_after(c, seq))
		return ixm_tcp_send_ack(c);
	err = ixm_tcp_send_seg(c, seq, IXM_TCP_ACK, 1);
	if (!err) {
		c->table->stats.zero_window_probes++;
		if ((c->flags & IXM_TCPF_SACK) && seq == c->snd_max &&
		    c->seg_count < IXM_TCP_TXSEGS)
			ixm_tcp_seg_sent(c, seq, 1);
		if (ixm_seq_gt(seq + 1, c->snd_max))
			c->snd_max = seq + 1;
		if (ixm_seq_gt(seq + 1, c->snd_nxt))
			c->snd_nxt = seq + 1;
	}
	return err;
}

/* The Ethernet source of a received IP header: where replies go. */
static const u8 *ixm_tcp_reply_mac(const void *nh)
{
	return ((const struct ixm_ethhdr *)((const u8 *)nh - IXM_ETH_HLEN))->src;
}

/* The addresses of a reply to a received segment: its own, swapped. */
static struct ixm_tcp_seg ixm_tcp_seg_reply(const void *nh, const struct ixm_tcphdr *th)
{
	struct ixm_tcp_seg s = {
		.dmac = ixm_tcp_reply_mac(nh), .sport = th->dest, .dport = th->source,
	};

	if (ixm_tcp_nh_v6(nh)) {
		const struct ixm_ip6hdr *ih = nh;

		s.saddr6 = &ih->daddr;
		s.daddr6 = &ih->saddr;
	} else {
		const struct ixm_iphdr *ih = nh;

		s.saddr = ih->daddr;
		s.daddr = ih->saddr;
	}
	return s;
}

/**
 * ixm_tcp_reply_rst() - answer a segment for no connection with RST
 * @port: the port it arrived on
 * @nh: its IPv4 or IPv6 header
 * @th: its TCP header
 * @seglen: its length in sequence space (data, SYN and FIN)
 *
 * RFC 9293 §3.10.7.1: if it had ACK, <SEQ=SEG.ACK><CTL=RST>; otherwise
 * <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>.  Never in answer to a RST.
 */
void ixm_tcp_reply_rst(struct ixm_net_port *port, const void *nh,
		       const struct ixm_tcphdr *th, u32 seglen)
{
	struct ixm_tcp_table *t;
	u32 seq = 0, ack = 0;
	u8 flags = IXM_TCP_RST;
	struct ixm_tcp_seg s;
	struct ixm_mbuf *m;

	if (!port || (th->flags & IXM_TCP_RST))
		return;
	if (th->flags & IXM_TCP_ACK) {
		seq = ixm_ntohl(th->ack_seq);
	} else {
		ack = ixm_ntohl(th->seq) + seglen;
		flags |= IXM_TCP_ACK;
	}
	t = port->stack->tcp;
	if (ixm_tcp_seg_alloc(port, &m))
		return;
	s = ixm_tcp_seg_reply(nh, th);
	s.seq = seq;
	s.ack = ack;
	s.flags = flags;
	if (!ixm_tcp_xmit(port, m, &s)) {
		t->stats.resets_out++;
		t->stats.segs_out++;
	}
}

/**
 * ixm_tcp_send_synack_stateless() - a SYN-ACK whose ISN is a SYN cookie
 * @port: the port the SYN arrived on
 * @nh: the SYN's IPv4 or IPv6 header
 * @th: the SYN's TCP header
 * @iss: the cookie
 * @mss: the MSS the cookie carries (what we send is capped to it)
 *
 * Only the MSS option: what a cookie cannot remember is not offered.
 *
 * Return: 0 or -errno.
 */
int ixm_tcp_send_synack_stateless(struct ixm_net_port *port, const void *nh,
				  const struct ixm_tcphdr *th, u32 iss, u16 mss)
{
	struct ixm_tcp_table *t = port->stack->tcp;
	struct ixm_tcp_seg s;
	struct ixm_mbuf *m;
	int err;

	err = ixm_tcp_seg_alloc(port, &m);
	if (err)
		return err;
	s = ixm_tcp_seg_reply(nh, th);
	s.seq = iss;
	s.ack = ixm_ntohl(th->seq) + 1;
	s.flags = IXM_TCP_SYN | IXM_TCP_ACK;
	s.win = ixm_htons(min_t(u32, t->cfg.rcv_buf, 65535));
	s.optlen = ixm_tcp_put_mss(ixm_tcp_seg_opts(m, s.saddr6),
				   s.saddr6 ? IXM_TCP_MSS_MAX6 : IXM_TCP_MSS_MAX);
	err = ixm_tcp_xmit(port, m, &s);
	if (!err)
		t->stats.segs_out++;
	return err;
}
