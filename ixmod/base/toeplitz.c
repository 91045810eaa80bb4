// SPDX-License-Identifier: GPL-2.0
/*
 * toeplitz.c - the Toeplitz hash of Receive Side Scaling
 *
 * Microsoft's RSS specification ("RSS hashing functions") defines the hash
 * over an input byte string, most significant bit of input[0] first:
 *
 *	result = 0
 *	for each input bit b, left to right:
 *		if b == 1: result ^= the leftmost 32 bits of K
 *		shift K left by one bit
 *
 * so input bit i meets key bits i..i+31, and an n-byte input needs a key of
 * n + 4 bytes.  The 82599 and 82576 compute exactly this over the same
 * inputs (their datasheets' "RSS Hash Function" sections quote the same
 * pseudo-code), with the key in their RSSRK registers.
 *
 * Instead of shifting the key, ixm_toeplitz() slides a 40-bit window over
 * it: for input byte i the window holds key bytes i..i+4, and the 32-bit
 * key for bit j of that byte is the window shifted right by 8 - j.  Each
 * bit is applied through a mask rather than a branch, so the time taken
 * does not depend on the data.  A table per key would be faster still, if
 * software hashing ever shows up in a profile.
 */
#include "platform.h"
#include "toeplitz.h"

/*
 * Woo and Park, "Scalable TCP Session Monitoring with Symmetric
 * Receive-side Scaling" (KAIST, 2012).  The key repeats every 16 bits, so
 * input bit i meets the same 32 key bits as bit i + 16k.  Swapping the
 * addresses moves every address bit by 32 and swapping the ports moves
 * every port bit by 16, so each bit still meets the same key bits and the
 * hash is unchanged.  The cost: the hash then depends only on the XOR of
 * the input's 16-bit words, so it takes at most 65536 values.  That is
 * plenty for a 128-entry redirection table, but it is not a hash to use
 * for anything else.
 */
const u8 ixm_rss_key_symmetric[IXM_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

/* Key bytes past the end of the key count as zero: never read past it. */
static inline u8 ixm_toeplitz_key_byte(const u8 *key, size_t key_len, size_t i)
{
	return i < key_len ? key[i] : 0;
}

/**
 * ixm_toeplitz() - Toeplitz hash of a byte string
 * @key: the secret key
 * @key_len: bytes in @key; at least @len + 4 for the hash to be the
 *	specification's (and the hardware's).  Bytes beyond @key_len are
 *	taken as zero, so a short key is never read past its end but gives a
 *	different hash.
 * @data: the input, already in the specification's order (for IPv4:
 *	source address, destination address, source port, destination port,
 *	each in network order)
 * @len: bytes in @data
 *
 * Context: any.
 *
 * Return: the 32-bit hash, in host order.
 */
u32 ixm_toeplitz(const u8 *key, size_t key_len, const u8 *data, size_t len)
{
	u64 win = 0;	/* low 40 bits: key bytes i..i+4 */
	u32 hash = 0;
	unsigned int j;
	size_t i;
	u32 bit;

	for (i = 0; i < 4; i++)
		win = (win << 8) | ixm_toeplitz_key_byte(key, key_len, i);
	for (i = 0; i < len; i++) {
		win = (win << 8) | ixm_toeplitz_key_byte(key, key_len, i + 4);
		for (j = 0; j < 8; j++) {
			/* all ones if bit j (from the left) of data[i] is set */
			bit = 0u - ((data[i] >> (7 - j)) & 1u);
			hash ^= (u32)(win >> (8 - j)) & bit;
		}
	}
	return hash;
}

/**
 * ixm_toeplitz_ipv4() - RSS hash of an IPv4 address pair
 * @key: IXM_RSS_KEY_LEN bytes of key
 * @saddr: source address, network order
 * @daddr: destination address, network order
 *
 * The specification's IPv4-only input: source address then destination
 * address, 8 bytes.  The hardware falls back to it for IPv4 packets whose
 * ports it does not hash: neither TCP nor UDP, or fragments.
 *
 * Context: any.
 *
 * Return: the 32-bit hash, in host order.
 */
u32 ixm_toeplitz_ipv4(const u8 *key, __be32 saddr, __be32 daddr)
{
	u8 in[8];

	memcpy(in, &saddr, 4);
	memcpy(in + 4, &daddr, 4);
	return ixm_toeplitz(key, IXM_RSS_KEY_LEN, in, sizeof(in));
}

/**
 * ixm_toeplitz_ipv4_l4() - RSS hash of an IPv4 TCP or UDP 4-tuple
 * @key: IXM_RSS_KEY_LEN bytes of key
 * @saddr: source address, network order
 * @daddr: destination address, network order
 * @sport: source port, network order
 * @dport: destination port, network order
 *
 * The specification's IPv4-with-TCP input: source address, destination
 * address, source port, destination port, 12 bytes.  UDP uses the same
 * input where the hardware is told to hash UDP ports.
 *
 * Context: any.
 *
 * Return: the 32-bit hash, in host order.
 */
u32 ixm_toeplitz_ipv4_l4(const u8 *key, __be32 saddr, __be32 daddr,
			 __be16 sport, __be16 dport)
{
	u8 in[12];

	memcpy(in, &saddr, 4);
	memcpy(in + 4, &daddr, 4);
	memcpy(in + 8, &sport, 2);
	memcpy(in + 10, &dport, 2);
	return ixm_toeplitz(key, IXM_RSS_KEY_LEN, in, sizeof(in));
}

/**
 * ixm_toeplitz_ipv6_l4() - RSS hash of an IPv6 TCP or UDP 4-tuple
 * @key: IXM_RSS_KEY_LEN bytes of key
 * @saddr: source address, 16 bytes in network order
 * @daddr: destination address, 16 bytes in network order
 * @sport: source port, network order
 * @dport: destination port, network order
 *
 * The specification's IPv6-with-TCP input: source address, destination
 * address, source port, destination port, 36 bytes, which a 40-byte key
 * covers exactly.
 *
 * Context: any.
 *
 * Return: the 32-bit hash, in host order.
 */
u32 ixm_toeplitz_ipv6_l4(const u8 *key, const u8 *saddr, const u8 *daddr,
			 __be16 sport, __be16 dport)
{
	u8 in[36];

	memcpy(in, saddr, 16);
	memcpy(in + 16, daddr, 16);
	memcpy(in + 32, &sport, 2);
	memcpy(in + 34, &dport, 2);
	return ixm_toeplitz(key, IXM_RSS_KEY_LEN, in, sizeof(in));
}

/**
 * ixm_toeplitz_ipv6() - RSS hash of an IPv6 address pair
 * @key: IXM_RSS_KEY_LEN bytes of key
 * @saddr: source address, 16 bytes in network order
 * @daddr: destination address, 16 bytes in network order
 *
 * The specification's IPv6-only input: source address then destination
 * address, 32 bytes.  What the NICs hash, as ixmod programs them, for an
 * IPv6 packet whose fixed header is not directly followed by TCP or UDP
 * (ICMPv6, fragments, extension headers).
 *
 * Context: any.
 *
 * Return: the 32-bit hash, in host order.
 */
u32 ixm_toeplitz_ipv6(const u8 *key, const u8 *saddr, const u8 *daddr)
{
	u8 in[32];

	memcpy(in, saddr, 16);
	memcpy(in + 16, daddr, 16);
	return ixm_toeplitz(key, IXM_RSS_KEY_LEN, in, sizeof(in));
}

/*
 * IPv6 (RFC 8200 §3): the 4-tuple when TCP or UDP directly follows the
 * fixed header and its ports are in @len, else the addresses.  Extension
 * headers are not walked: the NICs are told not to (RFCTL.IPV6_EX_DIS),
 * and nic/steer.c's ixm_steer_owner6() makes the same choice.
 */
static bool ixm_toeplitz_frame6(const u8 *key, const u8 *frame, unsigned int len, u32 *hash)
{
	const u8 *ip = frame + 14;
	__be16 sp, dp;

	if (len < 14 + 40 || (ip[0] >> 4) != 6)
		return false;
	if ((ip[6] == 6 || ip[6] == 17) && len >= 14 + 40 + 4) {
		memcpy(&sp, ip + 40, 2);
		memcpy(&dp, ip + 42, 2);
		*hash = ixm_toeplitz_ipv6_l4(key, ip + 8, ip + 24, sp, dp);
	} else {
		*hash = ixm_toeplitz_ipv6(key, ip + 8, ip + 24);
	}
	return true;
}

/**
 * ixm_toeplitz_frame() - the hash a NIC's RSS gives an Ethernet frame
 * @key: the port's key, IXM_RSS_KEY_LEN bytes
 * @frame: the frame from its Ethernet header
 * @len: bytes of @frame readable (IXM_TOEPLITZ_FRAME_MAX are enough)
 * @hash: the hash, if any
 *
 * What the port programs a NIC to hash (the 82599's and 82576's MRQC, the
 * virtio-net RSS hash types ixmod sets): an untagged IPv4 frame (version
 * 4, a header of at least 20 bytes) hashes its TCP or UDP 4-tuple unless
 * it is a fragment, else its addresses; an untagged IPv6 frame (version
 * 6, the 40-byte fixed header) its TCP or UDP 4-tuple when that protocol
 * directly follows the fixed header, else its addresses.  Nothing else is
 * hashed; a NIC sends it to its first queue.  For software that must
 * steer as the NIC would (the software port; devices without RSS), and
 * the same choice as nic/steer.c's.
 *
 * Return: true if @hash was set.
 */
bool ixm_toeplitz_frame(const u8 *key, const u8 *frame, unsigned int len, u32 *hash)
{
	unsigned int ihl;
	__be32 sa, da;
	__be16 sp, dp;
	u16 frag;

	BUILD_BUG_ON(IXM_TOEPLITZ_FRAME_MAX < IXM_TOEPLITZ_FRAME_IPV6);
	if (len >= 14 && frame[12] == 0x86 && frame[13] == 0xdd)
		return ixm_toeplitz_frame6(key, frame, len, hash);
	if (len < 14 + 20 || frame[12] != 0x08 || frame[13] != 0x00 ||
	    (frame[14] >> 4) != 4)
		return false;
	ihl = (frame[14] & 0xf) * 4;
	if (ihl < 20 || len < 14 + ihl)
		return false;
	memcpy(&sa, frame + 14 + 12, 4);
	memcpy(&da, frame + 14 + 16, 4);
	frag = (frame[14 + 6] << 8 | frame[14 + 7]) & 0x3fff;	/* MF, offset */
	if (!frag && (frame[14 + 9] == 6 || frame[14 + 9] == 17) &&
	    len >= 14 + ihl + 4) {
		memcpy(&sp, frame + 14 + ihl, 2);
		memcpy(&dp, frame + 14 + ihl + 2, 2);
		*hash = ixm_toeplitz_ipv4_l4(key, sa, da, sp, dp);
	} else {
		*hash = ixm_toeplitz_ipv4(key, sa, da);
	}
	return true;
}
