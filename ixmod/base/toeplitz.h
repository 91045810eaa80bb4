/* SPDX-License-Identifier: GPL-2.0 */
/*
 * toeplitz.h - the Toeplitz hash of Receive Side Scaling
 *
 * The function Microsoft's RSS specification defines and the 82599 and
 * 82576 compute in hardware, so software can predict which queue a flow
 * lands on.  Hash values are plain 32-bit numbers in host order.
 */
#ifndef _IXM_BASE_TOEPLITZ_H
#define _IXM_BASE_TOEPLITZ_H

#include "platform.h"

/*
 * Key length of the specification and of the 82599's and 82576's RSSRK
 * registers.  Keys here are byte strings in the specification's order; how
 * they are packed into RSSRK is the NIC code's business.
 */
#define IXM_RSS_KEY_LEN		40

/*
 * 0x6d, 0x5a repeated: a key for which swapping source and destination
 * (addresses, and ports) does not change the hash, so both directions of a
 * flow land on the same queue.  See toeplitz.c for why and what it costs.
 */
extern const u8 ixm_rss_key_symmetric[IXM_RSS_KEY_LEN];

u32 ixm_toeplitz(const u8 *key, size_t key_len, const u8 *data, size_t len);
u32 ixm_toeplitz_ipv4(const u8 *key, __be32 saddr, __be32 daddr);
u32 ixm_toeplitz_ipv4_l4(const u8 *key, __be32 saddr, __be32 daddr,
			 __be16 sport, __be16 dport);
u32 ixm_toeplitz_ipv6(const u8 *key, const u8 *saddr, const u8 *daddr);
u32 ixm_toeplitz_ipv6_l4(const u8 *key, const u8 *saddr, const u8 *daddr,
			 __be16 sport, __be16 dport);

/*
 * Bytes of a frame ixm_toeplitz_frame() may read: an Ethernet header and
 * the two ports after an IPv4 header with every option (78) or after the
 * IPv6 fixed header (58), whichever is longer.
 */
#define IXM_TOEPLITZ_FRAME_IPV4	(14 + 60 + 4)
#define IXM_TOEPLITZ_FRAME_IPV6	(14 + 40 + 4)
#define IXM_TOEPLITZ_FRAME_MAX	IXM_TOEPLITZ_FRAME_IPV4	/* the longer: toeplitz.c checks */

bool ixm_toeplitz_frame(const u8 *key, const u8 *frame, unsigned int len, u32 *hash);

#endif /* _IXM_BASE_TOEPLITZ_H */
