// SPDX-License-Identifier: GPL-2.0
/*
 * ip6.c - IPv6 input (RFC 8200), ICMPv6 echo and errors (RFC 4443)
 *
 * Echo replies for every size up to a full 1500-byte datagram equal
 * replies built independently (frames6.h, checksums from ref.h), with and
 * without extension headers in the request, to our addresses and to
 * all-nodes.  Every drop path is a row of a table: the frame, the one
 * counter that must move, and the parameter problem (code, pointer) that
 * must come back or not; hostile extension-header chains (too many,
 * truncated, Hop-by-Hop not first, options past their header) among
 * them.  Errors are never about errors, never to groups unless RFC 4443
 * §2.4 (e) allows, quote at most the minimum MTU and are rate-limited.
 * The helpers the transports will use (header, pseudo-header checksum,
 * on-link test, source selection) are checked against the RFCs' layouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "icmp6.h"
#include "ip6.h"
#include "harness.h"

#define MAX_PAYLOAD6	1452	/* 1500 - 40 - 8 */

static u8 ext_buf[512];

/* The reply RFC 4443 §4.2 asks for: our @src to the peer, type 129. */
static size_t expected_echo6(u8 *f, const u8 *src, size_t n, u16 seq)
{
	u8 *p = put_eth(f, peer_mac, our_mac, 0x86dd), *ip6 = p, *msg;
	size_t i;

	p = put_ip6(p, src, peer_ip6, 58, 8 + n, 64);
	msg = p;
	msg[0] = 129;
	msg[1] = 0;
	put16(msg + 4, 0x1234);
	put16(msg + 6, seq);
	for (i = 0; i < n; i++)
		msg[8 + i] = (u8)(i * 7 + seq);
	fix_icmp6_csum(ip6, msg, 8 + n);
	return 14 + 40 + 8 + n;
}

/* Exactly one frame queued, equal to @want and well formed; flushes. */
static bool tx_equals(struct tport *t, const u8 *want, size_t wlen,
		      const char *what, size_t n)
{
	const struct ixm_mbuf *m;
	const char *err;
	bool ok = true;

	if (t->port.ntx != 1) {
		ixm_diag("%s %zu: %u frames queued", what, n, t->port.ntx);
		tport_tx_flush(t);
		return false;
	}
	m = t->port.tx[0];
	if (m->len != wlen || memcmp(m->data, want, wlen)) {
		size_t i;

		for (i = 0; i < wlen && i < m->len && m->data[i] == want[i]; i++)
			;
		ixm_diag("%s %zu: length %u (want %zu), first difference at byte %zu",
			 what, n, m->len, wlen, i);
		ok = false;
	}
	err = check_tx(t->port.cfg, m);
	if (err) {
		ixm_diag("%s %zu: %s", what, n, err);
		ok = false;
	}
	tport_tx_flush(t);
	return ok;
}

static void tport6_init(struct tport *t)
{
	tport_init(t, OUR_IP);
	tport_ip6(t);
}

TEST(ip6_echo_sizes)
{
	static u8 req[2048], want[2048];
	unsigned int bad = 0;
	size_t n, len, wlen;
	struct tport t;

	tport6_init(&t);
	for (n = 0; n <= MAX_PAYLOAD6; n++) {
		len = echo6_frame(req, our_ip6, 0, NULL, 0, n, (u16)n);
		wlen = expected_echo6(want, our_ip6, n, (u16)n);
		tport_input(&t, req, len, 0);
		if (!tx_equals(&t, want, wlen, "payload", n) && ++bad > IXM_DIAG_MAX)
			break;
	}
	EXPECT_FALSE(bad) TH_LOG("ICMPv6 echo replies for 0..%d bytes are exact", MAX_PAYLOAD6);
	EXPECT_EQ(MAX_PAYLOAD6 + 1, t.stats.icmp6_echo_replies) TH_LOG("icmp6_echo_replies");
	EXPECT_EQ(1514, echo6_frame(req, our_ip6, 0, NULL, 0, MAX_PAYLOAD6, 1));

	/* to the link-local address: the reply comes from it */
	len = echo6_frame(req, our_ll6, 0, NULL, 0, 56, 7);
	wlen = expected_echo6(want, our_ll6, 56, 7);
	tport_input(&t, req, len, 0);
	EXPECT_TRUE(tx_equals(&t, want, wlen, "link-local", 56)) {
		TH_LOG("a request to fe80::/64 + EUI-64 is answered from it");
	}
	/* padded by Ethernet to 60 bytes: the reply is not */
	len = echo6_frame(req, our_ip6, 0, NULL, 0, 0, 3);
	memset(req + len, 0xa5, 64 - len);
	wlen = expected_echo6(want, our_ip6, 0, 3);
	tport_input(&t, req, 64, 0);
	EXPECT_TRUE(tx_equals(&t, want, wlen, "padded", 0)) TH_LOG("padding is not echoed");
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("every buffer back");
	tport_fini(&t);
}

/* Extension headers in the request are skipped, and not echoed. */
TEST(ip6_echo_ext)
{
	static u8 req[2048], want[2048];
	struct tport t;
	size_t len, wlen;
	u8 *e = ext_buf;

	tport6_init(&t);
	/* HbH (Router Alert, PadN), Dst (unknown 00 option), Routing SL 0, Dst */
	memcpy(e, (u8 []){ 60, 0, 5, 2, 0, 0, 1, 0 }, 8);
	memcpy(e + 8, (u8 []){ 43, 0, 0x3e, 4, 1, 2, 3, 4 }, 8);
	memcpy(e + 16, (u8 []){ 60, 2, 4, 0, 0, 0, 0, 0 }, 8);
	memset(e + 24, 0, 16);
	memcpy(e + 40, (u8 []){ 58, 0, 0, 0, 0, 0, 1, 0 }, 8);
	len = echo6_frame(req, our_ip6, 0, e, 48, 100, 5);
	wlen = expected_echo6(want, our_ip6, 100, 5);
	tport_input(&t, req, len, 0);
	EXPECT_TRUE(tx_equals(&t, want, wlen, "ext", 48)) {
		TH_LOG("HbH, Dst, Routing (segments left 0), Dst: answered without them");
	}
	/* eight Destination Options headers: the bound, still accepted */
	memset(e, 0, 64);
	for (len = 0; len < 8; len++) {
		e[len * 8] = len == 7 ? 58 : 60;
		memcpy(e + len * 8 + 2, (u8 []){ 1, 4, 0, 0, 0, 0 }, 6);
	}
	len = echo6_frame(req, our_ip6, 60, e, 64, 8, 6);
	wlen = expected_echo6(want, our_ip6, 8, 6);
	tport_input(&t, req, len, 0);
	EXPECT_TRUE(tx_equals(&t, want, wlen, "eight", 64)) {
		TH_LOG("IXM_IP6_MAX_EXTHDRS (8) headers are walked");
	}
	/* to all-nodes: answered from our global address to the peer */
	len = echo6_frame(req, all_nodes6, 0, NULL, 0, 20, 8);
	memcpy(req, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, 6);
	wlen = expected_echo6(want, our_ip6, 20, 8);
	tport_input(&t, req, len, 0);
	EXPECT_TRUE(tx_equals(&t, want, wlen, "all-nodes", 20)) {
		TH_LOG("RFC 4443 §4.2: a request to a group is answered from a unicast address");
	}
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree);
	tport_fini(&t);
}

/* A row: how to spoil the base echo request, what must happen. */
struct case6 {
	const char *name;
	u8 nh0;			/* first next header when @next */
	u8 ext[96];		/* extension headers */
	size_t next;
	size_t npay;		/* echo data bytes */
	void (*patch)(u8 *f, size_t *len);
	bool off;		/* port without IPv6 */
	enum ixm_drop_reason reason;
	int pp_code;		/* parameter problem expected: code, or -1 */
	unsigned int pp_ptr;
};

/* after a patch of the IPv6 header, the ICMPv6 checksum is right again */
static void refix(u8 *f, size_t len)
{
	fix_icmp6_csum(f + 14, f + 54, len - 54);
}

static void p_short(u8 *f, size_t *len) { *len = 14 + 39; }
static void p_version(u8 *f, size_t *len) { f[14] = 0x40; }
static void p_plen(u8 *f, size_t *len) { put16(f + 18, get16(f + 18) + 1); }
static void p_dst(u8 *f, size_t *len) { f[14 + 39] = 0x99; refix(f, *len); }
static void p_dst_group(u8 *f, size_t *len)
{
	memcpy(f + 14 + 24, all_nodes6, 16);
	f[14 + 39] = 2;			/* ff02::2, all routers */
	refix(f, *len);
}
static void p_src_mc(u8 *f, size_t *len) { memcpy(f + 22, all_nodes6, 16); refix(f, *len); }
static void p_src_lo(u8 *f, size_t *len)
{
	memset(f + 22, 0, 16);
	f[37] = 1;
	refix(f, *len);
}
static void p_src_ours(u8 *f, size_t *len) { memcpy(f + 22, our_ll6, 16); refix(f, *len); }
static void p_src_any(u8 *f, size_t *len) { memset(f + 22, 0, 16); refix(f, *len); }
static void p_nh(u8 *f, size_t *len) { f[20] = 253; }
static void p_nonxt(u8 *f, size_t *len) { f[20] = 59; }
static void p_udp(u8 *f, size_t *len) { f[20] = 17; }
static void p_tcp(u8 *f, size_t *len) { f[20] = 6; }
static void p_icmp_short(u8 *f, size_t *len)
{
	put16(f + 18, 3);
	*len = 14 + 40 + 3;
}
static void p_echo_short(u8 *f, size_t *len)
{
	put16(f + 18, 6);
	*len = 14 + 40 + 6;
	refix(f, *len);
}
static void p_csum(u8 *f, size_t *len) { f[57] ^= 1; }
static void p_type(u8 *f, size_t *len) { f[54] = 134; refix(f, *len); }
static void p_code(u8 *f, size_t *len) { f[55] = 1; refix(f, *len); }
static void p_reply(u8 *f, size_t *len) { f[54] = 129; refix(f, *len); }
static void p_error_in(u8 *f, size_t *len) { f[54] = 1; refix(f, *len); }
static void p_to_group(u8 *f, size_t *len)
{
	memcpy(f + 14 + 24, all_nodes6, 16);
	memcpy(f, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, 6);
}

static void p_nh_group(u8 *f, size_t *len)
{
	p_to_group(f, len);
	f[20] = 253;
}

static void p_cut4(u8 *f, size_t *len)
{
	put16(f + 18, 4);
	*len = 14 + 40 + 4;
}

static const struct case6 cases6[] = {
	{ "IPv6 off", .off = true, .reason = IXM_DROP_IP6_OFF, .pp_code = -1 },
	{ "39-byte header", .patch = p_short, .reason = IXM_DROP_IP6_SHORT, .pp_code = -1 },
	{ "version 4", .patch = p_version, .reason = IXM_DROP_IP6_VERSION, .pp_code = -1 },
	{ "payload length past the frame", .patch = p_plen, .reason = IXM_DROP_IP6_PLEN,
	  .pp_code = -1 },
	{ "not our address", .patch = p_dst, .reason = IXM_DROP_IP6_DST, .pp_code = -1 },
	{ "a group not ours", .patch = p_dst_group, .reason = IXM_DROP_IP6_DST, .pp_code = -1 },
	{ "source a group", .patch = p_src_mc, .reason = IXM_DROP_IP6_SRC, .pp_code = -1 },
	{ "source ::1", .patch = p_src_lo, .reason = IXM_DROP_IP6_SRC, .pp_code = -1 },
	{ "source ours", .patch = p_src_ours, .reason = IXM_DROP_IP6_SRC, .pp_code = -1 },
	{ "echo from ::", .patch = p_src_any, .reason = IXM_DROP_IP6_SRC, .pp_code = -1 },
	{ "unknown next header", .patch = p_nh, .reason = IXM_DROP_IP6_NEXTHDR,
	  .pp_code = 1, .pp_ptr = 6 },
	{ "no next header", .patch = p_nonxt, .reason = IXM_DROP_IP6_NEXTHDR, .pp_code = -1 },
	/* the echo's bytes as a UDP header: a length of 0x1234 (unit/udp6 has the rest) */
	{ "UDP", .patch = p_udp, .reason = IXM_DROP_UDP6_LEN, .pp_code = -1 },
	/* to TCP, which this harness's port has no table for (unit/tcp6 has the rest) */
	{ "TCP", .patch = p_tcp, .reason = IXM_DROP_TCP_NO_SOCK, .pp_code = -1 },
	{ "ICMPv6 of 3 bytes", .patch = p_icmp_short, .reason = IXM_DROP_ICMP6_SHORT,
	  .pp_code = -1 },
	{ "echo of 6 bytes", .patch = p_echo_short, .reason = IXM_DROP_ICMP6_SHORT,
	  .pp_code = -1 },
	{ "ICMPv6 checksum", .patch = p_csum, .reason = IXM_DROP_ICMP6_CSUM, .pp_code = -1 },
	{ "router advertisement", .patch = p_type, .reason = IXM_DROP_ICMP6_TYPE, .pp_code = -1 },
	{ "echo code 1", .patch = p_code, .reason = IXM_DROP_ICMP6_TYPE, .pp_code = -1 },
	{ "echo reply", .patch = p_reply, .reason = IXM_DROP_ICMP6_TYPE, .pp_code = -1 },
	{ "an error received", .patch = p_error_in, .reason = IXM_DROP_ICMP6_TYPE,
	  .pp_code = -1 },
	{ "fragment header", 44, { 58, 0, 0, 1, 0, 0, 0, 9 }, 8,
	  .reason = IXM_DROP_IP6_FRAG, .pp_code = -1 },
	{ "atomic fragment", 44, { 58, 0, 0, 0, 0, 0, 0, 9 }, 8,
	  .reason = IXM_DROP_IP6_FRAG, .pp_code = -1 },
	{ "hop-by-hop second", 60, { 0, 0, 1, 4, 0, 0, 0, 0, 58, 0, 1, 4, 0, 0, 0, 0 }, 16,
	  .reason = IXM_DROP_IP6_EXTHDR, .pp_code = 1, .pp_ptr = 40 },
	{ "header length past the payload", 60, { 58, 9, 1, 4 }, 8, .npay = 8,
	  .reason = IXM_DROP_IP6_EXTHDR, .pp_code = -1 },
	{ "header cut short (4 bytes left)", 60, { 58, 0, 1, 2 }, 4, .patch = p_cut4,
	  .reason = IXM_DROP_IP6_EXTHDR, .pp_code = -1 },
	{ "option past its header", 60, { 58, 0, 1, 5, 0, 0, 0, 0 }, 8,
	  .reason = IXM_DROP_IP6_EXTHDR, .pp_code = -1 },
	{ "option type byte at the very end", 60, { 58, 0, 1, 3, 0, 0, 0, 0x41 }, 8,
	  .reason = IXM_DROP_IP6_EXTHDR, .pp_code = -1 },
	{ "unknown option 01xxxxxx", 60, { 58, 0, 0x41, 4, 0, 0, 0, 0 }, 8,
	  .reason = IXM_DROP_IP6_OPT, .pp_code = -1 },
	{ "unknown option 10xxxxxx", 60, { 58, 0, 1, 0, 0x81, 2, 0, 0 }, 8,
	  .reason = IXM_DROP_IP6_OPT, .pp_code = 2, .pp_ptr = 44 },
	{ "unknown option 11xxxxxx", 0, { 58, 0, 0xc2, 4, 0, 0, 0, 0 }, 8,
	  .reason = IXM_DROP_IP6_OPT, .pp_code = 2, .pp_ptr = 42 },
	{ "unknown 10 option, to all-nodes", 60, { 58, 0, 0x81, 4, 0, 0, 0, 0 }, 8,
	  .patch = p_to_group, .reason = IXM_DROP_IP6_OPT, .pp_code = 2, .pp_ptr = 42 },
	{ "unknown 11 option, to all-nodes", 60, { 58, 0, 0xc1, 4, 0, 0, 0, 0 }, 8,
	  .patch = p_to_group, .reason = IXM_DROP_IP6_OPT, .pp_code = -1 },
	{ "unknown next header, to all-nodes", .patch = p_nh_group,
	  .reason = IXM_DROP_IP6_NEXTHDR, .pp_code = -1 },
	{ "routing header, segments left 1", 43, { 58, 2, 4, 1 }, 24,
	  .reason = IXM_DROP_IP6_RTHDR, .pp_code = 0, .pp_ptr = 42 },
	{ "ESP", 50, { 0 }, 8, .reason = IXM_DROP_IP6_NEXTHDR, .pp_code = 1, .pp_ptr = 6 },
	{ "unknown next header after options", 60, { 253, 0, 1, 4, 0, 0, 0, 0 }, 8,
	  .reason = IXM_DROP_IP6_NEXTHDR, .pp_code = 1, .pp_ptr = 40 },
};

/* Every counter but @reason unmoved, @reason by one. */
static bool only_dropped(const struct tport *t, enum ixm_drop_reason reason,
			 const char *name)
{
	unsigned int r;
	bool ok = true;

	for (r = 0; r < IXM_DROP_MAX; r++) {
		if (t->stats.drops[r] != (r == reason)) {
			ixm_diag("%s: %s moved by %llu", name, ixm_drop_names[r],
				 (unsigned long long)t->stats.drops[r]);
			ok = false;
		}
	}
	return ok;
}

/* The parameter problem (RFC 4443 §3.4) for the datagram @f quoted. */
static bool pp_matches(struct tport *t, const u8 *f, size_t len, int code,
		       unsigned int ptr, const char *name)
{
	const struct ixm_mbuf *m;
	const char *err;
	size_t q;
	bool ok;

	if (code < 0) {
		ok = !t->port.ntx;
		if (!ok)
			ixm_diag("%s: %u frames sent, none expected", name, t->port.ntx);
		tport_tx_flush(t);
		return ok;
	}
	if (t->port.ntx != 1) {
		ixm_diag("%s: %u frames sent, one parameter problem expected", name,
			 t->port.ntx);
		tport_tx_flush(t);
		return false;
	}
	m = t->port.tx[0];
	q = len - 14 > 1232 ? 1232 : len - 14;
	err = check_tx(t->port.cfg, m);
	ok = !err && m->len == 14 + 40 + 8 + q && !memcmp(m->data, f + 6, 6) &&
	     m->data[54] == 4 && m->data[55] == code && get32(m->data + 58) == ptr &&
	     !memcmp(m->data + 62, f + 14, q) && !memcmp(m->data + 14 + 24, f + 22, 16) &&
	     m->data[21] == 64;
	if (!ok)
		ixm_diag("%s: parameter problem wrong (%s; len %u, code %u, ptr %u)", name,
			 err ? err : "layout", m->len, m->data[55], get32(m->data + 58));
	tport_tx_flush(t);
	return ok;
}

TEST(ip6_drops)
{
	static u8 f[2048];
	unsigned int i, bad = 0;
	struct tport t;
	size_t len;

	for (i = 0; i < ARRAY_SIZE(cases6); i++) {
		const struct case6 *c = &cases6[i];

		tport_init(&t, OUR_IP);
		if (!c->off)
			tport_ip6(&t);
		len = echo6_frame(f, our_ip6, c->nh0, c->ext, c->next,
				  c->next ? c->npay : 16, 1);
		if (c->patch)
			c->patch(f, &len);
		tport_input(&t, f, len, 0);
		if (!only_dropped(&t, c->reason, c->name) ||
		    !pp_matches(&t, f, len < 14 + 40 ? 54 : 14 + 40 + get16(f + 18),
				c->pp_code, c->pp_ptr, c->name))
			bad++;
		if (t.pool.nfree != TPORT_BUFS) {
			ixm_diag("%s: a buffer leaked", c->name);
			bad++;
		}
		tport_fini(&t);
	}
	EXPECT_EQ(0, bad) TH_LOG("each of %zu hostile datagrams: one counter, the right answer",
				 ARRAY_SIZE(cases6));
}

/* RFC 4443 §2.4 (e): no error about an error, or to a non-unique source. */
TEST(ip6_error_rules)
{
	static u8 f[2048];
	struct tport t;
	size_t len;
	u8 *e = ext_buf;

	tport6_init(&t);
	/* an ICMPv6 error behind an option of type 10: no answer */
	memcpy(e, (u8 []){ 58, 0, 0x81, 4, 0, 0, 0, 0 }, 8);
	len = echo6_frame(f, our_ip6, 60, e, 8, 16, 1);
	f[62] = 1;
	fix_icmp6_csum(f + 14, f + 62, len - 62);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_IP6_OPT]);
	EXPECT_EQ(0, t.port.ntx) TH_LOG("(e.1) never an error about an ICMPv6 error");
	/* a Redirect likewise (e.2) */
	f[62] = 137;
	fix_icmp6_csum(f + 14, f + 62, len - 62);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(0, t.port.ntx) TH_LOG("(e.2) never an error about a Redirect");
	/* an echo request behind it is answered with the problem */
	f[62] = 128;
	fix_icmp6_csum(f + 14, f + 62, len - 62);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.port.ntx) TH_LOG("an echo request behind it gets one");
	tport_tx_flush(&t);
	/* from :: nothing, whatever the problem */
	len = echo6_frame(f, our_ip6, 0, NULL, 0, 8, 1);
	memset(f + 22, 0, 16);
	f[20] = 253;
	tport_input(&t, f, len, 0);
	EXPECT_EQ(0, t.port.ntx) TH_LOG("(e.6) never to ::");
	/* a datagram to our unicast address but sent to an Ethernet group */
	len = echo6_frame(f, our_ip6, 0, NULL, 0, 8, 1);
	f[20] = 253;
	memcpy(f, (u8 []){ 0x33, 0x33, 0, 0, 0, 1 }, 6);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(0, t.port.ntx) TH_LOG("(e.4) never about a frame sent to a link-layer group");
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree);
	tport_fini(&t);
}

/* RFC 4443 §2.4 (c) and (f): the minimum MTU and the rate limit. */
TEST(ip6_error_limits)
{
	static u8 f[2048];
	unsigned int i;
	struct tport t;
	size_t len;

	tport6_init(&t);
	t.port.now_ns = 5000000000ULL;
	len = echo6_frame(f, our_ip6, 0, NULL, 0, MAX_PAYLOAD6, 1);
	f[20] = 253;
	tport_input(&t, f, len, 0);
	ASSERT_EQ(1, t.port.ntx);
	EXPECT_EQ(14 + 1280, t.port.tx[0]->len) {
		TH_LOG("a 1500-byte datagram is quoted up to a 1280-byte error");
	}
	EXPECT_TRUE(!check_tx(t.port.cfg, t.port.tx[0])) TH_LOG("and well formed");
	tport_tx_flush(&t);
	for (i = 0; i < 100; i++) {
		tport_input(&t, f, len, 0);
		tport_tx_flush(&t);
	}
	EXPECT_EQ(IXM_ICMP6_ERR_BURST, t.stats.icmp6_errors_out) {
		TH_LOG("a burst of %d errors at one instant, no more", IXM_ICMP6_ERR_BURST);
	}
	EXPECT_EQ(101 - IXM_ICMP6_ERR_BURST, t.stats.icmp6_errors_ratelimited);
	t.port.now_ns += IXM_ICMP6_ERR_NS;
	tport_input(&t, f, len, 0);
	tport_input(&t, f, len, 0);
	EXPECT_EQ(1, t.port.ntx) TH_LOG("one more after IXM_ICMP6_ERR_NS");
	tport_tx_flush(&t);
	t.port.now_ns += 100 * IXM_ICMP6_ERR_NS;
	for (i = 0; i < 50; i++) {
		tport_input(&t, f, len, 0);
		tport_tx_flush(&t);
	}
	EXPECT_EQ(2 * IXM_ICMP6_ERR_BURST + 1, t.stats.icmp6_errors_out) {
		TH_LOG("an idle second refills the burst, never more than it");
	}
	EXPECT_EQ(153, t.stats.drops[IXM_DROP_IP6_NEXTHDR]) TH_LOG("each counted as dropped");
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree);
	tport_fini(&t);
}

/* Frames to our groups are taken, to others' groups not; none when off. */
TEST(ip6_eth_groups)
{
	struct ixm_if_config c = { 0 };
	static const struct {
		u8 mac[6];
		bool ours;
	} v[] = {
		{ { 0x33, 0x33, 0, 0, 0, 1 }, true },		/* ff02::1 */
		{ { 0x33, 0x33, 0xff, 0, 0, 1 }, true },	/* ours, global */
		{ { 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 }, true },
		{ { 0x33, 0x33, 0, 0, 0, 2 }, false },		/* all routers */
		{ { 0x33, 0x33, 0, 0, 0, 0x16 }, false },	/* MLDv2 */
		{ { 0x33, 0x33, 0xff, 0, 0, 2 }, false },
		{ { 0x01, 0x00, 0x5e, 0, 0, 1 }, false },	/* IPv4 224.0.0.1 */
	};
	unsigned int i, bad = 0;

	memcpy(c.ip6.s6, our_ip6, 16);
	memcpy(c.ll6.s6, our_ll6, 16);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		bad += ixm_ip6_eth_mc_is_ours(&c, v[i].mac);
	EXPECT_EQ(0, bad) TH_LOG("IPv6 off: no group frame taken");
	c.ip6_prefix = 64;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		bad += ixm_ip6_eth_mc_is_ours(&c, v[i].mac) != v[i].ours;
	c.ll6.s6[15] = 0x42;	/* the link-local group differs now */
	bad += !ixm_ip6_eth_mc_is_ours(&c, (u8 []){ 0x33, 0x33, 0xff, 0, 0, 0x42 });
	EXPECT_EQ(0, bad) TH_LOG("all-nodes and both solicited-node groups, nothing else");
}

TEST(ip6_helpers)
{
	struct ixm_in6_addr a, b, ll;
	unsigned long long seed = 39;
	static u8 seg[1600];
	struct ixm_if_config c = { 0 };
	u8 want[40], got[41];
	unsigned int i, bad = 0;
	size_t n;

	/* ixm_ip6_build_header() against RFC 8200 §3 laid out by hand */
	memcpy(a.s6, our_ip6, 16);
	memcpy(b.s6, peer_ip6, 16);
	put_ip6(want, our_ip6, peer_ip6, 17, 1000, 64);
	memset(got, 0xee, sizeof(got));
	ixm_ip6_build_header((struct ixm_ip6hdr *)(got + 1), &a, &b, 17, 1000, 64);
	EXPECT_EQ(0, memcmp(got + 1, want, 40)) TH_LOG("the header matches RFC 8200 §3");
	EXPECT_EQ(40, sizeof(struct ixm_ip6hdr));
	ixm_ip6_set_flow((struct ixm_ip6hdr *)(got + 1), 0xb8, 0x12345);
	EXPECT_EQ(0x6b812345, get32(got + 1)) TH_LOG("traffic class and flow label");

	/* the pseudo-header sum (RFC 8200 §8.1) against ref.h's, odd lengths too */
	for (i = 0; i < 200; i++) {
		n = 8 + ref_rand(&seed) % (sizeof(seg) - 8);
		ref_rand_fill(&seed, a.s6, 16);
		ref_rand_fill(&seed, b.s6, 16);
		ref_rand_fill(&seed, seg, n);
		seg[6] = seg[7] = 0;
		put16(seg + 6, ref_l4_csum6(a.s6, b.s6, 6, seg, n));
		if (ixm_csum_fold(ixm_csum_pseudo6(&a, &b, 6, (u32)n,
						   ixm_csum_partial(seg, n, 0))))
			bad++;
	}
	EXPECT_EQ(0, bad) TH_LOG("ixm_csum_pseudo6() verifies 200 random segments");

	/* RFC 4291 Appendix A: 02:00:5e:00:00:01 -> fe80::5eff:fe00:1 */
	ixm_ip6_linklocal_from_mac(our_mac, &ll);
	EXPECT_EQ(0, memcmp(ll.s6, our_ll6, 16)) TH_LOG("modified EUI-64 link-local");
	ixm_ip6_solicited_node(&a, &b);
	EXPECT_EQ(0, memcmp(b.s6, (u8 []){ 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff }, 13));
	EXPECT_EQ(0, memcmp(b.s6 + 13, a.s6 + 13, 3)) TH_LOG("solicited-node group");

	/* on-link and source selection */
	memcpy(c.ip6.s6, our_ip6, 16);
	memcpy(c.ll6.s6, our_ll6, 16);
	c.ip6_prefix = 64;
	memcpy(a.s6, peer_ip6, 16);
	a.s6[8] = 0xff;
	EXPECT_TRUE(ixm_ip6_onlink(&c, &a)) TH_LOG("/64: same first 64 bits");
	a.s6[7] = 1;
	EXPECT_FALSE(ixm_ip6_onlink(&c, &a)) TH_LOG("/64: bit 63 differs");
	c.ip6_prefix = 60;
	a.s6[7] = 0x0f;
	EXPECT_TRUE(ixm_ip6_onlink(&c, &a)) TH_LOG("/60: bits 60-63 free");
	a.s6[7] = 0x10;
	EXPECT_FALSE(ixm_ip6_onlink(&c, &a)) TH_LOG("/60: bit 59 differs");
	c.ip6_prefix = 128;
	EXPECT_FALSE(ixm_ip6_onlink(&c, &a));
	EXPECT_TRUE(ixm_ip6_onlink(&c, &c.ip6)) TH_LOG("/128: only itself");
	EXPECT_TRUE(ixm_ip6_onlink(&c, &c.ll6)) TH_LOG("link-local always");
	EXPECT_TRUE(ixm_ip6_src_for(&c, &c.ll6) == &c.ll6);
	EXPECT_TRUE(ixm_ip6_src_for(&c, &ixm_ip6_all_nodes) == &c.ll6);
	EXPECT_TRUE(ixm_ip6_src_for(&c, &a) == &c.ip6) TH_LOG("RFC 6724 rule 2 by scope");
}

TEST_HARNESS_MAIN
