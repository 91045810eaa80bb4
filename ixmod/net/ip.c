// SPDX-License-Identifier: GPL-2.0
/*
 * ip.c - IPv4 input validation (RFC 791, RFC 1122 §3.2.1) and header
 * construction
 *
 * Input checks every field a host must check, in a fixed order, each with
 * its own drop counter, and trims Ethernet padding from the frame, so the
 * transport protocols see exactly the datagram.  There is no reassembly
 * (fragments are counted and dropped), no forwarding and no broadcast or
 * multicast reception yet.
 */
#include "platform.h"
#include "csum.h"
#include "eth.h"
#include "icmp.h"
#include "ip.h"
#include "net.h"
#include "tcp.h"
#include "udp.h"

/* What each protocol number is handed to; a NULL slot is IXM_DROP_IP_PROTO. */
static void (* const ixm_ip_protos[256])(struct ixm_net_port *port,
					 struct ixm_mbuf *m,
					 struct ixm_iphdr *ih) = {
	[IXM_IPPROTO_ICMP]	= ixm_icmp_input,
	[IXM_IPPROTO_TCP]	= ixm_tcp_input,
	[IXM_IPPROTO_UDP]	= ixm_udp_input,
};

/**
 * ixm_ip_src_is_bad() - whether a source address can be another host's
 * @cfg: the port's configuration (address and prefix)
 * @saddr: the source address of a datagram or ARP packet
 *
 * RFC 1122 §3.2.1.3: a datagram whose source is not a unicast address of
 * another host is discarded.  That excludes {0, *} ("this network", legal
 * only while a host learns its address), 127/8 (loopback, never on a
 * wire), 224/4 (multicast), 240/4 (reserved, and 255.255.255.255, the
 * limited broadcast), the directed broadcast of our own subnet, and our own
 * address (a reflection, a spoof, or an address conflict).
 *
 * Context: any.
 * Return: true if @saddr must not be accepted as a source.
 */
bool ixm_ip_src_is_bad(const struct ixm_if_config *cfg, __be32 saddr)
{
	u32 s = ixm_ntohl(saddr);
	u8 first = s >> 24;

	if (first == 0 || first == 127 || first >= 224)
		return true;
	if (saddr == cfg->ip)
		return true;
	/*
	 * Our subnet's broadcast: on our network, host part all ones.  A /31
	 * has no broadcast address (RFC 3021 §2.1), a /32 no subnet.
	 */
	return cfg->prefix < 31 && !((saddr ^ cfg->ip) & cfg->netmask) &&
	       !~(saddr | cfg->netmask);
}

/**
 * ixm_ip_input() - validate a received IPv4 datagram and deliver it
 * @port: the port and core it arrived on
 * @m: the frame, @m->data at the Ethernet header, EtherType IPv4
 *
 * The checks, in order, each counted with its own reason:
 * the header fits (IP_SHORT), version 4 (IP_VERSION), 5 <= IHL and the
 * header fits (IP_HLEN), IHL * 4 <= total length <= what arrived
 * (IP_TOTLEN; the frame is then trimmed to the total length, dropping
 * Ethernet padding), the header checksum (IP_CSUM; the NIC's verdict is
 * used when it gave one), not a fragment (IP_FRAG), TTL not 0 (IP_TTL),
 * an address configured (NO_ADDR), addressed to us (IP_DST), a sensible
 * source (IP_SRC), and a protocol we handle (IP_PROTO).  Consumes @m.
 *
 * Context: the port's dataplane core.
 */
void ixm_ip_input(struct ixm_net_port *port, struct ixm_mbuf *m)
{
	void (*input)(struct ixm_net_port *port, struct ixm_mbuf *m,
		      struct ixm_iphdr *ih);
	const struct ixm_if_config *cfg = port->cfg;
	unsigned int len = m->len - IXM_ETH_HLEN;
	unsigned int hlen, tot;
	struct ixm_iphdr *ih;

	/* RFC 1122 §3.2.1.1-2: check version and checksum, silently discard */
	if (unlikely(len < IXM_IP_HLEN)) {
		ixm_net_drop(port, m, IXM_DROP_IP_SHORT);
		return;
	}
	ih = (struct ixm_iphdr *)(m->data + IXM_ETH_HLEN);
	if (likely(ih->ver_ihl == 0x45)) {	/* nearly all: no options */
		hlen = IXM_IP_HLEN;
	} else {
		if (unlikely((ih->ver_ihl >> 4) != 4)) {
			ixm_net_drop(port, m, IXM_DROP_IP_VERSION);
			return;
		}
		/* RFC 791 §3.1: "the minimum value for a correct header is 5" */
		hlen = ixm_ip_hlen(ih);
		if (unlikely(hlen < IXM_IP_HLEN || hlen > len)) {
			ixm_net_drop(port, m, IXM_DROP_IP_HLEN);
			return;
		}
	}
	tot = ixm_ntohs(ih->tot_len);
	if (unlikely(tot < hlen || tot > len)) {
		ixm_net_drop(port, m, IXM_DROP_IP_TOTLEN);
		return;
	}
	/* RFC 894: frames shorter than 60 bytes were padded by the sender */
	m->len = IXM_ETH_HLEN + tot;

	/* RFC 791 §3.1 "Header Checksum"; RFC 1122 §3.2.1.2 MUST verify */
	if (unlikely(m->flags & IXM_MBUF_F_IP_CSUM_BAD) ||
	    (!(m->flags & IXM_MBUF_F_IP_CSUM_OK) && ixm_csum(ih, hlen))) {
		ixm_net_drop(port, m, IXM_DROP_IP_CSUM);
		return;
	}
	/* RFC 791 §3.2 "Fragmentation and reassembly": not supported */
	if (unlikely(ih->frag_off & ixm_htons(IXM_IP_MF | IXM_IP_OFFSET))) {
		ixm_net_drop(port, m, IXM_DROP_IP_FRAG);
		return;
	}
	/* RFC 791 §3.1 "Time to Live": zero means the datagram must die */
	if (unlikely(!ih->ttl)) {
		ixm_net_drop(port, m, IXM_DROP_IP_TTL);
		return;
	}
	if (unlikely(!cfg->ip)) {
		ixm_net_drop(port, m, IXM_DROP_NO_ADDR);
		return;
	}
	/*
	 * RFC 1122 §3.2.1.3 lets a host take broadcasts too; nothing here
	 * needs them yet, so only our unicast address is accepted.
	 */
	if (unlikely(ih->daddr != cfg->ip)) {
		ixm_net_drop(port, m, IXM_DROP_IP_DST);
		return;
	}
	if (unlikely(ixm_ip_src_is_bad(cfg, ih->saddr))) {
		ixm_net_drop(port, m, IXM_DROP_IP_SRC);
		return;
	}
	/* TCP and UDP called directly, not through the table: no retpoline */
	if (likely(ih->protocol == IXM_IPPROTO_TCP)) {
		ixm_tcp_input(port, m, ih);
		return;
	}
	if (ih->protocol == IXM_IPPROTO_UDP) {
		ixm_udp_input(port, m, ih);
		return;
	}
	input = ixm_ip_protos[ih->protocol];
	if (unlikely(!input)) {
		ixm_net_drop(port, m, IXM_DROP_IP_PROTO);
		return;
	}
	input(port, m, ih);
}
