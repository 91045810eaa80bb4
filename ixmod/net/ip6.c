// SPDX-License-Identifier: GPL-2.0
/*
 * ip6.c - IPv6 input (RFC 8200): header checks, addresses, and a bounded
 * walk of the extension headers
 *
 * A port speaks IPv6 once its global address is configured (sysfs ipv6):
 * it then owns that address, its link-local address (fe80::/64 with the
 * MAC's modified EUI-64, RFC 4291 Appendix A) and the groups a host must
 * hear (RFC 4291 §2.8): all-nodes ff02::1 and the solicited-node group of
 * each address.  Until then every IPv6 frame is counted as ip6_off: an
 * operator who set up IPv4 only gets no IPv6 behaviour at all, link-local
 * included.
 *
 * Extension headers (RFC 8200 §4) are walked in place, at most
 * IXM_IP6_MAX_EXTHDRS of them and never past the payload length:
 * Hop-by-Hop only first (§4.1), options by the two high bits of their type
 * (§4.2), a Routing header with segments left discarded with a parameter
 * problem (§4.4: ixmod routes nothing), a Fragment header counted and
 * dropped as IPv4 fragments are (no reassembly), an unknown next header
 * answered with a parameter problem, code 1 (§4).  Every ICMPv6 error goes
 * through icmp6.c's rate limit and RFC 4443 §2.4 (e)'s rules.
 *
 * There is no forwarding, no multicast beyond the groups above, and TCP
 * over IPv6 waits for its transport: ixm_ip6_deliver_l4().
 */
#include "platform.h"
#include "eth.h"
#include "icmp6.h"
#include "ip6.h"
#include "net.h"
#include "tcp.h"
#include "udp.h"

const struct ixm_in6_addr ixm_ip6_all_nodes = {
	.s6 = { 0xff, 0x02, [15] = 0x01 },
};

/* Whether @a is ff02::1:ffXX:XXXX with the low 24 bits of @addr. */
static bool ixm_ip6_is_solicited_node_of(const struct ixm_in6_addr *a,
					 const struct ixm_in6_addr *addr)
{
	struct ixm_in6_addr grp;

	ixm_ip6_solicited_node(addr, &grp);
	return ixm_ip6_addr_equal(a, &grp);
}

/**
 * ixm_ip6_dst_is_ours() - whether the port takes datagrams sent to @a
 * @cfg: the port's configuration, IPv6 on
 * @a: a destination address
 *
 * Its global and link-local addresses, all-nodes, and the solicited-node
 * group of either address (RFC 4291 §2.8).
 *
 * Context: any.
 * Return: true if @a is one of them.
 */
bool ixm_ip6_dst_is_ours(const struct ixm_if_config *cfg,
			 const struct ixm_in6_addr *a)
{
	if (!ixm_ip6_addr_is_multicast(a))
		return ixm_ip6_addr_is_ours(cfg, a);
	return ixm_ip6_addr_equal(a, &ixm_ip6_all_nodes) ||
	       ixm_ip6_is_solicited_node_of(a, &cfg->ll6) ||
	       ixm_ip6_is_solicited_node_of(a, &cfg->ip6);
}

/**
 * ixm_ip6_eth_mc_is_ours() - whether a multicast MAC is one of our groups'
 * @cfg: the port's configuration
 * @mac: a group MAC address
 *
 * RFC 2464 §7 maps an IPv6 group to 33:33 and its low 32 bits; ours are
 * those of ixm_ip6_dst_is_ours().  Nothing when IPv6 is off.
 *
 * Context: any.
 * Return: true if eth.c should take a frame sent to @mac.
 */
bool ixm_ip6_eth_mc_is_ours(const struct ixm_if_config *cfg, const u8 *mac)
{
	if (mac[0] != 0x33 || mac[1] != 0x33 || !ixm_ip6_enabled(cfg))
		return false;
	if (!mac[2] && !mac[3] && !mac[4] && mac[5] == 1)
		return true;			/* ff02::1 */
	return mac[2] == 0xff && (!memcmp(mac + 3, &cfg->ll6.s6[13], 3) ||
				  !memcmp(mac + 3, &cfg->ip6.s6[13], 3));
}

/**
 * ixm_ip6_onlink() - whether @dst can be reached on the port's link
 * @cfg: the port's configuration, IPv6 on
 * @dst: a unicast destination
 *
 * Link-local addresses always are (RFC 4291 §2.5.6); others when they lie
 * in the global address's prefix (RFC 4861 §5.2's on-link test with the
 * configured prefix as the only Prefix List entry).  ixmod has no Default
 * Router List: anything else cannot be reached.
 *
 * Context: any.
 * Return: true if ixm_nd_resolve() may be asked for @dst.
 */
bool ixm_ip6_onlink(const struct ixm_if_config *cfg, const struct ixm_in6_addr *dst)
{
	unsigned int bits = cfg->ip6_prefix, i;

	if (ixm_ip6_addr_is_linklocal(dst))
		return true;
	if (!bits || ixm_ip6_addr_is_multicast(dst))
		return false;
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (dst->s6[i] != cfg->ip6.s6[i])
			return false;
	return !bits || !((dst->s6[i] ^ cfg->ip6.s6[i]) & (0xff00 >> bits));
}

/**
 * ixm_ip6_src_for() - the source address for a datagram to @dst
 * @cfg: the port's configuration, IPv6 on
 * @dst: the destination
 *
 * RFC 6724 §5 rule 2 (prefer the appropriate scope) with our two
 * addresses: the link-local one for link-local and link-scoped multicast
 * destinations, the global one otherwise.
 *
 * Context: any.
 * Return: a pointer into @cfg.
 */
const struct ixm_in6_addr *ixm_ip6_src_for(const struct ixm_if_config *cfg,
					   const struct ixm_in6_addr *dst)
{
	if (ixm_ip6_addr_is_linklocal(dst) ||
	    (ixm_ip6_addr_is_multicast(dst) && (dst->s6[1] & 0x0f) <= 2))
		return &cfg->ll6;
	return &cfg->ip6;
}

/*
 * RFC 4291 §2.7 ("must not be used as source addresses") and §2.5.3
 * (loopback "must never be sent outside a single node"); our own
 * addresses are reflections, spoofs or a duplicate.  :: passes here:
 * only a Neighbor Solicitation may carry it (RFC 4861 §7.1.1), which
 * icmp6.c and ixm_ip6_deliver_l4() enforce.
 */
static bool ixm_ip6_src_is_bad(const struct ixm_if_config *cfg,
			       const struct ixm_in6_addr *a)
{
	return ixm_ip6_addr_is_multicast(a) || ixm_ip6_addr_is_loopback(a) ||
	       ixm_ip6_addr_is_ours(cfg, a);
}

/*
 * Drop @m for @reason after answering it with an ICMPv6 parameter problem
 * @code pointing at byte @ptr of the datagram (RFC 4443 §3.4), if
 * icmp6.c's rules and rate limit allow; @mc_ok: RFC 4443 §2.4 (e.3)'s
 * exception for an unrecognised option of type 10xxxxxx.
 */
static void ixm_ip6_param_problem(struct ixm_net_port *port, struct ixm_mbuf *m,
				  enum ixm_drop_reason reason, u8 code,
				  unsigned int ptr, bool mc_ok)
{
	ixm_icmp6_send_error(port, m, IXM_ICMP6_PARAMPROB, code, ptr, mc_ok);
	ixm_net_drop(port, m, reason);
}

/*
 * The options of a Hop-by-Hop or Destination Options header of @hlen
 * bytes at byte @off of the datagram (RFC 8200 §4.2).  Pad1 is one byte,
 * every other option a type, a length and that many bytes, inside the
 * header.  Options are skipped (ixmod acts on none: Router Alert and PadN
 * are skipped by their type's 00 high bits as the rest are), except as
 * the two high bits of an unknown type say: 01 discard, 10 discard and
 * send a parameter problem, 11 the same unless the destination was
 * multicast.  Each step moves at least one byte: the walk is bounded by
 * the header.  Returns false when @m was consumed.
 */
static bool ixm_ip6_options(struct ixm_net_port *port, struct ixm_mbuf *m,
			    const u8 *p, unsigned int off, unsigned int hlen)
{
	unsigned int i = off + 2, end = off + hlen;

	while (i < end) {
		u8 type = p[i];

		if (type == 0) {		/* Pad1 */
			i++;
			continue;
		}
		if (end - i < 2 || p[i + 1] > end - i - 2) {
			ixm_net_drop(port, m, IXM_DROP_IP6_EXTHDR);
			return false;
		}
		switch (type >> 6) {
		case 0:				/* skip over this option */
			break;
		case 1:				/* discard the packet */
			ixm_net_drop(port, m, IXM_DROP_IP6_OPT);
			return false;
		case 2:				/* discard, problem even to multicast */
		case 3:				/* discard, problem if not multicast */
			ixm_ip6_param_problem(port, m, IXM_DROP_IP6_OPT,
					      IXM_ICMP6_PARAMPROB_OPTION, i,
					      (type >> 6) == 2);
			return false;
		}
		i += 2 + p[i + 1];
	}
	return true;
}

/*
 * Walk the extension headers after the fixed header of @ih (@end bytes
 * of datagram) and hand the upper layer on.  @nhoff is where the Next
 * Header field naming the header at @off lies: a parameter problem about
 * an unknown next header points there (RFC 8200 §4: "the offset of the
 * unrecognized value within the original packet").
 */
static void ixm_ip6_walk(struct ixm_net_port *port, struct ixm_mbuf *m,
			 struct ixm_ip6hdr *ih, unsigned int end)
{
	unsigned int off = IXM_IP6_HLEN, nhoff = 6, n, hlen;
	const u8 *p = (const u8 *)ih;
	u8 nh = ih->nexthdr;

	for (n = 0; ; n++) {
		switch (nh) {
		case IXM_IPPROTO_ICMPV6:
			ixm_icmp6_input(port, m, ih, off);
			return;
		case IXM_IPPROTO_TCP6:
		case IXM_IPPROTO_UDP6:
			ixm_ip6_deliver_l4(port, m, ih, nh, off);
			return;
		case IXM_IPPROTO_HOPOPTS:
		case IXM_IPPROTO_DSTOPTS:
		case IXM_IPPROTO_ROUTING:
		case IXM_IPPROTO_FRAGMENT:
			break;
		case IXM_IPPROTO_NONE:
			/* RFC 8200 §4.7: nothing follows; nothing to do */
			ixm_net_drop(port, m, IXM_DROP_IP6_NEXTHDR);
			return;
		default:
			/* RFC 8200 §4, RFC 4443 §3.4 code 1 */
			ixm_ip6_param_problem(port, m, IXM_DROP_IP6_NEXTHDR,
					      IXM_ICMP6_PARAMPROB_NEXTHDR, nhoff, false);
			return;
		}
		/* the bound: a longer chain is an attack, not a datagram */
		if (unlikely(n == IXM_IP6_MAX_EXTHDRS)) {
			ixm_net_drop(port, m, IXM_DROP_IP6_EXTHDR);
			return;
		}
		/* RFC 8200 §4.1: Hop-by-Hop Options only right after the header */
		if (unlikely(nh == IXM_IPPROTO_HOPOPTS && n)) {
			ixm_ip6_param_problem(port, m, IXM_DROP_IP6_EXTHDR,
					      IXM_ICMP6_PARAMPROB_NEXTHDR, nhoff, false);
			return;
		}
		if (nh == IXM_IPPROTO_FRAGMENT) {
			/* RFC 8200 §4.5: no reassembly, as for IPv4 */
			ixm_net_drop(port, m, IXM_DROP_IP6_FRAG);
			return;
		}
		/* every one of these is at least 8 bytes, in 8-byte units */
		if (unlikely(end - off < 8 || (p[off + 1] + 1u) * 8 > end - off)) {
			ixm_net_drop(port, m, IXM_DROP_IP6_EXTHDR);
			return;
		}
		hlen = (p[off + 1] + 1u) * 8;
		if (nh == IXM_IPPROTO_ROUTING) {
			/*
			 * RFC 8200 §4.4: with Segments Left 0 the header is
			 * ignored; otherwise we would have to route, which
			 * ixmod does for no Routing Type: a parameter problem
			 * pointing at the Routing Type.
			 */
			if (p[off + 3]) {
				ixm_ip6_param_problem(port, m, IXM_DROP_IP6_RTHDR,
						      IXM_ICMP6_PARAMPROB_HEADER,
						      off + 2, false);
				return;
			}
		} else if (!ixm_ip6_options(port, m, p, off, hlen)) {
			return;
		}
		nhoff = off;
		nh = p[off];
		off += hlen;
	}
}

/**
 * ixm_ip6_deliver_l4() - hand a TCP or UDP datagram to its transport
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the payload length
 * @ih: its IPv6 header
 * @proto: IXM_IPPROTO_TCP6 or IXM_IPPROTO_UDP6
 * @thoff: where the transport header starts, in bytes from @ih
 *
 * The transports' entry point over IPv6: UDP to ixm_udp6_input()
 * (udp6.c), TCP to ixm_tcp_input6() (tcp_in.c).
 *
 * A :: source is refused first (IP6_SRC): only a Neighbor Solicitation
 * may come from it (RFC 4861 §7.1.1; RFC 4291 §2.5.2).  Consumes @m.
 *
 * Context: the port's dataplane core.
 */
void ixm_ip6_deliver_l4(struct ixm_net_port *port, struct ixm_mbuf *m,
			struct ixm_ip6hdr *ih, u8 proto, unsigned int thoff)
{
	if (unlikely(ixm_ip6_addr_is_any(&ih->saddr))) {
		ixm_net_drop(port, m, IXM_DROP_IP6_SRC);
		return;
	}
	if (proto == IXM_IPPROTO_UDP6)
		ixm_udp6_input(port, m, ih, thoff);
	else
		ixm_tcp_input6(port, m, ih, thoff);
}

/**
 * ixm_ip6_input() - validate a received IPv6 datagram and deliver it
 * @port: the port and core it arrived on
 * @m: the frame, @m->data at the Ethernet header, EtherType IPv6
 *
 * The checks, in order, each with its counted reason: the port has IPv6
 * (IP6_OFF), the header fits (IP6_SHORT), version 6 (IP6_VERSION), the
 * payload length fits what arrived (IP6_PLEN; the frame is then trimmed
 * to it, dropping Ethernet padding), addressed to one of our addresses or
 * groups (IP6_DST), from a possible source (IP6_SRC); then the extension
 * headers (ixm_ip6_walk()).  There is no header checksum (RFC 8200 §3),
 * and the hop limit means nothing to a host that does not forward.  A
 * payload length of 0 with a Hop-by-Hop header would be a jumbogram (RFC
 * 2675), which no Ethernet carries: its Jumbo Payload option is unknown
 * here and is answered as such.  Consumes @m.
 *
 * Context: the port's dataplane core.
 */
void ixm_ip6_input(struct ixm_net_port *port, struct ixm_mbuf *m)
{
	const struct ixm_if_config *cfg = port->cfg;
	unsigned int len = m->len - IXM_ETH_HLEN;
	struct ixm_ip6hdr *ih;
	unsigned int plen;

	if (unlikely(!ixm_ip6_enabled(cfg))) {
		ixm_net_drop(port, m, IXM_DROP_IP6_OFF);
		return;
	}
	if (unlikely(len < IXM_IP6_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_IP6_SHORT);
		return;
	}
	ih = ixm_ip6_hdr(m);
	if (unlikely((ixm_ntohl(ih->vtc_flow) >> 28) != 6)) {
		ixm_net_drop(port, m, IXM_DROP_IP6_VERSION);
		return;
	}
	plen = ixm_ntohs(ih->payload_len);
	if (unlikely(plen > len - IXM_IP6_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_IP6_PLEN);
		return;
	}
	/* RFC 894 padding of short frames is not part of the datagram */
	m->len = IXM_ETH_HLEN + IXM_IP6_HLEN + plen;

	if (unlikely(!ixm_ip6_dst_is_ours(cfg, &ih->daddr))) {
		ixm_net_drop(port, m, IXM_DROP_IP6_DST);
		return;
	}
	if (unlikely(ixm_ip6_src_is_bad(cfg, &ih->saddr))) {
		ixm_net_drop(port, m, IXM_DROP_IP6_SRC);
		return;
	}
	ixm_ip6_walk(port, m, ih, IXM_IP6_HLEN + plen);
}
