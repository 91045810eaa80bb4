// SPDX-License-Identifier: GPL-2.0
/*
 * udp6.c - UDP over IPv6 (net/udp6.c) through a context's rings
 *
 * A datagram to a bound port reaches a context set up with
 * IXMOD_SETUP_INET6 as a UDP_RECV with IXMOD_EVF_INET6, @addr 0 and the
 * source in the extended event's @addr6, for every payload size; an ABI 2
 * context on the same port never sees it: a port unreachable goes back
 * (checked byte by byte against RFC 4443 §3.1) and udp6_no_sock counts
 * it.  Each malformed datagram (short, bad length, checksum 0, checksum
 * wrong) is dropped under its own counter and nothing else moves.  A
 * UDP_SEND with IXMOD_CALL_F_INET6 puts one frame on the wire whose
 * every byte is checked here, the checksum recomputed independently
 * (frames6.h); every refusal of the call validator is a row of a table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "icmp6.h"
#include "testnet.h"
#include "harness.h"

#define LOCAL_IP	0xc6120001u	/* 198.18.0.1, host order */
#define ARENA_SIZE	65536u
#define PAYLOAD6_MAX	1452u		/* 1500 - 40 - 8 */
#define LPORT		7000

/* peer_ip6's link-local twin, and a host in our /64 that never answers */
static const u8 peer_ll6[16] = { 0xfe, 0x80, [15] = 0x02 };
static const u8 silent_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x09 };
static const u8 offlink_ip6[16] = { 0x20, 0x01, 0x0d, 0xb9, [15] = 0x02 };

struct ctx6 {
	struct tn_host	*h;
	struct tn_app	*a;
	u64		handle;
};

static struct ixmod_call call_bind(u16 port, u64 user_data)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_BIND, .user_data = user_data,
		.port = ixm_htons(port),
	};

	return c;
}

/* A host with IPv6 on, a context (@inet6 or ABI 2) that bound LPORT. */
static void ctx6_init(struct ctx6 *c, bool inet6, u32 event_nr)
{
	struct tn_host_cfg hc = { .ip = LOCAL_IP, .prefix = 24, .mac = our_mac };
	struct ixmod_call call = call_bind(LPORT, 0xc0c1e);
	struct ixmod_event ev;

	ixm_host_now_ns = 1000000000ULL;
	c->h = tn_host_new(&hc);
	tn_host_ip6(c->h, our_ip6, 64);
	c->a = tn_app_new(c->h, 16, event_nr, ARENA_SIZE);
	if (inet6)
		tn_app_set_inet6(c->a, true);
	else
		tn_app_set_event_ext(c->a, true);
	if (tn_app_call(c->a, &call, &ev) != 0) {
		fprintf(stderr, "bind: %d\n", ev.res);
		exit(255);
	}
	c->handle = ev.handle;
}

/* With IXMOD_CALL_F_NOTIFY: success is answered too. */
static struct ixmod_call call_send6(u64 handle, u32 off, u32 len, const u8 *dst, u16 port)
{
	struct ixmod_call c = {
		.opcode = IXMOD_OP_UDP_SEND,
		.flags = IXMOD_CALL_F_NOTIFY | IXMOD_CALL_F_INET6,
		.user_data = 0x5e6d0000u + len, .handle = handle, .off = off,
		.len = len, .port = ixm_htons(port),
	};

	memcpy(c.addr6, dst, 16);
	return c;
}

/*
 * A UDP datagram over IPv6 from peer_mac/@src:@sport to our_mac/@dst:
 * @dport with @n bytes of pattern @seed and a correct checksum (0xffff
 * for a computed 0); returns the frame length.
 */
static size_t udp6_frame(u8 *f, const u8 *src, const u8 *dst, u16 sport, u16 dport,
			 size_t n, u8 seed)
{
	u8 *u = put_ip6(put_eth(f, our_mac, peer_mac, 0x86dd), src, dst, 17,
			(unsigned int)(8 + n), 64);
	size_t i;
	u16 ck;

	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, (unsigned int)(8 + n));
	put16(u + 6, 0);
	for (i = 0; i < n; i++)
		u[8 + i] = (u8)(i * 13 + seed);
	ck = ref_l4_csum6(src, dst, 17, u, 8 + n);
	put16(u + 6, ck ? ck : 0xffff);
	return 14 + 40 + 8 + n;
}

/*
 * Set the UDP checksum of a frame built above again, after a patch: over
 * UDP's own length, or the payload's if that is shorter.
 */
static void refix6(u8 *f)
{
	size_t ulen = get16(f + 58) < get16(f + 18) ? get16(f + 58) : get16(f + 18);
	u16 ck;

	put16(f + 54 + 6, 0);
	ck = ref_l4_csum6(f + 22, f + 38, 17, f + 54, ulen);
	put16(f + 54 + 6, ck ? ck : 0xffff);
}

static bool ext_zero_tail(const struct ixmod_event_ext *x)
{
	return !x->resv[0] && !x->resv[1] && !x->resv[2];
}

TEST(udp6_recv_every_size)
{
	static u8 f[2048];
	struct ixmod_event_ext x;
	unsigned int bad = 0;
	struct ctx6 c;
	size_t n, len;

	ctx6_init(&c, true, 16);
	for (n = 0; n <= PAYLOAD6_MAX; n++) {
		struct ixmod_call rd = { .opcode = IXMOD_OP_RECV_DONE };
		const u8 *p;
		struct ixmod_event ev;

		len = udp6_frame(f, peer_ip6, our_ip6, (u16)(1000 + n), LPORT, n, (u8)n);
		/* every other one as a NIC that checked it would flag it */
		tn_input(c.h, f, len, n & 1 ? IXM_MBUF_F_L4_CSUM_OK : 0);
		ixm_app_flush(&c.a->app);
		if (!tn_app_event_ext(c.a, &x)) {
			ixm_diag("%zu bytes: no event", n);
			if (++bad > IXM_DIAG_MAX)
				break;
			continue;
		}
		p = tn_rx_ptr(c.h, x.ev.off, (u32)n);
		if (x.ev.type != IXMOD_EV_UDP_RECV || x.ev.flags != IXMOD_EVF_INET6 ||
		    x.ev.res != (int)n || x.ev.addr || x.ev.user_data != 0xc0c1e ||
		    get16((const u8 *)&x.ev.port) != 1000 + n ||
		    get16((const u8 *)&x.ev.lport) != LPORT || x.handle != c.handle ||
		    memcmp(x.addr6, peer_ip6, 16) || x.resv2 || !p ||
		    memcmp(p, f + 14 + 40 + 8, n)) {
			ixm_diag("%zu bytes: type %u flags %#x res %d addr %#x", n,
				 x.ev.type, x.ev.flags, x.ev.res, x.ev.addr);
			if (++bad > IXM_DIAG_MAX)
				break;
		}
		rd.off = x.ev.off;
		if (tn_app_call(c.a, &rd, &ev) != TN_NO_EVENT || tn_app_event(c.a, &ev)) {
			ixm_diag("%zu bytes: RECV_DONE answered", n);
			bad++;
		}
	}
	EXPECT_FALSE(bad) {
		TH_LOG("0..%u bytes: UDP_RECV, EVF_INET6, addr 0, addr6 the source, ports, payload",
		       PAYLOAD6_MAX);
	}
	EXPECT_EQ(PAYLOAD6_MAX + 1, c.h->stats.udp6_in) TH_LOG("udp6_in counted each");
	EXPECT_EQ(0, c.h->stats.udp_in) TH_LOG("udp_in is IPv4's");
	EXPECT_EQ(0, tn_drops(c.h));
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) TH_LOG("every buffer back");

	/* to the link-local address, from a link-local source */
	len = udp6_frame(f, peer_ll6, our_ll6, 5353, LPORT, 33, 9);
	tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event_ext(c.a, &x));
	EXPECT_EQ(0, memcmp(x.addr6, peer_ll6, 16)) TH_LOG("a link-local peer's address");
	EXPECT_EQ(33, x.ev.res);
	/* UDP's length below the payload's: the rest is not the datagram's */
	len = udp6_frame(f, peer_ip6, our_ip6, 4000, LPORT, 20, 1);
	put16(f + 54 + 4, 8 + 10);
	refix6(f);
	tn_input(c.h, f, len, IXM_MBUF_F_L4_CSUM_BAD);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event_ext(c.a, &x));
	EXPECT_EQ(10, x.ev.res) TH_LOG("UDP length 18 in a 28-byte payload: 10 bytes delivered");
	EXPECT_EQ(0, tn_drops(c.h)) TH_LOG("the NIC's bad verdict is checked again: good");
	tn_host_free(c.h);
}

/* Events held back in a full ring keep their addresses. */
TEST(udp6_recv_held_back)
{
	static const u8 peers[4][16] = {
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 0x11 },
		{ 0x20, 0x01, 0x0d, 0xb8, [14] = 0x01, 0x22 },
		{ 0xfe, 0x80, [15] = 0x33 },
		{ 0x20, 0x01, 0x0d, 0xb8, [8] = 0xab, [15] = 0x44 },
	};
	struct ixmod_event_ext x;
	struct ctx6 c;
	static u8 f[256];
	unsigned int i, got = 0;
	size_t len;

	ctx6_init(&c, true, 2);
	for (i = 0; i < 4; i++) {
		len = udp6_frame(f, peers[i], peers[i][0] == 0xfe ? our_ll6 : our_ip6,
				 (u16)(100 + i), LPORT, 8, (u8)i);
		tn_input(c.h, f, len, 0);
	}
	ixm_app_flush(&c.a->app);
	EXPECT_EQ(2, c.a->app.hold_count) TH_LOG("a ring of 2: two events held back");
	while (got < 4) {
		if (!tn_app_event_ext(c.a, &x)) {
			ixm_app_flush(&c.a->app);
			if (!tn_app_event_ext(c.a, &x))
				break;
		}
		EXPECT_EQ(IXMOD_EVF_INET6, x.ev.flags);
		EXPECT_EQ(0, memcmp(x.addr6, peers[got], 16)) {
			TH_LOG("event %u: the address of its own datagram, held or not", got);
		}
		EXPECT_EQ(0, x.resv2);
		got++;
	}
	EXPECT_EQ(4, got);
	tn_host_free(c.h);
}

/*
 * The ICMPv6 port unreachable RFC 4443 §3.1 asks for, about the frame
 * @in of @len bytes: from the address it was sent to, quoting it whole.
 */
static size_t expected_unreach(u8 *f, const u8 *in, size_t len)
{
	u8 *p = put_eth(f, peer_mac, our_mac, 0x86dd), *ip6 = p, *msg;
	size_t q = len - 14;

	p = put_ip6(p, in + 38, in + 22, 58, (unsigned int)(8 + q), 64);
	msg = p;
	memset(msg, 0, 8);
	msg[0] = 1;
	msg[1] = 4;
	memcpy(msg + 8, in + 14, q);
	fix_icmp6_csum(ip6, msg, 8 + q);
	return 14 + 40 + 8 + q;
}

static bool one_frame_is(struct tn_host *h, const u8 *want, size_t wlen)
{
	bool ok = h->port.ntx == 1 && h->port.tx[0]->len == wlen &&
		  !memcmp(h->port.tx[0]->data, want, wlen);

	if (!ok)
		ixm_diag("%u frames queued, first of %u bytes (want %zu)", h->port.ntx,
			 h->port.ntx ? h->port.tx[0]->len : 0, wlen);
	tn_tx_flush(h);
	return ok;
}

/* 4 bytes over IPv4 from 198.18.0.2 to LPORT, without a checksum. */
static size_t udp4_frame(u8 *f)
{
	struct iph_args a = {
		.id = 1, .frag = 0x4000, .ttl = 64, .proto = 17,
		.src = 0xc6120002u, .dst = LOCAL_IP,
	};
	u8 *u = put_ip(put_eth(f, our_mac, peer_mac, 0x0800), &a, 8 + 4);

	put16(u, 9);
	put16(u + 2, LPORT);
	put16(u + 4, 12);
	put16(u + 6, 0);	/* allowed over IPv4 (RFC 768) */
	memcpy(u + 8, "abcd", 4);
	return 14 + 20 + 12;
}

TEST(udp6_abi2_context_never_sees_ipv6)
{
	static u8 f[2048], want[2048];
	struct ixmod_event_ext x;
	struct ctx6 c;
	size_t len, wlen;

	ctx6_init(&c, false, 16);
	len = udp6_frame(f, peer_ip6, our_ip6, 5555, LPORT, 100, 1);
	tn_input(c.h, f, len, 0);
	ixm_app_flush(&c.a->app);
	EXPECT_FALSE(tn_app_event_ext(c.a, &x)) TH_LOG("an ABI 2 context gets no IPv6 peer");
	EXPECT_EQ(1, c.h->stats.drops[IXM_DROP_UDP6_NO_SOCK]);
	EXPECT_EQ(1, tn_drops(c.h)) TH_LOG("udp6_no_sock alone");
	EXPECT_EQ(1, c.h->stats.icmp6_errors_out);
	wlen = expected_unreach(want, f, len);
	EXPECT_TRUE(one_frame_is(c.h, want, wlen)) {
		TH_LOG("a port unreachable (type 1, code 4) quoting the datagram");
	}
	EXPECT_EQ(0, c.h->stats.udp6_in);

	/* IPv4 still reaches it */
	tn_input(c.h, f, udp4_frame(f), 0);
	ixm_app_flush(&c.a->app);
	ASSERT_TRUE(tn_app_event_ext(c.a, &x)) TH_LOG("IPv4 to the same port: delivered");
	EXPECT_EQ(0, x.ev.flags);
	EXPECT_TRUE(ext_zero_tail(&x)) TH_LOG("no address in the extension");
	{
		struct ixmod_call rd = { .opcode = IXMOD_OP_RECV_DONE, .off = x.ev.off };
		struct ixmod_event ev;

		EXPECT_EQ(TN_NO_EVENT, tn_app_call(c.a, &rd, &ev)) TH_LOG("its buffer back");
	}

	/* an unbound port, from an INET6 context's core: the same answer */
	len = udp6_frame(f, peer_ip6, our_ip6, 5555, LPORT + 1, 10, 2);
	tn_input(c.h, f, len, 0);
	wlen = expected_unreach(want, f, len);
	EXPECT_TRUE(one_frame_is(c.h, want, wlen)) TH_LOG("unbound port: port unreachable");
	EXPECT_EQ(2, c.h->stats.drops[IXM_DROP_UDP6_NO_SOCK]);

	/* to all-nodes: no socket joins a group, and no error to a group */
	len = udp6_frame(f, peer_ip6, all_nodes6, 5555, LPORT, 10, 3);
	memcpy(f, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, 6);
	tn_input(c.h, f, len, 0);
	EXPECT_EQ(0, c.h->port.ntx) TH_LOG("RFC 4443 §2.4 (e.3): no error about one to a group");
	EXPECT_EQ(3, c.h->stats.drops[IXM_DROP_UDP6_NO_SOCK]);
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	tn_host_free(c.h);
}

/* Port unreachables are rate-limited as every ICMPv6 error (icmp6.c). */
TEST(udp6_unreach_ratelimited)
{
	static u8 f[256];
	struct ctx6 c;
	unsigned int i;
	size_t len;

	ctx6_init(&c, false, 16);
	len = udp6_frame(f, peer_ip6, our_ip6, 5555, LPORT, 10, 2);
	for (i = 0; i < 2 * IXM_ICMP6_ERR_BURST; i++) {
		tn_input(c.h, f, len, 0);
		tn_tx_flush(c.h);
	}
	EXPECT_EQ(2 * IXM_ICMP6_ERR_BURST, c.h->stats.drops[IXM_DROP_UDP6_NO_SOCK]);
	EXPECT_EQ(IXM_ICMP6_ERR_BURST, c.h->stats.icmp6_errors_out) {
		TH_LOG("a burst of %d errors, then none in the same instant", IXM_ICMP6_ERR_BURST);
	}
	EXPECT_EQ(IXM_ICMP6_ERR_BURST, c.h->stats.icmp6_errors_ratelimited);
	tn_host_free(c.h);
}

static void p6_short(u8 *f, size_t *len)
{
	put16(f + 18, 4);
	*len = 14 + 40 + 4;
}
static void p6_len_long(u8 *f, size_t *len) { put16(f + 58, get16(f + 58) + 1); refix6(f); }
static void p6_len_7(u8 *f, size_t *len) { put16(f + 58, 7); refix6(f); }
static void p6_nocsum(u8 *f, size_t *len) { put16(f + 60, 0); }
static void p6_csum(u8 *f, size_t *len) { f[54 + 8] ^= 0x40; }
static void p6_csum_hw_bad(u8 *f, size_t *len) { f[54 + 9] ^= 0x01; }

static const struct {
	const char *name;
	void (*patch)(u8 *f, size_t *len);
	u16 flags;
	enum ixm_drop_reason reason;
} drops6[] = {
	{ "payload shorter than a UDP header", p6_short, 0, IXM_DROP_UDP6_SHORT },
	{ "UDP length one past the payload", p6_len_long, 0, IXM_DROP_UDP6_LEN },
	{ "UDP length 7", p6_len_7, 0, IXM_DROP_UDP6_LEN },
	{ "checksum 0 (RFC 8200 §8.1)", p6_nocsum, 0, IXM_DROP_UDP6_NOCSUM },
	{ "checksum 0 with a NIC that says good", p6_nocsum, IXM_MBUF_F_L4_CSUM_OK,
	  IXM_DROP_UDP6_NOCSUM },
	{ "a data bit flipped", p6_csum, 0, IXM_DROP_UDP6_CSUM },
	{ "a data bit flipped, the NIC says bad", p6_csum_hw_bad, IXM_MBUF_F_L4_CSUM_BAD,
	  IXM_DROP_UDP6_CSUM },
};

TEST(udp6_drops_counted)
{
	static u8 f[256];
	struct ixmod_event_ext x;
	unsigned int i, r;
	struct ctx6 c;
	size_t len;

	ctx6_init(&c, true, 16);
	for (i = 0; i < ARRAY_SIZE(drops6); i++) {
		struct ixm_net_stats before = c.h->stats;
		bool others = false;

		len = udp6_frame(f, peer_ip6, our_ip6, 5555, LPORT, 40, (u8)i);
		drops6[i].patch(f, &len);
		tn_input(c.h, f, len, drops6[i].flags);
		ixm_app_flush(&c.a->app);
		EXPECT_FALSE(tn_app_event_ext(c.a, &x)) TH_LOG("%s: no event", drops6[i].name);
		EXPECT_EQ(before.drops[drops6[i].reason] + 1, c.h->stats.drops[drops6[i].reason]) {
			TH_LOG("%s: %s", drops6[i].name, ixm_drop_names[drops6[i].reason]);
		}
		for (r = 0; r < IXM_DROP_MAX; r++)
			if (r != drops6[i].reason && before.drops[r] != c.h->stats.drops[r])
				others = true;
		EXPECT_FALSE(others) TH_LOG("%s: no other drop counter moved", drops6[i].name);
		EXPECT_EQ(0, c.h->port.ntx) TH_LOG("%s: nothing answered", drops6[i].name);
		EXPECT_EQ(0, c.h->stats.icmp6_errors_out);
		EXPECT_EQ(0, c.h->stats.udp6_in);
	}
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) TH_LOG("every buffer back");
	tn_host_free(c.h);
}

/*
 * Check the frame UDP_SEND put on the wire, byte by byte, from the
 * RFCs' offsets: Ethernet to @dmac, IPv6 from @src to @dst (version 6,
 * class and label 0, payload length, next header 17, hop limit 64), UDP
 * LPORT -> @dport, length, the payload, and the checksum summed here.
 */
static bool sent6_is(struct tn_host *h, const u8 *dmac, const u8 *src, const u8 *dst,
		     u16 dport, const u8 *data, size_t n)
{
	const struct ixm_mbuf *m;
	const u8 *p;
	bool ok;

	if (h->port.ntx != 1) {
		ixm_diag("%zu bytes: %u frames queued", n, h->port.ntx);
		tn_tx_flush(h);
		return false;
	}
	m = h->port.tx[0];
	p = m->data;
	ok = m->len == 14 + 40 + 8 + n && !memcmp(p, dmac, 6) && !memcmp(p + 6, our_mac, 6) &&
	     get16(p + 12) == 0x86dd && get32(p + 14) == 6u << 28 &&
	     get16(p + 18) == 8 + n && p[20] == 17 && p[21] == 64 &&
	     !memcmp(p + 22, src, 16) && !memcmp(p + 38, dst, 16) &&
	     get16(p + 54) == LPORT && get16(p + 56) == dport && get16(p + 58) == 8 + n &&
	     get16(p + 60) != 0 && !memcmp(p + 62, data, n) &&
	     !ref_l4_csum6(src, dst, 17, p + 54, 8 + n) && !(m->flags & IXM_MBUF_F_TX_CSUM);
	if (!ok)
		ixm_diag("%zu bytes: the frame differs (length %u)", n, m->len);
	tn_tx_flush(h);
	return ok;
}

TEST(udp6_send_every_size)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	unsigned int bad = 0;
	struct ctx6 c;
	size_t n;
	u64 sw;
	u32 off;

	ctx6_init(&c, true, 16);
	tn_learn6(c.h, peer_ip6, peer_mac);
	tn_learn6(c.h, peer_ll6, peer_mac);
	for (n = 0; n < ARENA_SIZE; n++)
		c.a->arena[n] = (u8)(n * 7 + 3);
	for (n = 0; n <= PAYLOAD6_MAX; n++) {
		off = n % 3 == 2 ? ARENA_SIZE - (u32)n : (u32)(n * 41 % (ARENA_SIZE - n));
		call = call_send6(c.handle, off, (u32)n, peer_ip6, (u16)(9 + n));
		if (tn_app_call(c.a, &call, &ev) != (int)n) {
			ixm_diag("payload %zu at %u: res %d", n, off, ev.res);
			tn_tx_flush(c.h);
			if (++bad > IXM_DIAG_MAX)
				break;
			continue;
		}
		if (!sent6_is(c.h, peer_mac, our_ip6, peer_ip6, (u16)(9 + n),
			      c.a->arena + off, n) && ++bad > IXM_DIAG_MAX)
			break;
	}
	EXPECT_FALSE(bad) {
		TH_LOG("UDP_SEND, F_INET6, 0..%u bytes: one frame, byte-exact, checksum verifies",
		       PAYLOAD6_MAX);
	}
	EXPECT_EQ(PAYLOAD6_MAX + 1, c.h->stats.udp6_out) TH_LOG("udp6_out counted each");
	EXPECT_EQ(0, c.h->stats.udp_out);
	EXPECT_EQ(PAYLOAD6_MAX + 1, c.h->stats.tx_csum_sw) TH_LOG("software checksums, counted");

	/* a link-local destination: from our link-local address */
	call = call_send6(c.handle, 0, 64, peer_ll6, 53);
	EXPECT_EQ(64, tn_app_call(c.a, &call, &ev));
	EXPECT_TRUE(sent6_is(c.h, peer_mac, our_ll6, peer_ll6, 53, c.a->arena, 64)) {
		TH_LOG("RFC 6724 rule 2: link-local to link-local");
	}
	/*
	 * On a NIC with checksum offload: the field holds the pseudo-header's
	 * sum, the frame is flagged for the NIC (mbuf.h), which completes it
	 * as below, and nothing is summed in software.
	 */
	tn_host_offload(c.h, true);
	sw = c.h->stats.tx_csum_sw;
	for (n = 0; n <= PAYLOAD6_MAX; n += 97) {
		static const u8 zero[8 + PAYLOAD6_MAX];
		const struct ixm_mbuf *m;
		u8 seg[8 + PAYLOAD6_MAX];
		u16 flags = 0;

		call = call_send6(c.handle, 0, (u32)n, peer_ip6, 53);
		EXPECT_EQ((int)n, tn_app_call(c.a, &call, &ev));
		ASSERT_EQ(1, c.h->port.ntx);
		m = c.h->port.tx[0];
		if (m->len == 14 + 40 + 8 + n) {
			flags = m->flags;
			memcpy(seg, m->data + 54, 8 + n);
		}
		tn_tx_flush(c.h);
		EXPECT_EQ(IXM_MBUF_F_TX_UDP_CSUM | IXM_MBUF_F_TX_IPV6, flags) {
			TH_LOG("%zu bytes: flagged for the NIC, over IPv6", n);
		}
		/* the pseudo-header alone: RFC 8200 §8.1's over a zero segment */
		EXPECT_EQ(ref_l4_csum6(our_ip6, peer_ip6, 17, zero, 8 + n) ^ 0xffff,
			  get16(seg + 6)) {
			TH_LOG("%zu bytes: the field holds the pseudo-header's sum", n);
		}
		/* the NIC: the complement of the sum over the segment, field included */
		put16(seg + 6, ref_csum(seg, 8 + n));
		EXPECT_EQ(0, ref_l4_csum6(our_ip6, peer_ip6, 17, seg, 8 + n)) {
			TH_LOG("%zu bytes: completed, the datagram's checksum verifies", n);
		}
	}
	EXPECT_EQ(sw, c.h->stats.tx_csum_sw) TH_LOG("offloaded: not counted in tx_csum_sw");
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree) TH_LOG("every buffer back");
	tn_host_free(c.h);
}

/* A payload whose checksum sums to 0 is sent with 0xffff (RFC 8200 §8.1). */
TEST(udp6_send_zero_sum)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	struct ctx6 c;
	u8 seg[18];
	u16 ck;

	ctx6_init(&c, true, 16);
	tn_learn6(c.h, peer_ip6, peer_mac);
	/* the datagram as it will be, its last word chosen to make the sum 0 */
	memset(seg, 0, sizeof(seg));
	put16(seg, LPORT);
	put16(seg + 2, 4242);
	put16(seg + 4, 18);
	seg[8] = 0x5a;
	ck = ref_l4_csum6(our_ip6, peer_ip6, 17, seg, 18);
	put16(seg + 16, ck == 0xffff ? 0 : ck);
	ASSERT_EQ(0, ref_l4_csum6(our_ip6, peer_ip6, 17, seg, 18)) TH_LOG("it computes to 0");
	memcpy(c.a->arena, seg + 8, 10);
	call = call_send6(c.handle, 0, 10, peer_ip6, 4242);
	EXPECT_EQ(10, tn_app_call(c.a, &call, &ev));
	ASSERT_EQ(1, c.h->port.ntx);
	EXPECT_EQ(0xffff, get16(c.h->port.tx[0]->data + 60)) TH_LOG("0 goes out as 0xffff");
	tn_tx_flush(c.h);
	tn_host_free(c.h);
}

TEST(udp6_send_unresolved)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	struct ctx6 c;
	const u8 *p;

	ctx6_init(&c, true, 16);
	call = call_send6(c.handle, 0, 10, silent_ip6, 53);
	EXPECT_EQ(-EAGAIN, tn_app_call(c.a, &call, &ev)) {
		TH_LOG("as UDP over IPv4 while ARP resolves: -EAGAIN, send again");
	}
	ASSERT_EQ(1, c.h->port.ntx) TH_LOG("a Neighbor Solicitation went out");
	p = c.h->port.tx[0]->data;
	EXPECT_EQ(0x86dd, get16(p + 12));
	EXPECT_EQ(58, p[20]);
	EXPECT_EQ(135, p[54]) TH_LOG("an NS");
	EXPECT_EQ(0, memcmp(p + 62, silent_ip6, 16)) TH_LOG("for the destination");
	tn_tx_flush(c.h);
	EXPECT_EQ(-EAGAIN, tn_app_call(c.a, &call, &ev));
	EXPECT_EQ(0, c.h->port.ntx) TH_LOG("within a second: no second NS");
	EXPECT_EQ(0, c.h->stats.udp6_out);
	EXPECT_EQ(0, tn_drops(c.h)) TH_LOG("nothing built, nothing dropped");
	EXPECT_EQ(c.h->pool.count, c.h->pool.nfree);
	tn_host_free(c.h);
}

/* A row of the validator's refusals: how to spoil a good send6. */
struct refusal {
	const char *name;
	void (*patch)(struct ixmod_call *c);
	bool abi2;		/* from an ABI 2 context (EVENT_EXT, no INET6) */
	int res;
};

static void r_none(struct ixmod_call *c) { }
static void r_addr(struct ixmod_call *c) { c->addr = be32_of(0xc6120002u); }
static void r_resv4(struct ixmod_call *c) { c->resv4 = 1; }
static void r_resv4_high(struct ixmod_call *c) { c->resv4 = 1ULL << 63; }
static void r_any(struct ixmod_call *c) { memset(c->addr6, 0, 16); }
static void r_loopback(struct ixmod_call *c) { memset(c->addr6, 0, 16); c->addr6[15] = 1; }
static void r_mc(struct ixmod_call *c) { memcpy(c->addr6, all_nodes6, 16); }
static void r_mc_global(struct ixmod_call *c) { c->addr6[0] = 0xff; c->addr6[1] = 0x0e; }
static void r_own(struct ixmod_call *c) { memcpy(c->addr6, our_ip6, 16); }
static void r_own_ll(struct ixmod_call *c) { memcpy(c->addr6, our_ll6, 16); }
static void r_big(struct ixmod_call *c) { c->len = PAYLOAD6_MAX + 1; }
static void r_big_v4(struct ixmod_call *c) { c->len = 1472; }
static void r_port0(struct ixmod_call *c)
{
	c->port = 0;
}
static void r_offlink(struct ixmod_call *c) { memcpy(c->addr6, offlink_ip6, 16); }
static void r_bind(struct ixmod_call *c)
{
	*c = call_bind(LPORT + 5, 1);
	c->flags = IXMOD_CALL_F_INET6;
}
static void r_connect(struct ixmod_call *c)
{
	memset(c, 0, sizeof(*c));
	c->opcode = IXMOD_OP_TCP_CONNECT;
	c->flags = IXMOD_CALL_F_INET6;
	c->port = ixm_htons(80);
	c->addr = ixm_htonl(0x0a000002);
	memcpy(c->addr6, peer_ip6, 16);
}
static void r_nop(struct ixmod_call *c)
{
	memset(c, 0, sizeof(*c));
	c->flags = IXMOD_CALL_F_INET6;
}
static void r_close(struct ixmod_call *c)
{
	u64 h = c->handle;

	memset(c, 0, sizeof(*c));
	c->opcode = IXMOD_OP_UDP_CLOSE;
	c->flags = IXMOD_CALL_F_INET6;
	c->handle = h;
}

static const struct refusal refusals[] = {
	{ "from a context without IXMOD_SETUP_INET6", r_none, true, -EINVAL },
	{ "addr non-zero", r_addr, false, -EINVAL },
	{ "resv4 1", r_resv4, false, -EINVAL },
	{ "resv4 bit 63", r_resv4_high, false, -EINVAL },
	{ "to ::", r_any, false, -EINVAL },
	{ "to ::1", r_loopback, false, -EINVAL },
	{ "to ff02::1", r_mc, false, -EINVAL },
	{ "to ff0e::/16", r_mc_global, false, -EINVAL },
	{ "to our global address", r_own, false, -EINVAL },
	{ "to our link-local address", r_own_ll, false, -EINVAL },
	{ "payload 1453", r_big, false, -EMSGSIZE },
	{ "payload 1472 (IPv4's largest)", r_big_v4, false, -EMSGSIZE },
	{ "port 0", r_port0, false, -EINVAL },
	{ "off-link: no router", r_offlink, false, -ENETUNREACH },
	{ "UDP_BIND with the flag", r_bind, false, -EINVAL },
	{ "TCP_CONNECT with the flag and an IPv4 address", r_connect, false, -EINVAL },
	{ "NOP with the flag", r_nop, false, -EINVAL },
	{ "UDP_CLOSE with the flag", r_close, false, -EINVAL },
};

TEST(udp6_send_refusals)
{
	struct ixmod_call call;
	struct ixmod_event ev;
	struct ctx6 v6, v4;
	unsigned int i;

	ctx6_init(&v6, true, 16);
	ctx6_init(&v4, false, 16);
	tn_learn6(v6.h, peer_ip6, peer_mac);
	tn_learn6(v4.h, peer_ip6, peer_mac);
	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		struct ctx6 *c = refusals[i].abi2 ? &v4 : &v6;
		u64 errors = c->a->app.stats.call_errors;
		u32 socks = c->h->udp->count;

		call = call_send6(c->handle, 0, 10, peer_ip6, 53);
		refusals[i].patch(&call);
		EXPECT_EQ(refusals[i].res, tn_app_call(c->a, &call, &ev)) {
			TH_LOG("%s: refused with %d", refusals[i].name, refusals[i].res);
		}
		EXPECT_EQ(errors + 1, c->a->app.stats.call_errors) TH_LOG("%s", refusals[i].name);
		EXPECT_EQ(0, c->h->port.ntx) TH_LOG("%s: nothing sent", refusals[i].name);
		EXPECT_EQ(socks, c->h->udp->count) {
			TH_LOG("%s: no socket changed", refusals[i].name);
		}
		tn_tx_flush(c->h);
	}
	/* the check alone: its own bytes, whatever the context */
	call = call_send6(v6.handle, 0, 10, peer_ip6, 53);
	EXPECT_EQ(0, ixm_call_check(&call));
	call.resv4 = 2;
	EXPECT_EQ(-EINVAL, ixm_call_check(&call));
	call = call_send6(v6.handle, 0, 10, peer_ip6, 53);
	call.flags &= ~IXMOD_CALL_F_INET6;
	EXPECT_EQ(-EINVAL, ixm_call_check(&call)) TH_LOG("addr6 without the flag: resv3 not zero");
	call.resv3[0] = call.resv3[1] = 0;
	call.resv3[2] = 1;
	EXPECT_EQ(-EINVAL, ixm_call_check(&call)) TH_LOG("resv3[2] without the flag");

	/* and the good one goes, from the INET6 context, at the largest size */
	call = call_send6(v6.handle, 0, PAYLOAD6_MAX, peer_ip6, 53);
	EXPECT_EQ((int)PAYLOAD6_MAX, tn_app_call(v6.a, &call, &ev));
	EXPECT_EQ(1, v6.h->port.ntx);
	EXPECT_EQ(0, v4.h->stats.udp6_out + v4.h->stats.udp_out);
	tn_tx_flush(v6.h);
	tn_host_free(v6.h);
	tn_host_free(v4.h);
}

TEST_HARNESS_MAIN
