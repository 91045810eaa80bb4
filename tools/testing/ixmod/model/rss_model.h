/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rss_model.h - what the 82599's and 82576's RSS hash, for the models
 *
 * Shared by igb_model.c and ixgbe_model.c: both datasheets' RSS sections
 * (82599 §7.1.2.8.1, 82576 §7.1.2.8) define the same hash types, the
 * same MRQC field enables in bits 24:16 and the same RSS Type codes in
 * the receive write-back; RFCTL.IPV6_EX_DIS sits in bit 16 of both.
 * Written from those descriptions, not from ixmod's base/toeplitz.c or
 * nic/steer.c, so that the tests compare two readings of the hash.
 *
 * Modelled, for untagged Ethernet II frames:
 *  - IPv4: TcpIPv4 and UdpIPv4 hash addresses and ports (a fragment has
 *    none), IPv4 the addresses;
 *  - IPv6: TcpIPv6 and UdpIPv6 hash addresses and ports when TCP or UDP
 *    follows the fixed header, or follows hop-by-hop, routing and
 *    destination options headers (RFC 8200 §4) that the parser walks
 *    unless RFCTL.IPV6_EX_DIS is set; with it set, the first extension
 *    header ends the parse and the packet hashes its addresses (IPv6).
 *    A fragment header means no ports.
 * Not modelled: the "Ex" types' address substitution (a Home Address
 * option for the source, a type 2 routing header for the destination).
 * TcpIPv6Ex, UdpIPv6Ex and IPv6Ex hash here as their plain types do,
 * which is what they hash when no such option is present.
 */
#ifndef _IXM_TEST_RSS_MODEL_H
#define _IXM_TEST_RSS_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* MRQC bits 24:16, the RSS field enables */
#define RSSM_MRQC_TCPIPV4	(1u << 16)
#define RSSM_MRQC_IPV4		(1u << 17)
#define RSSM_MRQC_TCPIPV6EX	(1u << 18)
#define RSSM_MRQC_IPV6EX	(1u << 19)
#define RSSM_MRQC_IPV6		(1u << 20)
#define RSSM_MRQC_TCPIPV6	(1u << 21)
#define RSSM_MRQC_UDPIPV4	(1u << 22)
#define RSSM_MRQC_UDPIPV6	(1u << 23)
#define RSSM_MRQC_UDPIPV6EX	(1u << 24)
#define RSSM_RFCTL_IPV6_EX_DIS	(1u << 16)

/* the write-back's RSS Type (82599 §7.1.6.2) */
enum {
	RSSM_NONE, RSSM_TCPIPV4, RSSM_IPV4, RSSM_TCPIPV6, RSSM_IPV6EX, RSSM_IPV6,
	RSSM_TCPIPV6EX, RSSM_UDPIPV4, RSSM_UDPIPV6, RSSM_UDPIPV6EX,
};

/* the longest input: two IPv6 addresses and two ports */
#define RSSM_IN_MAX	36

static inline unsigned int rssm_be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/* IPv4: addresses, then the ports if hashed */
static inline unsigned int rssm_input4(const uint8_t *ip, unsigned int avail, uint32_t mrqc,
				       uint8_t *in, unsigned int *n)
{
	unsigned int ihl = (ip[0] & 0xf) * 4, tl = rssm_be16(ip + 2);
	bool frag, tcp, udp;

	if (ihl < 20 || tl < ihl || tl > avail)
		return RSSM_NONE;
	frag = rssm_be16(ip + 6) & 0x3fff;	/* MF or an offset */
	tcp = !frag && ip[9] == 6 && tl >= ihl + 20;
	udp = !frag && ip[9] == 17 && tl >= ihl + 8;
	memcpy(in, ip + 12, 8);
	if (tcp || udp)
		memcpy(in + 8, ip + ihl, 4);
	*n = 12;
	if (tcp && (mrqc & RSSM_MRQC_TCPIPV4))
		return RSSM_TCPIPV4;
	if (udp && (mrqc & RSSM_MRQC_UDPIPV4))
		return RSSM_UDPIPV4;
	*n = 8;
	return (mrqc & RSSM_MRQC_IPV4) ? RSSM_IPV4 : RSSM_NONE;
}

/* IPv6: addresses, then the ports if hashed */
static inline unsigned int rssm_input6(const uint8_t *ip, unsigned int avail, uint32_t mrqc,
				       uint32_t rfctl, uint8_t *in, unsigned int *n)
{
	unsigned int tl = 40 + rssm_be16(ip + 4), off = 40, nh = ip[6];
	bool tcp, udp;

	if (tl > avail)
		return RSSM_NONE;
	while (!(rfctl & RSSM_RFCTL_IPV6_EX_DIS) && (nh == 0 || nh == 43 || nh == 60) &&
	       off + 8 <= tl) {
		nh = ip[off];
		off += (ip[off + 1] + 1) * 8;
	}
	tcp = nh == 6 && off + 20 <= tl;
	udp = nh == 17 && off + 8 <= tl;
	memcpy(in, ip + 8, 32);
	if (tcp || udp)
		memcpy(in + 32, ip + off, 4);
	*n = 36;
	if (tcp && (mrqc & RSSM_MRQC_TCPIPV6))
		return RSSM_TCPIPV6;
	if (tcp && (mrqc & RSSM_MRQC_TCPIPV6EX))
		return RSSM_TCPIPV6EX;
	if (udp && (mrqc & RSSM_MRQC_UDPIPV6))
		return RSSM_UDPIPV6;
	if (udp && (mrqc & RSSM_MRQC_UDPIPV6EX))
		return RSSM_UDPIPV6EX;
	*n = 32;
	if (mrqc & RSSM_MRQC_IPV6)
		return RSSM_IPV6;
	return (mrqc & RSSM_MRQC_IPV6EX) ? RSSM_IPV6EX : RSSM_NONE;
}

/*
 * The hash type of frame @f (@len bytes) under @mrqc and @rfctl, and the
 * hash input in @in (RSSM_IN_MAX bytes), @n of them; RSSM_NONE if it is
 * not hashed.
 */
static inline unsigned int rssm_input(const uint8_t *f, unsigned int len, uint32_t mrqc,
				      uint32_t rfctl, uint8_t *in, unsigned int *n)
{
	*n = 0;
	if (len >= 14 + 20 && rssm_be16(f + 12) == 0x0800 && (f[14] >> 4) == 4)
		return rssm_input4(f + 14, len - 14, mrqc, in, n);
	if (len >= 14 + 40 && rssm_be16(f + 12) == 0x86dd && (f[14] >> 4) == 6)
		return rssm_input6(f + 14, len - 14, mrqc, rfctl, in, n);
	return RSSM_NONE;
}

/*
 * The Toeplitz hash as the datasheets give it: for each input bit that is
 * set, XOR in the 32 key bits starting at that bit's position.
 */
static inline uint32_t rssm_toeplitz(const uint8_t key[40], const uint8_t *in, unsigned int n)
{
	uint32_t win = (uint32_t)key[0] << 24 | key[1] << 16 | key[2] << 8 | key[3], h = 0;
	unsigned int j, k;

	for (j = 0; j < n * 8 && j < 288; j++) {
		if (in[j / 8] & (0x80 >> (j % 8)))
			h ^= win;
		k = j + 32;
		win = win << 1 | (k < 320 ? (key[k / 8] >> (7 - k % 8)) & 1 : 0);
	}
	return h;
}

#endif /* _IXM_TEST_RSS_MODEL_H */
