// SPDX-License-Identifier: GPL-2.0
/*
 * eth.c - Ethernet II input (RFC 894): length, destination, EtherType demux
 *
 * Every received frame enters the protocols here.  A frame is consumed
 * exactly once: queued for transmission (usually rewritten in place into
 * a reply) or dropped with a counted reason (net.h).  @m->data stays at
 * the Ethernet header all the way up, so a protocol that answers in place
 * can rewrite the whole frame.
 */
#include "platform.h"
#include "eth.h"
#include "arp.h"
#include "ip.h"
#include "ip6.h"
#include "net.h"

const u8 ixm_eth_broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/*
 * The EtherTypes we take, searched in order (IPv4 first: it is nearly all
 * of the traffic).  Anything else, VLAN tags included, is counted as
 * IXM_DROP_ETH_TYPE.
 */
static const struct ixm_eth_proto {
	u16	type;		/* host order */
	void	(*input)(struct ixm_net_port *port, struct ixm_mbuf *m);
} ixm_eth_protos[] = {
	{ IXM_ETH_P_IP,		ixm_ip_input },
	{ IXM_ETH_P_ARP,	ixm_arp_input },
	{ IXM_ETH_P_IPV6,	ixm_ip6_input },
};

/**
 * ixm_eth_input() - take one received frame
 * @port: the port and core it arrived on
 * @m: the frame, @m->data at the Ethernet header, FCS already stripped
 *
 * Counts it in rx_packets/rx_bytes, checks that it is long enough,
 * addressed to us (our MAC, broadcast, or with IPv6 on the groups of
 * ixm_ip6_eth_mc_is_ours())
 * and from a unicast source, and hands it to the protocol its EtherType names.  Consumes @m.
 *
 * Context: the port's dataplane core, inside ixm_rcu_read_lock(), with
 * @port->cfg and @port->now_ns set for this iteration.
 */
void ixm_eth_input(struct ixm_net_port *port, struct ixm_mbuf *m)
{
	const struct ixm_ethhdr *eh;
	unsigned int i;
	u16 type;

	port->stats->rx_packets++;
	port->stats->rx_bytes += m->len;

	if (unlikely(m->len < IXM_ETH_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_ETH_SHORT);
		return;
	}
	eh = ixm_eth_hdr(m);
	if (unlikely(!ixm_eth_addr_equal(eh->dst, port->cfg->mac) &&
		     !ixm_eth_addr_equal(eh->dst, ixm_eth_broadcast) &&
		     !ixm_ip6_eth_mc_is_ours(port->cfg, eh->dst))) {
		ixm_net_drop(port, m, IXM_DROP_ETH_DST);
		return;
	}
	/* IEEE 802: no station sends from a group address; never answer one */
	if (unlikely(ixm_eth_addr_is_multicast(eh->src))) {
		ixm_net_drop(port, m, IXM_DROP_ETH_SRC);
		return;
	}
	type = ixm_ntohs(eh->type);
	for (i = 0; i < ARRAY_SIZE(ixm_eth_protos); i++) {
		if (ixm_eth_protos[i].type == type) {
			ixm_eth_protos[i].input(port, m);
			return;
		}
	}
	ixm_net_drop(port, m, IXM_DROP_ETH_TYPE);
}
