// SPDX-License-Identifier: GPL-2.0
/*
 * icmp6.c - ICMPv6 (RFC 4443): echo replies, error messages, and Neighbor
 * Discovery's messages handed to nd.c
 *
 * An echo request's buffer becomes the reply, as for IPv4 (icmp.c).
 * Errors are built in a new buffer, quoting as much of the invoking
 * datagram as keeps the message within the minimum MTU (§2.4 (c)), and
 * are never sent in answer to an error, to a datagram for a multicast
 * group or sent to a link-layer group (except a parameter problem about
 * an option whose type asks for one, §2.4 (e)), or to a source that is
 * not one node; and at most IXM_ICMP6_ERR_BURST at once, then one per
 * IXM_ICMP6_ERR_NS, per core and port (§2.4 (f)).
 *
 * A Destination Unreachable or Packet Too Big quoting a TCP segment goes
 * to TCP (ixm_tcp_icmp6_err(): RFC 4443 §2.4 (b), §3.1, §3.2), which
 * counts it acted on or ignored in its own counters, or hands it to the
 * core of the port that owns the connection (net/icmp6_relay.h).  Other messages are
 * counted and dropped as icmp6_type: echo replies, the other errors and
 * errors about anything but TCP (UDP reports none to its sockets), MLD
 * (ixmod answers no queries: its groups are link-local ones a switch
 * floods anyway), and the router messages: a host with a static address
 * and no default router (ixmod has no gateway) has nothing to learn from
 * a Router Advertisement or a Redirect (RFC 4861 §6.3.4, §8.3 apply to
 * hosts that use them), so both are ignored.
 */
#include "platform.h"
#include "csum.h"
#include "eth.h"
#include "icmp6.h"
#include "ip6.h"
#include "nd.h"
#include "net.h"
#include "tcp.h"

/**
 * ixm_icmp6_csum() - the ICMPv6 checksum of a message
 * @ih: the IPv6 header it travels in (its addresses)
 * @msg: the message, its checksum field included
 * @len: its bytes
 *
 * RFC 4443 §2.3: the Internet checksum of the pseudo-header (RFC 8200
 * §8.1, next header 58) and the message.
 *
 * Context: any.
 * Return: 0 if the checksum field in @msg is right; with the field 0, the
 * value to store in it.
 */
__sum16 ixm_icmp6_csum(const struct ixm_ip6hdr *ih, const void *msg, u32 len)
{
	return ixm_csum_fold(ixm_csum_pseudo6(&ih->saddr, &ih->daddr,
					      IXM_IPPROTO_ICMPV6, len,
					      ixm_csum_partial(msg, len, 0)));
}

/*
 * Whether the datagram in @m carries an ICMPv6 error or a Redirect
 * (RFC 4443 §2.4 (e.1), (e.2)): its extension headers skipped as ip6.c
 * walks them, at most IXM_IP6_MAX_EXTHDRS, inside the datagram.  A chain
 * that cannot be followed is not known to be one (Linux decides the same).
 */
static bool ixm_icmp6_answers_error(const struct ixm_mbuf *m)
{
	const struct ixm_ip6hdr *ih = ixm_ip6_hdr(m);
	unsigned int end = m->len - IXM_ETH_HLEN, off = IXM_IP6_HLEN, n;
	const u8 *p = (const u8 *)ih;
	u8 nh = ih->nexthdr;

	for (n = 0; n <= IXM_IP6_MAX_EXTHDRS; n++) {
		if (nh == IXM_IPPROTO_ICMPV6)
			return end - off >= 1 && (p[off] < 128 ||
						 p[off] == IXM_ND_REDIRECT);
		if (nh != IXM_IPPROTO_HOPOPTS && nh != IXM_IPPROTO_DSTOPTS &&
		    nh != IXM_IPPROTO_ROUTING)
			return false;
		if (end - off < 8 || (p[off + 1] + 1u) * 8 > end - off)
			return false;
		nh = p[off];
		off += (p[off + 1] + 1u) * 8;
	}
	return false;
}

/* RFC 4443 §2.4 (f): a token bucket, kept as GCRA's one timestamp. */
static bool ixm_icmp6_error_allowed(struct ixm_net_port *port)
{
	u64 now = port->now_ns, tat = port->icmp6_tat_ns;

	if ((s64)(tat - now) < 0)
		tat = now;
	if ((s64)(tat - now) > (s64)((IXM_ICMP6_ERR_BURST - 1) * IXM_ICMP6_ERR_NS))
		return false;
	port->icmp6_tat_ns = tat + IXM_ICMP6_ERR_NS;
	return true;
}

/**
 * ixm_icmp6_send_error() - answer a datagram with an ICMPv6 error
 * @port: the port and core it arrived on
 * @m: the invoking frame, trimmed to its datagram; not consumed
 * @type: IXM_ICMP6_DEST_UNREACH, _PKT_TOOBIG, _TIME_EXCEED or _PARAMPROB
 * @code: per @type
 * @info: the pointer (parameter problem) or MTU (packet too big)
 * @mc_ok: may answer a datagram to a multicast group or link-layer group
 *	address: a packet too big, or a parameter problem about an option
 *	of type 10xxxxxx (RFC 4443 §2.4 (e.3), (e.4))
 *
 * RFC 4443 §2.4: never about an ICMPv6 error or a Redirect (e.1, e.2), a
 * datagram for a group or sent to a link-layer group unless @mc_ok (e.3,
 * e.4), or from a source that is not one node (e.6: :: or a group);
 * rate-limited (f).  The source is the address the datagram was sent to
 * when that is ours, else ixm_ip6_src_for() (§2.2); the message goes back
 * to the MAC the frame came from (ixmod has no router to route through),
 * and quotes as much of the datagram as fits in IXM_IP6_MIN_MTU (§2.4 (c)).
 *
 * Context: the port's dataplane core.
 * Return: 0 when queued; -EPERM when the rules forbid an answer, -EBUSY
 * over the rate limit (icmp6_errors_ratelimited), -ENOBUFS (the pool's
 * alloc_fail counts it) or -ENOSPC (tx_full).
 */
int ixm_icmp6_send_error(struct ixm_net_port *port, const struct ixm_mbuf *m,
			 u8 type, u8 code, u32 info, bool mc_ok)
{
	const struct ixm_ip6hdr *oih = ixm_ip6_hdr(m);
	const struct ixm_ethhdr *oeh = ixm_eth_hdr(m);
	const struct ixm_if_config *cfg = port->cfg;
	const struct ixm_in6_addr *src;
	unsigned int qlen, len;
	struct ixm_icmp6hdr *ic;
	struct ixm_ip6hdr *ih;
	struct ixm_ethhdr *eh;
	struct ixm_mbuf *n;
	int err;

	if (!mc_ok && (ixm_ip6_addr_is_multicast(&oih->daddr) ||
		       ixm_eth_addr_is_multicast(oeh->dst)))
		return -EPERM;
	if (ixm_ip6_addr_is_any(&oih->saddr) ||
	    ixm_ip6_addr_is_multicast(&oih->saddr) || ixm_icmp6_answers_error(m))
		return -EPERM;
	if (!ixm_icmp6_error_allowed(port)) {
		port->stats->icmp6_errors_ratelimited++;
		return -EBUSY;
	}
	n = ixm_mbuf_alloc(port->pool);
	if (unlikely(!n))
		return -ENOBUFS;

	qlen = min_t(unsigned int, m->len - IXM_ETH_HLEN,
		     IXM_IP6_MIN_MTU - IXM_IP6_HLEN - IXM_ICMP6_HLEN);
	len = IXM_ICMP6_HLEN + qlen;
	src = ixm_ip6_addr_is_ours(cfg, &oih->daddr) ? &oih->daddr :
						      ixm_ip6_src_for(cfg, &oih->saddr);

	eh = ixm_eth_hdr(n);
	memcpy(eh->dst, oeh->src, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	eh->type = ixm_htons(IXM_ETH_P_IPV6);
	ih = ixm_ip6_hdr(n);
	ixm_ip6_build_header(ih, src, &oih->saddr, IXM_IPPROTO_ICMPV6, len,
			     IXM_IP6_HOPLIMIT);
	ic = (struct ixm_icmp6hdr *)(ih + 1);
	ic->type = type;
	ic->code = code;
	ic->checksum = 0;
	ic->data = ixm_htonl(info);
	memcpy(ic + 1, oih, qlen);
	ic->checksum = ixm_icmp6_csum(ih, ic, len);
	n->len = IXM_ETH_HLEN + IXM_IP6_HLEN + len;

	err = ixm_net_xmit(port, n);
	if (!err)
		port->stats->icmp6_errors_out++;
	return err;
}

/*
 * Turn the echo request in @m (@len bytes of ICMPv6 at @thoff) into the
 * reply, in place (RFC 4443 §4.2): identifier, sequence and data kept,
 * type 129, from the address the request was sent to, or for a request
 * to a group from our address of the requester's scope (§4.2: "a unicast
 * address belonging to the interface"), to the requester.  Extension
 * headers are not echoed: the fixed headers slide up to the message.
 */
static void ixm_icmp6_echo_reply(struct ixm_net_port *port, struct ixm_mbuf *m,
				 struct ixm_ip6hdr *ih, unsigned int thoff,
				 unsigned int len)
{
	const struct ixm_if_config *cfg = port->cfg;
	unsigned int ext = thoff - IXM_IP6_HLEN;
	struct ixm_in6_addr src, dst;
	struct ixm_icmp6hdr *ic;
	struct ixm_ethhdr *eh;

	dst = ih->saddr;
	src = ixm_ip6_addr_is_multicast(&ih->daddr) ? *ixm_ip6_src_for(cfg, &dst) :
						      ih->daddr;
	if (ext) {
		memmove(m->data + ext, m->data, IXM_ETH_HLEN + IXM_IP6_HLEN);
		m->data += ext;
		m->len -= ext;
		ih = ixm_ip6_hdr(m);
	}
	ixm_ip6_build_header(ih, &src, &dst, IXM_IPPROTO_ICMPV6, len,
			     IXM_IP6_HOPLIMIT);
	ic = (struct ixm_icmp6hdr *)(ih + 1);
	ic->type = IXM_ICMP6_ECHO_REPLY;
	ic->checksum = 0;
	ic->checksum = ixm_icmp6_csum(ih, ic, len);

	eh = ixm_eth_hdr(m);
	memcpy(eh->dst, eh->src, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);
	m->flags = 0;
	if (!ixm_net_xmit(port, m))
		port->stats->icmp6_echo_replies++;
}

/*
 * A Destination Unreachable (RFC 4443 §3.1) or Packet Too Big (§3.2), @len
 * bytes at @ic: the invoking packet it quotes, when that is a TCP segment
 * whose first 8 bytes (ports, sequence number) are there, goes to TCP.
 * ixmod's segments carry no extension header (tcp_out.c builds none, and
 * RFC 8200 §4 lets no node on the path insert one), so a quote whose
 * next header is not TCP is not of one: no walk, nothing to bound.
 * Everything else, and a quote too short, is ICMP6_TYPE as before.
 * Consumes @m.
 */
static void ixm_icmp6_error_input(struct ixm_net_port *port, struct ixm_mbuf *m,
				  const struct ixm_icmp6hdr *ic, unsigned int len)
{
	const struct ixm_ip6hdr *oih = (const struct ixm_ip6hdr *)(ic + 1);

	if (len < IXM_ICMP6_HLEN + IXM_IP6_HLEN + 8 ||
	    ixm_ntohl(oih->vtc_flow) >> 28 != 6 || oih->nexthdr != IXM_IPPROTO_TCP6 ||
	    !ixm_tcp_icmp6_err(port, ic->type, ic->code, ixm_ntohl(ic->data), oih,
			       (const struct ixm_tcphdr *)(oih + 1))) {
		ixm_net_drop(port, m, IXM_DROP_ICMP6_TYPE);
		return;
	}
	ixm_mbuf_free(m);
}

/**
 * ixm_icmp6_input() - handle an ICMPv6 message addressed to us
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the payload length
 * @ih: its IPv6 header (ixm_ip6_input())
 * @thoff: where the message starts, in bytes from @ih
 *
 * Checks the length (ICMP6_SHORT) and the checksum over the pseudo-header
 * and the message (ICMP6_CSUM, RFC 4443 §2.3); only a Neighbor
 * Solicitation may come from :: (IP6_SRC, RFC 4861 §7.1.1).  Echo
 * requests (code 0, RFC 4443 §4.1) are answered, Neighbor Solicitations
 * and Advertisements go to nd.c, Destination Unreachables and Packet Too
 * Bigs about TCP to tcp_in.c, and the rest is ICMP6_TYPE (the file's
 * comment says why).  Consumes @m.
 *
 * Context: the port's dataplane core.
 */
void ixm_icmp6_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		     struct ixm_ip6hdr *ih, unsigned int thoff)
{
	unsigned int len = ixm_ip6_l4_len(m, thoff);
	struct ixm_icmp6hdr *ic;

	if (unlikely(len < 4)) {
		ixm_net_drop(port, m, IXM_DROP_ICMP6_SHORT);
		return;
	}
	ic = (struct ixm_icmp6hdr *)((u8 *)ih + thoff);
	if (unlikely(ixm_icmp6_csum(ih, ic, len))) {
		ixm_net_drop(port, m, IXM_DROP_ICMP6_CSUM);
		return;
	}
	if (unlikely(ixm_ip6_addr_is_any(&ih->saddr) &&
		     ic->type != IXM_ND_NEIGH_SOLICIT)) {
		ixm_net_drop(port, m, IXM_DROP_IP6_SRC);
		return;
	}
	switch (ic->type) {
	case IXM_ICMP6_ECHO_REQUEST:
		if (unlikely(len < IXM_ICMP6_HLEN)) {
			ixm_net_drop(port, m, IXM_DROP_ICMP6_SHORT);
			return;
		}
		if (unlikely(ic->code)) {
			ixm_net_drop(port, m, IXM_DROP_ICMP6_TYPE);
			return;
		}
		ixm_icmp6_echo_reply(port, m, ih, thoff, len);
		return;
	case IXM_ND_NEIGH_SOLICIT:
		ixm_nd_ns_input(port, m, ih, thoff);
		return;
	case IXM_ND_NEIGH_ADVERT:
		ixm_nd_na_input(port, m, ih, thoff);
		return;
	case IXM_ICMP6_DEST_UNREACH:
	case IXM_ICMP6_PKT_TOOBIG:
		ixm_icmp6_error_input(port, m, ic, len);
		return;
	default:
		ixm_net_drop(port, m, IXM_DROP_ICMP6_TYPE);
		return;
	}
}
