/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icmp.h - ICMP for IPv4 (RFC 792): echo request in, echo reply out
 */
#ifndef _IXM_NET_ICMP_H
#define _IXM_NET_ICMP_H

#include "platform.h"
#include "ip.h"

#define IXM_ICMP_HLEN		8
#define IXM_ICMP_ECHOREPLY	0
#define IXM_ICMP_ECHO		8

/**
 * struct ixm_icmphdr - ICMP echo header (RFC 792, "Echo or Echo Reply")
 * @type: IXM_ICMP_*
 * @code: 0 for echo
 * @checksum: over the whole ICMP message
 * @id: identifier
 * @seq: sequence number
 */
struct ixm_icmphdr {
	u8	type;
	u8	code;
	__sum16	checksum;
	__be16	id;
	__be16	seq;
} __packed;

void ixm_icmp_input(struct ixm_net_port *port, struct ixm_mbuf *m,
		    struct ixm_iphdr *ih);

#endif /* _IXM_NET_ICMP_H */
