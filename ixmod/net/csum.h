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
#ifndef _IXM_NET_CSUM_H
#define _IXM_NET_CSUM_H

#include "platform.h"

u32 ixm_csum_partial(const void *buf, size_t len, u32 sum);
__sum16 ixm_csum_fold(u32 sum);
__sum16 ixm_csum(const void *buf, size_t len);
u32 ixm_csum_pseudo(__be32 saddr, __be32 daddr, u8 proto, u16 len, u32 sum);
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

#endif /* _IXM_NET_CSUM_H */
