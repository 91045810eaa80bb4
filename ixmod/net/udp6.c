// SPDX-License-Identifier: GPL-2.0
/*
 * udp6.c - UDP over IPv6 (RFC 768, RFC 8200 §8.1): input and output
 *
 * The sockets are udp.c's: a port bound on a core takes datagrams of both
 * families, but only a context set up with IXMOD_SETUP_INET6 is given an
 * IPv6 peer (IXMOD_EVF_INET6, the address in the extended event).  To an
 * ABI 2 context an IPv6 datagram is one to an unbound port, answered with
 * an ICMPv6 port unreachable (RFC 4443 §3.1, code 4) under icmp6.c's
 * rules and rate limit: such a context cannot name the peer to reply to.
 *
 * What differs from IPv4: the checksum is mandatory (RFC 8200 §8.1: a
 * datagram with checksum 0 is discarded, and one that sums to 0 is sent
 * as 0xffff), it covers the IPv6 pseudo-header, and the next hop comes
 * from Neighbor Discovery (nd.c), on-link only.  A datagram is at most
 * IXM_UDP6_PAYLOAD_MAX bytes: no fragmentation, as for IPv4.
 *
 * The checksum of a sent datagram is left to a NIC that inserts them
 * (IXM_TXO_CSUM), as udp.c does for IPv4: the pseudo-header's sum in the
 * field, the buffer flagged IXM_MBUF_F_TX_UDP_CSUM | IXM_MBUF_F_TX_IPV6
 * (base/mbuf.h); elsewhere it is computed here.  On receive the NIC's
 * verdict is used, as for IPv4, when it says good.
 */
#include "udp.h"
#include "app.h"
#include "csum.h"
#include "eth.h"
#include "icmp6.h"
#include "ip6.h"
#include "nd.h"

/* RFC 8200 §8.1: the sum over the pseudo-header, the header and the data */
static __sum16 ixm_udp6_csum(const struct ixm_in6_addr *saddr,
			     const struct ixm_in6_addr *daddr, const void *uh, u32 ulen)
{
	return ixm_csum_fold(ixm_csum_pseudo6(saddr, daddr, IXM_IPPROTO_UDP6, ulen,
					      ixm_csum_partial(uh, ulen, 0)));
}

/*
 * No context on this core may hear from @ih's source on @uh's port: answer
 * with a port unreachable (RFC 4443 §3.1 code 4; icmp6.c refuses it for
 * a datagram to a group, and rate-limits), then drop and count.
 */
static void ixm_udp6_unreach(struct ixm_net_port *port, struct ixm_mbuf *m)
{
	ixm_icmp6_send_error(port, m, IXM_ICMP6_DEST_UNREACH, IXM_ICMP6_UNREACH_PORT,
			     0, false);
	ixm_net_drop(port, m, IXM_DROP_UDP6_NO_SOCK);
}

/**
 * ixm_udp6_input() - deliver a datagram over IPv6 to the context that
 *	bound its port
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the IPv6 payload length
 * @ih: its IPv6 header (ixm_ip6_input(): a unicast source, not ::)
 * @thoff: where the UDP header starts, in bytes from @ih
 *
 * Checks, each with its counted reason: the payload holds a UDP header
 * (UDP6_SHORT); RFC 768's length covers the header and fits the payload
 * (UDP6_LEN; extra payload is ignored, as for IPv4); the checksum is not
 * 0 (UDP6_NOCSUM, RFC 8200 §8.1) and is right (UDP6_CSUM; the NIC's "good"
 * is taken when it checked the whole payload).  Then the socket: none,
 * one whose context is dead or not IXMOD_SETUP_INET6, or a datagram to a
 * group (no socket joins one): UDP6_NO_SOCK with a port unreachable.
 * Delivery is udp.c's, with IXMOD_EVF_INET6 and the source address in
 * the extended event; ring full or pool low: UDP_APP_FULL.  Consumes @m.
 *
 * Context: the port's dataplane core.
 */
void ixm_udp6_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		    struct ixm_ip6hdr *ih, unsigned int thoff)
{
	unsigned int len = ixm_ip6_l4_len(m, thoff), ulen;
	struct ixm_udp_sock *s = NULL;
	struct ixmod_event ev;
	struct ixm_udphdr *uh;

	if (unlikely(len < IXM_UDP_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_UDP6_SHORT);
		return;
	}
	uh = (struct ixm_udphdr *)((u8 *)ih + thoff);
	ulen = ixm_ntohs(uh->len);
	if (unlikely(ulen < IXM_UDP_HLEN || ulen > len)) {
		ixm_net_drop(port, m, IXM_DROP_UDP6_LEN);
		return;
	}
	if (unlikely(!uh->check)) {
		ixm_net_drop(port, m, IXM_DROP_UDP6_NOCSUM);
		return;
	}
	/* as udp.c: the NIC's "bad", or no verdict, is checked again here */
	if (!((m->flags & IXM_MBUF_F_L4_CSUM_OK) && ulen == len) &&
	    unlikely(ixm_udp6_csum(&ih->saddr, &ih->daddr, uh, ulen))) {
		ixm_net_drop(port, m, IXM_DROP_UDP6_CSUM);
		return;
	}
	if (port->stack && !ixm_ip6_addr_is_multicast(&ih->daddr))
		s = ixm_udp_lookup(port->stack->udp, ixm_ntohs(uh->dest));
	if (!s || s->app->dead || !s->app->inet6) {
		ixm_udp6_unreach(port, m);
		return;
	}
	/* udp.c's rule: the pool's last quarter is not the application's */
	if (unlikely(!ixm_mbuf_pool_free_over(m->pool, IXM_POOL_RESERVE_UNTAKEN))) {
		s->app->stats.rx_dropped++;
		ixm_net_drop(port, m, IXM_DROP_UDP_APP_FULL);
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = IXMOD_EV_UDP_RECV;
	ev.flags = IXMOD_EVF_INET6;
	ev.res = ulen - IXM_UDP_HLEN;
	ev.user_data = s->cookie;
	ev.off = ixm_app_rx_off(m) + ((u8 *)uh + IXM_UDP_HLEN - m->data);
	ev.port = uh->source;
	ev.lport = uh->dest;
	if (ixm_app_post6(s->app, &ev,
			  ixm_handle(IXMOD_HANDLE_UDP, (u32)(s - port->stack->udp->socks),
				     s->gen), &ih->saddr)) {
		s->app->stats.rx_dropped++;
		ixm_net_drop(port, m, IXM_DROP_UDP_APP_FULL);
		return;
	}
	m->data = (u8 *)uh + IXM_UDP_HLEN;
	m->len = ev.res;
	m->owner = s->app;
	s->app->stats.rx_bufs++;
	port->stats->udp6_in++;
}

/**
 * ixm_udp6_send() - build and queue one datagram over IPv6
 * @st: the core's protocol state
 * @s: the sending socket (its port is the source port)
 * @data: the payload, inside the transmit arena
 * @len: payload bytes, at most IXM_UDP6_PAYLOAD_MAX
 * @daddr: destination, a unicast address not ours (the caller checked)
 * @dport: destination port, not 0
 *
 * The source address is the port's of @daddr's scope (ixm_ip6_src_for()),
 * the hop limit IXM_IP6_HOPLIMIT, traffic class and flow label 0.  As
 * ixm_udp_send() does while ARP resolves, a neighbour not yet known fails
 * the send with -EAGAIN after a Neighbor Solicitation went out (nothing
 * is queued or counted; the application sends again).
 *
 * Return: @len when queued; IXM_CALL_RETRY when the port's TX batch is
 * full; -ENETUNREACH (no port with IPv6 has @daddr on its link: ixmod
 * has no router); -EAGAIN (the neighbour is being resolved); -ENOBUFS (no
 * buffer); another errno from ixm_nd_resolve().
 */
int ixm_udp6_send(struct ixm_stack *st, const struct ixm_udp_sock *s,
		  const u8 *data, u16 len, const struct ixm_in6_addr *daddr,
		  __be16 dport)
{
	const struct ixm_in6_addr *saddr;
	const struct ixm_if_config *cfg;
	struct ixm_net_port *np;
	struct ixm_ethhdr *eh;
	struct ixm_udphdr *uh;
	struct ixm_ip6hdr *ih;
	struct ixm_mbuf *m;
	u8 mac[ETH_ALEN];
	u16 ulen = IXM_UDP_HLEN + len;
	int err;

	np = ixm_stack_route6(st, daddr);
	if (!np)
		return -ENETUNREACH;
	cfg = np->cfg;
	/* room for the datagram and for a solicitation the resolve may send */
	if (np->ntx + 2 > IXM_TX_BATCH)
		return IXM_CALL_RETRY;
	err = ixm_nd_resolve(np, daddr, mac);
	if (err)
		return err;
	m = ixm_mbuf_alloc(np->pool);
	if (!m) {
		np->stats->drops[IXM_DROP_NO_BUF]++;
		return -ENOBUFS;
	}

	saddr = ixm_ip6_src_for(cfg, daddr);
	eh = ixm_eth_hdr(m);
	ih = ixm_ip6_hdr(m);
	uh = (struct ixm_udphdr *)(ih + 1);
	memcpy((u8 *)uh + IXM_UDP_HLEN, data, len);
	uh->source = ixm_htons(s->port);
	uh->dest = dport;
	uh->len = ixm_htons(ulen);
	if (np->tx_offload & IXM_TXO_CSUM) {
		/* the pseudo-header's sum; the NIC adds the rest (mbuf.h) */
		uh->check = ~ixm_csum_fold(ixm_csum_pseudo6(saddr, daddr, IXM_IPPROTO_UDP6,
							    ulen, 0));
		m->flags |= IXM_MBUF_F_TX_UDP_CSUM | IXM_MBUF_F_TX_IPV6;
	} else {
		uh->check = 0;
		uh->check = ixm_udp6_csum(saddr, daddr, uh, ulen);
		if (!uh->check)
			uh->check = (__force __sum16)0xffff;	/* RFC 8200 §8.1 */
		np->stats->tx_csum_sw++;
	}
	ixm_ip6_build_header(ih, saddr, daddr, IXM_IPPROTO_UDP6, ulen, IXM_IP6_HOPLIMIT);
	memcpy(eh->dst, mac, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	eh->type = ixm_htons(IXM_ETH_P_IPV6);
	m->len = IXM_ETH_HLEN + IXM_IP6_HLEN + ulen;
	np->stats->udp6_out++;
	ixm_net_xmit(np, m);
	return len;
}
