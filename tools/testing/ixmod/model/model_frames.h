/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_frames.h - frames the register-model tests feed a device
 *
 * Written byte by byte, with their own checksum code, so that a model's
 * checksum offload and the driver's are both checked against something
 * neither shares.  The includer defines station[6], the device's MAC
 * (every frame's destination).
 */
#ifndef _IXM_TEST_MODEL_FRAMES_H
#define _IXM_TEST_MODEL_FRAMES_H

#include "mbuf.h"
#include "ref.h"

static inline u16 csum(const u8 *p, unsigned int len, u32 s)
{
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		s += p[i] << 8 | p[i + 1];
	if (len & 1)
		s += p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static inline void be16put(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void be32put(u8 *p, u32 v)
{
	be16put(p, v >> 16);
	be16put(p + 2, v);
}

/* The pseudo-header sum of an IPv4 frame's L4 (RFC 793/768). */
static inline u32 pseudo(const u8 *ip)
{
	u16 l4len = (ip[2] << 8 | ip[3]) - (ip[0] & 0xf) * 4;

	return csum(ip + 12, 8, 0) + ip[9] + l4len;
}

/*
 * An Ethernet/IPv4 frame with a TCP (proto 6) or UDP (17) header and
 * @plen bytes of payload; checksums correct when @sums, zero otherwise.
 */
static inline unsigned int mkframe(u8 *f, u8 proto, u32 sa, u32 da, u16 sp, u16 dp,
			    unsigned int plen, bool sums)
{
	unsigned int hl = proto == 6 ? 20 : 8, i;
	u8 *ip = f + 14, *l4 = ip + 20;

	memset(f, 0, 14 + 20 + hl);
	memcpy(f, station, 6);
	memcpy(f + 6, "\x02\0\0\0\0\x01", 6);
	be16put(f + 12, 0x0800);
	ip[0] = 0x45;
	be16put(ip + 2, 20 + hl + plen);
	ip[8] = 64;
	ip[9] = proto;
	be32put(ip + 12, sa);
	be32put(ip + 16, da);
	be16put(l4, sp);
	be16put(l4 + 2, dp);
	if (proto == 6)
		l4[12] = 5 << 4;
	else
		be16put(l4 + 4, hl + plen);
	for (i = 0; i < plen; i++)
		l4[hl + i] = (u8)(i * 7 + 3);
	if (sums) {
		u16 s;

		be16put(ip + 10, ~csum(ip, 20, 0));
		s = ~csum(l4, hl + plen, pseudo(ip));
		be16put(l4 + (proto == 6 ? 16 : 6), s ? s : 0xffff);
	}
	return 14 + 20 + hl + plen;
}

/*
 * An Ethernet/IPv6 frame from @sa to @da with a TCP (@proto 6) or UDP (17)
 * header and @plen bytes of payload, checksums correct.  @ext, unless it
 * is 0xff, puts one 8-byte extension header of that type (0 hop-by-hop,
 * 44 fragment, 60 destination options) between the fixed header and L4.
 */
static inline unsigned int mkframe6(u8 *f, u8 proto, const u8 *sa, const u8 *da, u16 sp,
				    u16 dp, unsigned int plen, u8 ext)
{
	unsigned int hl = proto == 6 ? 20 : 8, xl = ext == 0xff ? 0 : 8, i;
	u8 *ip = f + 14, *l4 = ip + 40 + xl;
	u32 s;

	memset(f, 0, 14 + 40 + xl + hl);
	memcpy(f, station, 6);
	memcpy(f + 6, "\x02\0\0\0\0\x01", 6);
	be16put(f + 12, 0x86dd);
	ip[0] = 0x60;
	be16put(ip + 4, xl + hl + plen);
	ip[6] = xl ? ext : proto;
	ip[7] = 64;
	memcpy(ip + 8, sa, 16);
	memcpy(ip + 24, da, 16);
	if (xl)
		ip[40] = proto;		/* next header; length 0 (8 bytes), PadN-free */
	be16put(l4, sp);
	be16put(l4 + 2, dp);
	if (proto == 6)
		l4[12] = 5 << 4;
	else
		be16put(l4 + 4, hl + plen);
	for (i = 0; i < plen; i++)
		l4[hl + i] = (u8)(i * 7 + 3);
	/* RFC 8200 §8.1: addresses, upper-layer length, next header */
	s = csum(ip + 8, 32, 0) + hl + plen + proto;
	s = (u16)~csum(l4, hl + plen, s);
	be16put(l4 + (proto == 6 ? 16 : 6), s ? s : 0xffff);
	return 14 + 40 + xl + hl + plen;
}

/*
 * Frames for the checksum offload tests: @kind bit 0 UDP (else TCP), bit
 * 1 IPv6 (else IPv4), @plen payload bytes from port @sp.  @want gets the
 * frame as it must leave the NIC (checksums right); @f the same as
 * ixmod's protocols hand it to the driver (base/mbuf.h): the IPv4 header
 * checksum 0, the TCP/UDP field holding the pseudo-header's sum.  Return:
 * the frame's length; *@flags the IXM_MBUF_F_TX_* bits to set.
 */
#define OFF_UDP		1u
#define OFF_V6		2u

static inline unsigned int mkframe_offload(u8 *f, u8 *want, u16 *flags, unsigned int kind,
					   u16 sp, unsigned int plen)
{
	static const u8 sa6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const u8 da6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	u8 proto = (kind & OFF_UDP) ? 17 : 6;
	unsigned int len, l4;
	u32 s;

	if (kind & OFF_V6) {
		len = mkframe6(want, proto, sa6, da6, sp, 80, plen, 0xff);
		l4 = 14 + 40;
		s = csum(want + 22, 32, 0) + (len - l4) + proto;	/* RFC 8200 §8.1 */
	} else {
		len = mkframe(want, proto, 0xc6120001, 0xc6120002, sp, 80, plen, true);
		l4 = 14 + 20;
		s = pseudo(want + 14);
	}
	memcpy(f, want, len);
	if (!(kind & OFF_V6))
		be16put(f + 14 + 10, 0);
	be16put(f + l4 + (proto == 6 ? 16 : 6), csum(NULL, 0, s));
	*flags = (proto == 6 ? IXM_MBUF_F_TX_TCP_CSUM : IXM_MBUF_F_TX_UDP_CSUM) |
		 ((kind & OFF_V6) ? IXM_MBUF_F_TX_IPV6 : 0);
	return len;
}

/*
 * A frame off the wire is @want, byte for byte, and its checksums verify
 * by ref.h's sum (neither the driver's, the model's nor the builder's):
 * the IPv4 header's, and TCP/UDP's over RFC 793's or RFC 8200 §8.1's
 * pseudo-header laid out in memory.
 */
static inline bool offload_frame_ok(const u8 *got, unsigned int glen, const u8 *want,
				    unsigned int wlen)
{
	static u8 buf[40 + 2048];
	bool v6 = glen > 14 && got[12] == 0x86 && got[13] == 0xdd;
	unsigned int l4 = v6 ? 54 : 34, n, ph = v6 ? 40 : 12;

	if (glen != wlen || memcmp(got, want, wlen) || glen < l4 + 8 || glen - l4 > 2048)
		return false;
	if (!v6 && ref_csum(got + 14, 20))
		return false;
	n = glen - l4;
	memset(buf, 0, ph);
	if (v6) {
		memcpy(buf, got + 22, 32);
		be32put(buf + 32, n);
		buf[39] = got[20];
	} else {
		memcpy(buf, got + 26, 8);
		buf[9] = got[23];
		be16put(buf + 10, n);
	}
	memcpy(buf + ph, got + l4, n);
	return !ref_csum(buf, ph + n);
}

#endif /* _IXM_TEST_MODEL_FRAMES_H */
