/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frames6.h - IPv6 frames built byte by byte, and an independent check of
 * IPv6 frames the protocol code transmits
 *
 * Included by frames.h (after its byte writers), never alone.  As there,
 * nothing uses ixmod's wire structures: offsets are RFC 8200's, RFC
 * 4443's and RFC 4861's, and checksums are ref.h's over a pseudo-header
 * laid out in memory as RFC 8200 §8.1 draws it.
 */
#ifndef _IXM_TEST_FRAMES6_H
#define _IXM_TEST_FRAMES6_H

/* The port's global address 2001:db8::1/64 (RFC 3849), and peers. */
static const u8 our_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
static const u8 peer_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };
/* fe80::/64 with our_mac's modified EUI-64 (RFC 4291 Appendix A), by hand */
static const u8 our_ll6[16] = { 0xfe, 0x80, [8] = 0x00, 0x00, 0x5e, 0xff, 0xfe,
				0x00, 0x00, 0x01 };
static const u8 all_nodes6[16] = { 0xff, 0x02, [15] = 0x01 };

/* Turn IPv6 on for @t: the global address above, /64, the link-local. */
static inline void tport_ip6(struct tport *t)
{
	memcpy(t->cfg.ip6.s6, our_ip6, 16);
	memcpy(t->cfg.ll6.s6, our_ll6, 16);
	t->cfg.ip6_prefix = 64;
}

/* ff02::1:ffXX:XXXX of @a (RFC 4291 §2.7.1). */
static inline void sol_node6(u8 *grp, const u8 *a)
{
	static const u8 pre[13] = { 0xff, 0x02, [11] = 0x01, 0xff };

	memcpy(grp, pre, 13);
	memcpy(grp + 13, a + 13, 3);
}

/* The checksum of @n bytes of an upper layer over IPv6 (RFC 8200 §8.1). */
static inline u16 ref_l4_csum6(const u8 *src, const u8 *dst, u8 nh,
			       const u8 *seg, size_t n)
{
	u8 *buf = malloc(40 + n);
	u16 ck;

	if (!buf)
		die("malloc");
	memcpy(buf, src, 16);
	memcpy(buf + 16, dst, 16);
	put32(buf + 32, (u32)n);
	buf[36] = 0;
	buf[37] = 0;
	buf[38] = 0;
	buf[39] = nh;
	memcpy(buf + 40, seg, n);
	ck = ref_csum(buf, 40 + n);
	free(buf);
	return ck;
}

/*
 * Read a TCP/IPv6 frame with no extension header: NULL if it is one and
 * every length, option and checksum is right (@s filled in, @s->v6),
 * else what is wrong.
 */
static inline const char *tcp_parse6(const u8 *f, size_t len, struct tcp_seg *s)
{
	size_t plen;

	memset(s, 0, sizeof(*s));
	s->wscale = -1;
	if (len < 14 + 40 || get16(f + 12) != 0x86dd || f[14] >> 4 != 6)
		return "not an IPv6 frame";
	plen = get16(f + 18);
	if (14 + 40 + plen > len)
		return "IPv6 payload length";
	if (f[20] != 6)
		return "not TCP";
	if (plen < 20)
		return "TCP header too short";
	if (ref_l4_csum6(f + 22, f + 38, 6, f + 54, plen))
		return "TCP checksum";
	memcpy(s->dmac, f, 6);
	s->v6 = true;
	memcpy(s->src6, f + 22, 16);
	memcpy(s->dst6, f + 38, 16);
	s->tos = (u8)(get32(f + 14) >> 20);
	return tcp_parse_rest(f + 54, plen, s);
}

/* The 40-byte header (RFC 8200 §3): version 6, class and label 0. */
static inline u8 *put_ip6(u8 *p, const u8 *src, const u8 *dst, u8 nh,
			  unsigned int plen, u8 hlim)
{
	put32(p, 6u << 28);
	put16(p + 4, plen);
	p[6] = nh;
	p[7] = hlim;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	return p + 40;
}

/*
 * Set the checksum of the ICMPv6 message at @msg (@n bytes) in the
 * datagram whose header is at @ip6.
 */
static inline void fix_icmp6_csum(const u8 *ip6, u8 *msg, size_t n)
{
	msg[2] = 0;
	msg[3] = 0;
	put16(msg + 2, ref_l4_csum6(ip6 + 8, ip6 + 24, 58, msg, n));
}

/*
 * An ICMPv6 echo request (RFC 4443 §4.1) from peer_mac/peer_ip6 to
 * our_mac/@dst, ID 0x1234, @n bytes of pattern data for @seq, after the
 * @ext bytes of extension headers (whose first Next Header is @nh0; the
 * last one's must say 58); returns the frame length.
 */
static inline size_t echo6_frame(u8 *f, const u8 *dst, u8 nh0, const u8 *ext,
				 size_t next, size_t n, u16 seq)
{
	u8 *p = put_eth(f, our_mac, peer_mac, 0x86dd), *ip6 = p, *msg;
	size_t i;

	p = put_ip6(p, peer_ip6, dst, next ? nh0 : 58, next + 8 + n, 64);
	if (next)
		memcpy(p, ext, next);
	msg = p + next;
	msg[0] = 128;
	msg[1] = 0;
	put16(msg + 4, 0x1234);
	put16(msg + 6, seq);
	for (i = 0; i < n; i++)
		msg[8 + i] = (u8)(i * 7 + seq);
	fix_icmp6_csum(ip6, msg, 8 + n);
	return (size_t)(msg + 8 + n - f);
}

/*
 * A Neighbor Solicitation (RFC 4861 §4.3) for @target from @src (:: for
 * DAD) to @dst, hop limit @hlim, with a source link-layer address option
 * @slla (NULL: none); Ethernet from @smac to @dmac.  Returns the length.
 */
static inline size_t ns_frame(u8 *f, const u8 *dmac, const u8 *smac,
			      const u8 *src, const u8 *dst, const u8 *target,
			      const u8 *slla, u8 hlim)
{
	size_t n = 24 + (slla ? 8 : 0);
	u8 *p = put_eth(f, dmac, smac, 0x86dd), *ip6 = p;

	p = put_ip6(p, src, dst, 58, (unsigned int)n, hlim);
	memset(p, 0, n);
	p[0] = 135;
	memcpy(p + 8, target, 16);
	if (slla) {
		p[24] = 1;
		p[25] = 1;
		memcpy(p + 26, slla, 6);
	}
	fix_icmp6_csum(ip6, p, n);
	return (size_t)(p + n - f);
}

/* A Neighbor Advertisement (RFC 4861 §4.4), TLLA @tlla unless NULL. */
static inline size_t na_frame(u8 *f, const u8 *dmac, const u8 *smac,
			      const u8 *src, const u8 *dst, const u8 *target,
			      u8 flags, const u8 *tlla, u8 hlim)
{
	size_t n = 24 + (tlla ? 8 : 0);
	u8 *p = put_eth(f, dmac, smac, 0x86dd), *ip6 = p;

	p = put_ip6(p, src, dst, 58, (unsigned int)n, hlim);
	memset(p, 0, n);
	p[0] = 136;
	p[4] = flags;
	memcpy(p + 8, target, 16);
	if (tlla) {
		p[24] = 2;
		p[25] = 1;
		memcpy(p + 26, tlla, 6);
	}
	fix_icmp6_csum(ip6, p, n);
	return (size_t)(p + n - f);
}

static inline bool is_ours6(const struct ixm_if_config *cfg, const u8 *a)
{
	return !memcmp(a, cfg->ip6.s6, 16) || !memcmp(a, cfg->ll6.s6, 16);
}

/*
 * RFC 8200, 4443 and 4861 for a frame ixmod sends: lengths, a source of
 * ours, a group destination only for ND to all-nodes or a solicited-node
 * group and then at its RFC 2464 §7 MAC, the ICMPv6 checksum, a type
 * ixmod may send, ND's hop limit 255 and its one link-layer address
 * option, an error within the minimum MTU; UDP to a unicast address with
 * its length and a checksum, never 0, that verifies (RFC 8200 §8.1); TCP
 * to a unicast address, not ::, ::1 or ours, with no extension header, a
 * data offset inside the segment, only options ixmod sends and a
 * checksum that verifies (tcp_parse6()).  NULL when well formed.
 */
static inline const char *check_tx_ipv6(const struct ixm_if_config *cfg,
					const u8 *f, size_t len)
{
	const u8 *ip6 = f + 14, *msg = f + 54;
	size_t plen;
	u8 type;

	if (len < 14 + 40)
		return "IPv6 frame too short";
	if (ip6[0] >> 4 != 6)
		return "IPv6 version";
	plen = get16(ip6 + 4);
	if (14 + 40 + plen != len)
		return "IPv6 payload length";
	if (!ip6[7])
		return "IPv6 hop limit 0";
	if (!is_ours6(cfg, ip6 + 8))
		return "IPv6 source is not ours";
	if (ip6[24] == 0xff) {
		u8 grp[16];

		sol_node6(grp, ip6 + 24);
		if (memcmp(ip6 + 24, all_nodes6, 16) && memcmp(ip6 + 24, grp, 16))
			return "IPv6 group destination other than ND's";
		if (f[0] != 0x33 || f[1] != 0x33 || memcmp(f + 2, ip6 + 36, 4))
			return "IPv6 group not sent to its MAC (RFC 2464 §7)";
	} else if (f[0] & 1) {
		return "IPv6 unicast sent to an Ethernet group";
	}
	if (ip6[6] == 17) {
		if (ip6[24] == 0xff)
			return "UDP over IPv6 to a group";
		if (plen < 8 || get16(msg + 4) != plen)
			return "UDP over IPv6: length";
		if (!get16(msg + 6))
			return "UDP over IPv6 without a checksum";
		if (ref_l4_csum6(ip6 + 8, ip6 + 24, 17, msg, plen))
			return "UDP over IPv6: checksum";
		return NULL;
	}
	if (ip6[6] == 6) {
		static const u8 loopback6[16] = { [15] = 1 };
		static const u8 any6[16];
		struct tcp_seg s;

		if (ip6[24] == 0xff)
			return "TCP over IPv6 to a group";
		if (!memcmp(ip6 + 24, any6, 16) || !memcmp(ip6 + 24, loopback6, 16) ||
		    is_ours6(cfg, ip6 + 24))
			return "TCP over IPv6 to ::, ::1 or ourselves";
		return tcp_parse6(f, len, &s);
	}
	if (ip6[6] != 58)
		return "IPv6: only ICMPv6, UDP and TCP are sent";
	if (plen < 8)
		return "ICMPv6 too short";
	if (ref_l4_csum6(ip6 + 8, ip6 + 24, 58, msg, plen))
		return "ICMPv6 checksum";
	type = msg[0];
	if (type >= 1 && type <= 4)
		return plen + 40 > 1280 ? "ICMPv6 error over the minimum MTU" : NULL;
	if (type == 129)
		return msg[1] ? "ICMPv6 echo reply code" : NULL;
	if (type != 135 && type != 136)
		return "ICMPv6 type ixmod never sends";
	if (ip6[7] != 255)
		return "ND hop limit not 255";
	if (plen != 32 || msg[24] != (type == 135 ? 1 : 2) || msg[25] != 1 ||
	    memcmp(msg + 26, cfg->mac, 6))
		return "ND without its one link-layer address option, ours";
	if (type == 136 && ip6[24] == 0xff && (msg[4] & 0x40))
		return "NA to a group with the Solicited flag";
	if (msg[8] == 0xff)
		return "ND target is a group";
	return NULL;
}

#endif /* _IXM_TEST_FRAMES6_H */
