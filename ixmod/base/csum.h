/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csum.h - the Internet checksum (RFC 1071) and its incremental update
 * (RFC 1624)
 *
 * A u32 sum here is an unfolded one's complement sum in memory order (see
 * csum.c): never convert it, just pass it on or fold it.  A __sum16 is a
 * finished checksum, ready to be stored into or compared with a header
 * field as it is.
 */
#ifndef _IXM_BASE_CSUM_H
#define _IXM_BASE_CSUM_H

#include "platform.h"

u32 ixm_csum_partial(const void *buf, size_t len, u32 sum);
__sum16 ixm_csum(const void *buf, size_t len);
__sum16 ixm_csum_replace16(__sum16 check, __be16 old, __be16 new);
__sum16 ixm_csum_replace32(__sum16 check, __be32 old, __be32 new);

/**
 * ixm_csum_block_add() - add the sum of a block that lies at @off in the data
 * @sum: the sum so far
 * @part: ixm_csum_partial() of the block alone, from 0
 * @off: where the block starts in the checksummed data
 *
 * A block at an odd offset has its bytes in the other halves of the
 * data's 16-bit words, so its sum counts byte-swapped: multiplied by
 * 2^8, which modulo 0xffff is a rotation of the 32-bit sum by 8 bits.
 * This is how a frame's checksum covers payload gathered from several
 * places.
 *
 * Context: any.
 * Return: the unfolded sum of both, in memory order.
 */
static inline u32 ixm_csum_block_add(u32 sum, u32 part, size_t off)
{
	if (off & 1)
		part = part << 8 | part >> 24;
	sum += part;
	return sum + (sum < part);
}

/* Add the high half of a 64-bit accumulator to the low one, carry included. */
static inline u32 ixm_csum_fold64(u64 acc)
{
	u32 hi = acc >> 32;
	u32 lo = (u32)acc;

	lo += hi;
	return lo + (lo < hi);
}

/**
 * ixm_csum_fold() - finish a sum into a checksum
 * @sum: unfolded sum in memory order, from ixm_csum_partial() or
 *	ixm_csum_pseudo()
 *
 * Folds the carries back in (RFC 1071 §4.1: "fold 32-bit sum to 16 bits")
 * and complements.  A sum over data that is not all zero folds to
 * 0x0001..0xffff, never +0, so the checksum is never 0xffff for such data.
 *
 * Context: any.
 *
 * Return: the one's complement of the folded sum, in memory order: store
 * it into the checksum field as it is.  Over data that includes a correct
 * checksum field the result is 0.
 */
static inline __sum16 ixm_csum_fold(u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__force __sum16)(u16)~sum;
}

/**
 * ixm_csum_pseudo() - add an IPv4 pseudo-header to a sum
 * @saddr: source address, network order
 * @daddr: destination address, network order
 * @proto: IP protocol number (IPPROTO_UDP, IPPROTO_TCP)
 * @len: UDP or TCP length in bytes, header and data, in host order
 * @sum: sum to continue from, typically ixm_csum_partial() over the
 *	transport header and data
 *
 * RFC 768 ("Fields") and RFC 9293 §3.1: UDP and TCP checksums also cover
 * a 12-byte pseudo-header: source address, destination address, a zero
 * byte, the protocol and the transport length.  This adds those words
 * without building the header in memory.
 *
 * Context: any.
 *
 * Return: the unfolded sum in memory order; ixm_csum_fold() finishes it.
 * For UDP a result of 0 is sent as 0xffff (RFC 768), which is the caller's
 * business.
 */
static inline u32 ixm_csum_pseudo(__be32 saddr, __be32 daddr, u8 proto, u16 len, u32 sum)
{
	u64 acc = sum;

	acc += (__force u32)saddr;
	acc += (__force u32)daddr;
	/* The words "zero, protocol" and "length" as they sit in memory. */
	acc += (__force u16)ixm_htons(proto);
	acc += (__force u16)ixm_htons(len);
	return ixm_csum_fold64(acc);
}

#endif /* _IXM_BASE_CSUM_H */
