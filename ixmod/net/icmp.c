// SPDX-License-Identifier: GPL-2.0
/*
 * icmp.c - ICMP for IPv4 (RFC 792): answer echo requests in place
 *
 * The request's buffer becomes the reply: no copy, whatever the size
 * (up to a full 1500-byte datagram, ping -s 1472).  Nothing else is
 * answered or generated yet; other types are counted and dropped.
 */
#include "platform.h"
#include "csum.h"
#include "eth.h"
#include "icmp.h"
#include "ip.h"
#include "net.h"

/*
 * Turn the validated echo request in @m (@len bytes of ICMP at @ic) into
 * the reply, in place.
 *
 * RFC 792 "Echo or Echo Reply": the reply swaps the addresses, changes
 * the type to 0 and keeps identifier, sequence number and data.  The
 * ICMP checksum is updated for the type change alone (RFC 1624 §3).
 * IP options are not echoed: the reply's header is rebuilt without them
 * (RFC 1122 §3.2.2.6 would have Record Route and Timestamp updated and a
 * source route reversed; RFC 7126 §4.3-4.4 has most networks drop
 * source-routed datagrams anyway).
 */
static void ixm_icmp_echo_reply(struct ixm_net_port *port, struct ixm_mbuf *m,
				struct ixm_iphdr *ih, struct ixm_icmphdr *ic,
				unsigned int len)
{
	unsigned int optlen = ixm_ip_hlen(ih) - IXM_IP_HLEN;
	const struct ixm_if_config *cfg = port->cfg;
	struct ixm_ethhdr *eh;
	__be32 peer;

	ic->type = IXM_ICMP_ECHOREPLY;
	ic->checksum = ixm_csum_replace16(ic->checksum,
					  ixm_htons(IXM_ICMP_ECHO << 8),
					  ixm_htons(IXM_ICMP_ECHOREPLY << 8));
	/*
	 * RFC 1624 §3's one exception: if the reply is all zeros (identifier,
	 * sequence and data zero) the update gives 0x0000 where the checksum
	 * must be 0xffff.  ICMP has no pseudo-header to rule that out, so a
	 * zero result, rare, is recomputed from scratch.
	 */
	if (unlikely(!ic->checksum))
		ic->checksum = ixm_csum(ic, len);

	if (optlen) {
		/* slide the Ethernet and fixed IP headers up to the ICMP header */
		memmove(m->data + optlen, m->data, IXM_ETH_HLEN + IXM_IP_HLEN);
		m->data += optlen;
		m->len -= optlen;
		ih = (struct ixm_iphdr *)(m->data + IXM_ETH_HLEN);
		ih->ver_ihl = 0x45;
		ih->tot_len = ixm_htons(ixm_ntohs(ih->tot_len) - optlen);
	}
	peer = ih->saddr;
	ih->saddr = cfg->ip;
	ih->daddr = peer;
	ih->ttl = IXM_IP_TTL;
	ih->check = 0;
	ih->check = ixm_csum(ih, IXM_IP_HLEN);

	eh = ixm_eth_hdr(m);
	memcpy(eh->dst, eh->src, ETH_ALEN);
	memcpy(eh->src, cfg->mac, ETH_ALEN);

	m->flags = 0;	/* the receive flags say nothing about the reply */
	port->stats->icmp_echo_replies++;
	ixm_net_xmit(port, m);
}

/**
 * ixm_icmp_input() - handle an ICMP message addressed to us
 * @port: the port and core it arrived on
 * @m: the frame, trimmed to the IP total length
 * @ih: its validated IPv4 header (ixm_ip_input())
 *
 * Checks the length (ICMP_SHORT), the checksum over the whole message
 * (ICMP_CSUM, RFC 792 "Checksum") and the type (ICMP_TYPE: only echo
 * requests, code 0, are handled), then answers.  Consumes @m.
 *
 * Context: the port's dataplane core.
 */
void ixm_icmp_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		    struct ixm_iphdr *ih)
{
	unsigned int hlen = ixm_ip_hlen(ih);
	unsigned int len = ixm_ntohs(ih->tot_len) - hlen;
	struct ixm_icmphdr *ic;

	if (unlikely(len < IXM_ICMP_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_ICMP_SHORT);
		return;
	}
	ic = (struct ixm_icmphdr *)((u8 *)ih + hlen);
	if (unlikely(ixm_csum(ic, len))) {
		ixm_net_drop(port, m, IXM_DROP_ICMP_CSUM);
		return;
	}
	if (unlikely(ic->type != IXM_ICMP_ECHO || ic->code != 0)) {
		ixm_net_drop(port, m, IXM_DROP_ICMP_TYPE);
		return;
	}
	ixm_icmp_echo_reply(port, m, ih, ic, len);
}
