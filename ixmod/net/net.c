// SPDX-License-Identifier: GPL-2.0
/*
 * net.c - the names of the drop counters (enum ixm_drop_reason)
 *
 * The names are sysfs file names (/sys/kernel/ixmod/ports/<port>/drops/)
 * and ABI: Documentation/ABI/testing/sysfs-ixmod lists them.  The build
 * checks that the table is as long as the enum, so a reason added at the
 * end of net.h without a name here does not compile; the host test
 * (tools/testing/ixmod/unit/eth.c) checks that no slot is empty and that
 * the names are distinct.
 */
#include "platform.h"
#include "net.h"

const char * const ixm_drop_names[] = {
	[IXM_DROP_ETH_SHORT]		= "eth_short",
	[IXM_DROP_ETH_DST]		= "eth_dst",
	[IXM_DROP_ETH_SRC]		= "eth_src",
	[IXM_DROP_ETH_TYPE]		= "eth_type",
	[IXM_DROP_ARP_MALFORMED]	= "arp_malformed",
	[IXM_DROP_ARP_NOT_US]		= "arp_not_us",
	[IXM_DROP_ARP_OP]		= "arp_op",
	[IXM_DROP_ARP_SENDER]		= "arp_sender",
	[IXM_DROP_ARP_OFFSUBNET]	= "arp_offsubnet",
	[IXM_DROP_IP_SHORT]		= "ip_short",
	[IXM_DROP_IP_VERSION]		= "ip_version",
	[IXM_DROP_IP_HLEN]		= "ip_hlen",
	[IXM_DROP_IP_TOTLEN]		= "ip_totlen",
	[IXM_DROP_IP_CSUM]		= "ip_csum",
	[IXM_DROP_IP_FRAG]		= "ip_frag",
	[IXM_DROP_IP_TTL]		= "ip_ttl",
	[IXM_DROP_IP_DST]		= "ip_dst",
	[IXM_DROP_IP_SRC]		= "ip_src",
	[IXM_DROP_IP_PROTO]		= "ip_proto",
	[IXM_DROP_ICMP_SHORT]		= "icmp_short",
	[IXM_DROP_ICMP_CSUM]		= "icmp_csum",
	[IXM_DROP_ICMP_TYPE]		= "icmp_type",
	[IXM_DROP_UDP_SHORT]		= "udp_short",
	[IXM_DROP_UDP_LEN]		= "udp_len",
	[IXM_DROP_UDP_CSUM]		= "udp_csum",
	[IXM_DROP_UDP_NO_SOCK]		= "udp_no_sock",
	[IXM_DROP_UDP_APP_FULL]		= "udp_app_full",
	[IXM_DROP_TCP_SHORT]		= "tcp_short",
	[IXM_DROP_TCP_CSUM]		= "tcp_csum",
	[IXM_DROP_TCP_OPTS]		= "tcp_opts",
	[IXM_DROP_TCP_NO_SOCK]		= "tcp_no_sock",
	[IXM_DROP_TCP_STATE]		= "tcp_state",
	[IXM_DROP_TCP_NO_ROOM]		= "tcp_no_room",
	[IXM_DROP_IP6_OFF]		= "ip6_off",
	[IXM_DROP_IP6_SHORT]		= "ip6_short",
	[IXM_DROP_IP6_VERSION]		= "ip6_version",
	[IXM_DROP_IP6_PLEN]		= "ip6_plen",
	[IXM_DROP_IP6_DST]		= "ip6_dst",
	[IXM_DROP_IP6_SRC]		= "ip6_src",
	[IXM_DROP_IP6_EXTHDR]		= "ip6_exthdr",
	[IXM_DROP_IP6_OPT]		= "ip6_opt",
	[IXM_DROP_IP6_RTHDR]		= "ip6_rthdr",
	[IXM_DROP_IP6_FRAG]		= "ip6_frag",
	[IXM_DROP_IP6_NEXTHDR]		= "ip6_nexthdr",
	[IXM_DROP_UDP6_SHORT]		= "udp6_short",
	[IXM_DROP_UDP6_LEN]		= "udp6_len",
	[IXM_DROP_UDP6_NOCSUM]		= "udp6_nocsum",
	[IXM_DROP_UDP6_CSUM]		= "udp6_csum",
	[IXM_DROP_UDP6_NO_SOCK]		= "udp6_no_sock",
	[IXM_DROP_ICMP6_SHORT]		= "icmp6_short",
	[IXM_DROP_ICMP6_CSUM]		= "icmp6_csum",
	[IXM_DROP_ICMP6_TYPE]		= "icmp6_type",
	[IXM_DROP_ND_INVALID]		= "nd_invalid",
	[IXM_DROP_ND_NOT_US]		= "nd_not_us",
	[IXM_DROP_NO_ND]		= "no_nd",
	[IXM_DROP_NO_ADDR]		= "no_addr",
	[IXM_DROP_NO_ARP]		= "no_arp",
	[IXM_DROP_NO_BUF]		= "no_buf",
	[IXM_DROP_TX_FULL]		= "tx_full",
	[IXM_DROP_TX_STALL]		= "tx_stall",
};
_Static_assert(ARRAY_SIZE(ixm_drop_names) == IXM_DROP_MAX,
	       "ixm_drop_names[] must name every enum ixm_drop_reason");
