// SPDX-License-Identifier: GPL-2.0
/*
 * icmp.c - echo replies (RFC 792), byte for byte
 *
 * For every payload size from 0 to 1472 bytes (ping -s 0 .. -s 1472, the
 * largest that fits a 1500-byte MTU), the reply ixmod writes over the
 * request must equal a reply built independently from the RFC's layout,
 * and its IP and ICMP checksums must verify.  Also: requests padded by
 * Ethernet, requests with IP options, checksums that fold to the edge
 * cases of RFC 1624, and a full TX batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"

#define MAX_PAYLOAD	1472

/* The reply RFC 792 asks for, from the request's fields. */
static size_t expected_reply(u8 *f, size_t n, u16 seq, u16 ip_id, u8 tos)
{
	struct iph_args a = {
		.tos = tos, .id = ip_id, .frag = 0x4000, .ttl = 64, .proto = 1,
		.src = OUR_IP, .dst = PEER_IP,
	};

	return echo_frame(f, peer_mac, our_mac, &a, 0, n, seq);
}

/* Take the one frame queued for TX, compare, and give it back. */
static bool reply_matches(struct tport *t, const u8 *want, size_t wlen,
			  const char *what, size_t n)
{
	const struct ixm_mbuf *m;
	bool ok = true;
	const char *err;

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
	if (ref_csum(m->data + 14, 20) || ref_csum(m->data + 34, m->len - 34u)) {
		ixm_diag("%s %zu: a checksum does not verify", what, n);
		ok = false;
	}
	err = check_tx(t->port.cfg, m);
	if (err) {
		ixm_diag("%s %zu: %s", what, n, err);
		ok = false;
	}
	if (m->flags) {
		ixm_diag("%s %zu: receive flags left on the reply", what, n);
		ok = false;
	}
	tport_tx_flush(t);
	return ok;
}

TEST(icmp_sizes)
{
	static u8 req[2048], want[2048];
	unsigned int bad = 0;
	size_t n, len, wlen;
	struct tport t;

	tport_init(&t, OUR_IP);
	for (n = 0; n <= MAX_PAYLOAD; n++) {
		len = echo_request(req, n, (u16)n);
		wlen = expected_reply(want, n, (u16)n, 0xbeef, 0);
		tport_input(&t, req, len, 0);
		if (!reply_matches(&t, want, wlen, "payload", n) && ++bad > IXM_DIAG_MAX)
			break;
	}
	EXPECT_FALSE(bad) TH_LOG("echo replies for payloads of 0..%d bytes are exact", MAX_PAYLOAD);
	EXPECT_EQ(MAX_PAYLOAD + 1, t.stats.icmp_echo_replies) {
		TH_LOG("icmp_echo_replies counted each");
	}
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("every buffer back in the pool");
	len = echo_request(req, MAX_PAYLOAD, 1);
	EXPECT_EQ(1514, len) TH_LOG("the largest request is a full 1514-byte frame");
	tport_fini(&t);
}

/* Ethernet padding (RFC 894) is not echoed: the reply is trimmed. */
TEST(icmp_padded)
{
	static u8 req[2048], want[2048];
	struct tport t;
	size_t len, wlen;

	tport_init(&t, OUR_IP);
	len = echo_request(req, 4, 9);	/* 14 + 20 + 12 = 46 bytes */
	memset(req + len, 0xa5, 60 - len);
	wlen = expected_reply(want, 4, 9, 0xbeef, 0);
	tport_input(&t, req, 60, 0);
	EXPECT_TRUE(reply_matches(&t, want, wlen, "padded", 4)) {
		TH_LOG("a padded 60-byte request gets the exact 46-byte reply");
	}
	tport_fini(&t);
}

/* RFC 1624: every sequence number, so some replies' checksums are 0x0000. */
TEST(icmp_checksum_edges)
{
	static u8 req[2048], want[2048];
	unsigned int seq, bad = 0, seen0 = 0;
	struct tport t;
	size_t len, wlen;

	tport_init(&t, OUR_IP);
	for (seq = 0; seq < 0x10000; seq++) {
		len = echo_request(req, 2, (u16)seq);
		wlen = expected_reply(want, 2, (u16)seq, 0xbeef, 0);
		seen0 += want[36] == 0 && want[37] == 0;
		tport_input(&t, req, len, 0);
		if (!reply_matches(&t, want, wlen, "seq", seq) && ++bad > IXM_DIAG_MAX)
			break;
	}
	/* RFC 1624 §3: eqn 2 would give 0xffff where 0x0000 is right */
	EXPECT_EQ(0, bad);
	EXPECT_NE(0, seen0) {
		TH_LOG("all 65536 sequence numbers, replies with checksum 0x0000 (%u) included",
		       seen0);
	}
	tport_fini(&t);
}

/*
 * RFC 1624 §3's exception: identifier, sequence and data all zero make
 * an all-zero reply, whose checksum must be 0xffff, not 0x0000.
 */
TEST(icmp_all_zero_reply)
{
	static u8 req[2048];
	struct tport t;
	u8 *p;

	tport_init(&t, OUR_IP);
	p = put_eth(req, our_mac, peer_mac, 0x0800);
	p = put_ip(p, &(struct iph_args){ .id = 1, .ttl = 64, .proto = 1,
					  .src = PEER_IP, .dst = OUR_IP }, 8);
	put_icmp_echo(p, 8, 0, 0, 0, NULL, 0);
	tport_input(&t, req, 42, 0);
	ASSERT_EQ(1, t.port.ntx);
	ASSERT_EQ(0xff, t.port.tx[0]->data[36]);
	ASSERT_EQ(0xff, t.port.tx[0]->data[37]);
	EXPECT_FALSE(ref_csum(t.port.tx[0]->data + 34, 8)) {
		TH_LOG("all-zero echo reply carries checksum 0xffff");
	}
	tport_fini(&t);
}

/* IP options are dropped from the reply (icmp.c says why). */
TEST(icmp_options)
{
	static u8 req[2048], want[2048], data[16];
	struct tport t;
	size_t wlen, i;
	u8 *p;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + 5);
	tport_init(&t, OUR_IP);
	p = put_eth(req, our_mac, peer_mac, 0x0800);
	/* IHL 6: a 20-byte header, then NOP NOP NOP EOL */
	put_ip(p, &(struct iph_args){ .id = 0xbeef, .frag = 0x4000, .ttl = 5,
				      .proto = 1, .src = PEER_IP, .dst = OUR_IP }, 0);
	p[0] = 0x46;
	put16(p + 2, 24 + 8 + sizeof(data));
	memcpy(p + 20, (u8 []){ 1, 1, 1, 0 }, 4);
	fix_ip_csum(p, 24);
	put_icmp_echo(p + 24, 8, 0, 0x1234, 5, data, sizeof(data));
	wlen = expected_reply(want, sizeof(data), 5, 0xbeef, 0);
	tport_input(&t, req, 14 + 24 + 8 + sizeof(data), 0);
	EXPECT_TRUE(reply_matches(&t, want, wlen, "options", 4)) {
		TH_LOG("a request with IP options gets a reply without them");
	}
	tport_fini(&t);
}

/* A full TX batch drops the reply as tx_full and leaks nothing. */
TEST(icmp_tx_full)
{
	static u8 req[2048];
	struct ixm_mbuf dummy = { 0 };
	struct ixm_mbuf_pool dpool = { 0 };
	struct ixm_mbuf *slot[1];
	struct tport t;
	unsigned int i;
	size_t len;

	tport_init(&t, OUR_IP);
	ixm_mbuf_pool_init(&dpool, &dummy, slot, 1);
	dpool.nfree = 0;
	for (i = 0; i < IXM_TX_BATCH; i++)
		t.port.tx[i] = &dummy;
	t.port.ntx = IXM_TX_BATCH;
	len = echo_request(req, 10, 1);
	tport_input(&t, req, len, 0);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_TX_FULL]) TH_LOG("full TX batch: counted as tx_full");
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("full TX batch: the buffer is back");
	t.port.ntx = 0;
	tport_fini(&t);
}

TEST_HARNESS_MAIN
