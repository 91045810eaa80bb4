// SPDX-License-Identifier: GPL-2.0
/*
 * csum.c - Internet checksum: RFC 1071 sums and RFC 1624 incremental updates
 *
 * The one thing to know: every sum here is kept in memory order.  RFC 1071
 * §2(B): the one's complement sum is byte-order independent.  Adding the
 * 16-bit words as the CPU loads them gives, on a little-endian CPU, the
 * byte-swapped sum, and storing the folded result with the same native
 * 16-bit store swaps it back.  So nothing in this file converts a sum to
 * host order: ixm_csum_fold()'s result is stored into a header field as it
 * is, and ixm_csum() over a header that includes its checksum field
 * returns 0 when the header is intact.  Only values that arrive in host
 * order (the pseudo-header's protocol and length) are converted, on the
 * way in.
 *
 * RFC 1071 §2(C), parallel summation: the sum is the same modulo 0xffff
 * whatever the word size, so 8 bytes are added at a time into a 64-bit
 * accumulator with the carry out of bit 63 added back at the bottom, and
 * the accumulator is folded to 16 bits only at the end.  Loads go through
 * memcpy(), which compilers turn into single unaligned loads, so a buffer
 * may start at any address.
 *
 * Every 16-bit word is taken at an even offset from the buffer's start, so
 * a field must start at an even offset from the start of the checksummed
 * data (header fields all do), and a sum handed from one
 * ixm_csum_partial() call to the next is only valid if the earlier buffer
 * had an even length.
 */
#include "platform.h"
#include "csum.h"

/* One's complement addition at 64 bits: the carry out comes back in. */
static inline u64 ixm_csum_add64(u64 acc, u64 v)
{
	acc += v;
	return acc + (acc < v);
}

/*
 * 64 to 32 bits.  2^32 == 1 modulo 2^32 - 1, and 0xffff divides 2^32 - 1,
 * so the result is congruent to @acc modulo 0xffff.
 */
static inline u64 ixm_csum_load64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * ixm_csum_partial() - add a buffer to a one's complement sum
 * @buf: the bytes; any alignment
 * @len: number of bytes.  An odd last byte is summed as if followed by a
 *	zero byte (RFC 9293 §3.1, "padding the last octet with zeros on its
 *	right").
 * @sum: sum to continue from: 0, ixm_csum_pseudo()'s result, or the result
 *	of an earlier call on a buffer of even length
 *
 * Context: any; touches nothing but @buf.
 *
 * Return: the unfolded sum in memory order, congruent modulo 0xffff to the
 * one's complement sum of @sum and @buf's 16-bit words.  Finish it with
 * ixm_csum_fold().
 */
u32 ixm_csum_partial(const void *buf, size_t len, u32 sum)
{
	const u8 *p = buf;
	u64 acc = sum;
	u16 w16;
	u32 w32;

	/* 32 bytes per iteration, to spend less time on the loop itself. */
	while (len >= 32) {
		acc = ixm_csum_add64(acc, ixm_csum_load64(p));
		acc = ixm_csum_add64(acc, ixm_csum_load64(p + 8));
		acc = ixm_csum_add64(acc, ixm_csum_load64(p + 16));
		acc = ixm_csum_add64(acc, ixm_csum_load64(p + 24));
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		acc = ixm_csum_add64(acc, ixm_csum_load64(p));
		p += 8;
		len -= 8;
	}
	/* The tail starts at an even offset, so its words line up too. */
	if (len & 4) {
		memcpy(&w32, p, sizeof(w32));
		acc = ixm_csum_add64(acc, w32);
		p += 4;
	}
	if (len & 2) {
		memcpy(&w16, p, sizeof(w16));
		acc = ixm_csum_add64(acc, w16);
		p += 2;
	}
	if (len & 1) {
		/* The byte and a zero byte after it, as memory holds them. */
		w16 = 0;
		memcpy(&w16, p, 1);
		acc = ixm_csum_add64(acc, w16);
	}
	return ixm_csum_fold64(acc);
}

/**
 * ixm_csum() - the Internet checksum of a buffer
 * @buf: the bytes; any alignment
 * @len: number of bytes
 *
 * ixm_csum_fold(ixm_csum_partial(@buf, @len, 0)), for example the IPv4
 * header checksum (RFC 791 §3.1) with the checksum field zeroed, or a
 * header's verification with the field in place.
 *
 * Context: any.
 *
 * Return: the checksum in memory order (0 when verifying intact data).
 */
__sum16 ixm_csum(const void *buf, size_t len)
{
	return ixm_csum_fold(ixm_csum_partial(buf, len, 0));
}

/*
 * RFC 1624 §3, eqn 3: HC' = ~(~HC + ~m + m'), in one's complement
 * arithmetic.  Not RFC 1141's eqn 2, HC' = HC + m + ~m', which works on HC
 * itself: there, a change that brings the header's sum to -0 (0xffff)
 * produces HC' = 0xffff where a computation from scratch gives 0x0000
 * (RFC 1624 §3's example: the other words sum to 0xcd7a and m goes from
 * 0x5555 to 0x3285).  Eqn 3 works on ~HC, the sum itself, and an
 * end-around-carry sum of values that are not all zero never comes out
 * +0, exactly as in a computation from scratch, so the two agree bit for
 * bit.  The one exception is a change that leaves every word zero: from
 * scratch gives 0xffff, eqn 3 gives 0x0000.  No IPv4 header, and no UDP
 * or TCP segment (its pseudo-header holds the protocol), can be all zero.
 */

/**
 * ixm_csum_replace16() - update a checksum for a changed 16-bit field
 * @check: the checksum field now in the header
 * @old: the field's old value, as it was in memory
 * @new: the field's new value, as it will be in memory
 *
 * RFC 1624 §3, eqn 3.  The field must sit at an even offset from the
 * start of the data the checksum covers.  With @old == @new the checksum
 * is returned unchanged (RFC 1624 erratum 4782 does not arise with
 * end-around-carry addition), except that 0xffff, which only all-zero data
 * can have, becomes 0x0000.
 *
 * Context: any.
 *
 * Return: the new checksum, equal to the one computed from scratch.
 */
__sum16 ixm_csum_replace16(__sum16 check, __be16 old, __be16 new)
{
	u32 sum;

	sum = (u16)~(__force u16)check;
	sum += (u16)~(__force u16)old;
	sum += (__force u16)new;
	return ixm_csum_fold(sum);
}

/**
 * ixm_csum_replace32() - update a checksum for a changed 32-bit field
 * @check: the checksum field now in the header
 * @old: the field's old value (an IPv4 address, say), as it was in memory
 * @new: the field's new value, as it will be in memory
 *
 * RFC 1624 §3, eqn 3, applied to both 16-bit halves at once: the 32-bit
 * complement of @old is the complement of each half, and folding a 32-bit
 * word adds its halves.  The field must sit at an even offset from the
 * start of the data the checksum covers.
 *
 * Context: any.
 *
 * Return: the new checksum, equal to the one computed from scratch.
 */
__sum16 ixm_csum_replace32(__sum16 check, __be32 old, __be32 new)
{
	u64 acc;

	acc = (u16)~(__force u16)check;
	acc += ~(__force u32)old;
	acc += (__force u32)new;
	return ixm_csum_fold(ixm_csum_fold64(acc));
}
