/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip.h - IPv4 (RFC 791): header layout, input, header construction
 */
#ifndef _IXM_NET_IP_H
#define _IXM_NET_IP_H

#include "platform.h"
#include "net.h"
#include "csum.h"

#define IXM_IP_HLEN		20	/* header without options */
#define IXM_IP_TTL		64	/* RFC 1700 / IANA recommended default */

/* ixm_iphdr.frag_off, host order (RFC 791 §3.1 "Flags", "Fragment Offset") */
#define IXM_IP_DF		0x4000	/* don't fragment */
#define IXM_IP_MF		0x2000	/* more fragments */
#define IXM_IP_OFFSET		0x1fff	/* fragment offset, 8-byte units */

#define IXM_IPPROTO_ICMP	1

/**
 * struct ixm_iphdr - IPv4 header (RFC 791 §3.1), without options
 * @ver_ihl: version (high nibble) and header length in 32-bit words
 * @tos: type of service (DSCP and ECN)
 * @tot_len: total length, header and data
 * @id: identification
 * @frag_off: flags and fragment offset (IXM_IP_DF, _MF, _OFFSET)
 * @ttl: time to live
 * @protocol: IXM_IPPROTO_*
 * @check: header checksum
 * @saddr: source address
 * @daddr: destination address
 */
struct ixm_iphdr {
	u8	ver_ihl;
	u8	tos;
	__be16	tot_len;
	__be16	id;
	__be16	frag_off;
	u8	ttl;
	u8	protocol;
	__sum16	check;
	__be32	saddr;
	__be32	daddr;
} __packed;

static inline unsigned int ixm_ip_hlen(const struct ixm_iphdr *ih)
{
	return (ih->ver_ihl & 0x0f) * 4;
}

/* 224.0.0.0/4 (RFC 1112 §4) */
static inline bool ixm_ip_addr_is_multicast(__be32 a)
{
	return (ixm_ntohl(a) & 0xf0000000) == 0xe0000000;
}

bool ixm_ip_src_is_bad(const struct ixm_if_config *cfg, __be32 saddr);
void ixm_ip_input(struct ixm_net_port *port, struct ixm_mbuf *m);

/**
 * ixm_ip_build_header() - fill in an IPv4 header without options
 * @ih: where the header goes (any alignment)
 * @src: source address
 * @dst: destination address
 * @proto: IXM_IPPROTO_* of the payload
 * @payload_len: bytes after the header; at most 65515
 * @id: identification (RFC 6864: only meaningful for fragments, and ours
 *	never are, since DF is set)
 * @nic_csum: the NIC inserts the checksum (IXM_TXO_CSUM): leave it 0
 *
 * Version 4, IHL 5, TOS 0, DF (RFC 1191 path MTU discovery), TTL
 * IXM_IP_TTL, and the header checksum (RFC 791 §3.1).
 *
 * Context: any.
 */
static inline void ixm_ip_build_header(struct ixm_iphdr *ih, __be32 src, __be32 dst,
				       u8 proto, u16 payload_len, u16 id,
				       bool nic_csum)
{
	ih->ver_ihl = 0x45;
	ih->tos = 0;
	ih->tot_len = ixm_htons(IXM_IP_HLEN + payload_len);
	ih->id = ixm_htons(id);
	ih->frag_off = ixm_htons(IXM_IP_DF);
	ih->ttl = IXM_IP_TTL;
	ih->protocol = proto;
	ih->check = 0;
	ih->saddr = src;
	ih->daddr = dst;
	if (!nic_csum)
		ih->check = ixm_csum(ih, IXM_IP_HLEN);
}

#endif /* _IXM_NET_IP_H */
