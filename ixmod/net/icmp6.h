/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icmp6.h - ICMPv6 (RFC 4443): echo, errors, and the door to Neighbor
 * Discovery (nd.h)
 */
#ifndef _IXM_NET_ICMP6_H
#define _IXM_NET_ICMP6_H

#include "platform.h"
#include "ip6.h"
#include "net.h"

#define IXM_ICMP6_HLEN		8	/* type, code, checksum, 4 bytes */

/* Types (RFC 4443 §2.1); Neighbor Discovery's are in nd.h */
#define IXM_ICMP6_DEST_UNREACH	1
#define IXM_ICMP6_PKT_TOOBIG	2
#define IXM_ICMP6_TIME_EXCEED	3
#define IXM_ICMP6_PARAMPROB	4
#define IXM_ICMP6_ECHO_REQUEST	128
#define IXM_ICMP6_ECHO_REPLY	129

/* Destination Unreachable codes (RFC 4443 §3.1) */
#define IXM_ICMP6_UNREACH_ADDR	3	/* address unreachable */
#define IXM_ICMP6_UNREACH_PORT	4	/* port unreachable */

/* Parameter Problem codes (RFC 4443 §3.4) */
#define IXM_ICMP6_PARAMPROB_HEADER	0	/* erroneous header field */
#define IXM_ICMP6_PARAMPROB_NEXTHDR	1	/* unrecognized Next Header */
#define IXM_ICMP6_PARAMPROB_OPTION	2	/* unrecognized IPv6 option */

/*
 * The error rate limit (RFC 4443 §2.4 (f)), per core and port: a burst of
 * IXM_ICMP6_ERR_BURST, then one per IXM_ICMP6_ERR_NS (100 a second).
 */
#define IXM_ICMP6_ERR_BURST	10
#define IXM_ICMP6_ERR_NS	(1000000000ULL / 100)

/**
 * struct ixm_icmp6hdr - ICMPv6 header (RFC 4443 §2.1)
 * @type: IXM_ICMP6_*, or an ND type
 * @code: per type
 * @checksum: over the pseudo-header (RFC 8200 §8.1) and the message
 * @data: echo: identifier and sequence number; errors: pointer or MTU,
 *	else unused (0)
 */
struct ixm_icmp6hdr {
	u8	type;
	u8	code;
	__sum16	checksum;
	__be32	data;
} __packed;

void ixm_icmp6_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		     struct ixm_ip6hdr *ih, unsigned int thoff);
int ixm_icmp6_send_error(struct ixm_net_port *port, const struct ixm_mbuf *m,
			 u8 type, u8 code, u32 info, bool mc_ok);
__sum16 ixm_icmp6_csum(const struct ixm_ip6hdr *ih, const void *msg, u32 len);

#endif /* _IXM_NET_ICMP6_H */
