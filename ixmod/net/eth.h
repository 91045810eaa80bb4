/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eth.h - Ethernet II framing (RFC 894) as the protocol code sees it
 *
 * Wire structures in ixmod/net/ are __packed: a frame starts wherever the
 * NIC put it, so the IPv4 header after a 14-byte Ethernet header is only
 * 2-byte aligned, and the packed layout makes the compiler read its 32-bit
 * fields safely on every architecture.  Fields keep their __be types.
 */
#ifndef _IXM_NET_ETH_H
#define _IXM_NET_ETH_H

#include "platform.h"
#include "mbuf.h"

#define IXM_ETH_HLEN		14	/* destination, source, EtherType */
#define IXM_ETH_ZLEN		60	/* shortest frame without the FCS */

/* EtherTypes (IEEE 802 numbers), in host order */
#define IXM_ETH_P_IP		0x0800
#define IXM_ETH_P_ARP		0x0806
#define IXM_ETH_P_IPV6		0x86dd	/* RFC 2464 */
#define IXM_ETH_P_8021Q		0x8100	/* VLAN tag: not handled */

/**
 * struct ixm_ethhdr - Ethernet II header
 * @dst: destination MAC
 * @src: source MAC
 * @type: EtherType (IXM_ETH_P_*), network order
 */
struct ixm_ethhdr {
	u8	dst[ETH_ALEN];
	u8	src[ETH_ALEN];
	__be16	type;
} __packed;

/* The broadcast address, ff:ff:ff:ff:ff:ff. */
extern const u8 ixm_eth_broadcast[ETH_ALEN];

static inline bool ixm_eth_addr_equal(const u8 *a, const u8 *b)
{
	return !memcmp(a, b, ETH_ALEN);
}

/* Group (multicast or broadcast) address: the I/G bit, IEEE 802 §8.2. */
static inline bool ixm_eth_addr_is_multicast(const u8 *a)
{
	return a[0] & 0x01;
}

static inline bool ixm_eth_addr_is_zero(const u8 *a)
{
	return !(a[0] | a[1] | a[2] | a[3] | a[4] | a[5]);
}

/* A unicast address some station may own: no group bit, not all zero. */
static inline bool ixm_eth_addr_is_valid(const u8 *a)
{
	return !ixm_eth_addr_is_multicast(a) && !ixm_eth_addr_is_zero(a);
}

static inline struct ixm_ethhdr *ixm_eth_hdr(const struct ixm_mbuf *m)
{
	return (struct ixm_ethhdr *)m->data;
}

#endif /* _IXM_NET_ETH_H */
