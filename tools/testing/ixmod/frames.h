/* SPDX-License-Identifier: GPL-2.0 */
/*
 * a test port, frames built byte by byte, and independent
 * checks of frames the protocol code transmits
 *
 * Shared by the unit tests, the fuzzers and testnet.c.  Nothing here
 * uses ixmod's wire structures: offsets are written out as the RFCs lay
 * the headers out, and checksums come from ref.h, so a layout or
 * byte-order mistake in ixmod/net/ cannot cancel out in the tests.
 */
#ifndef _IXM_TEST_FRAMES_H
#define _IXM_TEST_FRAMES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arp.h"
#include "nd.h"
#include "net.h"
#include "ref.h"

extern unsigned int ixm_host_last_drop;	/* host.c */
extern unsigned long ixm_host_notified;	/* host.c: ixm_app_notify() calls */
extern unsigned long ixm_host_tx_held;	/* host.c: frames the ixm_tx_batch hook saw held */

/* The port under test, 192.0.2.1/24 (RFC 5737 TEST-NET-1), and a peer. */
static const u8 our_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x00, 0x01 };
static const u8 peer_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x00, 0x02 };
static const u8 bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
#define OUR_IP		0xc0000201u	/* 192.0.2.1, host order */
#define PEER_IP		0xc0000202u	/* 192.0.2.2 */
#define PEER2_IP	0xc0000203u	/* 192.0.2.3 */

#define TPORT_BUFS	8

/* The neighbour table's bucket key in tests: fixed, so runs repeat. */
static const u64 tport_nd_key[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

/**
 * struct tport - a port on one core, as the dataplane would set it up
 */
struct tport {
	struct ixm_net_port	port;
	struct ixm_if_config	cfg;
	struct ixm_net_stats	stats;
	struct ixm_mbuf_pool	pool;
	struct ixm_mbuf		mbufs[TPORT_BUFS];
	struct ixm_mbuf		*free[TPORT_BUFS];
};

static inline void die(const char *what)
{
	perror(what);
	exit(255);
}

static inline __be32 be32_of(u32 host)
{
	return ixm_htonl(host);
}

/* @t with its own buffers, address @ip (host order, 0: none) and a table. */
static inline void tport_init(struct tport *t, u32 ip)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < TPORT_BUFS; i++) {
		t->mbufs[i].buf = malloc(IXM_MBUF_SIZE);
		if (!t->mbufs[i].buf)
			die("malloc");
		t->mbufs[i].dma = (dma_addr_t)(uintptr_t)t->mbufs[i].buf;
	}
	ixm_mbuf_pool_init(&t->pool, t->mbufs, t->free, TPORT_BUFS);
	memcpy(t->cfg.mac, our_mac, 6);
	if (ip) {
		t->cfg.ip = be32_of(ip);
		t->cfg.prefix = 24;
		t->cfg.netmask = be32_of(0xffffff00u);
	}
	t->port.cfg = &t->cfg;
	t->port.pool = &t->pool;
	t->port.stats = &t->stats;
	t->port.arp = ixm_arp_table_alloc();
	if (!t->port.arp)
		die("ixm_arp_table_alloc");
	t->port.nd = ixm_nd_table_alloc(tport_nd_key);
	if (!t->port.nd)
		die("ixm_nd_table_alloc");
	t->port.now_ns = ixm_host_now_ns;
}

/* Return every queued TX frame to the pool. */
static inline void tport_tx_flush(struct tport *t)
{
	unsigned int i;

	for (i = 0; i < t->port.ntx; i++)
		ixm_mbuf_free(t->port.tx[i]);
	t->port.ntx = 0;
}

static inline void tport_fini(struct tport *t)
{
	unsigned int i;

	tport_tx_flush(t);
	ixm_arp_table_free(t->port.arp);
	ixm_nd_table_free(t->port.nd);
	for (i = 0; i < TPORT_BUFS; i++)
		free(t->mbufs[i].buf);
}

/* Copy @len bytes of frame into a pool buffer and hand it to the stack. */
static inline void tport_input(struct tport *t, const u8 *f, size_t len,
			       u16 flags)
{
	struct ixm_mbuf *m = ixm_mbuf_alloc(&t->pool);

	if (!m || len > IXM_MBUF_DATA_MAX) {
		fprintf(stderr, "tport_input: no buffer or frame too long\n");
		exit(255);
	}
	memcpy(m->data, f, len);
	m->len = (u16)len;
	m->flags = flags;
	ixm_eth_input(&t->port, m);
}

/* Byte writers, most significant byte first (RFC 791 Appendix B). */
static inline u8 *put16(u8 *p, unsigned int v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
	return p + 2;
}

static inline u8 *put32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
	return p + 4;
}

static inline u8 *putmac(u8 *p, const u8 *mac)
{
	memcpy(p, mac, 6);
	return p + 6;
}

static inline u16 get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/* Ethernet II header: 14 bytes. */
static inline u8 *put_eth(u8 *p, const u8 *dst, const u8 *src, unsigned int type)
{
	p = putmac(p, dst);
	p = putmac(p, src);
	return put16(p, type);
}

/*
 * IPv4 header of 20 bytes (RFC 791 §3.1) with a correct checksum; the
 * caller may patch fields afterwards (then call fix_ip_csum()).
 */
struct iph_args {
	u8 tos;
	u16 id;
	u16 frag;	/* flags and offset */
	u8 ttl;
	u8 proto;
	u32 src, dst;	/* host order */
};

static inline void fix_ip_csum(u8 *ip, size_t hlen)
{
	ip[10] = 0;
	ip[11] = 0;
	put16(ip + 10, ref_csum(ip, hlen));
}

static inline u8 *put_ip(u8 *p, const struct iph_args *a, unsigned int payload)
{
	p[0] = 0x45;
	p[1] = a->tos;
	put16(p + 2, 20 + payload);
	put16(p + 4, a->id);
	put16(p + 6, a->frag);
	p[8] = a->ttl;
	p[9] = a->proto;
	put32(p + 12, a->src);
	put32(p + 16, a->dst);
	fix_ip_csum(p, 20);
	return p + 20;
}

/* ICMP echo (RFC 792): 8 bytes of header, @n bytes of @data, checksum. */
static inline u8 *put_icmp_echo(u8 *p, u8 type, u8 code, u16 id, u16 seq,
				const u8 *data, size_t n)
{
	p[0] = type;
	p[1] = code;
	p[2] = 0;
	p[3] = 0;
	put16(p + 4, id);
	put16(p + 6, seq);
	if (n)
		memcpy(p + 8, data, n);
	put16(p + 2, ref_csum(p, 8 + n));
	return p + 8 + n;
}

/* Ethernet/IPv4 ARP packet (RFC 826): 28 bytes. */
static inline u8 *put_arp(u8 *p, unsigned int op, const u8 *sha, u32 spa,
			  const u8 *tha, u32 tpa)
{
	p = put16(p, 1);
	p = put16(p, 0x0800);
	*p++ = 6;
	*p++ = 4;
	p = put16(p, op);
	p = putmac(p, sha);
	p = put32(p, spa);
	p = putmac(p, tha);
	return put32(p, tpa);
}

/*
 * An ICMP echo frame (@type 8 request, 0 reply) with @n bytes of pattern
 * data for @seq, ID 0x1234, DF set, from @src_mac to @dst_mac with the
 * IPv4 header @a (its length is filled in); returns the frame length.
 */
static inline size_t echo_frame(u8 *f, const u8 *dst_mac, const u8 *src_mac,
				struct iph_args *a, u8 type, size_t n, u16 seq)
{
	u8 *data = malloc(n ? n : 1), *p;
	size_t i;

	if (!data)
		die("malloc");
	for (i = 0; i < n; i++)
		data[i] = (u8)(i * 7 + seq);
	p = put_eth(f, dst_mac, src_mac, 0x0800);
	p = put_ip(p, a, 8 + n);
	p = put_icmp_echo(p, type, 0, 0x1234, seq, data, n);
	free(data);
	return (size_t)(p - f);
}

/* A complete echo request from the peer to us; returns the frame length. */
static inline size_t echo_request(u8 *f, size_t n, u16 seq)
{
	struct iph_args a = {
		.id = 0xbeef, .frag = 0x4000, .ttl = 63, .proto = 1,
		.src = PEER_IP, .dst = OUR_IP,
	};

	return echo_frame(f, our_mac, peer_mac, &a, 8, n, seq);
}

/*
 * TCP (RFC 9293 §3.1), built and read byte by byte like the rest: the
 * flag bits, the option kinds (§3.2, RFC 7323) and the checksum over the
 * pseudo-header are written out here, not taken from ixmod/net/tcp.h.
 */
#define TH_FIN		0x01
#define TH_SYN		0x02
#define TH_RST		0x04
#define TH_PSH		0x08
#define TH_ACK		0x10
#define TH_ECE		0x40
#define TH_CWR		0x80

/* The checksum of @n bytes of an IPv4 upper layer (RFC 9293 §3.1, RFC 768). */
static inline u16 ref_l4_csum(u32 src, u32 dst, u8 proto, const u8 *seg, size_t n)
{
	u8 *buf = malloc(12 + n);
	u16 ck;

	if (!buf)
		die("malloc");
	put32(buf, src);
	put32(buf + 4, dst);
	buf[8] = 0;
	buf[9] = proto;
	put16(buf + 10, (unsigned int)n);
	memcpy(buf + 12, seg, n);
	ck = ref_csum(buf, 12 + n);
	free(buf);
	return ck;
}

/* Options, each padded with NOPs to a multiple of 4 bytes; return the length. */
static inline size_t tcpopt_mss(u8 *p, u16 mss)
{
	p[0] = 2;
	p[1] = 4;
	put16(p + 2, mss);
	return 4;
}

static inline size_t tcpopt_wscale(u8 *p, u8 shift)
{
	p[0] = 1;
	p[1] = 3;
	p[2] = 3;
	p[3] = shift;
	return 4;
}

static inline size_t tcpopt_sack_ok(u8 *p)
{
	p[0] = 1;
	p[1] = 1;
	p[2] = 4;
	p[3] = 2;
	return 4;
}

static inline size_t tcpopt_ts(u8 *p, u32 tsval, u32 tsecr)
{
	p[0] = 1;
	p[1] = 1;
	p[2] = 8;
	p[3] = 10;
	put32(p + 4, tsval);
	put32(p + 8, tsecr);
	return 12;
}

/**
 * struct tcp_args - one segment to build
 * @src: source address, host order
 * @dst: destination address, host order
 * @sport: source port
 * @dport: destination port
 * @seq: sequence number
 * @ack: acknowledgment number
 * @flags: TH_*
 * @win: window field (as sent: already scaled down)
 * @opts: options, a multiple of 4 bytes, at most 40
 * @optlen: their length
 * @data: payload
 * @dlen: its length
 * @tos: the IPv4 TOS byte (its ECN field, RFC 3168 §5)
 */
struct tcp_args {
	u32 src, dst;
	u16 sport, dport;
	u32 seq, ack;
	u8 flags;
	u8 tos;
	u16 win;
	const u8 *opts;
	size_t optlen;
	const u8 *data;
	size_t dlen;
};

/* A TCP segment in an IPv4 frame (DF, TTL 64), checksums right; returns its length. */
static inline size_t tcp_frame(u8 *f, const u8 *dst_mac, const u8 *src_mac,
			       const struct tcp_args *a)
{
	struct iph_args ip = {
		.id = 0, .frag = 0x4000, .ttl = 64, .proto = 6,
		.src = a->src, .dst = a->dst,
	};
	size_t thlen = 20 + a->optlen;
	u8 *t = put_ip(put_eth(f, dst_mac, src_mac, 0x0800), &ip,
		       (unsigned int)(thlen + a->dlen));

	put16(t, a->sport);
	put16(t + 2, a->dport);
	put32(t + 4, a->seq);
	put32(t + 8, a->ack);
	t[12] = (u8)(thlen / 4 << 4);
	t[13] = a->flags;
	put16(t + 14, a->win);
	put16(t + 16, 0);
	put16(t + 18, 0);
	if (a->optlen)
		memcpy(t + 20, a->opts, a->optlen);
	if (a->dlen)
		memcpy(t + thlen, a->data, a->dlen);
	put16(t + 16, ref_l4_csum(a->src, a->dst, 6, t, thlen + a->dlen));
	if (a->tos) {
		f[15] = a->tos;
		put16(f + 24, 0);
		put16(f + 24, ref_csum(f + 14, 20));
	}
	return 14 + 20 + thlen + a->dlen;
}

/**
 * struct tcp_seg - a TCP segment read back from a frame
 * @dmac: Ethernet destination
 * @src: IPv4 source, host order
 * @dst: IPv4 destination, host order
 * @sport: source port
 * @dport: destination port
 * @seq: sequence number
 * @ack: acknowledgment number
 * @flags: the flag byte
 * @win: the window field, unscaled
 * @mss: MSS option, 0 if none
 * @wscale: window scale option, -1 if none
 * @sack_ok: SACK-permitted present
 * @has_ts: timestamps present
 * @tsval: TSval
 * @tsecr: TSecr
 * @tos: the IPv4 TOS byte
 * @nsack: SACK blocks (RFC 2018 §3)
 * @sack: the blocks, [left edge, right edge) each
 * @data: the payload (points into the frame)
 * @dlen: its length
 */
struct tcp_seg {
	u8 dmac[6];
	u32 src, dst;
	bool v6;
	u8 src6[16], dst6[16];
	u16 sport, dport;
	u32 seq, ack;
	u8 flags;
	u16 win;
	u16 mss;
	int wscale;
	bool sack_ok;
	bool has_ts;
	u32 tsval, tsecr;
	u8 tos;
	unsigned int nsack;
	u32 sack[4][2];
	const u8 *data;
	size_t dlen;
};

static inline const char *tcp_parse_rest(const u8 *t, size_t l4len, struct tcp_seg *s);

/*
 * Read a TCP/IPv4 frame: NULL if it is one and every length, option and
 * checksum is right (@s filled in), else what is wrong.
 */
static inline const char *tcp_parse(const u8 *f, size_t len, struct tcp_seg *s)
{
	size_t hlen, tot;
	const u8 *t;

	memset(s, 0, sizeof(*s));
	s->wscale = -1;
	if (len < 14 + 20 || get16(f + 12) != 0x0800 || f[14] >> 4 != 4)
		return "not an IPv4 frame";
	hlen = (f[14] & 15) * 4u;
	tot = get16(f + 16);
	if (hlen < 20 || tot < hlen || 14 + tot > len)
		return "IP lengths";
	if (ref_csum(f + 14, hlen))
		return "IP header checksum";
	if (f[23] != 6)
		return "not TCP";
	t = f + 14 + hlen;
	if (tot - hlen < 20)
		return "TCP header too short";
	if (ref_l4_csum(get32(f + 26), get32(f + 30), 6, t, tot - hlen))
		return "TCP checksum";
	memcpy(s->dmac, f, 6);
	s->tos = f[15];
	s->src = get32(f + 26);
	s->dst = get32(f + 30);
	return tcp_parse_rest(t, tot - hlen, s);
}

/* The TCP header at @t of an @l4len-byte segment, either family. */
static inline const char *tcp_parse_rest(const u8 *t, size_t l4len, struct tcp_seg *s)
{
	size_t thlen, i;

	thlen = (t[12] >> 4) * 4u;
	if (thlen < 20 || thlen > l4len)
		return "TCP data offset";
	s->sport = get16(t);
	s->dport = get16(t + 2);
	s->seq = get32(t + 4);
	s->ack = get32(t + 8);
	s->flags = t[13];
	s->win = get16(t + 14);
	s->data = t + thlen;
	s->dlen = l4len - thlen;
	for (i = 20; i < thlen;) {
		u8 kind = t[i], olen;

		if (kind == 0)
			break;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= thlen)
			return "TCP option past the header";
		olen = t[i + 1];
		if (olen < 2 || i + olen > thlen)
			return "TCP option length";
		if (kind == 2 && olen == 4)
			s->mss = get16(t + i + 2);
		else if (kind == 3 && olen == 3)
			s->wscale = t[i + 2];
		else if (kind == 4 && olen == 2)
			s->sack_ok = true;
		else if (kind == 8 && olen == 10) {
			s->has_ts = true;
			s->tsval = get32(t + i + 2);
			s->tsecr = get32(t + i + 6);
		} else if (kind == 5) {
			unsigned int k;

			/* RFC 2018 §3: 1 to 4 blocks, each a left edge below its right */
			if (olen < 10 || (olen - 2) % 8 || s->nsack || (t[13] & 0x02))
				return "SACK option";
			s->nsack = (olen - 2) / 8;
			for (k = 0; k < s->nsack; k++) {
				s->sack[k][0] = get32(t + i + 2 + 8 * k);
				s->sack[k][1] = get32(t + i + 6 + 8 * k);
				if ((int32_t)(s->sack[k][1] - s->sack[k][0]) <= 0)
					return "SACK block empty or reversed";
			}
		} else {
			return "TCP option ixmod never sends";
		}
		i += olen;
	}
	return NULL;
}

/*
 * Checks of a frame ixmod queued for transmission, written from the RFCs:
 * each returns NULL when @f is well formed, or what is wrong.
 */
static inline const char *check_tx_ipv4(const struct ixm_if_config *cfg,
					const u8 *f, size_t len)
{
	size_t hlen, tot;

	if (len < 14 + 20)
		return "IPv4 frame too short";
	if (f[14] >> 4 != 4)
		return "IP version";
	hlen = (f[14] & 15) * 4u;
	tot = get16(f + 16);
	if (hlen < 20 || tot < hlen || 14 + tot != len)
		return "IP lengths";
	if (ref_csum(f + 14, hlen))
		return "IP header checksum";
	if (get16(f + 20) & 0x3fff)
		return "IP fragment";
	if (!f[22])
		return "IP TTL 0";
	if (memcmp(f + 26, &cfg->ip, 4))
		return "IP source is not ours";
	if (f[23] == 1) {
		if (tot - hlen < 8)
			return "ICMP too short";
		if (ref_csum(f + 14 + hlen, tot - hlen))
			return "ICMP checksum";
		if (f[14 + hlen] != 0 || f[14 + hlen + 1] != 0)
			return "ICMP: only echo replies are sent";
	}
	if (f[23] == 6) {
		struct tcp_seg s;

		return tcp_parse(f, len, &s);
	}
	return NULL;
}

static inline const char *check_tx_arp(const struct ixm_if_config *cfg,
				       const u8 *f, size_t len)
{
	const u8 *a = f + 14;
	unsigned int op;

	if (len < 14 + 28)
		return "ARP frame too short";
	if (get16(a) != 1 || get16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4)
		return "ARP types or lengths";
	op = get16(a + 6);
	if (op != 1 && op != 2)
		return "ARP opcode";
	if (memcmp(a + 8, cfg->mac, 6) || memcmp(a + 14, &cfg->ip, 4))
		return "ARP sender is not us";
	if (op == 2 && memcmp(f, a + 18, 6))
		return "ARP reply not sent to the target's MAC";
	if (op == 1 && memcmp(f, bcast_mac, 6))
		return "ARP request not broadcast";
	return NULL;
}

#include "frames6.h"

/*
 * The frame @m sends as the NIC reads it: its buffer's bytes, then its
 * fragments (on the host a bus address is where the bytes are).  Return
 * its length, or 0 if it would not fit in @cap bytes.
 */
static inline size_t frame_gather(const struct ixm_mbuf *m, u8 *out, size_t cap)
{
	size_t len = m->len;
	unsigned int i;

	if (len > cap || m->nfrags > IXM_MBUF_FRAGS)
		return 0;
	memcpy(out, m->data, len);
	for (i = 0; i < m->nfrags; i++) {
		if (m->frags[i].len > cap - len)
			return 0;
		memcpy(out + len, (const u8 *)(uintptr_t)m->frags[i].dma, m->frags[i].len);
		len += m->frags[i].len;
	}
	return len;
}

static inline const char *check_tx(const struct ixm_if_config *cfg,
				   const struct ixm_mbuf *m)
{
	static u8 f[IXM_MBUF_SIZE];
	size_t len;
	unsigned int i;

	if (m->data < m->buf + 0 || m->len < 14 ||
	    m->data + m->len > m->buf + IXM_MBUF_SIZE)
		return "frame outside its buffer or too short";
	for (i = 0; i < m->nfrags; i++)
		if (!m->frags[i].len || !m->inflight || !*m->inflight)
			return "empty fragment, or one no counter accounts for";
	len = frame_gather(m, f, sizeof(f));
	if (!len)
		return "frame longer than a buffer, or over IXM_MBUF_FRAGS fragments";
	if (memcmp(f + 6, cfg->mac, 6))
		return "Ethernet source is not our MAC";
	/* IPv6 sends to its groups' MACs: check_tx_ipv6() checks which */
	if (f[0] & 1 && memcmp(f, bcast_mac, 6) && get16(f + 12) != 0x86dd)
		return "Ethernet destination is multicast";
	switch (get16(f + 12)) {
	case 0x0800:
		return check_tx_ipv4(cfg, f, len);
	case 0x0806:
		return check_tx_arp(cfg, f, len);
	case 0x86dd:
		return check_tx_ipv6(cfg, f, len);
	default:
		return "EtherType we never send";
	}
}

#endif /* _IXM_TEST_FRAMES_H */
