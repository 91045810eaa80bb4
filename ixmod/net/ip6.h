/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip6.h - IPv6 (RFC 8200): header layout, addresses, input, header
 * construction and the upper-layer checksum
 *
 * What the transports use (TCP and UDP over IPv6):
 *
 *  - input: ixm_ip6_input() hands a datagram whose next header is TCP or
 *    UDP to ixm_ip6_deliver_l4() (ip6.c), with the frame trimmed to the
 *    payload length and the upper-layer header at byte @thoff of the IPv6
 *    header; the upper-layer length is ixm_ip6_l4_len().  The source is a
 *    unicast address (never ::, multicast, loopback or ours) and the
 *    destination one of the port's unicast addresses or a multicast group
 *    of the port (ixm_ip6_addr_is_multicast() tells which);
 *  - output: ixm_ip6_src_for() picks the source for a destination,
 *    ixm_ip6_onlink() says whether it can be reached at all (ixmod has no
 *    router), ixm_nd_resolve() (nd.h) gives the next hop's MAC,
 *    ixm_ip6_build_header() writes the header and ixm_csum_pseudo6() adds
 *    the pseudo-header to a TCP or UDP checksum (RFC 8200 §8.1).
 */
#ifndef _IXM_NET_IP6_H
#define _IXM_NET_IP6_H

#include "platform.h"
#include "csum.h"
#include "eth.h"
#include "net.h"

#define IXM_IP6_HLEN		40	/* fixed header (RFC 8200 §3) */
#define IXM_IP6_HOPLIMIT	64	/* Linux's and IANA's default */
#define IXM_IP6_MIN_MTU		1280	/* RFC 8200 §5 */
/* Extension headers ixm_ip6_input() walks before it gives up (ip6.c). */
#define IXM_IP6_MAX_EXTHDRS	8

/* Next Header values (IANA "Assigned Internet Protocol Numbers") */
#define IXM_IPPROTO_HOPOPTS	0	/* RFC 8200 §4.3 */
#define IXM_IPPROTO_TCP6	6
#define IXM_IPPROTO_UDP6	17
#define IXM_IPPROTO_ROUTING	43	/* RFC 8200 §4.4 */
#define IXM_IPPROTO_FRAGMENT	44	/* RFC 8200 §4.5 */
#define IXM_IPPROTO_ICMPV6	58	/* RFC 4443 */
#define IXM_IPPROTO_NONE	59	/* RFC 8200 §4.7 */
#define IXM_IPPROTO_DSTOPTS	60	/* RFC 8200 §4.6 */

/**
 * struct ixm_ip6hdr - IPv6 header (RFC 8200 §3)
 * @vtc_flow: version (4 bits), traffic class (8), flow label (20)
 * @payload_len: bytes after this header, extension headers included
 * @nexthdr: IXM_IPPROTO_* of what follows
 * @hop_limit: hop limit
 * @saddr: source address
 * @daddr: destination address
 */
struct ixm_ip6hdr {
	__be32			vtc_flow;
	__be16			payload_len;
	u8			nexthdr;
	u8			hop_limit;
	struct ixm_in6_addr	saddr;
	struct ixm_in6_addr	daddr;
} __packed;

static inline struct ixm_ip6hdr *ixm_ip6_hdr(const struct ixm_mbuf *m)
{
	return (struct ixm_ip6hdr *)(m->data + IXM_ETH_HLEN);
}

/* The upper-layer length of a datagram ixm_ip6_input() delivered. */
static inline unsigned int ixm_ip6_l4_len(const struct ixm_mbuf *m,
					  unsigned int thoff)
{
	return m->len - IXM_ETH_HLEN - thoff;
}

static inline bool ixm_ip6_addr_equal(const struct ixm_in6_addr *a,
				      const struct ixm_in6_addr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* :: (RFC 4291 §2.5.2) */
static inline bool ixm_ip6_addr_is_any(const struct ixm_in6_addr *a)
{
	static const struct ixm_in6_addr any;

	return ixm_ip6_addr_equal(a, &any);
}

/* ::1 (RFC 4291 §2.5.3) */
static inline bool ixm_ip6_addr_is_loopback(const struct ixm_in6_addr *a)
{
	static const struct ixm_in6_addr lo = { .s6 = { [15] = 1 } };

	return ixm_ip6_addr_equal(a, &lo);
}

/* ff00::/8 (RFC 4291 §2.7) */
static inline bool ixm_ip6_addr_is_multicast(const struct ixm_in6_addr *a)
{
	return a->s6[0] == 0xff;
}

/* fe80::/10 (RFC 4291 §2.5.6) */
static inline bool ixm_ip6_addr_is_linklocal(const struct ixm_in6_addr *a)
{
	return a->s6[0] == 0xfe && (a->s6[1] & 0xc0) == 0x80;
}

/* ff02::1, all nodes (RFC 4291 §2.7.1) */
extern const struct ixm_in6_addr ixm_ip6_all_nodes;

/* ff02::1:ffXX:XXXX, the solicited-node group of @a (RFC 4291 §2.7.1) */
static inline void ixm_ip6_solicited_node(const struct ixm_in6_addr *a,
					  struct ixm_in6_addr *grp)
{
	memset(grp, 0, sizeof(*grp));
	grp->s6[0] = 0xff;
	grp->s6[1] = 0x02;
	grp->s6[11] = 0x01;
	grp->s6[12] = 0xff;
	memcpy(&grp->s6[13], &a->s6[13], 3);
}

/* RFC 2464 §7: the MAC of a multicast IPv6 address, 33:33 and its low 32 bits */
static inline void ixm_ip6_mc_mac(const struct ixm_in6_addr *a, u8 *mac)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, &a->s6[12], 4);
}

/*
 * RFC 4291 Appendix A: the link-local address fe80::/64 whose interface
 * identifier is the modified EUI-64 of @mac (ff:fe in the middle, the
 * universal/local bit inverted).
 */
static inline void ixm_ip6_linklocal_from_mac(const u8 *mac, struct ixm_in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->s6[0] = 0xfe;
	a->s6[1] = 0x80;
	a->s6[8] = mac[0] ^ 0x02;
	a->s6[9] = mac[1];
	a->s6[10] = mac[2];
	a->s6[11] = 0xff;
	a->s6[12] = 0xfe;
	a->s6[13] = mac[3];
	a->s6[14] = mac[4];
	a->s6[15] = mac[5];
}

/* Whether @cfg has IPv6: a global address was configured (ip6.c). */
static inline bool ixm_ip6_enabled(const struct ixm_if_config *cfg)
{
	return cfg->ip6_prefix != 0;
}

/* One of the port's two unicast addresses. */
static inline bool ixm_ip6_addr_is_ours(const struct ixm_if_config *cfg,
					const struct ixm_in6_addr *a)
{
	return ixm_ip6_addr_equal(a, &cfg->ip6) || ixm_ip6_addr_equal(a, &cfg->ll6);
}

bool ixm_ip6_dst_is_ours(const struct ixm_if_config *cfg,
			 const struct ixm_in6_addr *a);
bool ixm_ip6_eth_mc_is_ours(const struct ixm_if_config *cfg, const u8 *mac);
bool ixm_ip6_onlink(const struct ixm_if_config *cfg, const struct ixm_in6_addr *dst);
const struct ixm_in6_addr *ixm_ip6_src_for(const struct ixm_if_config *cfg,
					   const struct ixm_in6_addr *dst);
void ixm_ip6_input(struct ixm_net_port *port, struct ixm_mbuf *m);
void ixm_ip6_deliver_l4(struct ixm_net_port *port, struct ixm_mbuf *m,
			struct ixm_ip6hdr *ih, u8 proto, unsigned int thoff);

/**
 * ixm_csum_pseudo6() - add an IPv6 pseudo-header to a sum
 * @saddr: source address
 * @daddr: destination address (the final one: ixmod sends no Routing header)
 * @proto: the upper-layer protocol (IXM_IPPROTO_TCP6, _UDP6, _ICMPV6)
 * @len: upper-layer length in bytes, its header included, host order
 * @sum: the sum to continue from, typically ixm_csum_partial() over the
 *	upper-layer header and data
 *
 * RFC 8200 §8.1: the 40-byte pseudo-header is the source and destination
 * addresses, the 32-bit upper-layer packet length, three zero bytes and
 * the next header value.  Its words are added here as they would lie in
 * memory, without building it.
 *
 * Context: any.
 * Return: the unfolded sum in memory order; ixm_csum_fold() finishes it.
 * UDP sends a result of 0 as 0xffff (RFC 8200 §8.1: over IPv6 the UDP
 * checksum is not optional), which is the caller's business.
 */
static inline u32 ixm_csum_pseudo6(const struct ixm_in6_addr *saddr,
				   const struct ixm_in6_addr *daddr, u8 proto,
				   u32 len, u32 sum)
{
	u64 acc = sum;
	__be32 w;
	int i;

	for (i = 0; i < 16; i += 4) {
		memcpy(&w, &saddr->s6[i], 4);
		acc += (__force u32)w;
		memcpy(&w, &daddr->s6[i], 4);
		acc += (__force u32)w;
	}
	acc += (__force u32)ixm_htonl(len);
	acc += (__force u32)ixm_htonl(proto);
	return ixm_csum_fold64(acc);
}

/**
 * ixm_ip6_build_header() - fill in an IPv6 header with no extension headers
 * @ih: where the header goes (any alignment)
 * @src: source address
 * @dst: destination address
 * @proto: IXM_IPPROTO_* of the payload
 * @payload_len: bytes after the header
 * @hop_limit: 255 for Neighbor Discovery (RFC 4861 §7.1), else
 *	IXM_IP6_HOPLIMIT
 *
 * Version 6, traffic class 0, flow label 0 (RFC 6437 allows a zero label;
 * the transports may set one with ixm_ip6_set_flow()).
 *
 * Context: any.
 */
static inline void ixm_ip6_build_header(struct ixm_ip6hdr *ih,
					const struct ixm_in6_addr *src,
					const struct ixm_in6_addr *dst, u8 proto,
					u16 payload_len, u8 hop_limit)
{
	ih->vtc_flow = ixm_htonl(6u << 28);
	ih->payload_len = ixm_htons(payload_len);
	ih->nexthdr = proto;
	ih->hop_limit = hop_limit;
	ih->saddr = *src;
	ih->daddr = *dst;
}

/* Traffic class (DSCP and ECN, RFC 8200 §7) and flow label (RFC 6437). */
static inline void ixm_ip6_set_flow(struct ixm_ip6hdr *ih, u8 tclass, u32 label)
{
	ih->vtc_flow = ixm_htonl(6u << 28 | (u32)tclass << 20 | (label & 0xfffff));
}

#endif /* _IXM_NET_IP6_H */
