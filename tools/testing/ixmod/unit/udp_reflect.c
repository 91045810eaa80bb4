// SPDX-License-Identifier: GPL-2.0
/*
 * udp_reflect.c - a port's udp_reflect (benchmarks only): every UDP
 * datagram to the port's address goes back with its addresses and ports
 * swapped, checksums untouched and still valid; nothing else is reflected,
 * and without the flag nothing is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "harness.h"

/* A UDP datagram of @n pattern bytes, @sport -> @dport, with its checksum. */
static size_t udp_frame(u8 *f, const u8 *dst_mac, const u8 *src_mac, u32 src, u32 dst,
			u16 sport, u16 dport, size_t n)
{
	struct iph_args a = {
		.id = 0x4242, .frag = 0x4000, .ttl = 64, .proto = 17, .src = src, .dst = dst,
	};
	u8 *p = f, *uh;
	size_t i;

	p = putmac(p, dst_mac);
	p = putmac(p, src_mac);
	p = put16(p, 0x0800);
	uh = put_ip(p, &a, 8 + n);
	p = put16(uh, sport);
	p = put16(p, dport);
	p = put16(p, 8 + n);
	p = put16(p, 0);
	for (i = 0; i < n; i++)
		*p++ = (u8)(i * 7 + 1);
	put16(uh + 6, ref_l4_csum(src, dst, 17, uh, 8 + n));
	return p - f;
}

TEST(udp_reflect_swaps_and_keeps_checksums)
{
	static u8 in[2048], want[2048];
	unsigned int bad = 0;
	struct tport t;
	size_t n, len;

	tport_init(&t, OUR_IP);
	t.cfg.flags = IXM_IFF_UDP_REFLECT;
	for (n = 0; n <= 1472; n += 61) {
		const struct ixm_mbuf *m;

		len = udp_frame(in, our_mac, peer_mac, PEER_IP, OUR_IP, 40000, 7, n);
		udp_frame(want, peer_mac, our_mac, OUR_IP, PEER_IP, 7, 40000, n);
		tport_input(&t, in, len, 0);
		if (t.port.ntx != 1) {
			ixm_diag("%zu bytes: %u frames queued", n, t.port.ntx);
			bad++;
			tport_tx_flush(&t);
			continue;
		}
		m = t.port.tx[0];
		/* the IP ID, TTL and checksums are the request's: compare all */
		if (m->len != len || memcmp(m->data, want, len) ||
		    ref_csum(m->data + 14, 20) || m->flags) {
			ixm_diag("%zu bytes: the reflected frame differs (length %u)", n, m->len);
			bad++;
		}
		tport_tx_flush(&t);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(25, t.stats.udp_in);
	EXPECT_EQ(25, t.stats.udp_out) {
		TH_LOG("udp_reflect: each datagram back, addresses and ports swapped, checksums valid");
	}
	tport_fini(&t);
}

TEST(udp_reflect_only_when_asked)
{
	static u8 in[2048];
	struct tport t;
	size_t len;

	tport_init(&t, OUR_IP);
	len = udp_frame(in, our_mac, peer_mac, PEER_IP, OUR_IP, 40000, 7, 64);
	tport_input(&t, in, len, 0);
	EXPECT_EQ(0, t.port.ntx);
	EXPECT_EQ(1, t.stats.drops[IXM_DROP_UDP_NO_SOCK]) {
		TH_LOG("without udp_reflect a datagram for no socket is dropped");
	}
	/* a broadcast is not ours to send back, even reflecting */
	t.cfg.flags = IXM_IFF_UDP_REFLECT;
	len = udp_frame(in, our_mac, peer_mac, PEER_IP, 0xc00002ffu, 40000, 7, 64);
	tport_input(&t, in, len, 0);
	EXPECT_EQ(0, t.port.ntx) TH_LOG("udp_reflect: a broadcast is not reflected");
	tport_fini(&t);
}

/* The UDP checksum field as a local sender leaves it (virtio NEEDS_CSUM). */
static void make_partial(u8 *f)
{
	u8 ph[12];

	memcpy(ph, f + 26, 8);	/* source and destination addresses */
	ph[8] = 0;
	ph[9] = 17;
	memcpy(ph + 10, f + 38, 2);	/* the UDP length */
	put16(f + 40, ref_csum_sum(ph, sizeof(ph)));
}

TEST(udp_reflect_completes_a_partial_checksum)
{
	static u8 in[2048], want[2048];
	struct tport t;
	const struct ixm_mbuf *m;
	const u16 partial = IXM_MBUF_F_L4_CSUM_OK | IXM_MBUF_F_L4_CSUM_PARTIAL;
	size_t len;

	tport_init(&t, OUR_IP);
	t.cfg.flags = IXM_IFF_UDP_REFLECT;
	len = udp_frame(in, our_mac, peer_mac, PEER_IP, OUR_IP, 40000, 7, 301);
	udp_frame(want, peer_mac, our_mac, OUR_IP, PEER_IP, 7, 40000, 301);
	make_partial(in);

	/* a port whose NIC inserts no checksum: completed in software */
	tport_input(&t, in, len, partial);
	ASSERT_EQ(1, t.port.ntx);
	m = t.port.tx[0];
	EXPECT_EQ(0, m->flags);
	EXPECT_EQ(0, memcmp(m->data, want, len)) {
		TH_LOG("no offload: the reflected datagram carries its whole, valid checksum");
	}
	tport_tx_flush(&t);

	/* a port whose NIC inserts them: left to it, as mbuf.h asks */
	t.port.tx_offload = IXM_TXO_CSUM;
	memcpy(want, in, len);
	make_partial(want);
	tport_input(&t, in, len, partial);
	ASSERT_EQ(1, t.port.ntx);
	m = t.port.tx[0];
	EXPECT_EQ(IXM_MBUF_F_TX_UDP_CSUM, m->flags) TH_LOG("offload: the NIC completes it");
	EXPECT_EQ(0, get16(m->data + 24)) TH_LOG("with the IPv4 header's left 0");
	EXPECT_EQ(get16(want + 40), get16(m->data + 40)) {
		TH_LOG("the pseudo-header's sum, unchanged by the swap");
	}
	tport_tx_flush(&t);
	EXPECT_EQ(2, t.stats.udp_out);
	tport_fini(&t);
}

TEST(udp_reflect_counts_only_what_it_queues)
{
	static u8 in[2048];
	struct tport t;
	unsigned int i;
	size_t len;

	tport_init(&t, OUR_IP);
	t.cfg.flags = IXM_IFF_UDP_REFLECT;
	len = udp_frame(in, our_mac, peer_mac, PEER_IP, OUR_IP, 40000, 7, 64);
	tport_input(&t, in, len, 0);
	EXPECT_EQ(1, t.stats.udp_out);
	tport_tx_flush(&t);
	/* the batch full (its entries never read: the count is reset below) */
	t.port.ntx = IXM_TX_BATCH;
	for (i = 0; i < 3; i++)
		tport_input(&t, in, len, 0);
	t.port.ntx = 0;
	EXPECT_EQ(4, t.stats.udp_in);
	EXPECT_EQ(1, t.stats.udp_out);
	EXPECT_EQ(3, t.stats.drops[IXM_DROP_TX_FULL]) {
		TH_LOG("a full transmit batch: dropped as tx_full, not counted as sent");
	}
	EXPECT_EQ(TPORT_BUFS, t.pool.nfree) TH_LOG("the dropped frames' buffers are back");
	tport_fini(&t);
}

TEST_HARNESS_MAIN
