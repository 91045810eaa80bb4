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

#endif /* _IXM_TEST_MODEL_FRAMES_H */
