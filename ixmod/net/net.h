/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net.h - what the protocol code sees of a port on one dataplane core
 *
 * The dataplane calls ixm_eth_input() for each received frame with the
 * core's struct ixm_net_port for that port.  The protocols consume every
 * frame they are given: they either queue a frame for transmission with
 * ixm_net_xmit() (often the received buffer, rewritten in place) or drop
 * it with ixm_net_drop(), which counts the reason.  After the RX batch the
 * dataplane hands port->tx[0..ntx) to the NIC and resets ntx.
 *
 * Nothing here is shared between cores except what @cfg, @arp, @nd and
 * @relay point to: @cfg the control plane replaces under RCU, the tables
 * and the mailboxes have their own locks.
 */
#ifndef _IXM_NET_NET_H
#define _IXM_NET_NET_H

#include <linux/ixmod.h>

#include "platform.h"
#include "handle.h"
#include "mbuf.h"

#define IXM_TX_BATCH	64	/* frames a core may queue per port per iteration */
#define IXM_RX_BATCH_MAX IXM_TX_BATCH	/* frames a port may receive per iteration */
#define IXM_BATCH_HIST	8	/* receive batch sizes: 1, 2-3, 4-7, ..., 64+ */

/*
 * Why a frame was dropped.  The names (ixm_drop_names[]) are the sysfs
 * file names of the counters, so keep them short and stable.
 */
enum ixm_drop_reason {
	IXM_DROP_ETH_SHORT,	/* shorter than an Ethernet header */
	IXM_DROP_ETH_DST,	/* not our MAC, broadcast or a multicast we take */
	IXM_DROP_ETH_SRC,	/* source MAC is a group address (IEEE 802) */
	IXM_DROP_ETH_TYPE,	/* EtherType we do not handle */
	IXM_DROP_ARP_MALFORMED,	/* short, or not Ethernet/IPv4 ARP */
	IXM_DROP_ARP_NOT_US,	/* ARP for another address (after learning) */
	IXM_DROP_ARP_OP,	/* opcode other than request/reply */
	IXM_DROP_ARP_SENDER,	/* sender MAC or IP no station may own, or ours */
	IXM_DROP_ARP_OFFSUBNET,	/* sender IP outside the port's subnet */
	IXM_DROP_IP_SHORT,	/* shorter than an IPv4 header */
	IXM_DROP_IP_VERSION,	/* version != 4 */
	IXM_DROP_IP_HLEN,	/* IHL < 5 or past the frame */
	IXM_DROP_IP_TOTLEN,	/* total length < IHL*4 or past the frame */
	IXM_DROP_IP_CSUM,	/* header checksum wrong */
	IXM_DROP_IP_FRAG,	/* a fragment (MF set or offset != 0) */
	IXM_DROP_IP_TTL,	/* TTL 0 on arrival */
	IXM_DROP_IP_DST,	/* not addressed to us */
	IXM_DROP_IP_SRC,	/* source is broadcast, multicast or ours */
	IXM_DROP_IP_PROTO,	/* protocol we do not handle */
	IXM_DROP_ICMP_SHORT,	/* shorter than an ICMP header */
	IXM_DROP_ICMP_CSUM,	/* ICMP checksum wrong */
	IXM_DROP_ICMP_TYPE,	/* type other than echo request */
	IXM_DROP_UDP_SHORT,	/* shorter than a UDP header */
	IXM_DROP_UDP_LEN,	/* UDP length < 8 or past the IP payload */
	IXM_DROP_UDP_CSUM,	/* UDP checksum wrong */
	IXM_DROP_UDP_NO_SOCK,	/* no context bound the port on this core */
	IXM_DROP_UDP_APP_FULL,	/* event ring and backlog full, or pool under 1/4 free */
	IXM_DROP_TCP_SHORT,	/* shorter than a TCP header, or bad data offset */
	IXM_DROP_TCP_CSUM,	/* TCP checksum wrong */
	IXM_DROP_TCP_OPTS,	/* an option with an impossible length */
	IXM_DROP_TCP_NO_SOCK,	/* no connection or listener (answered with RST) */
	IXM_DROP_TCP_STATE,	/* not acceptable in the connection's state */
	IXM_DROP_TCP_NO_ROOM,	/* data beyond the buffers a connection may hold */
	IXM_DROP_IP6_OFF,	/* IPv6 frame, but the port has no IPv6 address */
	IXM_DROP_IP6_SHORT,	/* shorter than an IPv6 header */
	IXM_DROP_IP6_VERSION,	/* version != 6 */
	IXM_DROP_IP6_PLEN,	/* payload length past the frame */
	IXM_DROP_IP6_DST,	/* not one of our addresses or groups */
	IXM_DROP_IP6_SRC,	/* source multicast, loopback, ours, or :: */
	IXM_DROP_IP6_EXTHDR,	/* extension header truncated, misplaced, too many */
	IXM_DROP_IP6_OPT,	/* an option whose type says discard (RFC 8200 §4.2) */
	IXM_DROP_IP6_RTHDR,	/* Routing header with segments left (RFC 8200 §4.4) */
	IXM_DROP_IP6_FRAG,	/* a Fragment header: no reassembly */
	IXM_DROP_IP6_NEXTHDR,	/* next header we do not handle, or none (59) */
	IXM_DROP_UDP6_SHORT,	/* IPv6 payload shorter than a UDP header */
	IXM_DROP_UDP6_LEN,	/* UDP length < 8 or past the IPv6 payload */
	IXM_DROP_UDP6_NOCSUM,	/* UDP checksum 0 over IPv6 (RFC 8200 §8.1) */
	IXM_DROP_UDP6_CSUM,	/* UDP checksum wrong over IPv6 */
	IXM_DROP_UDP6_NO_SOCK,	/* no IPv6 context bound the port (port unreachable) */
	IXM_DROP_ICMP6_SHORT,	/* shorter than an ICMPv6 header */
	IXM_DROP_ICMP6_CSUM,	/* ICMPv6 checksum wrong */
	IXM_DROP_ICMP6_TYPE,	/* a type we do not handle (errors, RA, MLD...) */
	IXM_DROP_ND_INVALID,	/* ND message failing RFC 4861 §7.1 validation */
	IXM_DROP_ND_NOT_US,	/* NS for another target, NA nobody asked about */
	IXM_DROP_NO_ND,		/* IPv6 next hop unresolved (an NS went out) */
	IXM_DROP_NO_ADDR,	/* the port has no IPv4 address yet */
	IXM_DROP_NO_ARP,	/* next hop unresolved (an ARP request went out) */
	IXM_DROP_NO_BUF,	/* no buffer to build a frame */
	IXM_DROP_TX_FULL,	/* the core's TX batch for the port was full */
	IXM_DROP_TX_STALL,	/* waited for a TX ring that moved nothing (ixm_loop_tx()) */
	IXM_DROP_MAX,
};

extern const char * const ixm_drop_names[IXM_DROP_MAX];

/**
 * struct ixm_net_stats - counters of one port on one core
 * @rx_packets: frames received (handed to ixm_eth_input())
 * @rx_bytes: their bytes
 * @tx_packets: frames handed to the NIC
 * @tx_bytes: their bytes
 * @arp_requests_in: ARP requests for our address
 * @arp_replies_out: ARP replies sent
 * @arp_requests_out: ARP requests sent (resolution, announcements)
 * @icmp_echo_replies: ICMP echo replies sent
 * @udp_in: datagrams delivered to applications
 * @udp_out: datagrams applications sent
 * @tx_csum_sw: TCP and UDP frames sent whose checksums software computed
 *	(the port's NIC inserts none: @tx_offload in struct ixm_net_port)
 * @icmp6_echo_replies: ICMPv6 echo replies sent
 * @icmp6_errors_out: ICMPv6 error messages sent
 * @icmp6_errors_ratelimited: ICMPv6 errors not sent: over the rate limit
 * @nd_solicits_in: Neighbor Solicitations for our addresses
 * @nd_adverts_out: Neighbor Advertisements sent (answers, announcements)
 * @nd_solicits_out: Neighbor Solicitations sent (resolution)
 * @udp6_in: datagrams over IPv6 delivered to applications
 * @udp6_out: datagrams over IPv6 applications sent
 * @drops: frames dropped, indexed by enum ixm_drop_reason
 *
 * Written only by that core.
 */
struct ixm_net_stats {
	u64	rx_packets;
	u64	rx_bytes;
	u64	tx_packets;
	u64	tx_bytes;
	u64	arp_requests_in;
	u64	arp_replies_out;
	u64	arp_requests_out;
	u64	icmp_echo_replies;
	u64	udp_in;
	u64	udp_out;
	u64	tx_csum_sw;
	u64	icmp6_echo_replies;
	u64	icmp6_errors_out;
	u64	icmp6_errors_ratelimited;
	u64	nd_solicits_in;
	u64	nd_adverts_out;
	u64	nd_solicits_out;
	u64	udp6_in;
	u64	udp6_out;
	u64	drops[IXM_DROP_MAX];
};

/**
 * struct ixm_in6_addr - an IPv6 address, network order (RFC 4291)
 * @s6: its 16 bytes
 */
struct ixm_in6_addr {
	u8	s6[16];
};

/*
 * ixm_if_config.flags.  IXM_IFF_UDP_REFLECT, for benchmarks only (the
 * port's udp_reflect in sysfs): every UDP datagram to the port's address
 * goes straight back, its addresses and ports swapped, before any socket
 * is looked up: the emulated or real NIC's ceiling through ixmod's loop.
 */
#define IXM_IFF_UDP_REFLECT	0x01

/* ixm_if_config.cc: the congestion control of the port's new connections */
#define IXM_CC_NEWRENO		0	/* RFC 5681, 6582; ECN as tcp_ecn says */
#define IXM_CC_DCTCP		1	/* RFC 8257, with ECN always */
#define IXM_CC_CUBIC		2	/* RFC 9438; ECN as tcp_ecn says */

/**
 * struct ixm_if_config - a port's protocol configuration
 * @mac: the port's MAC address
 * @ip: IPv4 address, 0 when unconfigured
 * @netmask: derived from the prefix length
 * @prefix: prefix length, 0-32 (0 only when @ip is 0)
 * @flags: IXM_IFF_*
 * @cc: IXM_CC_*
 * @ip6_prefix: prefix length of @ip6, 1-128; 0 when IPv6 is off
 * @ip6: the global IPv6 address (net/ip6.h), :: when IPv6 is off
 * @ll6: the link-local address, fe80::/64 with @mac's modified EUI-64
 * @rcu: the old configuration is freed after a grace period
 *
 * Immutable once published: the control plane builds a new one and
 * replaces the pointer under RCU.
 */
struct ixm_if_config {
	u8		mac[ETH_ALEN];
	u8		prefix;
	u8		flags;
	u8		cc;
	__be32		ip;
	__be32		netmask;
	u8		ip6_prefix;
	struct ixm_in6_addr ip6;
	struct ixm_in6_addr ll6;
	struct rcu_head	rcu;
};

struct ixm_arp_table;
struct ixm_nd_table;
struct ixm_stack;
struct ixm_queue;
struct ixm_icmp6_relay;

/*
 * ixm_net_port.tx_offload: the NIC inserts the IPv4 header checksum and
 * the TCP or UDP checksum of frames flagged IXM_MBUF_F_TX_*_CSUM.
 */
#define IXM_TXO_CSUM		0x0001

/**
 * struct ixm_net_port - one port as seen by one core's protocols
 * @cfg: the configuration in force for this iteration (RCU-read)
 * @arp: the port's ARP table, shared by all cores (RCU)
 * @nd: the port's IPv6 neighbour table, shared by all cores (RCU; net/nd.h)
 * @pool: this core's buffers for this port
 * @stats: this core's counters for this port
 * @stack: this core's protocol state (sockets); NULL in tests of the
 *	lower layers
 * @queue: the device queue pair ixm_loop_iterate() receives from and
 *	transmits to
 * @rss_key: the port's Toeplitz key; NULL if flows are not steered
 * @rss_nq: queues RSS spreads flows over
 * @rss_q: this core's queue
 * @rss_v4_only: RSS hashes IPv4 alone; IPv6 reaches queue 0
 * @relay: the port's mailboxes of ICMPv6 errors between its cores, shared
 *	by all of them (net/icmp6_relay.h); NULL with one queue, and in
 *	tests of one core
 * @tx_offload: IXM_TXO_* the port's NIC does on transmit
 * @now_ns: time at the start of the iteration (ixm_now_ns())
 * @ntx: frames queued in @tx
 * @tx_stall_ns: while frames wait in @tx for a full ring, when the ring
 *	last took or finished one (ixm_loop_iterate()); 0 otherwise
 * @tx_blocked: the ring refused frames of @tx and has reaped nothing
 *	since: no room to offer them into
 * @icmp6_tat_ns: this core's ICMPv6 error rate limit on the port, GCRA's
 *	theoretical arrival time (net/icmp6.c)
 * @tx: frames to transmit at the end of the iteration, and those a full
 *	ring has not taken yet
 */
struct ixm_net_port {
	const struct ixm_if_config	*cfg;
	struct ixm_arp_table		*arp;
	struct ixm_nd_table		*nd;
	struct ixm_mbuf_pool		*pool;
	struct ixm_net_stats		*stats;
	struct ixm_stack		*stack;
	struct ixm_queue		*queue;
	const u8			*rss_key;
	u16				rss_nq;
	u16				rss_q;
	bool				rss_v4_only;
	struct ixm_icmp6_relay		*relay;
	u16				tx_offload;
	u64				now_ns;
	unsigned int			ntx;
	u64				tx_stall_ns;
	bool				tx_blocked;
	u64				icmp6_tat_ns;
	struct ixm_mbuf			*tx[IXM_TX_BATCH];
};

/* Hook for the drop tracepoint; the kernel glue defines it. */
void ixm_net_trace_drop(const struct ixm_net_port *port, unsigned int reason,
			unsigned int len);

/**
 * ixm_net_drop() - drop @m and count why
 * @port: the port it arrived on or was built for
 * @m: the frame; freed
 * @reason: enum ixm_drop_reason
 */
static inline void ixm_net_drop(struct ixm_net_port *port, struct ixm_mbuf *m,
				enum ixm_drop_reason reason)
{
	port->stats->drops[reason]++;
	ixm_net_trace_drop(port, reason, m->len);
	ixm_mbuf_free(m);
}

/**
 * ixm_net_xmit() - queue a complete frame for transmission
 * @port: the port to send on
 * @m: the frame; @m->data and @m->len describe it
 *
 * Return: 0, or -ENOSPC when the batch is full (@m is then dropped and
 * counted).
 */
static inline int ixm_net_xmit(struct ixm_net_port *port, struct ixm_mbuf *m)
{
	if (unlikely(port->ntx == IXM_TX_BATCH)) {
		ixm_net_drop(port, m, IXM_DROP_TX_FULL);
		return -ENOSPC;
	}
	port->tx[port->ntx++] = m;
	return 0;
}

/*
 * The queue RSS sends a hash to: the port fills its redirection table
 * with entry i = i % nq (port.c), and the NIC indexes it with the hash's
 * low 7 bits (82576 and 82599 RETA, 128 entries).
 */
static inline u16 ixm_rss_queue(u32 hash, u16 nq)
{
	return (hash & 127) % nq;
}

void ixm_eth_input(struct ixm_net_port *port, struct ixm_mbuf *m);

#endif /* _IXM_NET_NET_H */
